// What the mDoc PKI asks of the world: the Store's IACAs and document signers, and X.509 through
// the KeyManager. Each method's comment is its contract, which the Store contract suite in
// @vellum/testing asserts.

import type { ManagedKey, PublicJwk } from '../keys/model.ts';
import type { PageRequest, Slice } from '../shared/pagination.ts';
import type { DocumentSignerRecord, IacaRecord, IacaRevocation } from './model.ts';

/** A CA's profile as repositories filter by it: `mdoc` (IACAs, whose records have no `profile`) or `issuer`. */
export type CaProfile = 'mdoc' | 'issuer';

export interface IacaRepository {
  /**
   * Adds an IACA unless the tenant already holds `limit` IACAs, checked and written atomically so
   * that racing creates never pass the limit together. Returns false (nothing written) at the limit.
   * Throws DomainError `Conflict` when the id exists or the tenant already holds the same certificate
   * (same fingerprint); another tenant may hold it too.
   */
  insert(iaca: IacaRecord, limit: number): Promise<boolean>;
  // The limit counts the tenant's CAs of the same profile (IACAs, or issuer CAs).
  get(tenantId: string, id: string): Promise<IacaRecord | undefined>;
  /**
   * The tenant's CAs of one profile (IACAs unless `profile` is `issuer`) in creation order; with
   * `activeOnly`, only the active ones.
   */
  list(tenantId: string, page: PageRequest, filter?: { activeOnly?: boolean; profile?: CaProfile }): Promise<Slice<IacaRecord>>;
  /** Replaces the IACA's `active`, `activatedAt` and `updatedAt`. Returns false when the tenant has no such IACA. */
  update(iaca: IacaRecord): Promise<boolean>;
  /** Removes the IACA together with its document signers and revocations. Returns false when the tenant has no such IACA. */
  delete(tenantId: string, id: string): Promise<boolean>;
  /**
   * Records a certificate the IACA issued as revoked, for its CRL. It outlives the document signer
   * record. A serial number already recorded for the IACA keeps its first entry. Throws DomainError
   * `NotFound` when the tenant has no such IACA.
   */
  addRevocation(tenantId: string, iacaId: string, revocation: IacaRevocation): Promise<void>;
  /** The IACA's revocations in the order recorded (empty for an unknown IACA). */
  listRevocations(tenantId: string, iacaId: string): Promise<IacaRevocation[]>;
}

export interface DocumentSignerRepository {
  /**
   * Adds a document signer of one of the tenant's IACAs (or a leaf of an issuer CA). With `limit`,
   * it is refused (false, nothing written) when the tenant already holds that many signers of the
   * same profile (mDoc signers, or issuer leaves) that are not managed (`isManaged` false), checked
   * and written atomically. Throws DomainError `NotFound` when the tenant has no
   * IACA `iacaId`, and `Conflict` when the id exists.
   */
  insert(signer: DocumentSignerRecord, limit?: number): Promise<boolean>;
  get(tenantId: string, id: string): Promise<DocumentSignerRecord | undefined>;
  /**
   * The tenant's signers of one profile (mDoc document signers unless `profile` is `issuer`) in
   * creation order; with `iacaId`, only that CA's.
   */
  list(tenantId: string, page: PageRequest, filter?: { iacaId?: string; profile?: CaProfile }): Promise<Slice<DocumentSignerRecord>>;
  /** Every document signer of one IACA in creation order (an IACA has few: issuance reads them to pick one). */
  listByIaca(tenantId: string, iacaId: string): Promise<DocumentSignerRecord[]>;
  /**
   * Replaces the signer's mutable fields (active, certificate and its data, revokedAt, updatedAt);
   * its IACA, key and kind never change. Returns false when the tenant has no such signer.
   */
  update(signer: DocumentSignerRecord): Promise<boolean>;
  /** Returns false when the tenant has no such signer. */
  delete(tenantId: string, id: string): Promise<boolean>;
}

/** What Vellum reads from an X.509 certificate (docs/decisions.md "mDoc PKI" `certificateData`, plus what checks need). */
export interface CertificateInfo {
  pem: string;
  der: Uint8Array;
  /** Lower-case hex, as CRLs list it. */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  commonName?: string;
  country?: string;
  stateOrProvinceName?: string;
  /** The subject's public key as a JWK; an imported certificate may hold a key other than P-256. */
  publicKey: { kty: string; crv?: string; x?: string; y?: string };
  /** BasicConstraints cA. */
  isCa: boolean;
  /** Extended key usage OIDs (empty when the certificate has none). */
  extendedKeyUsages: string[];
  /** SHA-256 of the DER, lower-case hex. */
  fingerprint: string;
  /** The subject alternative names that are URIs or host names (an issuer leaf names its issuer there). */
  subjectAltNames: string[];
}

/** A KeyManager key of a tenant, named for the X.509 authority to sign with through the KeyManager. */
export interface HeldKeyRef {
  tenantId: string;
  keyId: string;
}

/** The subject name of a certificate or CSR Vellum makes. */
export interface SubjectName {
  commonName: string;
  country: string;
  stateOrProvinceName?: string;
}

/** A certificate Vellum issues under an IACA's name: its subject, validity, and the IACA's `issuerAlternativeName` and CRL (ISO/IEC 18013-5 Annex B). */
export interface IssuedCertificateFields extends SubjectName {
  notBefore: Date;
  notAfter: Date;
  issuerAlternativeName: string;
  crlDistributionPointUri: string;
}

/** The issuer of a certificate or CRL: a held IACA key and its certificate. */
export interface IacaIssuer {
  key: HeldKeyRef;
  certificatePem: string;
}

/**
 * X.509 for mDocs (ISO/IEC 18013-5 Annex B) with keys the KeyManager holds: every signature goes
 * through it. Bad names, dates or URIs are DomainError `BadRequest` with details; a destroyed key is `NotFound`.
 */
export interface X509Authority {
  /** A self-signed IACA certificate for a held P-256 key. */
  createIacaCertificate(input: IssuedCertificateFields & { key: ManagedKey }): Promise<CertificateInfo>;
  /**
   * A document signer certificate for `subjectPublicJwk`, issued by a held IACA key; within the
   * IACA's validity. With `subjectAltNames`, an issuer CA's leaf instead: those names (URIs, host
   * names) in place of the document signer EKU (docs/decisions.md "Issuer certificates").
   */
  createDocumentSignerCertificate(
    input: IssuedCertificateFields & { issuer: IacaIssuer; subjectPublicJwk: PublicJwk; subjectAltNames?: readonly string[] },
  ): Promise<CertificateInfo>;
  /** A PKCS#10 request (PEM) for a held P-256 key, signed with it. */
  createCsr(input: SubjectName & { key: ManagedKey }): Promise<string>;
  /** The IACA's CRL (DER), signed with its held key. */
  createCrl(input: {
    issuer: IacaIssuer;
    revoked: ReadonlyArray<{ serialNumber: string; revokedAt: Date }>;
    thisUpdate: Date;
    nextUpdate: Date;
  }): Promise<Uint8Array>;
  /** Reads exactly one PEM certificate; anything else is a 400 about `certificatePem`. */
  parseCertificate(pem: string): CertificateInfo;
  /** Whether `issuerPem` issued `certificatePem`: a CA, names and key identifiers chain, the signature verifies. Dates are not checked. */
  verifyIssuedBy(certificatePem: string, issuerPem: string): boolean;
}
