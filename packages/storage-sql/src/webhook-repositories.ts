// The webhook repositories on Kysely: subscriptions, the delivery outbox and the signing keys.
// Claiming is one statement: `UPDATE … WHERE seq IN (SELECT … FOR UPDATE SKIP LOCKED)` on
// PostgreSQL, so servers sharing a database skip each other's rows instead of waiting on them; on
// SQLite the same conditional UPDATE runs under the database's single write lock.

import { conflict, type Repositories } from '@vellum/core';
import { type ExpressionBuilder, sql, type SqlBool } from 'kysely';
import { compiledOnce } from './compiled-once.ts';
import { type Executor, seqOf, type SqlBoolean, type VellumDatabase, type SqlDialectKind, toSqlBoolean, fromSqlBoolean } from './database.ts';
import { refusingDuplicates } from './errors.ts';
import { deleteBatch } from './retention.table.ts';
import { atomically, deleteOwned, findOwned, listOwned, pageOf, updateOwned } from './queries.ts';
import { toWebhook, toWebhookDelivery, toWebhookDeliveryRow, toWebhookRow, toWebhookSigningKey, toWebhookSigningKeyRow } from './webhooks.table.ts';

// The outbox reads a tenant's enabled webhooks in every issuance: built and compiled once per Kysely
// instance (compiled-once.ts), which saved about 40 µs of query building per credential.
const enabledWebhooks = compiledOnce('webhooks.listSubscribed', (db, p: { tenantId: string; disabled: SqlBoolean }) =>
  db.selectFrom('webhooks').selectAll().where('tenant_id', '=', p.tenantId).where('disabled', '=', p.disabled),
);

// Well under both dialects' bound-parameter limits at 19 columns a row.
const DELIVERY_BATCH_ROWS = 500;

/** Whether a delivery still pending was signed with the key `k` (both signing-key reads ask it). */
function pendingDeliveryOf(w: ExpressionBuilder<VellumDatabase & { k: VellumDatabase['webhook_signing_keys'] }, 'k'>) {
  return w.exists(
    w
      .selectFrom('webhook_deliveries as d')
      .select(sql<number>`1`.as('one'))
      .whereRef('d.tenant_id', '=', 'k.tenant_id')
      .whereRef('d.key_id', '=', 'k.key_id')
      .where('d.status', '=', 'pending'),
  );
}

/** Builds the webhook repositories on `db`, a Kysely instance or a transaction. */
export function webhookRepositoriesOn(db: Executor, kind: SqlDialectKind): Pick<Repositories, 'webhooks' | 'webhookDeliveries' | 'webhookKeys'> {
  return {
    webhooks: {
      async insert(webhook) {
        await refusingDuplicates(db.insertInto('webhooks').values(toWebhookRow(webhook, kind)).execute(), 'Webhook id exists');
      },
      async get(tenantId, id) {
        return findOwned(db, 'webhooks', tenantId, id, toWebhook);
      },
      async list(tenantId, page) {
        return listOwned(db, 'webhooks', tenantId, page, toWebhook);
      },
      async update(webhook) {
        const { url, events, disabled, updated_at } = toWebhookRow(webhook, kind);
        return updateOwned(db, 'webhooks', webhook.tenantId, webhook.id, { url, events, disabled, updated_at });
      },
      async delete(tenantId, id) {
        // Its deliveries go with it (foreign key with on delete cascade).
        return deleteOwned(db, 'webhooks', tenantId, id);
      },
      async listSubscribed(tenantId, events) {
        // A tenant has few webhooks: read the enabled ones and match their event lists here. They
        // are put in order here too: on SQLite `order by seq` tripled the cost of this query, which
        // runs in every issuance, even with no row to sort.
        const rows = await enabledWebhooks.rows(db, { tenantId, disabled: toSqlBoolean(kind, false) });
        rows.sort((a, b) => Number(a.seq) - Number(b.seq));
        return rows.map(toWebhook).filter((w) => w.events.some((e) => events.includes(e)));
      },
    },

    webhookDeliveries: {
      async insertMany(deliveries) {
        if (deliveries.length === 0) return;
        const rows = deliveries.map(toWebhookDeliveryRow);
        await refusingDuplicates(
          atomically(db, async (tx) => {
            for (let i = 0; i < rows.length; i += DELIVERY_BATCH_ROWS)
              await tx
                .insertInto('webhook_deliveries')
                .values(rows.slice(i, i + DELIVERY_BATCH_ROWS))
                .execute();
          }),
          'Delivery id exists',
        );
      },
      async get(tenantId, id) {
        return findOwned(db, 'webhook_deliveries', tenantId, id, toWebhookDelivery);
      },
      async list(tenantId, webhookId, page) {
        return pageOf(
          db.selectFrom('webhook_deliveries').selectAll().where('tenant_id', '=', tenantId).where('webhook_id', '=', webhookId),
          page,
          toWebhookDelivery,
        );
      },
      async claimDue({ now, leaseUntil, limit, claimToken }) {
        const claimed = await db
          .updateTable('webhook_deliveries')
          .set({ lease_until: leaseUntil, claim_token: claimToken })
          .where('seq', 'in', (eb) => {
            let due = eb
              .selectFrom('webhook_deliveries')
              .select('seq')
              // Spelled as the partial index's predicate, so both planners use it.
              .where('status', '=', 'pending')
              .where('next_attempt_at', '<=', now)
              .where((w) => w.or([w('lease_until', 'is', null), w('lease_until', '<=', now)]))
              .orderBy('next_attempt_at')
              .orderBy('seq')
              .limit(limit);
            if (kind === 'postgres') due = due.forUpdate().skipLocked();
            return due;
          })
          .returningAll()
          .execute();
        if (claimed.length === 0) return [];
        const webhookIds = [...new Set(claimed.map((r) => r.webhook_id))];
        const hooks = await db.selectFrom('webhooks').select(['id', 'url', 'disabled']).where('id', 'in', webhookIds).execute();
        const byId = new Map(hooks.map((h) => [h.id, h]));
        claimed.sort((a, b) => (a.next_attempt_at ?? '').localeCompare(b.next_attempt_at ?? '') || seqOf(a.seq) - seqOf(b.seq));
        return claimed.flatMap((row) => {
          const hook = byId.get(row.webhook_id);
          // A webhook deleted since takes its deliveries with it; nothing is left to send.
          return hook ? [{ delivery: toWebhookDelivery(row), url: hook.url, disabled: fromSqlBoolean(hook.disabled), claimToken }] : [];
        });
      },
      async recordAttempts(outcomes) {
        if (outcomes.length === 0) return [];
        // One transaction for the batch: one commit (one fsync on SQLite) instead of one per delivery.
        return atomically(db, async (tx) => {
          const recorded: string[] = [];
          for (const o of outcomes) {
            const final = o.status !== 'pending';
            const result = await tx
              .updateTable('webhook_deliveries')
              .set({
                status: o.status,
                attempts: JSON.stringify(o.attempts),
                retries_left: o.retriesLeft,
                next_attempt_at: final ? null : (o.nextAttemptAt ?? null),
                lease_until: null,
                claim_token: null,
                updated_at: o.attempts[o.attempts.length - 1]?.at ?? new Date().toISOString(),
                // Credential contents are kept no longer than the delivery needs them.
                ...(final ? { credential: null } : {}),
                ...(o.keyId !== undefined ? { key_id: o.keyId } : {}),
              })
              .where('tenant_id', '=', o.tenantId)
              .where('id', '=', o.id)
              .where('claim_token', '=', o.claimToken)
              .executeTakeFirst();
            if (result.numUpdatedRows > 0n) recorded.push(o.id);
          }
          return recorded;
        });
      },
      async requeue(tenantId, id, at, retriesLeft) {
        const result = await db
          .updateTable('webhook_deliveries')
          .set({ status: 'pending', next_attempt_at: at, retries_left: retriesLeft, lease_until: null, claim_token: null, updated_at: at })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .where('status', '=', 'failed')
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async countPending() {
        // Spelled as the predicate of the partial indexes on pending rows (webhook_deliveries_pending_due,
        // _pending_key_id): both planners count one of them (SQLite a covering index scan, PostgreSQL an
        // index-only scan), so a scrape reads the backlog, never the delivered history.
        const row = await db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number | string | bigint>().as('pending'))
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow();
        return Number(row.pending);
      },
      async purgeFinishedBefore(tenantId, before, limit) {
        // `status <> 'pending'` as the literal predicate of webhook_deliveries_finished_tenant_id_updated_at, so both planners use it.
        return deleteBatch(db, 'webhook_deliveries', ['seq'], limit, sql<SqlBool>`tenant_id = ${tenantId} and status <> 'pending' and updated_at < ${before}`);
      },
    },

    webhookKeys: {
      async active(tenantId) {
        const row = await db.selectFrom('webhook_signing_keys').selectAll().where('tenant_id', '=', tenantId).where('status', '=', 'active').executeTakeFirst();
        return row && toWebhookSigningKey(row);
      },
      async insertActive(key) {
        // The partial unique index (one active key per tenant) is the rule: a racing insert does nothing.
        await db
          .insertInto('webhook_signing_keys')
          .values(toWebhookSigningKeyRow({ ...key, status: 'active' }))
          // The conflict target repeats the index predicate as a literal: SQLite matches partial indexes by their text.
          .onConflict((oc) => oc.column('tenant_id').where(sql<SqlBool>`status = 'active'`).doNothing())
          .execute();
        const row = await db
          .selectFrom('webhook_signing_keys')
          .selectAll()
          .where('tenant_id', '=', key.tenantId)
          .where('status', '=', 'active')
          .executeTakeFirstOrThrow();
        return toWebhookSigningKey(row);
      },
      async rotate(tenantId, currentKeyId, next, at) {
        await refusingDuplicates(
          atomically(db, async (tx) => {
            const retired = await tx
              .updateTable('webhook_signing_keys')
              .set({ status: 'retired', retired_at: at })
              .where('tenant_id', '=', tenantId)
              .where('key_id', '=', currentKeyId)
              .where('status', '=', 'active')
              .executeTakeFirst();
            if (retired.numUpdatedRows === 0n) throw conflict('The active signing key changed meanwhile');
            await tx
              .insertInto('webhook_signing_keys')
              .values(toWebhookSigningKeyRow({ ...next, status: 'active' }))
              .execute();
          }),
          'The active signing key changed meanwhile',
        );
      },
      async listPublished(tenantId) {
        const rows = await db
          .selectFrom('webhook_signing_keys as k')
          .selectAll('k')
          .where('k.tenant_id', '=', tenantId)
          .where((w) => w.or([w('k.status', '=', 'active'), pendingDeliveryOf(w)]))
          .orderBy('k.seq')
          .execute();
        return rows.map(toWebhookSigningKey);
      },
      async listSpent(limit) {
        const rows = await db
          .selectFrom('webhook_signing_keys as k')
          .selectAll('k')
          .where('k.status', '=', 'retired')
          .where((w) => w.not(pendingDeliveryOf(w)))
          .orderBy('k.seq')
          .limit(limit)
          .execute();
        return rows.map(toWebhookSigningKey);
      },
      async deleteRetired(tenantId, keyId) {
        const result = await db
          .deleteFrom('webhook_signing_keys')
          .where('tenant_id', '=', tenantId)
          .where('key_id', '=', keyId)
          .where('status', '=', 'retired')
          .executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
    },
  };
}
