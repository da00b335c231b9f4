// Every repository on one Kysely executor: the store's own instance for direct calls, or a
// transaction inside `store.transaction`. Tenant-owned tables are always queried by tenant_id,
// except the two lookups the ports define as global (client id, verified domain name).

import { type AnalyticEvent, conflict, type EventFilter, type PageRequest, type Repositories, type Slice } from '@vellum/core';
import { sql, type SqlBool } from 'kysely';
import { toAdminClient, toAdminClientRow } from './admin-clients.table.ts';
import { toAnalyticEvent, toAnalyticEventRow } from './analytic-events.table.ts';
import { toCustomDomain, toCustomDomainRow } from './custom-domains.table.ts';
import { type Executor, seqOf, type SqlDialectKind, toSqlBoolean } from './database.ts';
import { toDidRecord, toDidRow } from './dids.table.ts';
import { uniqueViolation } from './errors.ts';
import { toKeyRow, toStoredKey } from './keys.table.ts';
import { toPlatformKey, toPlatformKeyRow } from './platform-keys.table.ts';
import { toTenant, toTenantRow } from './tenants.table.ts';

// Well under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters at 10 columns a row.
const EVENT_BATCH_ROWS = 500;

/** Runs a write, turning a unique violation into Conflict with the message `describe` picks from what was violated. */
async function refusingDuplicates<T>(write: Promise<T>, describe: (violated: string) => string): Promise<T> {
  try {
    return await write;
  } catch (error) {
    const violated = uniqueViolation(error);
    if (violated === undefined) throw error;
    throw conflict(describe(violated));
  }
}

function toSlice<R extends { seq: number | string }, T>(rows: R[], map: (row: R) => T): Slice<T> {
  const last = rows[rows.length - 1];
  return last === undefined ? { items: [] } : { items: rows.map(map), last: seqOf(last.seq) };
}

const isEmpty = (list: readonly string[] | undefined) => list !== undefined && list.length === 0;

/** Builds the repositories on `db`, a Kysely instance or a transaction, for the given dialect. */
export function repositoriesOn(db: Executor, kind: SqlDialectKind): Repositories {
  return {
    tenants: {
      async insert(tenant) {
        await refusingDuplicates(db.insertInto('tenants').values(toTenantRow(tenant)).execute(), (violated) =>
          violated.includes('subdomain') ? `Subdomain ${tenant.subdomain} is taken` : 'Tenant id exists',
        );
      },
      async findById(id) {
        const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
        return row && toTenant(row);
      },
      async findBySubdomain(subdomain) {
        const row = await db.selectFrom('tenants').selectAll().where('subdomain', '=', subdomain).executeTakeFirst();
        return row && toTenant(row);
      },
      async list(page) {
        let query = db.selectFrom('tenants').selectAll();
        if (page.after !== undefined) query = query.where('seq', '>', page.after);
        return toSlice(await query.orderBy('seq').limit(page.limit).execute(), toTenant);
      },
      async setLoggingLevel(id, level) {
        const result = await db.updateTable('tenants').set({ logging_level: level }).where('id', '=', id).executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
    },

    keys: {
      async insert(key) {
        await refusingDuplicates(db.insertInto('keys').values(toKeyRow(key)).execute(), () => 'Key id exists');
      },
      async get(tenantId, id) {
        const row = await db.selectFrom('keys').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
        return row && toStoredKey(row);
      },
      async delete(tenantId, id) {
        const result = await db.deleteFrom('keys').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
    },

    dids: {
      async insert(record) {
        await refusingDuplicates(db.insertInto('dids').values(toDidRow(record)).execute(), () => 'The tenant already has this DID');
      },
      async get(tenantId, did) {
        const row = await db.selectFrom('dids').selectAll().where('tenant_id', '=', tenantId).where('did', '=', did).executeTakeFirst();
        return row && toDidRecord(row);
      },
      async list(tenantId, page) {
        let query = db.selectFrom('dids').selectAll().where('tenant_id', '=', tenantId);
        if (page.after !== undefined) query = query.where('seq', '>', page.after);
        return toSlice(await query.orderBy('seq').limit(page.limit).execute(), toDidRecord);
      },
      async delete(tenantId, did) {
        const result = await db.deleteFrom('dids').where('tenant_id', '=', tenantId).where('did', '=', did).executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
      async listStamps(tenantId) {
        // The row's position in creation order is its revision: a DID created again gets a new row.
        const rows = await db.selectFrom('dids').select(['did', 'seq']).where('tenant_id', '=', tenantId).orderBy('seq').execute();
        return rows.map((r) => ({ did: r.did, revision: String(r.seq) }));
      },
    },

    clients: {
      async insert(client) {
        await refusingDuplicates(db.insertInto('admin_clients').values(toAdminClientRow(client)).execute(), () => 'Client id exists');
      },
      async findByClientId(clientId) {
        const row = await db.selectFrom('admin_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
        return row && toAdminClient(row);
      },
      async list(tenantId, page) {
        let query = db.selectFrom('admin_clients').selectAll().where('tenant_id', '=', tenantId);
        if (page.after !== undefined) query = query.where('seq', '>', page.after);
        return toSlice(await query.orderBy('seq').limit(page.limit).execute(), toAdminClient);
      },
    },

    customDomains: {
      async get(tenantId) {
        const row = await db.selectFrom('custom_domains').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
        return row && toCustomDomain(row);
      },
      async insert(domain) {
        await refusingDuplicates(db.insertInto('custom_domains').values(toCustomDomainRow(domain, kind)).execute(), (violated) =>
          violated.includes('tenant_id') ? 'The tenant already has a custom domain' : 'This domain is verified by another tenant',
        );
      },
      async update(domain) {
        const { tenant_id, ...columns } = toCustomDomainRow(domain, kind);
        const result = await refusingDuplicates(
          db.updateTable('custom_domains').set(columns).where('tenant_id', '=', tenant_id).executeTakeFirst(),
          () => 'This domain is verified by another tenant',
        );
        return result.numUpdatedRows > 0n;
      },
      async delete(tenantId) {
        const result = await db.deleteFrom('custom_domains').where('tenant_id', '=', tenantId).executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
      async markVerified(tenantId, verifiedAt) {
        // No check for another owner first: the partial unique index on verified names refuses
        // the second tenant even when both verify at the same moment.
        const result = await refusingDuplicates(
          db
            .updateTable('custom_domains')
            .set({ is_verified: toSqlBoolean(kind, true), verified_at: verifiedAt })
            .where('tenant_id', '=', tenantId)
            .executeTakeFirst(),
          () => 'This domain is verified by another tenant',
        );
        return result.numUpdatedRows > 0n;
      },
      async findVerified(domain) {
        // `is_verified` spelled as the partial index's predicate, so both planners use that index.
        const row = await db
          .selectFrom('custom_domains')
          .selectAll()
          .where('domain', '=', domain)
          .where(sql.ref<SqlBool>('is_verified'))
          .executeTakeFirst();
        return row && toCustomDomain(row);
      },
    },

    events: {
      async insertMany(events) {
        if (events.length === 0) return;
        const rows = events.map(toAnalyticEventRow);
        const write = async (on: Executor) => {
          for (let i = 0; i < rows.length; i += EVENT_BATCH_ROWS) {
            await on.insertInto('analytic_events').values(rows.slice(i, i + EVENT_BATCH_ROWS)).execute();
          }
        };
        // A batch larger than one statement still lands whole or not at all.
        if (rows.length <= EVENT_BATCH_ROWS || db.isTransaction) await write(db);
        else await db.transaction().execute(write);
      },
      async list(tenantId: string, filter: EventFilter, page: PageRequest): Promise<Slice<AnalyticEvent>> {
        // An empty list matches nothing (and `in ()` is not valid SQL).
        if ([filter.ids, filter.requestIds, filter.categories, filter.types].some(isEmpty)) return { items: [] };
        let query = db.selectFrom('analytic_events').selectAll().where('tenant_id', '=', tenantId);
        if (filter.ids) query = query.where('id', 'in', filter.ids);
        if (filter.requestIds) query = query.where('request_id', 'in', filter.requestIds);
        if (filter.categories) query = query.where('category', 'in', filter.categories);
        if (filter.types) query = query.where('type', 'in', filter.types);
        if (filter.dateFrom !== undefined) query = query.where('timestamp', '>=', filter.dateFrom);
        if (filter.dateTo !== undefined) query = query.where('timestamp', '<=', filter.dateTo);
        if (page.after !== undefined) query = query.where('seq', '<', page.after);
        return toSlice(await query.orderBy('seq', 'desc').limit(page.limit).execute(), toAnalyticEvent);
      },
    },

    platformKeys: {
      async get(name) {
        const row = await db.selectFrom('platform_keys').selectAll().where('name', '=', name).executeTakeFirst();
        return row && toPlatformKey(row);
      },
      async insertIfAbsent(record) {
        // Insert-or-nothing, then read: whichever server's insert won, every racer reads the same row.
        await db
          .insertInto('platform_keys')
          .values(toPlatformKeyRow(record))
          .onConflict((oc) => oc.column('name').doNothing())
          .execute();
        const row = await db.selectFrom('platform_keys').selectAll().where('name', '=', record.name).executeTakeFirstOrThrow();
        return toPlatformKey(row);
      },
    },
  };
}
