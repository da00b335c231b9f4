// The tenant's authentication provider, OpenID settings and claim sources on Kysely. The one
// provider per tenant is a unique index on tenant_id, so two creates at once get one Conflict.

import type { Repositories } from '@vellum/core';
import {
  toAuthenticationProvider,
  toAuthenticationProviderRow,
  toClaimSource,
  toClaimSourceRow,
  toOpenIdSettings,
  toOpenIdSettingsRow,
} from './authentication.table.ts';
import type { Executor } from './database.ts';
import { refusingDuplicates } from './errors.ts';
import { deleteOwned, findOwned, listOwned, updateOwned } from './queries.ts';

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
        return findOwned(db, 'authentication_providers', tenantId, id, toAuthenticationProvider);
      },
      async current(tenantId) {
        const row = await db.selectFrom('authentication_providers').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
        return row && toAuthenticationProvider(row);
      },
      async update(provider) {
        const { id: _id, tenant_id: _tenant, created_at: _created, ...columns } = toAuthenticationProviderRow(provider);
        return updateOwned(db, 'authentication_providers', provider.tenantId, provider.id, columns);
      },
      async delete(tenantId, id) {
        return deleteOwned(db, 'authentication_providers', tenantId, id);
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
        await refusingDuplicates(db.insertInto('claim_sources').values(toClaimSourceRow(source)).execute(), 'Claim source id exists');
      },
      async get(tenantId, id) {
        return findOwned(db, 'claim_sources', tenantId, id, toClaimSource);
      },
      async list(tenantId, page) {
        return listOwned(db, 'claim_sources', tenantId, page, toClaimSource);
      },
      async update(source) {
        const { id: _id, tenant_id: _tenant, created_at: _created, ...columns } = toClaimSourceRow(source);
        return updateOwned(db, 'claim_sources', source.tenantId, source.id, columns);
      },
      async delete(tenantId, id) {
        return deleteOwned(db, 'claim_sources', tenantId, id);
      },
    },
  };
}
