// Every port the core asks the world for, in one place. Adapters implement these; the core
// never imports an adapter. Each method's comment is its contract, and the Store contract suite in
// @vellum/testing asserts exactly what is written here against every Store adapter.

import type { CredentialConfiguration, CredentialFormat } from './configurations/model.ts';
import type { CustomDomain } from './custom-domains/model.ts';
import type { DidRecord } from './dids/model.ts';
import type { KeyAlgorithm, ManagedKey, PublicJwk, StoredKey } from './keys/model.ts';
import type { AnalyticEvent, EventFilter } from './events/model.ts';
import type { DocumentSignerRecord, IacaRecord, IacaRevocation } from './mdoc-pki/model.ts';
import type { MdocClaims } from './configurations/claims.ts';
import type { PageRequest, Slice } from './shared/pagination.ts';
import type { AdminClient, LoggingLevel, Tenant } from './tenancy/model.ts';
import type { UserFilter, UserRecord } from './users/model.ts';
import type { OfferKind, OfferRecord, RedeemOutcome } from './offers/model.ts';
import type { IssuedCredentialFilter, IssuedCredentialRecord, IssuedCredentialStatus, WalletNotification } from './issuance/model.ts';
import type { RateLimitHit, RateLimitRule } from './rate-limits/model.ts';
import type { ClaimedDelivery, DeliveryOutcome, Webhook, WebhookDelivery, WebhookSigningKey } from './webhooks/model.ts';
import type { WebhookEvent } from './webhooks/rules.ts';
import type { WalletClientRepository } from './oauth-clients/model.ts';
import type { AuthenticationProviderRepository, OpenIdSettingsRepository } from './authentication/model.ts';
import type { ClaimSourceRepository } from './claim-sources/model.ts';
import type { AuthorizationRepository } from './oauth/authorization-model.ts';
import type { StatusListConfigurationRepository, StatusListRepository } from './status-lists/model.ts';

export type { WalletClientRepository } from './oauth-clients/model.ts';
export type { AuthenticationProviderRepository, OpenIdSettingsRepository } from './authentication/model.ts';
export type { ClaimSourceRepository } from './claim-sources/model.ts';
export type { AuthorizationRepository } from './oauth/authorization-model.ts';
export type { StatusListConfigurationRepository, StatusListRepository } from './status-lists/model.ts';
export type { IdentityProvider, ProviderSettings, SessionTokens } from './authentication/ports.ts';

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
  /**
   * Replaces the secret hash of the tenant's client, adds one to its `secretVersion` and sets
   * `rotatedAt`, in one write. Returns the client as stored afterwards, or undefined when the tenant
   * has no such client or it is revoked (nothing changes then).
   */
  rotateSecret(tenantId: string, clientId: string, secretHash: string, rotatedAt: string): Promise<AdminClient | undefined>;
  /**
   * Sets `revokedAt` on the tenant's client. `not-found` when the tenant has no such client,
   * `already-revoked` (nothing changes) when it is revoked, `last-admin` (nothing changes) when it
   * is the tenant's last unrevoked client with role `admin`. The check and the write are atomic
   * against concurrent revocations, so two admins revoking each other cannot both succeed.
   */
  revoke(tenantId: string, clientId: string, revokedAt: string): Promise<'revoked' | 'already-revoked' | 'not-found' | 'last-admin'>;
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

/** Which configurations a tenant has, without their contents. */
export interface ConfigurationStamp {
  id: string;
  /** Opaque; the store gives a new one on every insert and update. */
  revision: string;
}

export interface CredentialConfigurationRepository {
  /**
   * Adds a configuration. Throws DomainError `Conflict` when the tenant already has one of the same
   * format and type (a unique index is the rule), or when the id exists. The same type in two
   * formats, or in two tenants, is fine.
   */
  insert(configuration: CredentialConfiguration): Promise<void>;
  /** The tenant's configuration with this id, whatever its format. */
  get(tenantId: string, id: string): Promise<CredentialConfiguration | undefined>;
  /** The tenant's configurations of one format in creation order, only those of `type` when given. */
  list(tenantId: string, filter: { format: CredentialFormat; type?: string }, page: PageRequest): Promise<Slice<CredentialConfiguration>>;
  /** Every configuration of the tenant, all formats, in creation order (one query: issuer metadata). */
  listAll(tenantId: string): Promise<CredentialConfiguration[]>;
  /**
   * Every configuration of the tenant in creation order, as stamps only: a cheap read for the hot
   * public metadata, to learn whether anything was created, replaced or deleted since a full read.
   */
  listStamps(tenantId: string): Promise<ConfigurationStamp[]>;
  /**
   * Replaces the configuration with the same tenant, id and format (its format never changes).
   * Returns false when there is none; throws DomainError `Conflict` when its type is another's of that format.
   */
  update(configuration: CredentialConfiguration): Promise<boolean>;
  /** Returns false when the tenant has no such configuration. */
  delete(tenantId: string, id: string): Promise<boolean>;
}

export interface IacaRepository {
  /**
   * Adds an IACA unless the tenant already holds `limit` IACAs, checked and written atomically so
   * that racing creates never pass the limit together. Returns false (nothing written) at the limit.
   * Throws DomainError `Conflict` when the id exists or the tenant already holds the same certificate
   * (same fingerprint); another tenant may hold it too.
   */
  insert(iaca: IacaRecord, limit: number): Promise<boolean>;
  get(tenantId: string, id: string): Promise<IacaRecord | undefined>;
  /** The tenant's IACAs in creation order; with `activeOnly`, only the active ones. */
  list(tenantId: string, page: PageRequest, filter?: { activeOnly?: boolean }): Promise<Slice<IacaRecord>>;
  /** Replaces the IACA's `active`, `activatedAt` and `updatedAt`. Returns false when the tenant has no such IACA. */
  update(iaca: IacaRecord): Promise<boolean>;
  /** Removes the IACA together with its document signers and revocations. Returns false when the tenant has no such IACA. */
  delete(tenantId: string, id: string): Promise<boolean>;
  /**
   * Records a certificate the IACA issued as revoked, for its CRL. It outlives the document signer
   * record. A serial number already recorded for the IACA keeps its first entry. Throws DomainError
   * `NotFound` when the tenant has no such IACA.
   */
  addRevocation(tenantId: string, iacaId: string, revocation: IacaRevocation): Promise<void>;
  /** The IACA's revocations in the order recorded (empty for an unknown IACA). */
  listRevocations(tenantId: string, iacaId: string): Promise<IacaRevocation[]>;
}

export interface DocumentSignerRepository {
  /**
   * Adds a document signer of one of the tenant's IACAs. With `limit`, it is refused (false, nothing
   * written) when the tenant already holds that many signers that are not managed (`isManaged`
   * false), checked and written atomically. Throws DomainError `NotFound` when the tenant has no
   * IACA `iacaId`, and `Conflict` when the id exists.
   */
  insert(signer: DocumentSignerRecord, limit?: number): Promise<boolean>;
  get(tenantId: string, id: string): Promise<DocumentSignerRecord | undefined>;
  /** The tenant's document signers in creation order; with `iacaId`, only that IACA's. */
  list(tenantId: string, page: PageRequest, filter?: { iacaId?: string }): Promise<Slice<DocumentSignerRecord>>;
  /** Every document signer of one IACA in creation order (an IACA has few: issuance reads them to pick one). */
  listByIaca(tenantId: string, iacaId: string): Promise<DocumentSignerRecord[]>;
  /**
   * Replaces the signer's mutable fields (active, certificate and its data, revokedAt, updatedAt);
   * its IACA, key and kind never change. Returns false when the tenant has no such signer.
   */
  update(signer: DocumentSignerRecord): Promise<boolean>;
  /** Returns false when the tenant has no such signer. */
  delete(tenantId: string, id: string): Promise<boolean>;
}

export interface IssuedCredentialRepository {
  /**
   * Records an issued credential (never its contents). Throws DomainError `Conflict` when the id
   * exists or the tenant already has a record with the same notification id.
   */
  insert(record: IssuedCredentialRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<IssuedCredentialRecord | undefined>;
  /** The tenant's records matching every filter given, in creation order. */
  list(tenantId: string, filter: IssuedCredentialFilter, page: PageRequest): Promise<Slice<IssuedCredentialRecord>>;
  /** The tenant's record a credential response named with this notification id. */
  findByNotificationId(tenantId: string, notificationId: string): Promise<IssuedCredentialRecord | undefined>;
  /** Replaces the record's last wallet notification. Returns false when the tenant has no such record. */
  recordNotification(tenantId: string, id: string, notification: WalletNotification): Promise<boolean>;
  /** Sets the record's revocation state (API.md §12). Returns false when the tenant has no such record. */
  setStatus(tenantId: string, id: string, status: IssuedCredentialStatus): Promise<boolean>;
}

export interface WebhookRepository {
  /** Adds a webhook. Throws DomainError `Conflict` when the id exists. */
  insert(webhook: Webhook): Promise<void>;
  get(tenantId: string, id: string): Promise<Webhook | undefined>;
  /** The tenant's webhooks in creation order. */
  list(tenantId: string, page: PageRequest): Promise<Slice<Webhook>>;
  /** Replaces `url`, `events`, `disabled` and `updatedAt`. Returns false when the tenant has no such webhook. */
  update(webhook: Webhook): Promise<boolean>;
  /** Removes the webhook together with its deliveries. Returns false when the tenant has no such webhook. */
  delete(tenantId: string, id: string): Promise<boolean>;
  /** The tenant's enabled webhooks subscribed to at least one of `events`, in creation order (the outbox reads it on every issuance). */
  listSubscribed(tenantId: string, events: readonly WebhookEvent[]): Promise<Webhook[]>;
}

/**
 * The webhook outbox. Deliveries are written in the transaction of the event that causes them and
 * claimed by workers; `claimDue` and `recordAttempts` are the only queries that span tenants (a
 * worker serves them all), and they reach only rows a claim has leased.
 */
export interface WebhookDeliveryRepository {
  /** Adds deliveries of the tenants' webhooks. Throws DomainError `Conflict` when an id exists. */
  insertMany(deliveries: readonly WebhookDelivery[]): Promise<void>;
  get(tenantId: string, id: string): Promise<WebhookDelivery | undefined>;
  /** One webhook's deliveries in creation order. */
  list(tenantId: string, webhookId: string, page: PageRequest): Promise<Slice<WebhookDelivery>>;
  /**
   * Leases up to `limit` deliveries of any tenant that are pending, due (`nextAttemptAt` <= `now`)
   * and not leased (no lease, or one that ended by `now`), until `leaseUntil` under `claimToken`,
   * the earliest due first. Atomic: racing claimers, in one process or several sharing a database,
   * never receive the same delivery while its lease holds. Each comes with its webhook's current
   * URL and state.
   */
  claimDue(claim: { now: string; leaseUntil: string; limit: number; claimToken: string }): Promise<ClaimedDelivery[]>;
  /**
   * Records the outcome of claimed deliveries and ends their leases, each only while its claim token
   * still holds (once a lease has run out and another worker claimed the delivery, the outcome is
   * that worker's to record). A final status (`succeeded`, `failed`) drops the stored `credential`
   * and `nextAttemptAt`. Returns the ids recorded.
   */
  recordAttempts(outcomes: readonly DeliveryOutcome[]): Promise<string[]>;
  /**
   * Queues a failed delivery again, due at `at` with `retriesLeft` automatic retries; its attempts
   * are kept. Returns false (nothing changed) when the tenant has no such delivery or it is not failed.
   */
  requeue(tenantId: string, id: string, at: string, retriesLeft: number): Promise<boolean>;
}

/** Tenants' webhook signing keys: at most one active per tenant, and the retired ones still in use. */
export interface WebhookKeyRepository {
  active(tenantId: string): Promise<WebhookSigningKey | undefined>;
  /**
   * Stores `key` (status active) unless the tenant already has an active key, checked and written
   * atomically; returns the tenant's active key, whichever it is, so racing servers agree.
   */
  insertActive(key: WebhookSigningKey): Promise<WebhookSigningKey>;
  /**
   * Retires the tenant's active key `currentKeyId` at `at` and makes `next` active, atomically.
   * Throws DomainError `Conflict` (nothing changed) when `currentKeyId` is not the active key.
   */
  rotate(tenantId: string, currentKeyId: string, next: WebhookSigningKey, at: string): Promise<void>;
  /** What receivers may need, oldest first: the active key, and each retired key a pending delivery still signs with. */
  listPublished(tenantId: string): Promise<WebhookSigningKey[]>;
  /** Up to `limit` retired keys, of any tenant, that no pending delivery signs with (their private halves may go). */
  listSpent(limit: number): Promise<WebhookSigningKey[]>;
  /** Forgets a retired key. Returns false when the tenant has no such retired key. */
  deleteRetired(tenantId: string, keyId: string): Promise<boolean>;
}

export interface UserRepository {
  /** Adds a user. Throws DomainError `Conflict` when the id exists. */
  insert(user: UserRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<UserRecord | undefined>;
  /**
   * The tenant's users in creation order; with a filter, only those matching all of it: each
   * `claims` key present on the user with an equal value (JSON equality at any depth), and
   * `subjectId` equal to the user's `authenticationProvider.subjectId`.
   */
  list(tenantId: string, page: PageRequest, filter?: UserFilter): Promise<Slice<UserRecord>>;
  /** Replaces `claims`, `authenticationProvider` and `updatedAt`. Returns false when the tenant has no such user. */
  update(user: UserRecord): Promise<boolean>;
  /**
   * Sets `claims` on the user (claims not named stay as they are) and `updatedAt`, atomically
   * against other writers of the same user; returns the user after it, or undefined when the tenant
   * has no such user. With no claims it changes nothing. Inside a transaction it also holds the user
   * until the transaction ends, so a concurrent delete waits for it.
   */
  mergeClaims(tenantId: string, id: string, claims: Record<string, unknown>, updatedAt: string): Promise<UserRecord | undefined>;
  /** Removes the user together with its offers. Returns false when the tenant has no such user. */
  delete(tenantId: string, id: string): Promise<boolean>;
}

export interface OfferRepository {
  /**
   * Adds an offer. Throws DomainError `Conflict` when the id exists or the tenant already has an
   * offer with the same `codeDigest`, and `NotFound` when `userId` names no user of the tenant.
   */
  insert(offer: OfferRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<OfferRecord | undefined>;
  /** The tenant's offer whose code (or issuer state) has this digest, in whatever state it is. */
  findByCodeDigest(tenantId: string, codeDigest: string): Promise<OfferRecord | undefined>;
  /**
   * Redeems a pre-authorized code in one atomic step (one conditional write): when the tenant's
   * pre-authorized offer with this code digest is `open`, `expiresAt` is after `now`, and a
   * transaction code is given exactly when the offer has one, a matching transaction code (or none,
   * for an offer without) makes it `used` (`usedAt` = now) and returns it; a non-matching one adds
   * one to `failedTxAttempts` and, when that reaches `maxTxAttempts`, makes it `locked` for good.
   * Anything else, a missing or unexpected transaction code included, is `not-open` and changes
   * nothing: the caller reads the offer to say why. Of racing callers with the right code, exactly
   * one gets `redeemed`.
   */
  redeem(tenantId: string, codeDigest: string, txCodeDigest: string | undefined, now: string, maxTxAttempts: number): Promise<RedeemOutcome>;
  /** Marks the tenant's offer of this kind `deleted`, whatever its state. Returns false when there is none or it is deleted already. */
  markDeleted(tenantId: string, id: string, kind: OfferKind): Promise<boolean>;
  /**
   * Records that the access token redeemed from the tenant's offer `id` has issued its credential
   * of `configurationId`, in one conditional write on the offer: true the first time; false, and
   * nothing changes, when it was recorded before or there is no such offer. Of racing callers (on
   * one server or several sharing the database) exactly one gets true; inside a transaction that
   * rolls back, nothing is recorded.
   */
  markIssued(tenantId: string, id: string, configurationId: string): Promise<boolean>;
}

/**
 * A `c_nonce` that was used (OpenID4VCI 1.0 §7; API.md §9). Nonces are self-authenticating
 * (NonceCodec) and written nowhere when issued; the store remembers only the used ones, until they
 * expire, so that each is accepted once.
 */
export interface NonceRecord {
  tenantId: string;
  nonce: string;
  expiresAt: string;
}

export interface NonceRepository {
  /**
   * Records that the tenant used `nonce`, in one atomic insert that the key (tenant, nonce) guards:
   * true the first time, false when it is recorded already. Of racing callers, on one server or on
   * several sharing the database, exactly one gets true. Never throws for a repeat.
   */
  markUsed(record: NonceRecord): Promise<boolean>;
  /** Forgets the tenant's used nonces that expired at or before `now` (housekeeping); returns how many. */
  deleteExpired(tenantId: string, now: string): Promise<number>;
}

/**
 * Mints and opens self-authenticating `c_nonce`s: each carries its expiry and is bound to its tenant
 * under a MAC, so issuing one writes nothing. Servers sharing a database must share the key, so that
 * any of them opens what another minted.
 */
export interface NonceCodec {
  /** A new, unguessable nonce for the tenant that `open` accepts (expiry kept to the second, rounded down). */
  mint(tenantId: string, expiresAt: Date): string;
  /**
   * The expiry of a nonce this codec minted for this tenant, whether or not it has passed; undefined
   * for anything else (bad encoding, bad MAC, another tenant's, another version). Never throws.
   */
  open(tenantId: string, nonce: string): { expiresAt: Date } | undefined;
}

/** Which KeyManager key a tenant uses for a purpose (e.g. signing wallet access tokens). */
export interface TenantSigningKeyRecord {
  tenantId: string;
  purpose: string;
  /** The KeyManager id of the key. */
  keyId: string;
  createdAt: string;
}

export interface TenantSigningKeyRepository {
  get(tenantId: string, purpose: string): Promise<TenantSigningKeyRecord | undefined>;
  /** Stores the record unless the tenant has one for that purpose; returns whichever is stored, so racing servers agree. */
  insertIfAbsent(record: TenantSigningKeyRecord): Promise<TenantSigningKeyRecord>;
}

export interface Repositories {
  tenants: TenantRepository;
  keys: KeyRepository;
  dids: DidRepository;
  clients: ClientRepository;
  customDomains: CustomDomainRepository;
  events: EventRepository;
  platformKeys: PlatformKeyRepository;
  credentialConfigurations: CredentialConfigurationRepository;
  iacas: IacaRepository;
  documentSigners: DocumentSignerRepository;
  users: UserRepository;
  offers: OfferRepository;
  nonces: NonceRepository;
  tenantSigningKeys: TenantSigningKeyRepository;
  issuedCredentials: IssuedCredentialRepository;
  webhooks: WebhookRepository;
  webhookDeliveries: WebhookDeliveryRepository;
  webhookKeys: WebhookKeyRepository;
  /** Wallet (OAuth) clients (API.md §8). */
  walletClients: WalletClientRepository;
  /** The tenant's OpenID Connect provider (API.md §8). */
  authenticationProviders: AuthenticationProviderRepository;
  /** The tenant's OpenID settings: the interaction hook (API.md §8). */
  openIdSettings: OpenIdSettingsRepository;
  /** Claim sources (API.md §8). */
  claimSources: ClaimSourceRepository;
  /** Runs of the Authorization Code flow (specification 4.4, 4.5). */
  authorizations: AuthorizationRepository;
  /** Status lists, their entries and their signed tokens (specification 9.5; API.md §12). */
  statusLists: StatusListRepository;
  /** How each docType's mDocs are listed (API.md §12). */
  statusListConfigurations: StatusListConfigurationRepository;
}

/**
 * Attempt counters in fixed windows, for rate limits; every process using the store shares them.
 * Not part of `transaction`: a counted attempt stays counted whatever happens around it.
 */
export interface RateLimitRepository {
  /**
   * Counts one attempt against `key` in the window of `rule.windowMs` that holds `now` (windows
   * start at whole multiples of `windowMs` since the epoch), in one atomic write: of any number of
   * concurrent hits on a key, from any process, at most `rule.limit` in a window are `allowed`. The
   * count starts again at 1 in a newer window; a hit dated before the stored window (a server whose
   * clock is behind) counts in the stored one. Refused hits are counted too.
   */
  hit(key: string, rule: RateLimitRule, now: Date): Promise<RateLimitHit>;
  /** Takes back one hit on `key` counted in the window that began at `windowStart`; nothing when that window is over or its count is 0. */
  release(key: string, windowStart: string): Promise<void>;
  /** Deletes the counters whose window ended at or before `now`, returning how many. Adapters also do this themselves now and then. */
  deleteExpired(now: Date): Promise<number>;
}

/** Persistence. Repositories used directly run on their own; `transaction` makes several atomic. */
export interface Store extends Repositories {
  /** Rate-limit counters (kept outside transactions). */
  rateLimits: RateLimitRepository;
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
export type LinkedDataProofType = 'Ed25519Signature2018' | 'Ed25519Signature2020' | 'JsonWebSignature2020';

/**
 * A Linked Data proof: a detached JWS for the 2018 and JsonWebSignature2020 suites, or a multibase
 * `proofValue` (base58btc of the raw signature) for Ed25519Signature2020.
 */
export interface LinkedDataProof {
  type: LinkedDataProofType;
  created: string;
  verificationMethod: string;
  proofPurpose: string;
  /** The 2018 suite and JsonWebSignature2020. */
  jws?: string;
  /** Ed25519Signature2020. */
  proofValue?: string;
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
  /** The URLs of the JSON-LD contexts the signer bundles: the only ones a document it signs may name. */
  readonly contexts: readonly string[];
  /** Returns the document with its `proof`. */
  sign(input: LinkedDataSignInput): Promise<Record<string, unknown> & { proof: LinkedDataProof }>;
}

export interface Clock {
  now(): Date;
}

export interface Ids {
  /** A unique id in UUID form (the Node adapter makes time-ordered v7 ones, RFC 9562). */
  uuid(): string;
  /** A random URL-safe token carrying at least `bytes` bytes of entropy (default 32). */
  token(bytes?: number): string;
  /** `n` cryptographically random bytes (transaction codes, jitter). */
  bytes(n: number): Uint8Array;
}

/**
 * Something that happened which webhook subscribers may be told (specification 2.8, 6; API.md §10).
 * It is written inside the transaction that makes the change (an issued credential, a status
 * change), so it is never lost nor sent for a change that did not happen.
 */
export type DomainEvent = CredentialIssuedEvent | CredentialStatusUpdatedEvent;

interface DomainEventBase {
  id: string;
  tenantId: string;
  occurredAt: string;
}

export interface CredentialIssuedEvent extends DomainEventBase {
  type: 'OpenIdCredentialIssued';
  /** API.md §10: `{ credential, credentialId, credentialConfigurationId, credentialProfile, format, userId, userClaims }`. */
  payload: {
    credential: unknown;
    credentialId: string;
    credentialConfigurationId: string;
    credentialProfile: string;
    format: string;
    userId: string;
    userClaims: Record<string, unknown>;
  };
}

/** A Vellum addition: the issuer revoked, suspended or reinstated an issued credential (issue 15). */
export interface CredentialStatusUpdatedEvent extends DomainEventBase {
  type: 'CredentialStatusUpdated';
  payload: {
    credentialId: string;
    credentialConfigurationId: string;
    format: string;
    userId: string;
    status: string;
    previousStatus: string;
  };
}

/** Takes domain events inside the caller's transaction (the webhook outbox implements it). */
export interface DomainEventSink {
  publish(tx: Repositories, event: DomainEvent): Promise<void>;
}

/** A key proof JWT whose signature verified against the public key its header names. */
export interface VerifiedKeyProof {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
  /** The key the proof was signed with (from `jwk`, or decoded from a did:key `kid`): the holder's key. */
  holderKey: PublicJwk;
}

export type KeyProofVerification = { ok: true; proof: VerifiedKeyProof } | { ok: false; reason: string };

/**
 * Verifies the signature of OpenID4VCI key proof JWTs (1.0 §8.2.1.1) against the key the header
 * names: a public `jwk` (P-256 or Ed25519; private members refused) or a did:key DID URL `kid`.
 * Checks nothing else (the core checks typ, aud, iat and nonce). Never throws: anything that is
 * not a well-formed, well-signed proof is `{ ok: false }` with a reason safe to show the wallet.
 */
export interface ProofVerifier {
  /** `algorithms` bounds the accepted `alg` values (default ES256 and EdDSA). */
  verify(jwt: string, options?: { algorithms?: readonly string[] }): Promise<KeyProofVerification>;
}

/** The content encryption algorithms Vellum takes and gives for credential requests and responses. */
export const JWE_ENCRYPTION_ALGORITHMS = ['A128GCM', 'A256GCM'] as const;
export type JweEncryption = (typeof JWE_ENCRYPTION_ALGORITHMS)[number];

/** What a wallet asked for in `credential_response_encryption` (OpenID4VCI 1.0 §8.2), after the core's checks. */
export interface ResponseEncryptionParameters {
  /** The wallet's public key (EC or OKP X25519) as it sent it. */
  jwk: Record<string, unknown>;
  alg: 'ECDH-ES';
  enc: JweEncryption;
}

/**
 * JWE for the credential endpoint (API.md §9): requests encrypted to the tenant's key, and responses
 * encrypted to the wallet's. Private keys stay inside the adapter. No method throws on bad input.
 */
export interface CredentialEncryption {
  /** The tenant's public keys wallets encrypt requests to (metadata `credential_request_encryption.jwks`). */
  requestEncryptionKeys(tenantId: string): Promise<Record<string, unknown>[]>;
  /** Opens a compact JWE (ECDH-ES, A128GCM or A256GCM) addressed to one of the tenant's keys. */
  decryptRequest(tenantId: string, jwe: string): Promise<{ ok: true; plaintext: string } | { ok: false; reason: string }>;
  /**
   * Prepares encryption to the wallet's key: a key that cannot be used (malformed, private, wrong
   * curve) fails here, before anything is issued. The encrypter returns a compact JWE.
   */
  responseEncrypter(
    parameters: ResponseEncryptionParameters,
  ): Promise<{ ok: true; encrypt: (plaintext: string) => Promise<string> } | { ok: false; reason: string }>;
}

/** Message digests for values kept only in hashed form (pre-authorized codes, transaction codes). */
export interface Digests {
  /** SHA-256 of the UTF-8 text, base64url without padding. */
  sha256(text: string): string;
}

/** What a wallet access token says (API.md §9): who may fetch which credentials, for how long. */
export interface WalletAccessClaims {
  tenantId: string;
  /** The credential issuer identifier the token was issued under (its `iss` and `aud`). */
  issuer: string;
  userId: string;
  /**
   * The grant the token was issued under: the offer for the Pre-authorized Code grant, the
   * authorization (AuthorizationRecord id) for the Authorization Code grant. JWT claim `oid`.
   */
  offerId: string;
  /** `authorization_code` for tokens of the Authorization Code grant (JWT claim `gty`); absent for the Pre-authorized Code grant. */
  grant?: 'authorization_code';
  /** The configurations the token grants. */
  configurationIds: string[];
  /** Space-separated `<format>:<type>` of those configurations (specification 2.5). */
  scope: string;
  /**
   * True when the token response gave `credential_identifiers` (the token request sent
   * `authorization_details`): requests then name a `credential_identifier`, never a
   * `credential_configuration_id` (OpenID4VCI 1.0 §8.2). JWT claim `cids`.
   */
  credentialIdentifiers?: boolean;
  /** RFC 9449 §6.1: the thumbprint of the DPoP key the token is bound to (JWT claim `cnf.jkt`); absent for bearer tokens. */
  dpopJkt?: string;
  /** The wallet client that obtained the token, when it authenticated as a registered client (JWT claim `client_id`). */
  clientId?: string;
  /** The client instance its attestation named (specification 5; JWT claim `client_instance_id`). */
  clientInstanceId?: string;
  jti: string;
  /** Unix seconds. */
  issuedAt: number;
  /** Unix seconds. */
  expiresAt: number;
}

/**
 * Wallet access tokens: JWTs (ES256, header `typ: at+jwt` and `kid`) signed with a per-tenant key
 * the KeyManager holds, made on first use. Claims: `iss` and `aud` (the issuer), `sub` (user id),
 * `tid` (tenant id), `oid` (offer id), `cfg` (configuration ids), `scope`, `cids` (when true), `jti`, `iat`, `exp`.
 */
export interface WalletTokens {
  /** Signs a wallet access token (a JWT, ES256, with the tenant's token key, `typ: at+jwt`). */
  issue(claims: Omit<WalletAccessClaims, 'jti' | 'issuedAt' | 'expiresAt'>, ttlSeconds: number): Promise<{ token: string; claims: WalletAccessClaims }>;
  /** The verified claims of a token for this tenant and issuer, or undefined (bad signature, expired, other tenant or issuer). Never throws. */
  verify(tenantId: string, issuer: string, token: string): Promise<WalletAccessClaims | undefined>;
  /** The tenant's public token keys as a JWKS (`GET /.well-known/jwks.json`). */
  jwks(tenantId: string): Promise<{ keys: Record<string, unknown>[] }>;
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

/** One outbound request (webhook deliveries; API.md §8). */
export interface OutboundRequest {
  method: 'POST';
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** The whole exchange must end within this many ms, or it counts as no answer. */
  timeoutMs: number;
}

/** The receiver's status, or why there was none: `error` is short and safe to show the tenant. */
export type OutboundResult = { status: number } | { error: string };

/** One outbound request whose answer is read (claim sources, the identity provider; API.md §8). */
export interface OutboundFetch {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** The whole exchange, body included, must end within this many ms, or it counts as no answer. */
  timeoutMs: number;
  /** A body longer than this many bytes is an error (default 1 MiB). */
  maxBytes?: number;
}

/** The answer, or why there was none: `error` is short and safe to show the tenant. */
export type OutboundResponse = { status: number; headers: Record<string, string>; body: Uint8Array } | { error: string };

/**
 * Outbound HTTP with the SSRF guard of API.md §8: https only, and the resolved address must not be
 * loopback, private or link-local unless the host allows it. Redirects are not followed. Never
 * throws: every failure is `{ error }`.
 */
export interface HttpClient {
  send(request: OutboundRequest): Promise<OutboundResult>;
  /** Sends a request and reads the answer (header names lower-case), under the same guard. Never throws. */
  fetch(request: OutboundFetch): Promise<OutboundResponse>;
}

/**
 * Encrypts secrets Vellum must be able to read again (an identity provider's client secret, a claim
 * source's key, the interaction hook's secret) under the master key, bound to a context string.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** The plaintext, or undefined when the sealed text is corrupt or sealed for another context. Never throws. */
  open(sealed: string, context: string): string | undefined;
}

/** What Vellum reads from an X.509 certificate (API.md §7 `certificateData`, plus what checks need). */
export interface CertificateInfo {
  pem: string;
  der: Uint8Array;
  /** Lower-case hex, as CRLs list it. */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  commonName?: string;
  country?: string;
  stateOrProvinceName?: string;
  /** The subject's public key as a JWK; an imported certificate may hold a key other than P-256. */
  publicKey: { kty: string; crv?: string; x?: string; y?: string };
  /** BasicConstraints cA. */
  isCa: boolean;
  /** Extended key usage OIDs (empty when the certificate has none). */
  extendedKeyUsages: string[];
  /** SHA-256 of the DER, lower-case hex. */
  fingerprint: string;
}

/** A KeyManager key of a tenant, named for the X.509 authority to sign with through the KeyManager. */
export interface HeldKeyRef {
  tenantId: string;
  keyId: string;
}

/**
 * X.509 for mDocs (ISO/IEC 18013-5 Annex B) with keys the KeyManager holds: every signature goes
 * through it. Bad names, dates or URIs are DomainError `BadRequest` with details; a destroyed key is `NotFound`.
 */
export interface X509Authority {
  /** A self-signed IACA certificate for a held P-256 key. */
  createIacaCertificate(input: {
    key: ManagedKey;
    commonName: string;
    country: string;
    stateOrProvinceName?: string;
    notBefore: Date;
    notAfter: Date;
    issuerAlternativeName: string;
    crlDistributionPointUri: string;
  }): Promise<CertificateInfo>;
  /** A document signer certificate for `subjectPublicJwk`, issued by a held IACA key; within the IACA's validity. */
  createDocumentSignerCertificate(input: {
    issuer: { key: HeldKeyRef; certificatePem: string };
    subjectPublicJwk: PublicJwk;
    commonName: string;
    country: string;
    stateOrProvinceName?: string;
    notBefore: Date;
    notAfter: Date;
    issuerAlternativeName: string;
    crlDistributionPointUri: string;
  }): Promise<CertificateInfo>;
  /** A PKCS#10 request (PEM) for a held P-256 key, signed with it. */
  createCsr(input: { key: ManagedKey; commonName: string; country: string; stateOrProvinceName?: string }): Promise<string>;
  /** The IACA's CRL (DER), signed with its held key. */
  createCrl(input: {
    issuer: { key: HeldKeyRef; certificatePem: string };
    revoked: ReadonlyArray<{ serialNumber: string; revokedAt: Date }>;
    thisUpdate: Date;
    nextUpdate: Date;
  }): Promise<Uint8Array>;
  /** Reads exactly one PEM certificate; anything else is a 400 about `certificatePem`. */
  parseCertificate(pem: string): CertificateInfo;
  /** Whether `issuerPem` issued `certificatePem`: a CA, names and key identifiers chain, the signature verifies. Dates are not checked. */
  verifyIssuedBy(certificatePem: string, issuerPem: string): boolean;
}

/** What the mso_mdoc engine signs: claims already typed, the holder key, validity, and the document signer. */
export interface MdocEngineInput {
  tenantId: string;
  docType: string;
  namespaces: MdocClaims;
  /**
   * The credential's status list entry, written in the MSO as `status` (draft 14) or `_status`
   * (legacy): `{ status_list: { idx, uri } }`.
   */
  status?: { field: 'status' | '_status'; idx: number; uri: string };
  /** The holder's P-256 key, bound as the MSO's deviceKey. */
  deviceKey: PublicJwk;
  validity: { signed: Date; validFrom: Date; validUntil: Date };
  signer: {
    /** The KeyManager id of the document signer's key. */
    keyId: string;
    /** DER certificates for the COSE x5chain, the document signer's first. */
    x5chain: readonly Uint8Array[];
  };
}

/** Issues mso_mdoc credentials (ISO/IEC 18013-5), signing through the KeyManager. */
export interface MdocEngine {
  /**
   * Returns OpenID4VCI's `credential` for mso_mdoc (base64url IssuerSigned) and the validity as
   * written (whole seconds). A bad holder key is a 400 about `deviceKey`; a destroyed signer key is `NotFound`.
   */
  issue(input: MdocEngineInput): Promise<{ credential: string; validFrom: Date; validUntil: Date }>;
}
