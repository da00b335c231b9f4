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
