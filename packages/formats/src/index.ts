// @vellum/formats: one module per credential format, and the Linked Data proofs they share.
export { BUNDLED_CONTEXT_URLS, bundledContext } from './linked-data/contexts.ts';
export { canonizeJsonLd, canonizeQuads, linkedDataVerifyData, toQuads } from './linked-data/canonize.ts';
/** RDF Dataset Canonicalization (RDFC-1.0) of RDF/JS quads, to canonical N-Quads. */
export type { Quad as RdfQuad, RdfTerm } from './linked-data/canonize.ts';
export * from './linked-data/signer.ts';
/** The core's LinkedDataProofVerifier port: Ed25519Signature2018/2020 proofs checked over the bundled contexts (ldp_vc verifier). */
export { createLinkedDataProofVerifier } from './linked-data/verifier.ts';

// mso_mdoc (ISO/IEC 18013-5).
// Issues an mDoc: IssuerSignedItems, the MobileSecurityObject and its ES256 issuerAuth, as OpenID4VCI's `credential`.
export * from './mso-mdoc/issue.ts';
export type { MdocDateTime, MdocFullDate, MdocTypedValue, MdocValue } from './mso-mdoc/values.ts';
// The core's MdocEngine port: issueMdoc signing with a KeyManager-held document signer key.
export * from './mso-mdoc/engine.ts';
export { createMdocReader } from './mso-mdoc/read.ts';

// cwt and cwt_vc (RFC 8392 CWTs as ES256 COSE_Sign1, RFC 9052).
// The core's CwtSigner port: CWT claims as a tagged COSE_Sign1 signed with a KeyManager-held P-256 key.
export * from './cwt/signer.ts';

// dc+sd-jwt (IETF SD-JWT VC).
// The core's SdJwtSigner port: SD-JWT VCs built here (RFC 9901), signed with a KeyManager-held key.
export * from './sd-jwt/signer.ts';

// mDoc status list tokens (IETF Token Status List draft 14, and the legacy format).
/** The core's StatusListTokenSigner port: CWT status list tokens signed with a document signer's key. */
export { createStatusListTokenSigner } from './status-list/status-list-token.ts';

// ldp_vc status (W3C CCG Revocation List 2020).
/** The core's RevocationListSigner port: RevocationList2020 credentials signed with a DID's Ed25519 key. */
export { createRevocationListSigner } from './linked-data/revocation-list.ts';
export type { RevocationListSignerOptions } from './linked-data/revocation-list.ts';

// Token Status List tokens of dc+sd-jwt (JWT form), cwt and cwt_vc (CWT form), IETF draft 14 §5.
// The core's TokenStatusListSigner port: status list tokens signed with the issuer DID's P-256 key.
export * from './status-list/token-status-list.ts';

// Every signer createVellum takes, over one KeyManager.
export * from './signers.ts';
