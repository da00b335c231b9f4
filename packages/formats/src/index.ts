// @vellum/formats: one module per credential format, and the Linked Data proofs they share.
export { BUNDLED_CONTEXT_URLS, bundledContext } from './linked-data/contexts.ts';
export { canonizeJsonLd, linkedDataVerifyData } from './linked-data/canonize.ts';
export { createLinkedDataSigner } from './linked-data/signer.ts';
export type { LinkedDataSignerOptions } from './linked-data/signer.ts';

// mso_mdoc (ISO/IEC 18013-5).
/** Issues an mDoc: IssuerSignedItems, the MobileSecurityObject and its ES256 issuerAuth, as OpenID4VCI's `credential`. */
export { issueMdoc } from './mso-mdoc/issue.ts';
export type { IssueMdocInput, IssueMdocResult, MdocSigner, MdocStatusEntry, MdocValidity } from './mso-mdoc/issue.ts';
export type { MdocDateTime, MdocFullDate, MdocTypedValue, MdocValue } from './mso-mdoc/values.ts';
/** The core's MdocEngine port: issueMdoc signing with a KeyManager-held document signer key. */
export { createMdocEngine } from './mso-mdoc/engine.ts';
export type { MdocEngineOptions } from './mso-mdoc/engine.ts';
