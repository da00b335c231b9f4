// Refresh tokens in memory (ports.ts: RefreshTokenRepository). Every check-then-write runs without an
// await in between, so it is atomic as the SQL store's conditional statements are. The state sits
// inside the store's, so a transaction that fails restores it with the rest.

import { conflict, type RefreshTokenRecord, type Repositories } from '@vellum/core';
import { copy, purgeWhere } from './rows.ts';

/** By `${tenantId} ${id}`. */
export type RefreshTokenState = Map<string, RefreshTokenRecord>;

const keyOf = (tenantId: string, id: string) => `${tenantId} ${id}`;

/** The refresh token repository over the state `get` returns. */
export function refreshTokenRepositories(get: () => RefreshTokenState): Pick<Repositories, 'refreshTokens'> {
  const find = (tenantId: string, test: (r: RefreshTokenRecord) => boolean) => {
    for (const r of get().values()) if (r.tenantId === tenantId && test(r)) return r;
    return undefined;
  };
  return {
    refreshTokens: {
      async insert(record) {
        const key = keyOf(record.tenantId, record.id);
        if (get().has(key) || find(record.tenantId, (r) => r.digest === record.digest)) throw conflict('Refresh token exists');
        get().set(key, copy(record));
      },
      async findByDigest(tenantId, digest) {
        const r = find(tenantId, (x) => x.digest === digest);
        return r && copy(r);
      },
      async get(tenantId, id) {
        const r = get().get(keyOf(tenantId, id));
        return r && copy(r);
      },
      async markUsed(tenantId, id, now) {
        const r = get().get(keyOf(tenantId, id));
        if (!r || r.usedAt !== undefined || r.revokedAt !== undefined || !(r.expiresAt > now)) return false;
        r.usedAt = now;
        return true;
      },
      async revokeFamilies(tenantId, filter, now) {
        const families = new Set<string>();
        for (const r of get().values()) {
          if (r.tenantId !== tenantId || r.revokedAt !== undefined) continue;
          const hit = 'familyId' in filter ? r.familyId === filter.familyId : 'userId' in filter ? r.userId === filter.userId : r.grantId === filter.grantId;
          if (!hit) continue;
          r.revokedAt = now;
          families.add(r.familyId);
        }
        return families.size;
      },
      async markIssued(tenantId, id, configurationId) {
        const r = get().get(keyOf(tenantId, id));
        if (!r || r.revokedAt !== undefined || r.issuedConfigurationIds?.includes(configurationId)) return false;
        r.issuedConfigurationIds = [...(r.issuedConfigurationIds ?? []), configurationId];
        return true;
      },
      async purgeExpired(before, limit) {
        return purgeWhere(get(), limit, (r) => r.expiresAt <= before || (r.revokedAt !== undefined && r.revokedAt <= before));
      },
    },
  };
}
