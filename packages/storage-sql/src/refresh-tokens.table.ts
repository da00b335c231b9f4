// Refresh tokens on Kysely (ports.ts: RefreshTokenRepository): the row type, its mapping and the
// repository. Migration 0024_refresh_tokens creates the table. Rotation and the record of what a
// refreshed access token issued are one conditional UPDATE each, so of racing callers, on one
// server or several sharing the database, exactly one succeeds.

import type { KeyAttestationLevels, RefreshFamilyFilter, RefreshFamilyGrant, RefreshTokenRecord, Repositories } from '@vellum/core';
import { type Insertable, type Selectable, type SqlBool, sql } from 'kysely';
import type { Executor, Seq, SqlBoolean, SqlDialectKind } from './database.ts';
import { fromSqlBoolean, toSqlBoolean } from './database.ts';
import { refusingDuplicates } from './errors.ts';
import { compiledFindOwned, compiledFindOwnedBy } from './queries.ts';
import { deleteBatch } from './retention.table.ts';
import { markedIds, NO_CLAIMS, storedClaims } from './users-offers.table.ts';

export interface RefreshTokensTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  family_id: string;
  /** SHA-256 of the token; unique per tenant. */
  digest: string;
  user_id: string;
  grant_kind: string;
  grant_id: string;
  /** JSON array of configuration ids. */
  configuration_ids: string;
  credential_identifiers: SqlBoolean;
  client_id: string | null;
  client_instance_id: string | null;
  dpop_jkt: string | null;
  /** JSON of the offer's key attestation levels (RefreshTokenRecord.keyAttestationsRequired), or null. */
  key_attestations_required: string | null;
  /** Sealed by the core (RefreshTokenRecord.sealedClaims); '' when there are none. */
  claims: string;
  /** What the access token given with this refresh token issued, each as `|id|` URI-encoded (as offers.issued_configuration_ids). */
  issued_configuration_ids: string;
  family_created_at: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  revoked_at: string | null;
}

const markOf = (configurationId: string) => `|${encodeURIComponent(configurationId)}|`;
/** A LIKE pattern matching `text` anywhere, its wildcards escaped (the query says `escape '\'`). */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function toRefreshToken(row: Selectable<RefreshTokensTable>): RefreshTokenRecord {
  const issued = markedIds(row.issued_configuration_ids).map(decodeURIComponent);
  return {
    id: row.id,
    tenantId: row.tenant_id,
    familyId: row.family_id,
    digest: row.digest,
    userId: row.user_id,
    grant: row.grant_kind as RefreshFamilyGrant,
    grantId: row.grant_id,
    configurationIds: JSON.parse(row.configuration_ids) as string[],
    ...(fromSqlBoolean(row.credential_identifiers) ? { credentialIdentifiers: true } : {}),
    ...(row.client_id !== null ? { clientId: row.client_id } : {}),
    ...(row.client_instance_id !== null ? { clientInstanceId: row.client_instance_id } : {}),
    ...(row.dpop_jkt !== null ? { dpopJkt: row.dpop_jkt } : {}),
    ...(row.key_attestations_required !== null ? { keyAttestationsRequired: JSON.parse(row.key_attestations_required) as KeyAttestationLevels } : {}),
    ...storedClaims(row.claims),
    ...(issued.length > 0 ? { issuedConfigurationIds: issued } : {}),
    familyCreatedAt: row.family_created_at,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    ...(row.used_at !== null ? { usedAt: row.used_at } : {}),
    ...(row.revoked_at !== null ? { revokedAt: row.revoked_at } : {}),
  };
}

function toRefreshTokenRow(r: RefreshTokenRecord, kind: SqlDialectKind): Insertable<RefreshTokensTable> {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    family_id: r.familyId,
    digest: r.digest,
    user_id: r.userId,
    grant_kind: r.grant,
    grant_id: r.grantId,
    configuration_ids: JSON.stringify(r.configurationIds),
    credential_identifiers: toSqlBoolean(kind, r.credentialIdentifiers === true),
    client_id: r.clientId ?? null,
    client_instance_id: r.clientInstanceId ?? null,
    dpop_jkt: r.dpopJkt ?? null,
    key_attestations_required: r.keyAttestationsRequired ? JSON.stringify(r.keyAttestationsRequired) : null,
    claims: r.sealedClaims ?? NO_CLAIMS,
    issued_configuration_ids: (r.issuedConfigurationIds ?? []).map(markOf).join(''),
    family_created_at: r.familyCreatedAt,
    created_at: r.createdAt,
    expires_at: r.expiresAt,
    used_at: r.usedAt ?? null,
    revoked_at: r.revokedAt ?? null,
  };
}

const byId = compiledFindOwned('refreshTokens.get', 'refresh_tokens');
const byDigest = compiledFindOwnedBy('refreshTokens.findByDigest', 'refresh_tokens', 'digest');

/** The column a family filter matches on. */
function filterColumn(filter: RefreshFamilyFilter): ['family_id' | 'user_id' | 'grant_id', string] {
  if ('familyId' in filter) return ['family_id', filter.familyId];
  if ('userId' in filter) return ['user_id', filter.userId];
  return ['grant_id', filter.grantId];
}

/** Builds the refresh token repository on `db`, a Kysely instance or a transaction. */
export function refreshTokenRepositoriesOn(db: Executor, kind: SqlDialectKind): Pick<Repositories, 'refreshTokens'> {
  return {
    refreshTokens: {
      async insert(record) {
        await refusingDuplicates(db.insertInto('refresh_tokens').values(toRefreshTokenRow(record, kind)).execute(), 'Refresh token exists');
      },
      async findByDigest(tenantId, digest) {
        const row = await byDigest.first(db, { tenantId, value: digest });
        return row && toRefreshToken(row);
      },
      async get(tenantId, id) {
        const row = await byId.first(db, { tenantId, id });
        return row && toRefreshToken(row);
      },
      async markUsed(tenantId, id, now) {
        const result = await db
          .updateTable('refresh_tokens')
          .set({ used_at: now })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .where('used_at', 'is', null)
          .where('revoked_at', 'is', null)
          .where('expires_at', '>', now)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async revokeFamilies(tenantId, filter, now) {
        const [column, value] = filterColumn(filter);
        // The families are counted in the statement that revokes them: RETURNING names each row changed.
        const rows = await db
          .updateTable('refresh_tokens')
          .set({ revoked_at: now })
          .where('tenant_id', '=', tenantId)
          .where(column, '=', value)
          .where('revoked_at', 'is', null)
          .returning('family_id')
          .execute();
        return new Set(rows.map((r) => r.family_id)).size;
      },
      async markIssued(tenantId, id, configurationId) {
        const mark = markOf(configurationId);
        const result = await db
          .updateTable('refresh_tokens')
          .set({ issued_configuration_ids: sql<string>`issued_configuration_ids || ${mark}` })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .where('revoked_at', 'is', null)
          .where(sql<SqlBool>`issued_configuration_ids not like ${containing(mark)} escape '\\'`)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async purgeExpired(before, limit) {
        return deleteBatch(db, 'refresh_tokens', ['seq'], limit, sql<SqlBool>`(expires_at <= ${before} or revoked_at <= ${before})`);
      },
    },
  };
}
