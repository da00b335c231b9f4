// The refresh token part of the Store contract (docs/refresh-tokens.md): single use by a conditional
// write, revocation of whole families, the record of what a refreshed access token issued, and the
// retention purge. Purges span tenants, so those tests date their rows in 1972, where no other test
// of a shared store puts any.

import type { RefreshTokenRecord, Store } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { iso, tenantMakers, unique, uuid } from './store-contract-support.ts';

/** A refresh token of a new family unless `over` names one, live for a day. */
export function makeRefreshToken(tenantId: string, over: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord {
  return {
    id: uuid(),
    tenantId,
    familyId: uuid(),
    digest: unique('digest-'),
    userId: uuid(),
    grant: 'pre-authorized_code',
    grantId: uuid(),
    configurationIds: [uuid(), uuid()],
    familyCreatedAt: iso(),
    createdAt: iso(),
    expiresAt: iso(86_400_000),
    ...over,
  };
}

export function describeRefreshTokenContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);

  describe('refresh tokens', () => {
    it('insert, get and findByDigest read back every field; another tenant finds nothing', async () => {
      const [a, b] = await tenants();
      const full = makeRefreshToken(a.id, {
        grant: 'authorization_code',
        credentialIdentifiers: true,
        clientId: 'wallet-client',
        clientInstanceId: 'instance-1',
        dpopJkt: 'jkt-1',
        keyAttestationsRequired: { keyStorage: ['iso_18045_high'], userAuthentication: ['iso_18045_moderate'] },
        sealedClaims: 'v1.sealed',
      });
      const plain = makeRefreshToken(a.id);
      await store().refreshTokens.insert(full);
      await store().refreshTokens.insert(plain);
      expect(await store().refreshTokens.get(a.id, full.id)).toEqual(full);
      expect(await store().refreshTokens.findByDigest(a.id, full.digest)).toEqual(full);
      expect(await store().refreshTokens.get(a.id, plain.id)).toEqual(plain);
      expect(await store().refreshTokens.get(b.id, full.id)).toBeUndefined();
      expect(await store().refreshTokens.findByDigest(b.id, full.digest)).toBeUndefined();
      await expect(store().refreshTokens.insert({ ...makeRefreshToken(a.id), digest: full.digest })).rejects.toMatchObject({ code: 'Conflict' });
    });

    it('markUsed: once; never for a revoked or expired token; of racing callers exactly one', async () => {
      const t = await tenant();
      const live = makeRefreshToken(t.id);
      const expired = makeRefreshToken(t.id, { expiresAt: iso(-1000) });
      const revoked = makeRefreshToken(t.id, { revokedAt: iso(-1000) });
      for (const r of [live, expired, revoked]) await store().refreshTokens.insert(r);
      const now = iso();
      const results = await Promise.all(Array.from({ length: 8 }, () => store().refreshTokens.markUsed(t.id, live.id, now)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await store().refreshTokens.get(t.id, live.id))?.usedAt).toBe(now);
      expect(await store().refreshTokens.markUsed(t.id, expired.id, now)).toBe(false);
      expect(await store().refreshTokens.markUsed(t.id, revoked.id, now)).toBe(false);
      expect(await store().refreshTokens.markUsed(t.id, uuid(), now)).toBe(false);
    });

    it('markUsed in a transaction that rolls back leaves the token unused', async () => {
      const t = await tenant();
      const r = makeRefreshToken(t.id);
      await store().refreshTokens.insert(r);
      await expect(
        store().transaction(async (tx) => {
          expect(await tx.refreshTokens.markUsed(t.id, r.id, iso())).toBe(true);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect((await store().refreshTokens.get(t.id, r.id))?.usedAt).toBeUndefined();
    });

    it('revokeFamilies: by family, user or grant, every token of each family, counting families not revoked before', async () => {
      const [t, other] = await tenants();
      const family = uuid();
      const first = makeRefreshToken(t.id, { familyId: family, usedAt: iso(-1000) });
      const second = makeRefreshToken(t.id, { familyId: family, userId: first.userId, grantId: first.grantId });
      const sameUser = makeRefreshToken(t.id, { userId: first.userId });
      const sameGrant = makeRefreshToken(t.id, { grantId: uuid() });
      const elsewhere = makeRefreshToken(other.id, { userId: first.userId, familyId: family });
      for (const r of [first, second, sameUser, sameGrant, elsewhere]) await store().refreshTokens.insert(r);
      const now = iso();
      expect(await store().refreshTokens.revokeFamilies(t.id, { familyId: family }, now)).toBe(1);
      expect((await store().refreshTokens.get(t.id, first.id))?.revokedAt).toBe(now);
      expect((await store().refreshTokens.get(t.id, second.id))?.revokedAt).toBe(now);
      expect((await store().refreshTokens.get(t.id, sameUser.id))?.revokedAt).toBeUndefined();
      // The family is revoked already: only the user's other family counts.
      expect(await store().refreshTokens.revokeFamilies(t.id, { userId: first.userId }, iso())).toBe(1);
      expect((await store().refreshTokens.get(t.id, sameUser.id))?.revokedAt).toBeDefined();
      expect((await store().refreshTokens.get(t.id, first.id))?.revokedAt).toBe(now);
      expect(await store().refreshTokens.revokeFamilies(t.id, { grantId: sameGrant.grantId }, iso())).toBe(1);
      expect(await store().refreshTokens.revokeFamilies(t.id, { grantId: sameGrant.grantId }, iso())).toBe(0);
      expect((await store().refreshTokens.get(other.id, elsewhere.id))?.revokedAt).toBeUndefined();
    });

    it('markIssued: once per configuration, of racing callers exactly one; never on a revoked token', async () => {
      const t = await tenant();
      const r = makeRefreshToken(t.id);
      const revoked = makeRefreshToken(t.id, { revokedAt: iso() });
      await store().refreshTokens.insert(r);
      await store().refreshTokens.insert(revoked);
      const [c1, c2] = r.configurationIds as [string, string];
      const results = await Promise.all(Array.from({ length: 6 }, () => store().refreshTokens.markIssued(t.id, r.id, c1)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store().refreshTokens.markIssued(t.id, r.id, c2)).toBe(true);
      expect((await store().refreshTokens.get(t.id, r.id))?.issuedConfigurationIds).toEqual([c1, c2]);
      expect(await store().refreshTokens.markIssued(t.id, revoked.id, c1)).toBe(false);
      expect(await store().refreshTokens.markIssued(t.id, uuid(), c1)).toBe(false);
    });

    it('markIssued: an id containing LIKE wildcards is no pattern for another', async () => {
      const t = await tenant();
      const r = makeRefreshToken(t.id);
      await store().refreshTokens.insert(r);
      expect(await store().refreshTokens.markIssued(t.id, r.id, 'a_c')).toBe(true);
      expect(await store().refreshTokens.markIssued(t.id, r.id, 'abc')).toBe(true);
      expect(await store().refreshTokens.markIssued(t.id, r.id, '%')).toBe(true);
      expect(await store().refreshTokens.markIssued(t.id, r.id, 'x%')).toBe(true);
    });

    it('purgeExpired: tokens expired or revoked at or before the cutoff, up to the limit', async () => {
      const t = await tenant();
      const cutoff = '1972-01-02T00:00:00.000Z';
      const expired = makeRefreshToken(t.id, { expiresAt: '1972-01-01T00:00:00.000Z' });
      const revoked = makeRefreshToken(t.id, { expiresAt: iso(86_400_000), revokedAt: cutoff });
      const kept = makeRefreshToken(t.id, { expiresAt: '1972-01-02T00:00:00.001Z' });
      const live = makeRefreshToken(t.id);
      for (const r of [expired, revoked, kept, live]) await store().refreshTokens.insert(r);
      expect(await store().refreshTokens.purgeExpired(cutoff, 1)).toBe(1);
      expect(await store().refreshTokens.purgeExpired(cutoff, 10)).toBe(1);
      expect(await store().refreshTokens.get(t.id, expired.id)).toBeUndefined();
      expect(await store().refreshTokens.get(t.id, revoked.id)).toBeUndefined();
      expect(await store().refreshTokens.get(t.id, kept.id)).toBeDefined();
      expect(await store().refreshTokens.get(t.id, live.id)).toBeDefined();
    });
  });
}
