import { describe, expect, it } from 'vitest';
import { fakeClock } from '../../test/kit.ts';
import { contextFor, harness } from '../../test/harness.ts';
import type { Tenant } from '../tenancy/model.ts';
import { cacheIssuingChains } from './cached-chains.ts';
import type { DocumentSignerRecord, IacaRecord } from './model.ts';
import { createIssuingChains, type IssuingChain, type IssuingChains } from './signers.ts';

const DAY = 86_400_000;
const NOW = '2026-05-01T12:00:00.000Z';
const tenantA = { id: 'tenant-a' } as Tenant;
const tenantB = { id: 'tenant-b' } as Tenant;

interface Load {
  tenantId: string;
  lifetimeMs: number;
  chain: IssuingChain;
  settle: () => void;
}

/**
 * Issuing chains that make a new chain object on every load and count the loads. The IACA and the
 * signer's validity are the test's to set; `hold` keeps loads pending until the test settles them.
 */
function fakeChains() {
  const loads: Load[] = [];
  const invalidated: string[] = [];
  const state = { managed: true, signerNotBefore: '2026-04-01T00:00:00.000Z', signerNotAfter: '2027-07-01T00:00:00.000Z', hold: false, fail: false };
  const inner: IssuingChains = {
    async current(tenant, _now, lifetimeMs) {
      const n = loads.length + 1;
      const iaca = {
        id: `iaca-${tenant.id}`,
        isManaged: state.managed,
        certificateData: { notBefore: '2026-01-01T00:00:00.000Z', notAfter: '2030-01-01T00:00:00.000Z' },
      } as IacaRecord;
      const signer = {
        id: `signer-${n}`,
        certificateData: { notBefore: state.signerNotBefore, notAfter: state.signerNotAfter },
      } as DocumentSignerRecord;
      const chain: IssuingChain = { iaca, signer, x5chain: [new Uint8Array([n])] };
      let settle = () => {};
      const gate = state.hold ? new Promise<void>((resolve) => (settle = resolve)) : undefined;
      const fail = state.fail;
      loads.push({ tenantId: tenant.id, lifetimeMs, chain, settle: () => settle() });
      if (gate) await gate;
      if (fail) throw new Error('store unavailable');
      return chain;
    },
    invalidate: (tenantId) => void invalidated.push(tenantId),
  };
  return { inner, loads, invalidated, state };
}

function setup(cacheMs = 1000) {
  const clock = fakeClock(NOW);
  const fake = fakeChains();
  const chains = cacheIssuingChains(fake.inner, { cacheMs, clock });
  const current = (tenant = tenantA, lifetimeMs = 30 * DAY, at = clock.now()) => chains.current(tenant, at, lifetimeMs);
  return { ...fake, clock, chains, current };
}

/** Lets pending promise callbacks run. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('cacheIssuingChains', () => {
  it('serves a tenant’s chain again within cacheMs without loading it, and loads it again once cacheMs has passed', async () => {
    const { current, loads, clock } = setup(1000);
    const first = await current();
    clock.advance(999);
    expect(await current()).toBe(first);
    expect(loads).toHaveLength(1);
    clock.advance(1);
    const second = await current();
    expect(second).not.toBe(first);
    expect(second.signer.id).toBe('signer-2');
    expect(loads).toHaveLength(2);
  });

  it('keeps each tenant’s chain apart', async () => {
    const { current, loads } = setup();
    const a = await current(tenantA);
    const b = await current(tenantB);
    expect(b).not.toBe(a);
    expect(await current(tenantA)).toBe(a);
    expect(await current(tenantB)).toBe(b);
    expect(loads.map((l) => l.tenantId)).toEqual(['tenant-a', 'tenant-b']);
  });

  it('loads again when the cached signer is not valid at the issuance time, even while fresh', async () => {
    const { current, loads, state, clock } = setup(60_000);
    state.managed = false; // an imported IACA: no rotation, only the certificates' validity counts
    state.signerNotAfter = '2026-05-01T12:00:30.000Z';
    const first = await current();
    expect(await current(tenantA, 30 * DAY, new Date('2026-05-01T12:00:29.999Z'))).toBe(first);
    expect(await current(tenantA, 30 * DAY, new Date('2026-05-01T12:00:30.000Z'))).not.toBe(first);
    expect(await current(tenantA, 30 * DAY, new Date('2026-03-01T00:00:00.000Z'))).not.toBe(first); // before the signer's notBefore
    expect(loads).toHaveLength(3);
    expect(clock.now().toISOString()).toBe(NOW);
  });

  it('loads again for a managed IACA whose cached signer is due for rotation for the credential’s lifetime', async () => {
    const { current, loads, state } = setup(60_000);
    state.signerNotAfter = '2026-09-01T12:00:00.000Z'; // 123 days left
    const first = await current(tenantA, 30 * DAY); // needs 90 days
    expect(await current(tenantA, 120 * DAY)).toBe(first);
    state.signerNotAfter = '2027-08-01T12:00:00.000Z'; // what the chains behind would rotate to
    const rotated = await current(tenantA, 200 * DAY);
    expect(rotated).not.toBe(first);
    expect(await current(tenantA, 200 * DAY)).toBe(rotated);
    expect(loads.map((l) => l.lifetimeMs)).toEqual([30 * DAY, 200 * DAY]);
  });

  it('does not rotate an imported IACA’s signer, whatever the lifetime', async () => {
    const { current, loads, state } = setup(60_000);
    state.managed = false;
    state.signerNotAfter = '2026-06-01T12:00:00.000Z';
    const first = await current(tenantA, 1 * DAY);
    expect(await current(tenantA, 365 * DAY)).toBe(first);
    expect(loads).toHaveLength(1);
  });

  it('forgets a tenant’s chain when told it changed, and tells the chains behind it', async () => {
    const { current, chains, loads, invalidated } = setup();
    const a = await current(tenantA);
    const b = await current(tenantB);
    chains.invalidate(tenantA.id);
    expect(await current(tenantA)).not.toBe(a);
    expect(await current(tenantB)).toBe(b);
    expect(loads).toHaveLength(3);
    expect(invalidated).toEqual(['tenant-a']);
  });

  it('shares one load among concurrent misses of a tenant', async () => {
    const { current, loads, state } = setup();
    state.hold = true;
    const pending = Array.from({ length: 10 }, () => current());
    await settled();
    expect(loads).toHaveLength(1);
    loads[0]?.settle();
    const chains = await Promise.all(pending);
    expect(new Set(chains).size).toBe(1);
    expect(chains[0]).toBe(loads[0]?.chain);
  });

  it('does not keep a chain whose load began before an invalidation, and starts a new load for callers after it', async () => {
    const { current, chains, loads, state } = setup();
    state.hold = true;
    const before = current();
    await settled();
    chains.invalidate(tenantA.id);
    const after = current();
    await settled();
    expect(loads).toHaveLength(2);
    loads[1]?.settle();
    expect(await after).toBe(loads[1]?.chain);
    loads[0]?.settle(); // the older load ends last
    expect(await before).toBe(loads[0]?.chain);
    state.hold = false;
    // The load that began after the invalidation is the one kept.
    expect(await current()).toBe(loads[1]?.chain);
    expect(loads).toHaveLength(2);
  });

  it('loads again after an invalidation that came while the only load was under way', async () => {
    const { current, chains, loads, state } = setup();
    state.hold = true;
    const pending = current();
    await settled();
    chains.invalidate(tenantA.id);
    loads[0]?.settle();
    expect(await pending).toBe(loads[0]?.chain);
    state.hold = false;
    expect(await current()).not.toBe(loads[0]?.chain);
    expect(loads).toHaveLength(2);
  });

  it('loads again for a caller whose longer-lived credential the shared load’s signer does not suit', async () => {
    const { current, loads, state } = setup();
    state.signerNotAfter = '2026-09-01T12:00:00.000Z'; // 123 days left
    state.hold = true;
    const short = current(tenantA, 30 * DAY);
    const long = current(tenantA, 200 * DAY);
    await settled();
    expect(loads).toHaveLength(1);
    state.hold = false;
    loads[0]?.settle();
    expect(await short).toBe(loads[0]?.chain);
    await long;
    expect(loads.map((l) => l.lifetimeMs)).toEqual([30 * DAY, 200 * DAY]);
  });

  it('keeps no failure: the next call loads again', async () => {
    const { current, loads, state } = setup();
    state.fail = true;
    await expect(current()).rejects.toThrow('store unavailable');
    state.fail = false;
    await expect(current()).resolves.toBe(loads[1]?.chain);
    expect(loads).toHaveLength(2);
  });

  it('with cacheMs 0 loads for every credential, yet concurrent calls still share one load', async () => {
    const { current, loads, state } = setup(0);
    const first = await current();
    expect(await current()).not.toBe(first);
    expect(loads).toHaveLength(2);
    state.hold = true;
    const pending = [current(), current(), current()];
    await settled();
    expect(loads).toHaveLength(3);
    loads[2]?.settle();
    expect(new Set(await Promise.all(pending)).size).toBe(1);
  });
});

describe('createIssuingChains without the cache', () => {
  it('reads the store on every call: a signer revoked elsewhere is replaced at the next credential', async () => {
    const h = harness();
    const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    const ctx = contextFor(tenant);
    const iaca = await h.iacas.update(ctx, (await h.iacas.create(ctx, { country: 'US' })).id, { active: true });
    const ids = { uuid: () => crypto.randomUUID(), token: () => '', bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) };
    const uncached = createIssuingChains({ store: h.store, clock: h.clock, ids, keys: h.keys, x509: h.x509 });
    const first = await uncached.current(tenant, h.clock.now(), 30 * DAY);
    expect(first.iaca.id).toBe(iaca.id);
    expect((await uncached.current(tenant, h.clock.now(), 30 * DAY)).signer.id).toBe(first.signer.id);
    await h.documentSigners.revoke(ctx, first.signer.id); // invalidates the composed cache, not this instance
    const second = await uncached.current(tenant, h.clock.now(), 30 * DAY);
    expect(second.signer.id).not.toBe(first.signer.id);
    await h.iacas.update(ctx, iaca.id, { active: false });
    await expect(uncached.current(tenant, h.clock.now(), 30 * DAY)).rejects.toMatchObject({ code: 'BadRequest' });
  });
});
