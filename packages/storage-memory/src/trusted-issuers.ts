// The trusted issuer repository of the memory store (ports.ts: TrustedIssuerRepository; docs/verification.md).
import { conflict, type Repositories, type TrustedIssuer } from '@vellum/core';
import { copy, deleteOwned, ownedRow, ownedValue, type Row, tenantPage } from './rows.ts';

/** By id (a UUID, unique across tenants as the SQL store's primary key is). */
export type TrustedIssuerState = Map<string, Row<TrustedIssuer>>;

export const emptyTrustedIssuerState = (): TrustedIssuerState => new Map();

/** The trusted issuer repository over the state `get` returns; `next` hands out creation-order numbers. */
export function trustedIssuerRepositories(get: () => TrustedIssuerState, next: () => number): Pick<Repositories, 'trustedIssuers'> {
  return {
    trustedIssuers: {
      async insert(issuer, limit) {
        const s = get();
        if (s.has(issuer.id)) throw conflict('Trusted issuer id exists');
        // Counted and written in one step: nothing runs in between in one process.
        if ([...s.values()].filter((r) => r.value.tenantId === issuer.tenantId).length >= limit) return false;
        s.set(issuer.id, { seq: next(), value: copy(issuer) });
        return true;
      },
      async get(tenantId, id) {
        return ownedValue(get(), tenantId, id);
      },
      async list(tenantId, page) {
        return tenantPage(get(), tenantId, page);
      },
      async update(issuer) {
        const r = ownedRow(get(), issuer.tenantId, issuer.id);
        if (!r) return false;
        // Everything but the tenant, the id and the creation time is replaced; absent optional fields are removed.
        const { tenantId, id, createdAt } = r.value;
        r.value = { ...copy(issuer), tenantId, id, createdAt };
        return true;
      },
      async delete(tenantId, id) {
        return deleteOwned(get(), tenantId, id);
      },
    },
  };
}
