import type { CertificateData, DocumentSignerRecord, IacaRecord, IacaRevocation, PublicJwk } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import { fromSqlBoolean, type Seq, type SqlBoolean, type SqlDialectKind, toSqlBoolean } from './database.ts';

export interface MdocIacasTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  active: SqlBoolean;
  activated_at: string | null;
  is_managed: SqlBoolean;
  key_id: string | null;
  certificate_pem: string;
  /** Unique per tenant: the rule is the index (tenant_id, fingerprint). */
  fingerprint: string;
  /** JSON of CertificateData. */
  certificate_data: string;
  issuer_alternative_name: string | null;
  crl_uri: string | null;
  /** `mdoc` for an IACA, `issuer` for an issuer CA (docs/decisions.md "Issuer certificates"). */
  profile: string;
  created_at: string;
  updated_at: string;
}

export interface MdocDocumentSignersTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  iaca_id: string;
  is_managed: SqlBoolean;
  active: SqlBoolean;
  key_id: string;
  /** JSON of the public JWK. */
  public_jwk: string;
  csr_pem: string | null;
  certificate_pem: string | null;
  fingerprint: string | null;
  serial_number: string | null;
  /** JSON of CertificateData, once certified. */
  certificate_data: string | null;
  revoked_at: string | null;
  /** `mdoc` for a document signer; `credential` or `status-list` for an issuer CA's leaf. */
  use: string;
  /** JSON array of an issuer leaf's subject alternative names. */
  subject_alt_names: string | null;
  created_at: string;
  updated_at: string;
}

export interface MdocIacaRevocationsTable {
  seq: Seq;
  tenant_id: string;
  iaca_id: string;
  serial_number: string;
  revoked_at: string;
  not_after: string;
}

/** Maps a stored IACA row to the domain type; null columns become absent fields. */
export function toIacaRecord(row: Selectable<MdocIacasTable>): IacaRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    active: fromSqlBoolean(row.active),
    ...(row.activated_at === null ? {} : { activatedAt: row.activated_at }),
    isManaged: fromSqlBoolean(row.is_managed),
    ...(row.key_id === null ? {} : { keyId: row.key_id }),
    certificatePem: row.certificate_pem,
    fingerprint: row.fingerprint,
    certificateData: JSON.parse(row.certificate_data) as CertificateData,
    ...(row.issuer_alternative_name === null ? {} : { issuerAlternativeName: row.issuer_alternative_name }),
    ...(row.crl_uri === null ? {} : { crlUri: row.crl_uri }),
    ...(row.profile === 'issuer' ? { profile: 'issuer' as const } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps an IACA to the row that stores it. */
export function toIacaRow(r: IacaRecord, kind: SqlDialectKind): Insertable<MdocIacasTable> {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    active: toSqlBoolean(kind, r.active),
    activated_at: r.activatedAt ?? null,
    is_managed: toSqlBoolean(kind, r.isManaged),
    key_id: r.keyId ?? null,
    certificate_pem: r.certificatePem,
    fingerprint: r.fingerprint,
    certificate_data: JSON.stringify(r.certificateData),
    issuer_alternative_name: r.issuerAlternativeName ?? null,
    crl_uri: r.crlUri ?? null,
    profile: r.profile ?? 'mdoc',
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

/** Maps a stored document signer row to the domain type; null columns become absent fields. */
export function toDocumentSignerRecord(row: Selectable<MdocDocumentSignersTable>): DocumentSignerRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    iacaId: row.iaca_id,
    isManaged: fromSqlBoolean(row.is_managed),
    active: fromSqlBoolean(row.active),
    keyId: row.key_id,
    publicJwk: JSON.parse(row.public_jwk) as PublicJwk,
    ...(row.csr_pem === null ? {} : { csrPem: row.csr_pem }),
    ...(row.certificate_pem === null ? {} : { certificatePem: row.certificate_pem }),
    ...(row.fingerprint === null ? {} : { fingerprint: row.fingerprint }),
    ...(row.serial_number === null ? {} : { serialNumber: row.serial_number }),
    ...(row.certificate_data === null ? {} : { certificateData: JSON.parse(row.certificate_data) as CertificateData }),
    ...(row.revoked_at === null ? {} : { revokedAt: row.revoked_at }),
    ...(row.use === 'credential' || row.use === 'status-list' ? { use: row.use } : {}),
    ...(row.subject_alt_names === null ? {} : { subjectAltNames: JSON.parse(row.subject_alt_names) as string[] }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps a document signer to the row that stores it. */
export function toDocumentSignerRow(s: DocumentSignerRecord, kind: SqlDialectKind): Insertable<MdocDocumentSignersTable> {
  return {
    id: s.id,
    tenant_id: s.tenantId,
    iaca_id: s.iacaId,
    is_managed: toSqlBoolean(kind, s.isManaged),
    active: toSqlBoolean(kind, s.active),
    key_id: s.keyId,
    public_jwk: JSON.stringify(s.publicJwk),
    csr_pem: s.csrPem ?? null,
    certificate_pem: s.certificatePem ?? null,
    fingerprint: s.fingerprint ?? null,
    serial_number: s.serialNumber ?? null,
    certificate_data: s.certificateData === undefined ? null : JSON.stringify(s.certificateData),
    revoked_at: s.revokedAt ?? null,
    use: s.use ?? 'mdoc',
    subject_alt_names: s.subjectAltNames === undefined ? null : JSON.stringify(s.subjectAltNames),
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

/** Maps a stored revocation row to the domain type. */
export function toIacaRevocation(row: Selectable<MdocIacaRevocationsTable>): IacaRevocation {
  return { serialNumber: row.serial_number, revokedAt: row.revoked_at, notAfter: row.not_after };
}
