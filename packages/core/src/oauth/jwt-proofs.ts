// The port that checks the signatures of the JWTs a wallet presents beside its requests: DPoP
// proofs (RFC 9449), OAuth client attestations and their proofs of possession
// (draft-ietf-oauth-attestation-based-client-auth), and key attestations (OpenID4VCI 1.0 App. D).
// The adapter checks signatures and certificate chains only; every claim is the core's to check.

import type { PublicJwk } from '../keys/model.ts';

/** A JWT whose signature checked out: its header and its payload (a JSON object). */
export interface VerifiedJwt {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

export type JwtCheck<Extra = object> = ({ ok: true } & VerifiedJwt & Extra) | { ok: false; reason: string };

/**
 * Verifies JWT signatures against the key the JWT names or the caller gives. Keys are P-256 (ES256)
 * or Ed25519 (EdDSA) public keys; private members are refused. No method throws: anything that is
 * not a well-formed, well-signed JWT is `{ ok: false }` with a reason safe to show the wallet.
 */
export interface JwtProofVerifier {
  /**
   * A JWT signed by the public key in its own `jwk` header (a DPoP proof, RFC 9449 §4.2). Returns
   * that key and its RFC 7638 SHA-256 thumbprint.
   */
  verifySelfSigned(jwt: string, algorithms: readonly string[]): Promise<JwtCheck<{ jwk: PublicJwk; thumbprint: string }>>;
  /** A JWT signed by `jwk` (an attestation's proof of possession, signed by the attestation's `cnf.jwk`). */
  verifyWithKey(jwt: string, jwk: unknown, algorithms: readonly string[]): Promise<JwtCheck>;
  /**
   * A JWT signed by the key of the end-entity certificate in its `x5c` header, whose chain (the
   * rest of `x5c`, in order) ends at a certificate issued by one of `rootCertificates` (PEM) or at
   * one of them. Every certificate must be valid at `at`; issuers must be CA certificates.
   */
  verifyWithX5c(jwt: string, rootCertificates: readonly string[], algorithms: readonly string[], at: Date): Promise<JwtCheck>;
  /** The RFC 7638 SHA-256 thumbprint (base64url) of a P-256 or Ed25519 public JWK; undefined for anything else. */
  thumbprint(jwk: unknown): string | undefined;
}

/** The algorithms Vellum takes in DPoP proofs and attestations (metadata `dpop_signing_alg_values_supported`). */
export const PROOF_JWT_ALGORITHMS = ['ES256', 'EdDSA'] as const;
