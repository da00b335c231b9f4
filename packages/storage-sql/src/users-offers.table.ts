import { canonicalJson, type NonceRecord, type OfferRecord, type StoredTxCode, type TenantSigningKeyRecord, type UserRecord } from '@vellum/core';
import type { ColumnType, Insertable, Selectable } from 'kysely';
import { fromSqlBoolean, type Seq, type SqlBoolean, type SqlDialectKind, toSqlBoolean } from './database.ts';

export interface UsersTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  /** Canonical JSON (keys sorted at every depth), so claim searches can compare JSON text. */
  claims: string;
  auth_provider_url: string | null;
  auth_subject_id: string | null;
  created_at: string;
  updated_at: string;
}

/** Every column of `users`, for reads that select them under other names (offers.getWithUser); the check below fails to compile when one is missing. */
export const USER_COLUMNS = [
  'seq',
  'id',
  'tenant_id',
  'claims',
  'auth_provider_url',
  'auth_subject_id',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof UsersTable)[];
const everyUserColumn: Exclude<keyof UsersTable, (typeof USER_COLUMNS)[number]> extends never ? true : never = true;
void everyUserColumn;

export interface OffersTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  kind: string;
  issuer: string;
  /** JSON array of configuration ids. */
  configuration_ids: string;
  /** With tenant_id, references users (on delete cascade). */
  user_id: string | null;
  /**
   * The offer's claims, sealed by the core (OfferRecord.sealedClaims); '' when there are none or
   * they were erased (migration 0018). Rows written before sealing hold JSON text until erased.
   */
  claims: string;
  /** Unique per tenant: the only form the pre-authorized code (or issuer state) is kept in. */
  code_digest: string;
  tx_code_digest: string | null;
  /** JSON of the transaction code's settings (input mode, length, description), without the code. */
  tx_code: string | null;
  request_parameters: string | null;
  /** JSON of what the offer asks of the wallet, { walletRequirements?, keyAttestationsRequired? } (migration 0026); null for none. */
  wallet_requirements: string | null;
  /** The proofs a redeem must see (REQUIRED_PROOF bits, migration 0026): 0 for none. Derived from walletRequirements. */
  required_proofs: ColumnType<number, number | undefined, number>;
  by_reference: SqlBoolean;
  status: string;
  failed_tx_attempts: number;
  expires_at: string;
  created_at: string;
  used_at: string | null;
  /**
   * The configurations the offer's access token has issued, each as `|id|` (migration 0011): a
   * token issues one credential per configuration. Empty when the offer is made.
   */
  issued_configuration_ids: ColumnType<string, string | undefined, string>;
}

/** Used c_nonces, kept until they expire (migration 0009_used_nonces). */
export interface NoncesTable {
  tenant_id: string;
  nonce: string;
  expires_at: string;
}

export interface TenantSigningKeysTable {
  tenant_id: string;
  purpose: string;
  key_id: string;
  created_at: string;
  /** The key the last rotation replaced, and when it stops verifying (migration 0032). */
  previous_key_id: ColumnType<string | null, string | null | undefined, string | null>;
  previous_until: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Maps a stored user row to the domain type. */
export function toUser(row: Selectable<UsersTable>): UserRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    claims: JSON.parse(row.claims) as Record<string, unknown>,
    ...(row.auth_provider_url !== null && row.auth_subject_id !== null
      ? { authenticationProvider: { url: row.auth_provider_url, subjectId: row.auth_subject_id } }
      : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps a user to the row that stores it. */
export function toUserRow(u: UserRecord): Insertable<UsersTable> {
  return {
    id: u.id,
    tenant_id: u.tenantId,
    claims: canonicalJson(u.claims),
    auth_provider_url: u.authenticationProvider?.url ?? null,
    auth_subject_id: u.authenticationProvider?.subjectId ?? null,
    created_at: u.createdAt,
    updated_at: u.updatedAt,
  };
}

/** What the claims column of offers and authorizations holds when there are none, or once they are erased. */
export const NO_CLAIMS = '';

/**
 * The record's `sealedClaims` from a claims column: none for '' (and for the '{}' rows written
 * before claims were sealed); anything else as it is, sealed text or an older row's JSON, which the
 * core reads either way (openClaims).
 */
export function storedClaims(column: string): { sealedClaims?: string } {
  return column === NO_CLAIMS || column === '{}' ? {} : { sealedClaims: column };
}

/** The ids of an issued_configuration_ids column, `|a||b|`, in the order marked (as written: the caller decodes). */
export function markedIds(column: string): string[] {
  return column === '' ? [] : column.slice(1, -1).split('||');
}

/** Maps a stored offer row to the domain type. */
export function toOffer(row: Selectable<OffersTable>): OfferRecord {
  const issued = markedIds(row.issued_configuration_ids);
  const txCode =
    row.tx_code !== null && row.tx_code_digest !== null
      ? ({ ...(JSON.parse(row.tx_code) as Omit<StoredTxCode, 'digest'>), digest: row.tx_code_digest } satisfies StoredTxCode)
      : undefined;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    kind: row.kind as OfferRecord['kind'],
    issuer: row.issuer,
    configurationIds: JSON.parse(row.configuration_ids) as string[],
    ...(row.user_id !== null ? { userId: row.user_id } : {}),
    ...storedClaims(row.claims),
    codeDigest: row.code_digest,
    ...(txCode ? { txCode } : {}),
    ...(row.request_parameters !== null ? { requestParameters: JSON.parse(row.request_parameters) as Record<string, unknown> } : {}),
    ...(row.wallet_requirements ? (JSON.parse(row.wallet_requirements) as Pick<OfferRecord, 'walletRequirements' | 'keyAttestationsRequired'>) : {}),
    byReference: fromSqlBoolean(row.by_reference),
    status: row.status as OfferRecord['status'],
    failedTxAttempts: Number(row.failed_tx_attempts),
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    ...(row.used_at !== null ? { usedAt: row.used_at } : {}),
    ...(issued.length > 0 ? { issuedConfigurationIds: issued } : {}),
  };
}

/** The bits of offers.required_proofs (migration 0026). */
export const REQUIRED_PROOF = { walletAttestation: 1, dpop: 2 } as const;

/** The proofs as bits: those `requirements` ask for, or (with `met`) those a request gave. */
export function proofBits(requirements: { walletAttestation?: boolean; dpop?: boolean } | undefined): number {
  return (requirements?.walletAttestation === true ? REQUIRED_PROOF.walletAttestation : 0) | (requirements?.dpop === true ? REQUIRED_PROOF.dpop : 0);
}

/** Maps an offer to the row that stores it. */
export function toOfferRow(o: OfferRecord, kind: SqlDialectKind): Insertable<OffersTable> {
  const { digest, ...settings } = o.txCode ?? { digest: null };
  return {
    id: o.id,
    tenant_id: o.tenantId,
    kind: o.kind,
    issuer: o.issuer,
    configuration_ids: JSON.stringify(o.configurationIds),
    user_id: o.userId ?? null,
    claims: o.sealedClaims ?? NO_CLAIMS,
    code_digest: o.codeDigest,
    tx_code_digest: digest,
    tx_code: o.txCode ? JSON.stringify(settings) : null,
    request_parameters: o.requestParameters ? JSON.stringify(o.requestParameters) : null,
    wallet_requirements:
      o.walletRequirements || o.keyAttestationsRequired
        ? JSON.stringify({
            ...(o.walletRequirements ? { walletRequirements: o.walletRequirements } : {}),
            ...(o.keyAttestationsRequired ? { keyAttestationsRequired: o.keyAttestationsRequired } : {}),
          })
        : null,
    required_proofs: proofBits(o.walletRequirements),
    by_reference: toSqlBoolean(kind, o.byReference),
    status: o.status,
    failed_tx_attempts: o.failedTxAttempts,
    expires_at: o.expiresAt,
    created_at: o.createdAt,
    used_at: o.usedAt ?? null,
    issued_configuration_ids: (o.issuedConfigurationIds ?? []).map((id) => `|${id}|`).join(''),
  };
}

export function toNonceRow(n: NonceRecord): Insertable<NoncesTable> {
  return { tenant_id: n.tenantId, nonce: n.nonce, expires_at: n.expiresAt };
}

export function toTenantSigningKey(row: Selectable<TenantSigningKeysTable>): TenantSigningKeyRecord {
  return {
    tenantId: row.tenant_id,
    purpose: row.purpose,
    keyId: row.key_id,
    createdAt: row.created_at,
    ...(row.previous_key_id !== null ? { previousKeyId: row.previous_key_id } : {}),
    ...(row.previous_until !== null ? { previousUntil: row.previous_until } : {}),
  };
}

export function toTenantSigningKeyRow(r: TenantSigningKeyRecord): Insertable<TenantSigningKeysTable> {
  return {
    tenant_id: r.tenantId,
    purpose: r.purpose,
    key_id: r.keyId,
    created_at: r.createdAt,
    previous_key_id: r.previousKeyId ?? null,
    previous_until: r.previousUntil ?? null,
  };
}
