import type { PublicJwk } from '../keys/model.ts';
import type { TenantRecord } from '../shared/ports.ts';

/** docs/decisions.md "mDoc PKI": a tenant holds at most this many IACAs. */
export const MAX_IACAS_PER_TENANT = 3;
/** docs/decisions.md "mDoc PKI": at most this many document signers a tenant requested for imported IACAs (CSR flow). */
export const MAX_REQUESTED_DOCUMENT_SIGNERS = 5;

/** A managed IACA created without `notAfter` is valid this long (Annex B allows up to 20 years). */
export const DEFAULT_IACA_VALIDITY_YEARS = 5;
/** A document signer Vellum creates is valid this long (the most ISO/IEC 18013-5 Annex B allows), or less when its IACA ends first. */
export const MANAGED_SIGNER_VALIDITY_DAYS = 457;
/**
 * N of the rotation rule: a managed IACA gets a new document signer when none can sign and stay
 * valid for N more days, N being the lifetime of the credential being issued but at least this
 * many days, and at most {@link MAX_SIGNER_ROTATION_DAYS}. Near the IACA's end, a signer that ends
 * with the IACA is enough. Old signers are kept (and used by nothing new) until they expire.
 */
export const SIGNER_ROTATION_DAYS = 90;
/** 457 − 30: a signer is used for at least 30 days; every credential of up to 427 days (every mDL) ends before its signer. */
export const MAX_SIGNER_ROTATION_DAYS = 427;
/** A managed document signer's certificate starts this long before its creation, for verifiers whose clocks run slow. */
export const SIGNER_BACKDATE_MS = 5 * 60_000;

/** ISO/IEC 18013-5 Annex B: the document signer's extended key usage (id-mdl-kp-mdlDS). */
export const MDL_DOCUMENT_SIGNER_EKU = '1.0.18013.5.1.2';

/** The path of the IACA collection under a tenant origin (docs/decisions.md "mDoc PKI"; the issuer metadata's `mdoc_iacas_uri`). */
export const IACAS_PATH = '/v2/credentials/mobile/iacas';
/** The path of the document signer collection under a tenant origin (docs/decisions.md "mDoc PKI"). */
export const DOCUMENT_SIGNERS_PATH = '/v2/credentials/mobile/document-signers';

/** docs/decisions.md "mDoc PKI" `certificateData`: what Vellum shows of a certificate. Dates are ISO 8601. */
export interface CertificateData {
  notBefore: string;
  notAfter: string;
  country?: string;
  commonName?: string;
  stateOrProvinceName?: string;
}

/** A certificate as the API shows it, an IACA's or a document signer's (docs/decisions.md "mDoc PKI"). */
export interface CertificateView {
  certificatePem: string;
  /** SHA-256 of the certificate's DER, lower-case hex. */
  certificateFingerprint: string;
  certificateData: CertificateData;
}

/** An IACA (issuing authority certificate authority, ISO/IEC 18013-5 Annex B) of a tenant. */
export interface IacaRecord extends TenantRecord {
  id: string;
  /**
   * What it certifies: absent for an IACA (mDoc document signers), `issuer` for an issuer CA whose
   * leaves sign SD-JWT VCs, issuer metadata and status list tokens (docs/decisions.md "Issuer certificates").
   */
  profile?: 'issuer';
  active: boolean;
  /** When it was last activated: of the active IACAs valid now, the one activated last signs. */
  activatedAt?: string;
  /** Vellum holds its key (created here) or not (imported). */
  isManaged: boolean;
  /** The KeyManager id of a managed IACA's key. */
  keyId?: string;
  certificatePem: string;
  /** SHA-256 of the certificate's DER, lower-case hex. */
  fingerprint: string;
  certificateData: CertificateData;
  /** Managed IACAs: the IssuerAlternativeName and CRL distribution point its certificates carry. */
  issuerAlternativeName?: string;
  crlUri?: string;
}

/** A document signer: the key and certificate that sign mDocs (the MSO's issuerAuth) under an IACA. */
export interface DocumentSignerRecord extends TenantRecord {
  id: string;
  /** The IACA, or the issuer CA, that issued (or is asked to issue) its certificate. */
  iacaId: string;
  /** What it signs: absent for an mDoc document signer; a use of an issuer CA's leaf (docs/decisions.md "Issuer certificates"). */
  use?: 'credential' | 'status-list';
  /** An issuer leaf's subject alternative names (URIs and DNS names) as its certificate carries them. */
  subjectAltNames?: string[];
  /** Created and rotated by Vellum for a managed IACA; otherwise requested with a CSR (docs/decisions.md "mDoc PKI"). */
  isManaged: boolean;
  active: boolean;
  /** The KeyManager id of its P-256 key. */
  keyId: string;
  publicJwk: PublicJwk;
  /** The certificate request, for signers of imported IACAs. */
  csrPem?: string;
  certificatePem?: string;
  fingerprint?: string;
  /** Lower-case hex, as CRLs list it. */
  serialNumber?: string;
  certificateData?: CertificateData;
  revokedAt?: string;
}

/** A certificate an IACA issued and Vellum revoked: an entry of the IACA's CRL until it expires. */
export interface IacaRevocation {
  serialNumber: string;
  revokedAt: string;
  /** The revoked certificate's own expiry; the CRL drops the entry after it (RFC 5280 §3.3). */
  notAfter: string;
}
