// The retention part of the Store contract (docs/retention.md): leases, each tenant's retention
// periods, and the purges the retention job runs. Purges span tenants, so these tests date their
// rows in 1971, where no other test of a shared store puts any.

import type { AnalyticEvent, Store } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { makeOffer, makeUser } from './store-contract-offers.ts';
import { iso, tenantMakers, unique, uuid } from './store-contract-support.ts';
import { makeDelivery, makeWebhook } from './store-contract-webhooks.ts';

const OLD = '1971-01-01T00:00:00.000Z';
const CUTOFF = '1971-01-02T00:00:00.000Z';
const JUST_AFTER = '1971-01-02T00:00:00.001Z';

export function describeRetentionContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);

  describe('leases', () => {
    it('acquire: one holder at a time; the holder renews; another takes it once it has ended; release frees it', async () => {
      const name = unique('lease-');
      const now = iso();
      expect(await store().leases.acquire(name, 'a', iso(60_000), now)).toBe(true);
      expect(await store().leases.acquire(name, 'b', iso(60_000), now)).toBe(false);
      expect(await store().leases.acquire(name, 'a', iso(120_000), now)).toBe(true);
      // Renewed to two minutes: still held a minute and a half from now.
      expect(await store().leases.acquire(name, 'b', iso(180_000), iso(90_000))).toBe(false);
      expect(await store().leases.acquire(name, 'b', iso(180_000), iso(120_000))).toBe(true);
      await store().leases.release(name, 'a'); // not a's any more: nothing happens
      expect(await store().leases.acquire(name, 'a', iso(60_000), now)).toBe(false);
      await store().leases.release(name, 'b');
      expect(await store().leases.acquire(name, 'a', iso(60_000), now)).toBe(true);
    });

    it('acquire: of racing callers for a free lease exactly one gets it', async () => {
      const name = unique('lease-');
      const now = iso();
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store().leases.acquire(name, `h${i}`, iso(60_000), now)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('a lease renewed in a transaction that rolls back stays as it was', async () => {
      const name = unique('lease-');
      await store().leases.acquire(name, 'a', iso(-1000), iso(-2000));
      await expect(
        store().transaction(async (tx) => {
          expect(await tx.leases.acquire(name, 'b', iso(60_000), iso())).toBe(true);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(await store().leases.acquire(name, 'c', iso(60_000), iso())).toBe(true);
    });
  });

  describe('tenant retention periods', () => {
    it('setRetention replaces both periods; absent ones read as absent (the defaults)', async () => {
      const t = await tenant();
      expect(await store().tenants.setRetention(t.id, { eventRetentionDays: 7, webhookDeliveryRetentionDays: 400 })).toBe(true);
      expect(await store().tenants.findById(t.id)).toEqual({ ...t, eventRetentionDays: 7, webhookDeliveryRetentionDays: 400 });
      expect(await store().tenants.setRetention(t.id, { eventRetentionDays: 30 })).toBe(true);
      expect(await store().tenants.findById(t.id)).toEqual({ ...t, eventRetentionDays: 30 });
      expect(await store().tenants.setRetention(uuid(), { eventRetentionDays: 30 })).toBe(false);
    });
  });

  describe('purges', () => {
    it('offers.purgeExpired deletes offers of any tenant and status expired at or before the cutoff, a batch at a time', async () => {
      const [a, b] = await tenants();
      const user = makeUser(a.id);
      await store().users.insert(user);
      const gone = [
        makeOffer(a.id, user.id, { expiresAt: OLD }),
        makeOffer(a.id, undefined, { expiresAt: CUTOFF, status: 'used', usedAt: OLD }),
        makeOffer(b.id, undefined, { expiresAt: OLD, status: 'deleted' }),
      ];
      const live = makeOffer(a.id, user.id, { expiresAt: JUST_AFTER });
      for (const o of [...gone, live]) await store().offers.insert(o);
      expect(await store().offers.purgeExpired(CUTOFF, 2)).toBe(2);
      expect(await store().offers.purgeExpired(CUTOFF, 2)).toBe(1);
      expect(await store().offers.purgeExpired(CUTOFF, 2)).toBe(0);
      for (const o of gone) {
        expect(await store().offers.get(o.tenantId, o.id)).toBeUndefined();
        expect(await store().offers.findByCodeDigest(o.tenantId, o.codeDigest)).toBeUndefined();
      }
      expect(await store().offers.get(a.id, live.id)).toEqual(live);
      expect(await store().users.get(a.id, user.id)).toEqual(user);
      // A purged offer's code digest is free again.
      await store().offers.insert(makeOffer(a.id, undefined, { codeDigest: (gone[0] as { codeDigest: string }).codeDigest }));
    });

    it('rateLimits.purgeExpired deletes counters whose window ended at or before the cutoff, a batch at a time', async () => {
      const rule = { limit: 5, windowMs: 60_000 };
      const keys = [unique('rl-'), unique('rl-'), unique('rl-')];
      // Windows of 1970-12-31T23:59, 1971-01-01T23:59 (ends at the cutoff) and 1971-01-02T00:00 (ends after it).
      await store().rateLimits.hit(keys[0] as string, rule, new Date('1970-12-31T23:59:30.000Z'));
      await store().rateLimits.hit(keys[1] as string, rule, new Date('1971-01-01T23:59:30.000Z'));
      await store().rateLimits.hit(keys[2] as string, rule, new Date('1971-01-02T00:00:00.000Z'));
      expect(await store().rateLimits.purgeExpired(CUTOFF, 1)).toBe(1);
      expect(await store().rateLimits.purgeExpired(CUTOFF, 5)).toBe(1);
      expect(await store().rateLimits.purgeExpired(CUTOFF, 5)).toBe(0);
      // The live counter still counts: its second hit is the second.
      expect((await store().rateLimits.hit(keys[2] as string, rule, new Date('1971-01-02T00:00:01.000Z'))).count).toBe(2);
      expect((await store().rateLimits.hit(keys[1] as string, rule, new Date('1971-01-01T23:59:31.000Z'))).count).toBe(1);
    });

    it('events.purgeBefore deletes only the tenant’s events dated before the cutoff, a batch at a time', async () => {
      const [a, b] = await tenants();
      const event = (tenantId: string, timestamp: string): AnalyticEvent => ({
        id: uuid(),
        type: 'OPENID_NONCE_START',
        category: 'openid',
        timestamp,
        tenantId,
        requestId: unique('r'),
        requestIp: '127.0.0.1',
      });
      const old = [event(a.id, OLD), event(a.id, OLD), event(a.id, '1971-01-01T23:59:59.999Z')];
      const kept = [event(a.id, CUTOFF), event(a.id, iso())];
      const theirs = event(b.id, OLD);
      await store().events.insertMany([...old, ...kept, theirs]);
      expect(await store().events.purgeBefore(a.id, CUTOFF, 2)).toBe(2);
      expect(await store().events.purgeBefore(a.id, CUTOFF, 2)).toBe(1);
      expect(await store().events.purgeBefore(a.id, CUTOFF, 2)).toBe(0);
      const left = await store().events.list(a.id, {}, { limit: 10 });
      expect(left.items.map((e) => e.id).sort()).toEqual(kept.map((e) => e.id).sort());
      expect((await store().events.list(b.id, {}, { limit: 10 })).items.map((e) => e.id)).toEqual([theirs.id]);
    });

    it('webhookDeliveries.purgeFinishedBefore deletes only the tenant’s finished deliveries last updated before the cutoff', async () => {
      const [a, b] = await tenants();
      const hook = makeWebhook(a.id);
      const theirHook = makeWebhook(b.id);
      await store().webhooks.insert(hook);
      await store().webhooks.insert(theirHook);
      const { credential: _c, nextAttemptAt: _n, ...finished } = makeDelivery(hook);
      const gone = [
        { ...finished, id: uuid(), status: 'succeeded' as const, updatedAt: OLD },
        { ...finished, id: uuid(), status: 'failed' as const, retriesLeft: 0, updatedAt: '1971-01-01T23:59:59.999Z' },
      ];
      const kept = [
        makeDelivery(hook, { updatedAt: OLD }), // pending: never purged
        { ...finished, id: uuid(), status: 'succeeded' as const, updatedAt: CUTOFF },
      ];
      const theirs = makeDelivery(theirHook, { status: 'succeeded', updatedAt: OLD });
      await store().webhookDeliveries.insertMany([...gone, ...kept, theirs]);
      expect(await store().webhookDeliveries.purgeFinishedBefore(a.id, CUTOFF, 1)).toBe(1);
      expect(await store().webhookDeliveries.purgeFinishedBefore(a.id, CUTOFF, 5)).toBe(1);
      expect(await store().webhookDeliveries.purgeFinishedBefore(a.id, CUTOFF, 5)).toBe(0);
      for (const d of gone) expect(await store().webhookDeliveries.get(a.id, d.id)).toBeUndefined();
      for (const d of kept) expect(await store().webhookDeliveries.get(a.id, d.id)).toBeDefined();
      expect(await store().webhookDeliveries.get(b.id, theirs.id)).toBeDefined();
    });
  });
}
