// Deferred issuances (docs/deferred-issuance.md): credential requests held for review. The
// transaction_id is kept only as its digest, unique per tenant; decisions and collection are single
// conditional updates, so racing callers get one winner.

import type { CredentialFormat, DeferredIssuanceRecord, DeferredStatus, PublicJwk, Repositories } from '@vellum/core';
import { type Insertable, type Selectable, sql, type SqlBool } from 'kysely';
import type { Executor, Seq } from './database.ts';
import { refusingDuplicates } from './errors.ts';
import { findOwned, findOwnedBy, pageOf } from './queries.ts';
import { deleteBatch } from './retention.table.ts';

export interface DeferredIssuancesTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  transaction_digest: string;
  credential_configuration_id: string;
  format: string;
  user_id: string;
  offer_id: string;
  grant_type: string | null;
  client_id: string | null;
  client_instance_id: string | null;
  /** JSON array of public JWKs. */
  holder_keys: string;
  /** Sealed claims; null once erased. */
  claims: string | null;
  status: string;
  interval_seconds: number;
  expires_at: string;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
  reason: string | null;
  issued_at: string | null;
  /** JSON array of issued-credential ids; null until collected. */
  credential_ids: string | null;
}

export function toDeferredIssuance(row: Selectable<DeferredIssuancesTable>): DeferredIssuanceRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    transactionDigest: row.transaction_digest,
    credentialConfigurationId: row.credential_configuration_id,
    format: row.format as CredentialFormat,
    userId: row.user_id,
    offerId: row.offer_id,
    ...(row.grant_type === 'authorization_code' ? { grant: 'authorization_code' as const } : {}),
    ...(row.client_id === null ? {} : { clientId: row.client_id }),
    ...(row.client_instance_id === null ? {} : { clientInstanceId: row.client_instance_id }),
    holderKeys: JSON.parse(row.holder_keys) as PublicJwk[],
    ...(row.claims === null ? {} : { sealedClaims: row.claims }),
    status: row.status as DeferredStatus,
    intervalSeconds: Number(row.interval_seconds),
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    ...(row.decided_at === null ? {} : { decidedAt: row.decided_at }),
    ...(row.decided_by === null ? {} : { decidedBy: row.decided_by }),
    ...(row.reason === null ? {} : { reason: row.reason }),
    ...(row.issued_at === null ? {} : { issuedAt: row.issued_at }),
    ...(row.credential_ids === null ? {} : { credentialIds: JSON.parse(row.credential_ids) as string[] }),
  };
}

export function toDeferredIssuanceRow(r: DeferredIssuanceRecord): Insertable<DeferredIssuancesTable> {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    transaction_digest: r.transactionDigest,
    credential_configuration_id: r.credentialConfigurationId,
    format: r.format,
    user_id: r.userId,
    offer_id: r.offerId,
    grant_type: r.grant ?? null,
    client_id: r.clientId ?? null,
    client_instance_id: r.clientInstanceId ?? null,
    holder_keys: JSON.stringify(r.holderKeys),
    claims: r.sealedClaims ?? null,
    status: r.status,
    interval_seconds: r.intervalSeconds,
    expires_at: r.expiresAt,
    created_at: r.createdAt,
    decided_at: r.decidedAt ?? null,
    decided_by: r.decidedBy ?? null,
    reason: r.reason ?? null,
    issued_at: r.issuedAt ?? null,
    credential_ids: r.credentialIds === undefined ? null : JSON.stringify(r.credentialIds),
  };
}

/** The deferred issuance repository on `db`, a Kysely instance or a transaction. */
export function deferredIssuanceRepositoriesOn(db: Executor): Pick<Repositories, 'deferredIssuances'> {
  return {
    deferredIssuances: {
      async insert(record) {
        await refusingDuplicates(db.insertInto('deferred_issuances').values(toDeferredIssuanceRow(record)).execute(), (violated) =>
          violated.includes('transaction') ? 'The tenant already has a deferred issuance with this transaction id' : 'Deferred issuance id exists',
        );
      },
      async get(tenantId, id) {
        return findOwned(db, 'deferred_issuances', tenantId, id, toDeferredIssuance);
      },
      async findByTransactionDigest(tenantId, digest) {
        return findOwnedBy(db, 'deferred_issuances', tenantId, 'transaction_digest', digest, toDeferredIssuance);
      },
      async list(tenantId, filter, page) {
        let query = db.selectFrom('deferred_issuances').selectAll().where('tenant_id', '=', tenantId);
        if (filter.status !== undefined) query = query.where('status', '=', filter.status);
        return pageOf(query, page, toDeferredIssuance);
      },
      async decide(tenantId, id, decision, now) {
        const result = await db
          .updateTable('deferred_issuances')
          .set({
            status: decision.status,
            decided_at: decision.decidedAt,
            decided_by: decision.decidedBy ?? null,
            reason: decision.reason ?? null,
            // A denial can never issue: its claims go in the same write.
            ...(decision.status === 'denied' ? { claims: null } : {}),
          })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .where('status', '=', 'pending')
          .where('expires_at', '>', now)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async markIssued(tenantId, id, issuedAt, credentialIds) {
        const result = await db
          .updateTable('deferred_issuances')
          .set({ status: 'issued', issued_at: issuedAt, credential_ids: JSON.stringify(credentialIds), claims: null })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .where('status', '=', 'approved')
          .where('expires_at', '>', issuedAt)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async purgeExpired(before, limit) {
        return deleteBatch(db, 'deferred_issuances', ['seq'], limit, sql<SqlBool>`expires_at <= ${before}`);
      },
    },
  };
}
