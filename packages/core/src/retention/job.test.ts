import { describe, expect, it } from 'vitest';
import { createMemoryStore, fakeClock, presence, seedRetention } from '../../test/kit.ts';
import { createRetentionJob, RETENTION_LEASE } from './job.ts';
import { RETENTION_KINDS, type RetentionKind } from './policy.ts';

const all = (value: boolean) =>
  Object.fromEntries(RETENTION_KINDS.map((k) => [k, expect.toSatisfy((xs: boolean[]) => xs.length > 0 && xs.every((x) => x === value))]));

describe('retention job (docs/retention.md)', () => {
  it('deletes every kind past its life and its grace or the tenant’s period, and touches nothing alive', async () => {
    const clock = fakeClock();
    const store = createMemoryStore();
    const seed = await seedRetention(store, clock.now());
    const told: Partial<Record<RetentionKind, number>> = {};
    const job = createRetentionJob({ store, clock, holder: 'one', onPurged: (kind, n) => (told[kind] = (told[kind] ?? 0) + n) });

    const run = await job.run();
    expect(run).toMatchObject({ ran: true, complete: true });
    expect(await presence(seed.pastLife)).toEqual(all(false));
    expect(await presence(seed.alive)).toEqual(all(true));
    for (const kind of RETENTION_KINDS) expect(run.purged[kind], kind).toBe(seed.pastLife[kind].length);
    expect(told).toEqual(run.purged);
  });

  it('deletes in batches of batchSize until a batch comes back short', async () => {
    const clock = fakeClock();
    const store = createMemoryStore();
    for (let i = 0; i < 5; i++) await store.nonces.markUsed({ tenantId: 't', nonce: `n${i}`, expiresAt: '2025-01-01T00:00:00.000Z' });
    const batches: number[] = [];
    const job = createRetentionJob({ store, clock, holder: 'one', batchSize: 2, onPurged: (kind, n) => kind === 'nonces' && batches.push(n) });
    expect((await job.run()).purged.nonces).toBe(5);
    expect(batches).toEqual([2, 2, 1]);
  });

  it('does nothing while another runner holds the lease, and runs once that lease has ended', async () => {
    const clock = fakeClock();
    const store = createMemoryStore();
    await store.nonces.markUsed({ tenantId: 't', nonce: 'n', expiresAt: '2025-01-01T00:00:00.000Z' });
    await store.leases.acquire(RETENTION_LEASE, 'other', new Date(clock.now().getTime() + 60_000).toISOString(), clock.now().toISOString());
    const job = createRetentionJob({ store, clock, holder: 'one' });
    expect(await job.run()).toMatchObject({ ran: false, purged: { nonces: 0 } });
    clock.advance(60_000);
    expect(await job.run()).toMatchObject({ ran: true, complete: true, purged: { nonces: 1 } });
  });

  it('stops at the next batch once another runner has taken the lease over', async () => {
    const clock = fakeClock();
    const store = createMemoryStore();
    for (let i = 0; i < 4; i++) await store.nonces.markUsed({ tenantId: 't', nonce: `n${i}`, expiresAt: '2025-01-01T00:00:00.000Z' });
    const job = createRetentionJob({
      store,
      clock,
      holder: 'one',
      batchSize: 1,
      leaseMs: 1000,
      // After the first batch this runner stalls past its lease, and another takes the lease.
      onPurged: () => {
        clock.advance(2000);
        void store.leases.acquire(RETENTION_LEASE, 'other', new Date(clock.now().getTime() + 60_000).toISOString(), clock.now().toISOString());
      },
    });
    expect(await job.run()).toMatchObject({ ran: true, complete: false, purged: { nonces: 1 } });
    // The lease stays the other runner's.
    expect(await store.leases.acquire(RETENTION_LEASE, 'third', clock.now().toISOString(), clock.now().toISOString())).toBe(false);
  });

  it('keeps the lease holdAfterRunMs after a complete run, so other runners skip their turn; gives it up when stopped', async () => {
    const clock = fakeClock();
    const store = createMemoryStore();
    const first = createRetentionJob({ store, clock, holder: 'one', holdAfterRunMs: 3_600_000 });
    const second = createRetentionJob({ store, clock, holder: 'two' });
    expect((await first.run()).ran).toBe(true);
    clock.advance(3_599_000);
    expect((await second.run()).ran).toBe(false);
    clock.advance(1000);
    expect((await second.run()).ran).toBe(true);

    const stopped = await first.run({ signal: { aborted: true } });
    expect(stopped).toMatchObject({ ran: true, complete: false });
    expect((await second.run()).ran).toBe(true);
  });
});
