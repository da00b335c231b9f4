// Every port the core asks the world for, in one place. Adapters implement these; the core
// never imports an adapter. Each method's comment is its contract, and the Store contract suite in
// @vellum/testing asserts exactly what is written here against every Store adapter.

import type { CustomDomain } from './custom-domains/model.ts';
import type { DidRecord } from './dids/model.ts';
import type { KeyAlgorithm, ManagedKey, StoredKey } from './keys/model.ts';
import type { AnalyticEvent, EventFilter } from './events/model.ts';
import type { PageRequest, Slice } from './shared/pagination.ts';
import type { AdminClient, LoggingLevel, Tenant } from './tenancy/model.ts';

export interface TenantRepository {
  /** Adds a tenant. Throws DomainError `Conflict` when the subdomain is taken. */
  insert(tenant: Tenant): Promise<void>;
  findById(id: string): Promise<Tenant | undefined>;
  findBySubdomain(subdomain: string): Promise<Tenant | undefined>;
  /** All tenants in creation order (an operator view, not tenant-scoped). */
  list(page: PageRequest): Promise<Slice<Tenant>>;
  /** Returns false when there is no such tenant. */
  setLoggingLevel(id: string, level: LoggingLevel): Promise<boolean>;
}

export interface ClientRepository {
  /** Adds an admin client. Throws DomainError `Conflict` when the client id exists. */
  insert(client: AdminClient): Promise<void>;
  /** Client ids are global, so token requests can find the client before the tenant. */
  findByClientId(clientId: string): Promise<AdminClient | undefined>;
  list(tenantId: string, page: PageRequest): Promise<Slice<AdminClient>>;
}

export interface CustomDomainRepository {
  get(tenantId: string): Promise<CustomDomain | undefined>;
  /** Throws DomainError `Conflict` when the tenant already has a custom domain. */
  insert(domain: CustomDomain): Promise<void>;
  /** Replaces the tenant's custom domain. Returns false when it has none. */
  update(domain: CustomDomain): Promise<boolean>;
  /** Returns false when the tenant has none. */
  delete(tenantId: string): Promise<boolean>;
  /**
   * Marks the tenant's domain verified. Throws DomainError `Conflict` when another tenant has
   * verified the same domain (only one tenant may ever own a verified name). False when none exists.
   */
  markVerified(tenantId: string, verifiedAt: string): Promise<boolean>;
  /** The verified custom domain with this host name, whoever owns it: used to route requests. */
  findVerified(domain: string): Promise<CustomDomain | undefined>;
}

export interface EventRepository {
  insertMany(events: readonly AnalyticEvent[]): Promise<void>;
  /** The tenant's events matching the filter, newest first; `after` pages towards older ones. */
  list(tenantId: string, filter: EventFilter, page: PageRequest): Promise<Slice<AnalyticEvent>>;
}

/** A key of the platform itself (not of a tenant), kept only in encrypted form. */
export interface PlatformKeyRecord {
  name: string;
  /** Encrypted key material; opaque to the store. */
  sealed: string;
  createdAt: string;
}

export interface PlatformKeyRepository {
  get(name: string): Promise<PlatformKeyRecord | undefined>;
  /** Stores the record unless one with that name exists; returns whichever is stored, so racing servers agree. */
  insertIfAbsent(record: PlatformKeyRecord): Promise<PlatformKeyRecord>;
}

export interface KeyRepository {
  /** Throws DomainError `Conflict` when the id exists. */
  insert(key: StoredKey): Promise<void>;
  get(tenantId: string, id: string): Promise<StoredKey | undefined>;
  /** Removes the key for good. Returns false when the tenant has no such key. */
  delete(tenantId: string, id: string): Promise<boolean>;
}

/** Which DIDs a tenant holds, without their keys. */
export interface DidStamp {
  did: string;
  /** Opaque; differs between a DID and the same DID deleted and created again. */
  revision: string;
}

export interface DidRepository {
  /** Throws DomainError `Conflict` when the tenant already holds this DID. */
  insert(record: DidRecord): Promise<void>;
  get(tenantId: string, did: string): Promise<DidRecord | undefined>;
  /** The tenant's DIDs in creation order. */
  list(tenantId: string, page: PageRequest): Promise<Slice<DidRecord>>;
  /**
   * Every DID of the tenant in creation order, as stamps only: a cheap read for hot public
   * endpoints, to learn whether any DID has come, gone or been created again since a full read.
   */
  listStamps(tenantId: string): Promise<DidStamp[]>;
  /** Returns false when the tenant has no such DID. */
  delete(tenantId: string, did: string): Promise<boolean>;
}

export interface Repositories {
  tenants: TenantRepository;
  keys: KeyRepository;
  dids: DidRepository;
  clients: ClientRepository;
  customDomains: CustomDomainRepository;
  events: EventRepository;
  platformKeys: PlatformKeyRepository;
}

/** Persistence. Repositories used directly run on their own; `transaction` makes several atomic. */
export interface Store extends Repositories {
  /**
   * Runs `work` atomically: every write inside commits together or not at all (it rolls back on
   * throw). A Conflict thrown by a write inside ends the transaction on PostgreSQL: let it propagate
   * rather than catching it and writing on.
   */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Resolves when the store can serve queries (readiness); throws otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Tenants' signing keys. Private keys are created, kept and used inside the adapter and never
 * leave it; callers see ids and public JWKs.
 */
export interface KeyManager {
  create(tenantId: string, algorithm: KeyAlgorithm): Promise<ManagedKey>;
  get(tenantId: string, id: string): Promise<ManagedKey | undefined>;
  /**
   * Signs `data`: EdDSA for Ed25519 (64 bytes), ECDSA with SHA-256 for P-256 in the IEEE P1363
   * form JWS and COSE use (r‖s, 64 bytes). Throws DomainError `NotFound` for a destroyed or unknown key.
   */
  sign(tenantId: string, id: string, data: Uint8Array): Promise<Uint8Array>;
  /** Destroys the private key: it can never sign again. False when there is no such key. */
  destroy(tenantId: string, id: string): Promise<boolean>;
}

/** The Linked Data proof suites Vellum signs with. */
export type LinkedDataProofType = 'Ed25519Signature2018' | 'JsonWebSignature2020';

/** A Linked Data proof with a detached JWS (the 2018 and 2020 JWS-based suites). */
export interface LinkedDataProof {
  type: LinkedDataProofType;
  created: string;
  verificationMethod: string;
  proofPurpose: string;
  jws: string;
}

export interface LinkedDataSignInput {
  tenantId: string;
  /** The KeyManager id of the signing key. */
  keyId: string;
  type: LinkedDataProofType;
  /** The DID URL of the key, as the proof names it. */
  verificationMethod: string;
  proofPurpose: 'assertionMethod' | 'authentication';
  /** An xsd:dateTime, e.g. `2026-05-01T12:00:00Z`. */
  created: string;
  /** A JSON-LD document without a proof; every context it names must be one the signer bundles. */
  document: Record<string, unknown>;
}

/**
 * Signs JSON-LD documents with Linked Data proofs: URDNA2015 canonicalisation of the proof options
 * and of the document, then a detached JWS made inside the KeyManager. Contexts come from the
 * signer's own bundle; it never fetches one. Throws DomainError `NotFound` when the key is destroyed
 * or unknown; an unknown context or a term no context defines is a plain Error (a bug of the caller).
 */
export interface LinkedDataSigner {
  /** Returns the document with its `proof`. */
  sign(input: LinkedDataSignInput): Promise<Record<string, unknown> & { proof: LinkedDataProof }>;
}

export interface Clock {
  now(): Date;
}

export interface Ids {
  /** A random UUID (v4). */
  uuid(): string;
  /** A random URL-safe token carrying at least `bytes` bytes of entropy (default 32). */
  token(bytes?: number): string;
}

/** Slow, salted hashing of client secrets. */
export interface SecretHasher {
  hash(secret: string): Promise<string>;
  /**
   * Constant-time check; false for any malformed hash. A malformed or unknown hash must cost about
   * as much as a real check, so callers can verify against a dummy and not reveal which ids exist.
   */
  verify(secret: string, hash: string): Promise<boolean>;
}

/** Signs and verifies JWTs with the platform key (admin access tokens). */
export interface TokenSigner {
  sign(claims: Record<string, unknown>, options: { subject: string; audience: string; expiresInSeconds: number }): Promise<string>;
  /** The verified claims, or undefined for a bad signature, a malformed token or an expired one. */
  verify(token: string): Promise<Record<string, unknown> | undefined>;
}

export type TxtLookup =
  | { status: 'found'; records: string[] }
  | { status: 'none' }
  /** `reason` is short and safe to show the tenant: it names no server or internal detail. */
  | { status: 'failed'; reason: string };

/** DNS for custom domain verification. Each TXT record's strings are joined into one. */
export interface DnsResolver {
  resolveTxt(name: string): Promise<TxtLookup>;
}
