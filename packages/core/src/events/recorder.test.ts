import { fakeClock, fakeIds } from '../../test/kit.ts';
import type { AnalyticEvent } from './model.ts';
import { describe, expect, it } from 'vitest';
import { contextFor, harness } from '../../test/harness.ts';
import { createEventRecorder, type EventLosses } from './recorder.ts';
import { TRUNCATED } from './sanitize.ts';

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

async function twoTenants() {
  const h = harness();
  const { tenant: loud } = await h.tenants.createTenant({ subdomain: 'loud', region: 'eu01' });
  const { tenant: quiet } = await h.tenants.createTenant({ subdomain: 'quiet', region: 'eu01' });
  await h.store.tenants.setLoggingLevel(loud.id, 3);
  return { h, loud: contextFor((await h.store.tenants.findById(loud.id))!), quiet: contextFor(quiet) };
}

/** A store that writes like SQL does (JSON text, a batch whole or not at all) and can refuse rows. */
function jsonStore(refuse: (e: AnalyticEvent) => boolean = () => false) {
  const rows: AnalyticEvent[] = [];
  let down = false;
  let calls = 0;
  return {
    rows,
    calls: () => calls,
    setDown: (v: boolean) => {
      down = v;
    },
    events: {
      insertMany: async (batch: readonly AnalyticEvent[]) => {
        calls += 1;
        if (down) throw new Error('database down');
        const texts = batch.map((e) => {
          if (refuse(e)) throw new Error('row refused');
          return JSON.stringify(e);
        });
        rows.push(...texts.map((t) => JSON.parse(t) as AnalyticEvent));
      },
    },
  };
}

describe('one bad event never blocks the others (docs/decisions.md "Analytic events", docs/limits.md "Analytic events")', () => {
  it('stores a level-3 event whose body is nested 5,000 deep, cut short, and every other tenant’s events with it', async () => {
    const { h, loud, quiet } = await twoTenants();
    h.recorder.record(loud, 'OPENID_TOKEN', 'START', { payload: { request: { grant_type: 'x', deep: nested(5000) } } });
    h.recorder.record(quiet, 'CONFIG_CUSTOM_DOMAIN_RETRIEVE', 'START');
    await h.recorder.flush();
    expect(h.recorder.pending()).toBe(0);
    const [ordinary] = (await h.store.events.list(quiet.tenant.id, {}, { limit: 10 })).items;
    expect(ordinary?.type).toBe('CONFIG_CUSTOM_DOMAIN_RETRIEVE_START');
    const [deep] = (await h.store.events.list(loud.tenant.id, { types: ['OPENID_TOKEN_START'] }, { limit: 1 })).items;
    expect(deep?.data).toMatchObject({ payload: { request: { grant_type: 'x' } } });
    expect(JSON.stringify(deep?.data)).toContain(TRUNCATED);
    expect(h.recorder.losses().truncated).toBe(1);
  });

  it('writes the rows one by one when a batch fails, drops and counts the row the store refuses, and never retries it', async () => {
    const { loud, quiet } = await twoTenants();
    const store = jsonStore((e) => e.requestId === loud.requestId);
    const recorder = createEventRecorder({ events: store.events, clock: fakeClock(), ids: fakeIds() });
    recorder.record(loud, 'OPENID_TOKEN', 'START');
    for (let i = 0; i < 4; i++) recorder.record(quiet, 'CONFIG_CUSTOM_DOMAIN_RETRIEVE', 'START');
    await recorder.flush();
    expect(store.rows.map((e) => e.tenantId)).toEqual(Array(4).fill(quiet.tenant.id));
    expect(recorder.pending()).toBe(0);
    expect(recorder.losses()).toMatchObject({ droppedUnwritable: 1, failedWrites: 1 });
    const calls = store.calls();
    await recorder.flush();
    expect(store.calls()).toBe(calls);
  });

  it('keeps the events while the store is down, retries them, and gives up on them after maxRetryMs', async () => {
    const { quiet } = await twoTenants();
    const clock = fakeClock();
    const store = jsonStore();
    const recorder = createEventRecorder({ events: store.events, clock, ids: fakeIds(), maxRetryMs: 60_000 });
    store.setDown(true);
    for (let i = 0; i < 10; i++) recorder.record(quiet, 'CONFIG_CUSTOM_DOMAIN_RETRIEVE', 'START');
    await recorder.flush();
    // A few probes, not one write per row, while nothing gets through.
    expect(store.calls()).toBe(1 + 3);
    expect(recorder.pending()).toBe(10);
    expect(recorder.losses().droppedUnwritable).toBe(0);
    store.setDown(false);
    recorder.record(quiet, 'CONFIG_CUSTOM_DOMAIN_RETRIEVE', 'START');
    await recorder.flush();
    expect(store.rows).toHaveLength(11);

    store.setDown(true);
    recorder.record(quiet, 'CONFIG_CUSTOM_DOMAIN_RETRIEVE', 'START');
    clock.advance(60_001);
    for (let i = 0; i < 3 && recorder.pending() > 0; i++) await recorder.flush();
    expect(recorder.pending()).toBe(0);
    expect(recorder.losses().droppedUnwritable).toBe(1);
  });

  it('caps the queue: past maxQueue the newest events are dropped and counted, and the warning comes at most once a minute', async () => {
    const { quiet } = await twoTenants();
    const clock = fakeClock();
    const store = jsonStore();
    store.setDown(true);
    const reports: EventLosses[] = [];
    const errors: unknown[] = [];
    const recorder = createEventRecorder({
      events: store.events,
      clock,
      ids: fakeIds(),
      maxQueue: 10,
      batchSize: 1000,
      onLoss: (l) => reports.push(l),
      onError: (e) => errors.push(e),
    });
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 15; i++) recorder.record(quiet, 'CONFIG_CUSTOM_DOMAIN_RETRIEVE', 'START');
      await recorder.flush();
      expect(recorder.pending()).toBeLessThanOrEqual(10);
    }
    expect(recorder.losses().droppedQueueFull).toBeGreaterThanOrEqual(50);
    expect(reports).toHaveLength(1);
    expect(errors).toHaveLength(1);
    clock.advance(60_000);
    await recorder.flush();
    expect(reports).toHaveLength(2);
    expect(reports[1]).toEqual(recorder.losses());
    expect(errors).toHaveLength(2);
  });

  it('keeps flushing after a reporting callback threw', async () => {
    const { quiet } = await twoTenants();
    const store = jsonStore();
    store.setDown(true);
    const recorder = createEventRecorder({
      events: store.events,
      clock: fakeClock(),
      ids: fakeIds(),
      onError: () => {
        throw new Error('log broken');
      },
    });
    recorder.record(quiet, 'CONFIG_CUSTOM_DOMAIN_RETRIEVE', 'START');
    await recorder.flush();
    store.setDown(false);
    await recorder.flush();
    expect(store.rows).toHaveLength(1);
  });

  it('keeps only the error code at level 1, whatever the operation tells', async () => {
    const { quiet } = await twoTenants();
    const store = jsonStore();
    const recorder = createEventRecorder({ events: store.events, clock: fakeClock(), ids: fakeIds() });
    recorder.record(quiet, 'OPENID_TOKEN', 'FAIL', { meta: { errorCode: 'invalid_grant', offerId: 'o1' }, payload: { request: { client_secret: 's' } } });
    recorder.record(quiet, 'OPENID_TOKEN', 'SUCCESS', { meta: { offerId: 'o1' }, payload: { response: { access_token: 't' } } });
    await recorder.flush();
    expect(store.rows.map((e) => e.data)).toEqual([{ errorCode: 'invalid_grant' }, undefined]);
  });
});
