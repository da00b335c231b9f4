// What keys ask of the world: the KeyManager that holds private keys, and the Store's records of
// keys (the platform's, tenants', and which key a tenant uses for a purpose). Each method's comment
// is its contract, which the Store contract suite in @vellum/testing asserts.

import type { DataKeyRecord, DataKeyWrapping, KeyAlgorithm, KeyCustody, ManagedKey, StoredKey } from './model.ts';

/** A key of the platform itself (not of a tenant), kept only in encrypted form. */
export interface PlatformKeyRecord {
  name: string;
  /** Encrypted key material; opaque to the store. */
  sealed: string;
  createdAt: string;
}

/**
 * Makes and uses the platform's own P-256 keys (the admin-token key) outside the process: a PKCS#11
 * token (docs/key-custody.md "The platform's keys"). Its private keys never come out.
 */
export interface PlatformKeyHolder {
  /** A name for where the keys are, kept with each key's reference (`pkcs11:<token label>`). */
  readonly name: string;
  /** Makes a P-256 key; returns its reference (what `sign` takes) and its public half. */
  generate(): Promise<{ ref: string; publicJwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string } }>;
  /** ECDSA P-256 over the SHA-256 of `data`, r‖s (64 bytes). */
  sign(ref: string, data: Uint8Array): Promise<Uint8Array>;
}

export interface PlatformKeyRepository {
  get(name: string): Promise<PlatformKeyRecord | undefined>;
  /** Stores the record unless one with that name exists; returns whichever is stored, so racing servers agree. */
  insertIfAbsent(record: PlatformKeyRecord): Promise<PlatformKeyRecord>;
  /**
   * Replaces the record named `record.name` if its sealed value is still `expectedSealed`
   * (compare-and-set: of two rotations at once, one wins). False when it was not (nothing changed).
   */
  replace(expectedSealed: string, record: PlatformKeyRecord): Promise<boolean>;
}

export interface KeyRepository {
  /** Throws DomainError `Conflict` when the id exists. */
  insert(key: StoredKey): Promise<void>;
  get(tenantId: string, id: string): Promise<StoredKey | undefined>;
  /** Removes the key for good. Returns false when the tenant has no such key. */
  delete(tenantId: string, id: string): Promise<boolean>;
  /**
   * Up to `limit` software keys (custody `software`) whose sealed form starts with `<format>.`, of
   * any tenant, oldest first: the keys still sealed directly under the master key (`v1`), for the
   * job that seals them again under their tenant's data key.
   */
  listSealedIn(format: string, limit: number): Promise<StoredKey[]>;
  /** Replaces the key's sealed form if it is still `from` (compare-and-set); false otherwise. */
  reseal(tenantId: string, id: string, from: string, to: string): Promise<boolean>;
}

/** The tenants' data keys (docs/key-custody.md "Envelope encryption"). */
export interface DataKeyRepository {
  get(tenantId: string): Promise<DataKeyRecord | undefined>;
  /** Stores the record unless the tenant has a data key; returns whichever is stored, so racing servers agree. */
  insertIfAbsent(record: DataKeyRecord): Promise<DataKeyRecord>;
  /**
   * Up to `limit` data keys, of any tenant, that are not wrapped under `current.wrappingKeyId`, or,
   * when `current.recoveryKeyId` is given, not (yet) encrypted to that recovery key; by tenant id.
   */
  listStale(current: { wrappingKeyId: string; recoveryKeyId?: string }, limit: number): Promise<DataKeyRecord[]>;
  /**
   * Replaces the wrapped forms of the tenant's data key `id` if it is still wrapped as `expected`
   * says (its wrapping key id, and its recovery key id or none): compare-and-set, so that two
   * servers re-wrapping at once write once. False when it was not.
   */
  replaceWrapping(
    tenantId: string,
    id: string,
    expected: { wrappingKeyId: string; recoveryKeyId?: string },
    next: Pick<DataKeyRecord, 'wrapped' | 'wrappingKeyId' | 'recoveryWrapped' | 'recoveryKeyId' | 'updatedAt'>,
  ): Promise<boolean>;
  /** How many data keys each (wrapping key, recovery key) pair has. */
  countByWrapping(): Promise<DataKeyWrapping[]>;
}

/** Which KeyManager key a tenant uses for a purpose (e.g. signing wallet access tokens). */
export interface TenantSigningKeyRecord {
  tenantId: string;
  purpose: string;
  /** The KeyManager id of the key that signs. */
  keyId: string;
  /** When this key became the one that signs (made, or rotated in). */
  createdAt: string;
  /** The key it replaced at its last rotation, which still verifies until `previousUntil` (the overlap). */
  previousKeyId?: string;
  previousUntil?: string;
}

export interface TenantSigningKeyRepository {
  get(tenantId: string, purpose: string): Promise<TenantSigningKeyRecord | undefined>;
  /** Stores the record unless the tenant has one for that purpose; returns whichever is stored, so racing servers agree. */
  insertIfAbsent(record: TenantSigningKeyRecord): Promise<TenantSigningKeyRecord>;
  /**
   * Makes `next.keyId` the key that signs, if `expectedKeyId` still is (compare-and-set): the old key
   * becomes `previousKeyId`, verifying until `next.previousUntil`, and `createdAt` becomes
   * `next.rotatedAt`. Returns the record as stored after it, or undefined when the tenant has no
   * record for the purpose or another rotation came first (nothing changed).
   */
  rotate(
    tenantId: string,
    purpose: string,
    expectedKeyId: string,
    next: { keyId: string; previousUntil: string; rotatedAt: string },
  ): Promise<TenantSigningKeyRecord | undefined>;
}

/** Where a new key is made, when not where the tenant's keys go. */
export interface KeyCreateOptions {
  custody?: KeyCustody;
  /** The id of a key of the tenant's whose custody the new key takes. */
  sameCustodyAs?: string;
}

/**
 * Tenants' signing keys. Private keys are created, kept and used inside the adapter and never
 * leave it; callers see ids and public JWKs.
 */
export interface KeyManager {
  /**
   * Makes a key. `options` say where (docs/key-custody.md "Custody per resource"): in `custody`, or
   * in the custody of the tenant's key `sameCustodyAs` (a CA's signers follow their CA); else where
   * the tenant's keys go. A KeyManager of one custody makes every key in its own.
   */
  create(tenantId: string, algorithm: KeyAlgorithm, options?: KeyCreateOptions): Promise<ManagedKey>;
  get(tenantId: string, id: string): Promise<ManagedKey | undefined>;
  /**
   * Signs `data`: EdDSA for Ed25519 (64 bytes), ECDSA with SHA-256 for P-256 in the IEEE P1363
   * form JWS and COSE use (r‖s, 64 bytes). Throws DomainError `NotFound` for a destroyed or unknown key.
   */
  sign(tenantId: string, id: string, data: Uint8Array): Promise<Uint8Array>;
  /** Destroys the private key: it can never sign again. False when there is no such key. */
  destroy(tenantId: string, id: string): Promise<boolean>;
}

/**
 * A key that wraps tenants' data keys (docs/key-custody.md "Envelope encryption"): the master key,
 * or an AES key inside a PKCS#11 token that never leaves it.
 */
export interface KeyWrapper {
  /** Names it in every data key it wraps: `master:<fingerprint>`, `pkcs11:<label>`. */
  readonly id: string;
  /** Encrypts a data key, bound to `associatedData` (the data key's tenant and id). */
  wrap(dataKey: Uint8Array, associatedData: string): Promise<string>;
  /** Decrypts what `wrap` made, with the same associated data; throws when the key or data do not match. */
  unwrap(wrapped: string, associatedData: string): Promise<Uint8Array>;
}
