/** The key types Vellum creates and signs with. */
export const KEY_ALGORITHMS = ['Ed25519', 'P-256'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

/** A public key as a JWK (RFC 7517): OKP for Ed25519, EC for P-256. */
export interface PublicJwk {
  kty: 'OKP' | 'EC';
  crv: 'Ed25519' | 'P-256';
  x: string;
  y?: string;
}

/** A key Vellum holds for a tenant. Only the public half ever leaves the KeyManager. */
export interface ManagedKey {
  id: string;
  tenantId: string;
  algorithm: KeyAlgorithm;
  publicJwk: PublicJwk;
  createdAt: string;
}

/**
 * Where a private key lives (docs/key-custody.md): `software`, sealed in the store under the master
 * key (the default); `pkcs11`, created inside a PKCS#11 token and never out of it.
 */
export const KEY_CUSTODIES = ['software', 'pkcs11'] as const;
export type KeyCustody = (typeof KEY_CUSTODIES)[number];

/** How a key is stored: its public half, and the private half sealed under the master key or held by a token. */
export interface StoredKey extends ManagedKey {
  /** Encrypted private key, opaque to the store; empty for a key a token holds. */
  sealed: string;
  /** Where the private key lives; `software` when absent (rows from before custody existed). */
  custody?: KeyCustody;
}

/** What a KeyManager shows of a stored key: the key without its sealed half or its custody. */
export function managedKeyOf({ sealed: _sealed, custody: _custody, ...key }: StoredKey): ManagedKey {
  return key;
}

/**
 * A tenant's data key (docs/key-custody.md "Envelope encryption"): the AES-256 key its software keys
 * are sealed under when envelope encryption is on, kept only wrapped by a wrapping key (the master
 * key, or an AES key inside a PKCS#11 token), and, when the platform has a recovery key, also
 * encrypted to that key for recovery. One per tenant; deleted with it.
 */
export interface DataKeyRecord {
  tenantId: string;
  /** Named by every key sealed under it (`v2.<id>.…`). */
  id: string;
  /** The data key wrapped by the wrapping key; opaque to the store. */
  wrapped: string;
  /** Which wrapping key `wrapped` is under (`master:<fingerprint>`, `pkcs11:<label>`). */
  wrappingKeyId: string;
  /** The data key encrypted to the platform's recovery key, when there is one; opaque to the store. */
  recoveryWrapped?: string;
  /** Which recovery key `recoveryWrapped` is for (its fingerprint). */
  recoveryKeyId?: string;
  createdAt: string;
  updatedAt: string;
}

/** How a data key is wrapped, as the re-wrapping job and `vellum keys wrapping` count them. */
export interface DataKeyWrapping {
  wrappingKeyId: string;
  recoveryKeyId?: string;
  count: number;
}
