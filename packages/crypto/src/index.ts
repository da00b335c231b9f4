// The public surface of @vellum/crypto.

export { createScryptHasher } from './hasher.ts';
export type { ScryptHasherOptions } from './hasher.ts';
export { ADMIN_TOKEN_KEY_NAME, loadPlatformTokenSigner } from './platform-token-signer.ts';
export type { LoadPlatformTokenSignerOptions, PlatformTokenSigner, PublicJwk } from './platform-token-signer.ts';
export { createSealer, parseMasterKey } from './sealer.ts';
export type { Sealer } from './sealer.ts';
/** The core's SecretBox port: UTF-8 secrets sealed under the master key, bound to a context. */
export { createSecretBox } from './secret-box.ts';
/** The core's SessionTokens port: HS256 JWTs for the interaction hook hand-off. */
export { createSessionTokens } from './session-tokens.ts';
export type { SessionTokensOptions } from './session-tokens.ts';
export { createKeyManager } from './key-manager.ts';
export type { KeyManagerOptions } from './key-manager.ts';

// X.509 for mDocs (ISO/IEC 18013-5 Annex B): IACAs, document signers, CSRs and CRLs.
/** Creates a self-signed IACA certificate (Annex B profile) signed through a held key. */
export { createIacaCertificate } from './x509/certificates.ts';
/** Creates a document signer certificate issued by a held IACA key (Annex B profile). */
export { createDocumentSignerCertificate } from './x509/certificates.ts';
/** Creates a PKCS#10 request for a document signer key, for an IACA Vellum does not hold. */
export { createCsr } from './x509/certificates.ts';
/** Creates an IACA's CRL (DER) listing revoked document signers. */
export { createCrl } from './x509/certificates.ts';
export { DOCUMENT_SIGNER_MAX_VALIDITY_DAYS, IACA_MAX_VALIDITY_YEARS, MDL_DOCUMENT_SIGNER_EKU } from './x509/certificates.ts';
export type {
  CreateCrlInput,
  CreateCsrInput,
  CreateDocumentSignerCertificateInput,
  CreateIacaCertificateInput,
  EncodedCertificate,
  RevokedCertificate,
} from './x509/certificates.ts';
/** Reads a PEM or DER certificate into the fields Vellum shows and checks. */
export { parseCertificate } from './x509/parse.ts';
/** Tells whether one certificate was issued (and signed) by another. */
export { verifyIssuedBy } from './x509/parse.ts';
export type { CertificatePublicJwk, ParsedCertificate } from './x509/parse.ts';
/** Adapts a KeyManager-held P-256 key into the signing key the certificate functions take. */
export { managedSigningKey } from './x509/signing.ts';
export type { CertificateSigningKey, Es256Sign } from './x509/signing.ts';
/** The core's X509Authority port: IACAs, document signers, CSRs and CRLs with KeyManager-held keys. */
export { createX509Authority } from './x509/authority.ts';
export type { X509AuthorityOptions } from './x509/authority.ts';

// Wallet access tokens and the digests pre-authorized and transaction codes are kept as.
/** The core's WalletTokens port: ES256 access tokens signed with a KeyManager-held key per tenant. */
export { createWalletTokens, WALLET_TOKEN_KEY_PURPOSE } from './wallet-tokens.ts';
export type { WalletTokensOptions } from './wallet-tokens.ts';
/** The core's Digests port (SHA-256, base64url). */
export { createDigests } from './digests.ts';

// The credential endpoint (OpenID4VCI 1.0, docs/decisions.md "The credential endpoint").
/** The core's ProofVerifier port: key proof JWT signatures against a jwk or did:key kid. */
export { createProofVerifier } from './proof-verifier.ts';
/** The core's JwtProofVerifier port: DPoP proofs, client attestations and key attestations (jwk, given key, x5c). */
export { createJwtProofVerifier } from './jwt-proofs.ts';
/** The core's CredentialEncryption port: encrypted requests (per-tenant keys from a sealed seed) and responses. */
export { loadCredentialEncryption, REQUEST_ENCRYPTION_SEED_NAME } from './credential-encryption.ts';
export type { LoadCredentialEncryptionOptions } from './credential-encryption.ts';
/** The core's NonceCodec port: self-authenticating c_nonces (HMAC-SHA-256 under a sealed platform key). */
export { loadNonceCodec, NONCE_MAC_KEY_NAME } from './nonce-codec.ts';
export type { LoadNonceCodecOptions } from './nonce-codec.ts';

// Compact JWS on node:crypto (ES256 and EdDSA), for the request path.
/** Public key objects from P-256 and Ed25519 JWKs, and compact JWS verification, header peeking and signing. */
export { decodeJwsHeader, publicKeyFromJwk, signCompactJws, verifyCompactJws } from './jws.ts';
export type { JwsAlgorithm, VerifiedJws } from './jws.ts';
