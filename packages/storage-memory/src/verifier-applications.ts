// The verifier application repository of the memory store (ports.ts: VerifierApplicationRepository; docs/verification.md "Verifier applications").
import { conflict, type Repositories, type VerifierApplication } from '@vellum/core';
import { copy, deleteOwned, ownedRow, ownedValue, type Row, tenantPage } from './rows.ts';

/** By id (a UUID, unique across tenants as the SQL store's primary key is). */
export type VerifierApplicationState = Map<string, Row<VerifierApplication>>;

export const emptyVerifierApplicationState = (): VerifierApplicationState => new Map();

/** The verifier application repository over the state `get` returns; `next` hands out creation-order numbers. */
export function verifierApplicationRepositories(get: () => VerifierApplicationState, next: () => number): Pick<Repositories, 'verifierApplications'> {
  return {
    verifierApplications: {
      async insert(application, limit) {
        const s = get();
        if (s.has(application.id)) throw conflict('Verifier application id exists');
        // Counted and written in one step: nothing runs in between in one process.
        if ([...s.values()].filter((r) => r.value.tenantId === application.tenantId).length >= limit) return false;
        s.set(application.id, { seq: next(), value: copy(application) });
        return true;
      },
      async get(tenantId, id) {
        return ownedValue(get(), tenantId, id);
      },
      async list(tenantId, page) {
        return tenantPage(get(), tenantId, page);
      },
      async update(application) {
        const r = ownedRow(get(), application.tenantId, application.id);
        if (!r) return false;
        // Everything but the tenant, the id and the creation time is replaced; absent optional fields are removed.
        const { tenantId, id, createdAt } = r.value;
        r.value = { ...copy(application), tenantId, id, createdAt };
        return true;
      },
      async delete(tenantId, id) {
        return deleteOwned(get(), tenantId, id);
      },
    },
  };
}
