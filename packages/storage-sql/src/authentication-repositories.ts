// The tenant's authentication provider, OpenID settings and claim sources on Kysely. The one
// provider per tenant is a unique index on tenant_id, so two creates at once get one Conflict.

import { conflict, type Repositories, type Slice } from '@vellum/core';
import {
  toAuthenticationProvider,
  toAuthenticationProviderRow,
  toClaimSource,
  toClaimSourceRow,
  toOpenIdSettings,
  toOpenIdSettingsRow,
} from './authentication.table.ts';
import { type Executor, seqOf } from './database.ts';
import { uniqueViolation } from './errors.ts';

function toSlice<R extends { seq: number | string }, T>(rows: R[], map: (row: R) => T): Slice<T> {
  const last = rows[rows.length - 1];
  return last === undefined ? { items: [] } : { items: rows.map(map), last: seqOf(last.seq) };
}

async function refusingDuplicates<T>(write: Promise<T>, describe: (violated: string) => string): Promise<T> {
  try {
    return await write;
  } catch (error) {
    const violated = uniqueViolation(error);
    if (violated === undefined) throw error;
    throw conflict(describe(violated));
  }
}

/** Builds the three repositories on `db`, a Kysely instance or a transaction. */
export function authenticationRepositoriesOn(db: Executor): Pick<Repositories, 'authenticationProviders' | 'openIdSettings' | 'claimSources'> {
  return {
    authenticationProviders: {
      async insert(provider) {
        await refusingDuplicates(db.insertInto('authentication_providers').values(toAuthenticationProviderRow(provider)).execute(), (violated) =>
          violated.includes('tenant_id') ? 'The tenant already has an authentication provider' : 'Authentication provider id exists',
        );
      },
      async get(tenantId, id) {
        const row = await db.selectFrom('authentication_providers').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
        return row && toAuthenticationProvider(row);
      },
      async current(tenantId) {
        const row = await db.selectFrom('authentication_providers').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
        return row && toAuthenticationProvider(row);
      },
      async update(provider) {
        const { id: _id, tenant_id: _tenant, created_at: _created, ...columns } = toAuthenticationProviderRow(provider);
        const result = await db
          .updateTable('authentication_providers')
          .set(columns)
          .where('tenant_id', '=', provider.tenantId)
          .where('id', '=', provider.id)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async delete(tenantId, id) {
        const result = await db.deleteFrom('authentication_providers').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
    },

    openIdSettings: {
      async get(tenantId) {
        const row = await db.selectFrom('openid_settings').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
        return row && toOpenIdSettings(row);
      },
      async put(settings) {
        const row = toOpenIdSettingsRow(settings);
        // One statement, so two servers writing at once leave one whole row (the last write).
        await db
          .insertInto('openid_settings')
          .values(row)
          .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ interaction_hook: row.interaction_hook ?? null, updated_at: row.updated_at }))
          .execute();
      },
    },

    claimSources: {
      async insert(source) {
        await refusingDuplicates(db.insertInto('claim_sources').values(toClaimSourceRow(source)).execute(), () => 'Claim source id exists');
      },
      async get(tenantId, id) {
        const row = await db.selectFrom('claim_sources').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
        return row && toClaimSource(row);
      },
      async list(tenantId, page) {
        let query = db.selectFrom('claim_sources').selectAll().where('tenant_id', '=', tenantId);
        if (page.after !== undefined) query = query.where('seq', '>', page.after);
        return toSlice(await query.orderBy('seq').limit(page.limit).execute(), toClaimSource);
      },
      async update(source) {
        const { id: _id, tenant_id: _tenant, created_at: _created, ...columns } = toClaimSourceRow(source);
        const result = await db
          .updateTable('claim_sources')
          .set(columns)
          .where('tenant_id', '=', source.tenantId)
          .where('id', '=', source.id)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async delete(tenantId, id) {
        const result = await db.deleteFrom('claim_sources').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
    },
  };
}
