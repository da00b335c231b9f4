// The public surface of @vellum/crypto.

export * from './hasher.ts';
export * from './platform-token-signer.ts';
export * from './sealer.ts';
export * from './envelope.ts';
// The core's SecretBox port: UTF-8 secrets sealed under the master key, bound to a context.
export * from './secret-box.ts';
// The core's SessionTokens port: HS256 JWTs for the interaction hook hand-off.
export * from './session-tokens.ts';
export * from './key-manager.ts';

// X.509 for mDocs (ISO/IEC 18013-5 Annex B): IACA and document signer certificates (Annex B
// profile) signed through held keys, PKCS#10 requests for IACAs Vellum does not hold, and CRLs
// (certificates.ts); reading a PEM or DER certificate and checking who issued it (parse.ts).
export * from './x509/certificates.ts';
export * from './x509/parse.ts';
export * from './x509/chain.ts';
/** Adapts a KeyManager-held P-256 key into the signing key the certificate functions take. */
export { managedSigningKey } from './x509/signing.ts';
export type { CertificateSigningKey, Es256Sign } from './x509/signing.ts';
// The core's X509Authority port: IACAs, document signers, CSRs and CRLs with KeyManager-held keys.
export * from './x509/authority.ts';

// Wallet access tokens and the digests pre-authorized and transaction codes are kept as.
// The core's WalletTokens port: ES256 access tokens signed with a KeyManager-held key per tenant.
export * from './wallet-tokens.ts';
// The core's Digests port (SHA-256, base64url).
export * from './digests.ts';

// The credential endpoint (OpenID4VCI 1.0, docs/decisions.md "The credential endpoint").
// The core's ProofVerifier port: key proof JWT signatures against a jwk or did:key kid.
export * from './proof-verifier.ts';
// The core's JwtProofVerifier port: DPoP proofs, client attestations and key attestations (jwk, given key, x5c).
export * from './jwt-proofs.ts';
// The core's CredentialEncryption port: encrypted requests (per-tenant keys from a sealed seed) and responses.
export * from './credential-encryption.ts';
export * from './presentation-crypto.ts';
// The core's NonceCodec port: self-authenticating c_nonces (HMAC-SHA-256 under a sealed platform key).
export * from './nonce-codec.ts';

// Compact JWS on node:crypto (ES256 and EdDSA), for the request path.
/** Public key objects from P-256 and Ed25519 JWKs, and compact JWS verification, header peeking and signing. */
export { decodeJwsHeader, publicKeyFromJwk, signCompactJws, verifyCompactJws } from './jws.ts';
export type { JwsAlgorithm, VerifiedJws } from './jws.ts';
