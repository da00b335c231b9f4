// Trusted wallet providers on Kysely (ports.ts: WalletProviderRepository): the row type, its
// mapping and the repository. Migration 0022_wallet_providers creates the table.

import type { Repositories, WalletProvider, WalletProviderTrustedFor } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import type { Executor, Seq, SqlDialectKind } from './database.ts';
import { refusingDuplicates } from './errors.ts';
import { atomically, deleteOwned, findOwned, listOwned, lockTenant, updateOwned } from './queries.ts';

export interface WalletProvidersTable {
  seq: Seq;
  tenant_id: string;
  id: string;
  name: string;
  /** JSON array of what the provider is trusted for. */
  trusted_for: string;
  /** JSON of the one kind of anchor: `{ x509 }`, `{ jwks }` or `{ trustedListUrl }`. */
  anchors: string;
  created_at: string;
  updated_at: string;
}

type Anchors = Pick<WalletProvider, 'x509' | 'jwks' | 'trustedListUrl'>;

/** Maps a stored wallet provider row to the domain type. */
export function toWalletProvider(row: Selectable<WalletProvidersTable>): WalletProvider {
  const anchors = JSON.parse(row.anchors) as Anchors;
  return {
    tenantId: row.tenant_id,
    id: row.id,
    name: row.name,
    trustedFor: JSON.parse(row.trusted_for) as WalletProviderTrustedFor[],
    ...(anchors.x509 ? { x509: anchors.x509 } : {}),
    ...(anchors.jwks ? { jwks: anchors.jwks } : {}),
    ...(anchors.trustedListUrl !== undefined ? { trustedListUrl: anchors.trustedListUrl } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps a domain wallet provider to the row that stores it. */
export function toWalletProviderRow(p: WalletProvider): Insertable<WalletProvidersTable> {
  const anchors: Anchors = {
    ...(p.x509 ? { x509: p.x509 } : {}),
    ...(p.jwks ? { jwks: p.jwks } : {}),
    ...(p.trustedListUrl !== undefined ? { trustedListUrl: p.trustedListUrl } : {}),
  };
  return {
    tenant_id: p.tenantId,
    id: p.id,
    name: p.name,
    trusted_for: JSON.stringify(p.trustedFor),
    anchors: JSON.stringify(anchors),
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

/** Builds the wallet provider repository on `db`, a Kysely instance or a transaction. */
export function walletProviderRepositoriesOn(db: Executor, kind: SqlDialectKind): Pick<Repositories, 'walletProviders'> {
  return {
    walletProviders: {
      async insert(provider, limit) {
        return refusingDuplicates(
          // The count and the insert under the tenant's lock, so racing creates never pass the limit together.
          atomically(db, async (tx) => {
            await lockTenant(tx, kind, provider.tenantId);
            const { count } = await tx
              .selectFrom('wallet_providers')
              .select((eb) => eb.fn.countAll().as('count'))
              .where('tenant_id', '=', provider.tenantId)
              .executeTakeFirstOrThrow();
            if (Number(count) >= limit) return false;
            await tx.insertInto('wallet_providers').values(toWalletProviderRow(provider)).execute();
            return true;
          }),
          'Wallet provider id exists',
        );
      },
      async get(tenantId, id) {
        return findOwned(db, 'wallet_providers', tenantId, id, toWalletProvider);
      },
      async list(tenantId, page) {
        return listOwned(db, 'wallet_providers', tenantId, page, toWalletProvider);
      },
      async update(provider) {
        // The tenant, the id and the creation time never change.
        const { tenant_id, id, created_at, ...columns } = toWalletProviderRow(provider);
        return updateOwned(db, 'wallet_providers', tenant_id, id, columns);
      },
      async delete(tenantId, id) {
        return deleteOwned(db, 'wallet_providers', tenantId, id);
      },
    },
  };
}
