// What keys ask of the world: the KeyManager that holds private keys, and the Store's records of
// keys (the platform's, tenants', and which key a tenant uses for a purpose). Each method's comment
// is its contract, which the Store contract suite in @vellum/testing asserts.

import type { KeyAlgorithm, ManagedKey, StoredKey } from './model.ts';

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
