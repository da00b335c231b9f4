// The Store contract for deferred issuances (ports.ts: DeferredIssuanceRepository, in
// core/src/issuance/deferred-model.ts), run inside describeStoreContract against every adapter.
import type { DeferredIssuanceRecord, Store } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, iso, tenantMakers, unique, uuid } from './store-contract-support.ts';

/** A pending deferred issuance of `tenantId`, collectable for a day, with one holder key and sealed claims. */
export function makeDeferredIssuance(tenantId: string, over: Partial<DeferredIssuanceRecord> = {}): DeferredIssuanceRecord {
  return {
    id: uuid(),
    tenantId,
    transactionDigest: unique('tx-').padEnd(43, 'x'),
    credentialConfigurationId: uuid(),
    format: 'mso_mdoc',
    userId: uuid(),
    offerId: uuid(),
    holderKeys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }],
    sealedClaims: unique('v1.sealed-'),
    status: 'pending',
    intervalSeconds: 5,
    expiresAt: iso(86_400_000),
    createdAt: iso(),
    ...over,
  };
}

export function describeDeferredIssuanceContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);

  describe('deferred issuances (docs/deferred-issuance.md)', () => {
    it('inserts and reads a record by id and by transaction digest, within its tenant only', async () => {
      const [a, b] = await tenants();
      const r = makeDeferredIssuance(a.id, { grant: 'authorization_code', clientId: 'wallet', clientInstanceId: 'instance-1' });
      await store().deferredIssuances.insert(r);
      expect(await store().deferredIssuances.get(a.id, r.id)).toEqual(r);
      expect(await store().deferredIssuances.findByTransactionDigest(a.id, r.transactionDigest)).toEqual(r);
      expect(await store().deferredIssuances.get(b.id, r.id)).toBeUndefined();
      expect(await store().deferredIssuances.findByTransactionDigest(b.id, r.transactionDigest)).toBeUndefined();
    });

    it('refuses a second record with the same id, or the same transaction digest in one tenant (Conflict)', async () => {
      const [a, b] = await tenants();
      const r = makeDeferredIssuance(a.id);
      await store().deferredIssuances.insert(r);
      await expectDomainError(store().deferredIssuances.insert({ ...r, transactionDigest: unique('other-') }), 'Conflict');
      await expectDomainError(store().deferredIssuances.insert(makeDeferredIssuance(a.id, { transactionDigest: r.transactionDigest })), 'Conflict');
      // Another tenant may hold the same digest.
      await store().deferredIssuances.insert(makeDeferredIssuance(b.id, { transactionDigest: r.transactionDigest }));
    });

    it('lists in creation order, filtered by status, a page at a time', async () => {
      const a = await tenant();
      const first = makeDeferredIssuance(a.id);
      const second = makeDeferredIssuance(a.id, { status: 'approved' });
      const third = makeDeferredIssuance(a.id);
      for (const r of [first, second, third]) await store().deferredIssuances.insert(r);
      const all = await store().deferredIssuances.list(a.id, {}, { limit: 2 });
      expect(all.items.map((r) => r.id)).toEqual([first.id, second.id]);
      const rest = await store().deferredIssuances.list(a.id, {}, { limit: 2, after: all.last as number });
      expect(rest.items.map((r) => r.id)).toEqual([third.id]);
      expect((await store().deferredIssuances.list(a.id, { status: 'pending' }, { limit: 10 })).items.map((r) => r.id)).toEqual([first.id, third.id]);
      expect((await store().deferredIssuances.list(a.id, { status: 'approved' }, { limit: 10 })).items.map((r) => r.id)).toEqual([second.id]);
    });

    it('decides a pending, unexpired record once: approval keeps the claims, denial erases them', async () => {
      const a = await tenant();
      const approved = makeDeferredIssuance(a.id);
      const denied = makeDeferredIssuance(a.id);
      const expired = makeDeferredIssuance(a.id, { expiresAt: iso(-1000) });
      for (const r of [approved, denied, expired]) await store().deferredIssuances.insert(r);
      const now = iso();
      expect(await store().deferredIssuances.decide(a.id, approved.id, { status: 'approved', decidedAt: now, decidedBy: 'admin-1' }, now)).toBe(true);
      expect(await store().deferredIssuances.decide(a.id, approved.id, { status: 'denied', decidedAt: now }, now)).toBe(false);
      expect(await store().deferredIssuances.get(a.id, approved.id)).toEqual({ ...approved, status: 'approved', decidedAt: now, decidedBy: 'admin-1' });
      expect(await store().deferredIssuances.decide(a.id, denied.id, { status: 'denied', decidedAt: now, reason: 'No proof of age' }, now)).toBe(true);
      const { sealedClaims: _gone, ...rest } = denied;
      expect(await store().deferredIssuances.get(a.id, denied.id)).toEqual({ ...rest, status: 'denied', decidedAt: now, reason: 'No proof of age' });
      expect(await store().deferredIssuances.decide(a.id, expired.id, { status: 'approved', decidedAt: now }, now)).toBe(false);
      expect(await store().deferredIssuances.decide(a.id, uuid(), { status: 'approved', decidedAt: now }, now)).toBe(false);
    });

    it('marks an approved, unexpired record issued once, erasing its claims; of racing collections exactly one wins', async () => {
      const a = await tenant();
      const r = makeDeferredIssuance(a.id, { status: 'approved', decidedAt: iso() });
      const pending = makeDeferredIssuance(a.id);
      const expired = makeDeferredIssuance(a.id, { status: 'approved', expiresAt: iso(-1000) });
      for (const x of [r, pending, expired]) await store().deferredIssuances.insert(x);
      const at = iso();
      const results = await Promise.all(Array.from({ length: 5 }, (_, i) => store().deferredIssuances.markIssued(a.id, r.id, at, [`credential-${i}`])));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      const { sealedClaims: _gone, ...rest } = r;
      expect(await store().deferredIssuances.get(a.id, r.id)).toEqual({ ...rest, status: 'issued', issuedAt: at, credentialIds: [`credential-${winner}`] });
      expect(await store().deferredIssuances.markIssued(a.id, pending.id, at, ['x'])).toBe(false);
      expect(await store().deferredIssuances.markIssued(a.id, expired.id, at, ['x'])).toBe(false);
    });

    it('purges records of every tenant expired at or before the cutoff, whatever their status, up to the limit', async () => {
      const [a, b] = await tenants();
      const old = [makeDeferredIssuance(a.id, { expiresAt: iso(-10_000) }), makeDeferredIssuance(b.id, { expiresAt: iso(-20_000), status: 'issued' })];
      const live = makeDeferredIssuance(a.id, { expiresAt: iso(60_000) });
      for (const r of [...old, live]) await store().deferredIssuances.insert(r);
      const cutoff = iso(-5_000);
      expect(await store().deferredIssuances.purgeExpired(cutoff, 1)).toBe(1);
      expect(await store().deferredIssuances.purgeExpired(cutoff, 10)).toBeGreaterThanOrEqual(1);
      for (const r of old) expect(await store().deferredIssuances.get(r.tenantId, r.id)).toBeUndefined();
      expect(await store().deferredIssuances.get(a.id, live.id)).toEqual(live);
    });
  });
}
