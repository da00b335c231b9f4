// The wallet (OAuth) client repository of the memory store (ports.ts: WalletClientRepository).
import { conflict, type PageRequest, type Repositories, type Slice, type WalletClient } from '@vellum/core';

interface Row<T> {
  seq: number;
  value: T;
}

/** By `${tenantId} ${clientId}`: the key is the SQL store's unique index. */
export type WalletClientState = Map<string, Row<WalletClient>>;

export const emptyWalletClientState = (): WalletClientState => new Map();

const copy = <T>(v: T): T => structuredClone(v);
const keyOf = (tenantId: string, clientId: string) => `${tenantId} ${clientId}`;

function slice<T>(rows: Row<T>[], page: PageRequest): Slice<T> {
  const after = page.after;
  const taken = (after === undefined ? rows : rows.filter((r) => r.seq > after)).slice(0, page.limit);
  const last = taken[taken.length - 1];
  return last ? { items: taken.map((r) => copy(r.value)), last: last.seq } : { items: [] };
}

/** The wallet client repository over the state `get` returns; `next` hands out creation-order numbers. */
export function walletClientRepositories(get: () => WalletClientState, next: () => number): Pick<Repositories, 'walletClients'> {
  return {
    walletClients: {
      async insert(client) {
        const s = get();
        const key = keyOf(client.tenantId, client.clientId);
        if (s.has(key)) throw conflict('The tenant already has a wallet client with this client id');
        s.set(key, { seq: next(), value: copy(client) });
      },
      async get(tenantId, clientId) {
        const r = get().get(keyOf(tenantId, clientId));
        return r && copy(r.value);
      },
      async list(tenantId, page) {
        return slice(
          [...get().values()].filter((r) => r.value.tenantId === tenantId),
          page,
        );
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
