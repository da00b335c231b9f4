// The trusted wallet provider repository of the memory store (ports.ts: WalletProviderRepository).
import { conflict, type Repositories, type WalletProvider } from '@vellum/core';
import { copy, deleteOwned, ownedRow, ownedValue, type Row, tenantPage } from './rows.ts';

/** By id (a UUID, unique across tenants as the SQL store's primary key is). */
export type WalletProviderState = Map<string, Row<WalletProvider>>;

export const emptyWalletProviderState = (): WalletProviderState => new Map();

/** The wallet provider repository over the state `get` returns; `next` hands out creation-order numbers. */
export function walletProviderRepositories(get: () => WalletProviderState, next: () => number): Pick<Repositories, 'walletProviders'> {
  return {
    walletProviders: {
      async insert(provider, limit) {
        const s = get();
        if (s.has(provider.id)) throw conflict('Wallet provider id exists');
        // Counted and written in one step: nothing runs in between in one process.
        if ([...s.values()].filter((r) => r.value.tenantId === provider.tenantId).length >= limit) return false;
        s.set(provider.id, { seq: next(), value: copy(provider) });
        return true;
      },
      async get(tenantId, id) {
        return ownedValue(get(), tenantId, id);
      },
      async list(tenantId, page) {
        return tenantPage(get(), tenantId, page);
      },
      async update(provider) {
        const r = ownedRow(get(), provider.tenantId, provider.id);
        if (!r) return false;
        // Everything but the tenant, the id and the creation time is replaced; absent optional fields are removed.
        const { tenantId, id, createdAt } = r.value;
        r.value = { ...copy(provider), tenantId, id, createdAt };
        return true;
      },
      async delete(tenantId, id) {
        return deleteOwned(get(), tenantId, id);
      },
    },
  };
}
