// What the credential endpoint asks of the world: the Store's issued-credential records, key proof
// verification and JWE. Each method's comment is its contract, which the Store contract suite in
// @vellum/testing asserts.

import type { PublicJwk } from '../keys/model.ts';
import type { PageRequest, Slice } from '../shared/pagination.ts';
import type { IssuedCredentialFilter, IssuedCredentialRecord, IssuedCredentialStatus, WalletNotification } from './model.ts';

export interface IssuedCredentialRepository {
  /**
   * Records an issued credential (never its contents). Throws DomainError `Conflict` when the id
   * exists. Several records may share a notification id: the credentials of one batch request.
   */
  insert(record: IssuedCredentialRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<IssuedCredentialRecord | undefined>;
  /** The tenant's records matching every filter given, in creation order. */
  list(tenantId: string, filter: IssuedCredentialFilter, page: PageRequest): Promise<Slice<IssuedCredentialRecord>>;
  /** A record of the tenant's that a credential response named with this notification id (any one, when a batch shares it). */
  findByNotificationId(tenantId: string, notificationId: string): Promise<IssuedCredentialRecord | undefined>;
  /**
   * Replaces the last wallet notification of every record of the tenant with this notification id
   * (all the credentials of one response), in one write. Returns how many records it changed.
   */
  recordNotificationFor(tenantId: string, notificationId: string, notification: WalletNotification): Promise<number>;
  /** Replaces the record's last wallet notification. Returns false when the tenant has no such record. */
  recordNotification(tenantId: string, id: string, notification: WalletNotification): Promise<boolean>;
  /** Sets the record's revocation state (docs/status-lists.md). Returns false when the tenant has no such record. */
  setStatus(tenantId: string, id: string, status: IssuedCredentialStatus): Promise<boolean>;
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
 * JWE for the credential endpoint (docs/decisions.md "The credential endpoint"): requests encrypted to the tenant's key, and responses
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
