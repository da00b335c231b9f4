// Deferred issuances in memory (ports.ts: DeferredIssuanceRepository). Every check-then-write runs
// without an await in between, so it is atomic as the SQL store's conditional statements are; the
// state sits inside the store's, so a failed transaction restores it with the rest.

import { conflict, type DeferredIssuanceRecord, type Repositories } from '@vellum/core';
import { copy, insertRow, ownedRow, ownedValue, purgeWhere, type Row, tenantPage } from './rows.ts';

/** By id. */
export type DeferredIssuanceState = Map<string, Row<DeferredIssuanceRecord>>;

export const emptyDeferredIssuanceState = (): DeferredIssuanceState => new Map();

/** The deferred issuance repository over the state `get` returns; `next` hands out creation-order numbers. */
export function deferredIssuanceRepositories(get: () => DeferredIssuanceState, next: () => number): Pick<Repositories, 'deferredIssuances'> {
  return {
    deferredIssuances: {
      async insert(record) {
        const rows = get();
        if ([...rows.values()].some((r) => r.value.tenantId === record.tenantId && r.value.transactionDigest === record.transactionDigest))
          throw conflict('The tenant already has a deferred issuance with this transaction id');
        insertRow(rows, record.id, record, next, 'Deferred issuance id exists');
      },
      async get(tenantId, id) {
        return ownedValue(get(), tenantId, id);
      },
      async findByTransactionDigest(tenantId, digest) {
        const r = [...get().values()].find((x) => x.value.tenantId === tenantId && x.value.transactionDigest === digest);
        return r && copy(r.value);
      },
      async list(tenantId, filter, page) {
        return tenantPage(get(), tenantId, page, (v) => filter.status === undefined || v.status === filter.status);
      },
      async decide(tenantId, id, decision, now) {
        const r = ownedRow(get(), tenantId, id);
        if (!r || r.value.status !== 'pending' || !(r.value.expiresAt > now)) return false;
        const { sealedClaims, ...rest } = r.value;
        r.value = {
          ...(decision.status === 'denied' ? rest : { ...rest, ...(sealedClaims === undefined ? {} : { sealedClaims }) }),
          status: decision.status,
          decidedAt: decision.decidedAt,
          ...(decision.decidedBy === undefined ? {} : { decidedBy: decision.decidedBy }),
          ...(decision.reason === undefined ? {} : { reason: decision.reason }),
        };
        return true;
      },
      async markIssued(tenantId, id, issuedAt, credentialIds) {
        const r = ownedRow(get(), tenantId, id);
        if (!r || r.value.status !== 'approved' || !(r.value.expiresAt > issuedAt)) return false;
        const { sealedClaims: _erased, ...rest } = r.value;
        r.value = { ...rest, status: 'issued', issuedAt, credentialIds: [...credentialIds] };
        return true;
      },
      async purgeExpired(before, limit) {
        return purgeWhere(get(), limit, (r) => r.value.expiresAt <= before);
      },
    },
  };
}
