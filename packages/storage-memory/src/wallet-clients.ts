// The wallet (OAuth) client repository of the memory store (ports.ts: WalletClientRepository).
import type { Repositories, WalletClient } from '@vellum/core';
import { copy, insertRow, type Row, tenantPage } from './rows.ts';

/** By `${tenantId} ${clientId}`: the key is the SQL store's unique index. */
export type WalletClientState = Map<string, Row<WalletClient>>;

export const emptyWalletClientState = (): WalletClientState => new Map();

const keyOf = (tenantId: string, clientId: string) => `${tenantId} ${clientId}`;

/** The wallet client repository over the state `get` returns; `next` hands out creation-order numbers. */
export function walletClientRepositories(get: () => WalletClientState, next: () => number): Pick<Repositories, 'walletClients'> {
  return {
    walletClients: {
      async insert(client) {
        insertRow(get(), keyOf(client.tenantId, client.clientId), client, next, 'The tenant already has a wallet client with this client id');
      },
      async get(tenantId, clientId) {
        const r = get().get(keyOf(tenantId, clientId));
        return r && copy(r.value);
      },
      async list(tenantId, page) {
        return tenantPage(get(), tenantId, page);
      },
      async update(client) {
        const r = get().get(keyOf(client.tenantId, client.clientId));
        if (!r) return false;
        // Everything but the tenant, the id and the creation time is replaced; absent optional fields are removed.
        const { tenantId, clientId, createdAt } = r.value;
        r.value = { ...copy(client), tenantId, clientId, createdAt };
        return true;
      },
      async delete(tenantId, clientId) {
        return get().delete(keyOf(tenantId, clientId));
      },
    },
  };
}
