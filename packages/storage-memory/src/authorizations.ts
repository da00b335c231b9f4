// Authorizations (runs of the Authorization Code flow) in memory (ports.ts: AuthorizationRepository).
// Every check-then-write below runs without an await in between, so it is atomic as the SQL store's
// single conditional statements are. The state sits inside the store's, so a transaction that fails
// restores it with the rest.

import { type AuthorizationRecord, conflict, type Repositories } from '@vellum/core';
import { withoutClaims } from './offers.ts';
import { copy, purgeWhere } from './rows.ts';

export interface AuthorizationState {
  /** By `${tenantId} ${id}` (the SQL store's unique index). */
  records: Map<string, AuthorizationRecord>;
  /** The record key by `${tenantId} ${handleDigest}`, for the current handle of each (the SQL store's unique index). */
  handles: Map<string, string>;
}

export const emptyAuthorizationState = (): AuthorizationState => ({ records: new Map(), handles: new Map() });

const keyOf = (tenantId: string, value: string) => `${tenantId} ${value}`;

/** The authorization repository over the state `get` returns. */
export function authorizationRepositories(get: () => AuthorizationState): Pick<Repositories, 'authorizations'> {
  const handleHolder = (tenantId: string, handleDigest: string) => get().handles.get(keyOf(tenantId, handleDigest));

  return {
    authorizations: {
      async insert(record) {
        const s = get();
        const key = keyOf(record.tenantId, record.id);
        if (s.records.has(key)) throw conflict('Authorization id exists');
        if (record.handleDigest !== undefined && handleHolder(record.tenantId, record.handleDigest) !== undefined)
          throw conflict('The tenant already has an authorization with this handle');
        s.records.set(key, copy(record));
        if (record.handleDigest !== undefined) s.handles.set(keyOf(record.tenantId, record.handleDigest), key);
      },
      async get(tenantId, id) {
        const r = get().records.get(keyOf(tenantId, id));
        return r && copy(r);
      },
      async findByHandle(tenantId, handleDigest) {
        const key = handleHolder(tenantId, handleDigest);
        const r = key === undefined ? undefined : get().records.get(key);
        return r && copy(r);
      },
      async advance(tenantId, id, from, handleDigest, now, to) {
        const s = get();
        const key = keyOf(tenantId, id);
        const r = s.records.get(key);
        if (!r || r.stage !== from || r.handleDigest !== handleDigest || !(r.expiresAt > now)) return undefined;
        if (to.handleDigest !== undefined) {
          const holder = handleHolder(tenantId, to.handleDigest);
          if (holder !== undefined && holder !== key) throw conflict('The tenant already has an authorization with this handle');
        }
        // Fields `to` leaves out keep their values; the handle is always the new stage's (or none).
        const { handleDigest: _spent, ...kept } = r;
        const next: AuthorizationRecord = {
          ...kept,
          stage: to.stage,
          expiresAt: to.expiresAt,
          ...(to.handleDigest !== undefined ? { handleDigest: to.handleDigest } : {}),
          ...(to.providerNonce !== undefined ? { providerNonce: to.providerNonce } : {}),
          ...(to.providerCodeVerifier !== undefined ? { providerCodeVerifier: to.providerCodeVerifier } : {}),
          ...(to.userId !== undefined ? { userId: to.userId } : {}),
          ...(to.sealedClaims !== undefined ? { sealedClaims: to.sealedClaims } : {}),
        };
        s.handles.delete(keyOf(tenantId, handleDigest));
        if (next.handleDigest !== undefined) s.handles.set(keyOf(tenantId, next.handleDigest), key);
        s.records.set(key, next);
        return copy(next);
      },
      async markIssued(tenantId, id, configurationId, granted) {
        const key = keyOf(tenantId, id);
        const r = get().records.get(key);
        if (!r || r.issuedConfigurationIds.includes(configurationId)) return false;
        r.issuedConfigurationIds.push(configurationId);
        if (r.issuedConfigurationIds.length >= granted) get().records.set(key, withoutClaims(r));
        return true;
      },
      async eraseExpiredClaims(now, limit) {
        let erased = 0;
        for (const [key, r] of get().records) {
          if (erased >= limit) break;
          if (r.sealedClaims === undefined || r.expiresAt > now) continue;
          get().records.set(key, withoutClaims(r));
          erased += 1;
        }
        return erased;
      },
      async purgeExpired(before, limit) {
        const s = get();
        return purgeWhere(
          s.records,
          limit,
          (r) => r.expiresAt <= before,
          (r) => {
            if (r.handleDigest !== undefined) s.handles.delete(keyOf(r.tenantId, r.handleDigest));
          },
        );
      },
    },
  };
}
