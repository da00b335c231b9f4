// A status list position is handed out once, across servers: two stores (two connections, as two
// servers) on one database race to take positions from one list, and to move one entry's status,
// on SQLite and on PostgreSQL. Every position goes to one caller only (an index names one
// credential: IETF Token Status List §13.1), and of racing status changes from one status exactly
// one lands.
import type { Store } from '@vellum/core';
import { makeStatusList, makeTenant } from '@vellum/testing';
import { expect } from 'vitest';
import { describeRaces } from '../test/races.ts';

const PER_SERVER = 500;
const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

/** Both servers take 500 positions each, all at once, interleaved, some inside transactions: 1,000 distinct positions. */
async function positionsTakenOnce(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  const list = makeStatusList(tenant.id);
  await b.statusLists.insert(list);
  const took = await Promise.all(
    Array.from({ length: 2 * PER_SERVER }, (_, i) => {
      const store = i % 2 === 0 ? a : b;
      const take = (s: Pick<Store, 'statusLists'>) => s.statusLists.takePosition(tenant.id, list.kind);
      return i % 5 === 0 ? store.transaction(take) : take(store);
    }),
  );
  const positions = took.map((t) => {
    expect(t?.list.id).toBe(list.id);
    return t?.position as number;
  });
  expect(new Set(positions).size).toBe(2 * PER_SERVER);
  expect(positions.sort((x, y) => x - y)).toEqual(Array.from({ length: 2 * PER_SERVER }, (_, i) => i));
  // Each caller's list shows its own increment: taken = position + 1.
  for (const t of took) expect(t?.list.taken).toBe((t?.position as number) + 1);
  expect((await a.statusLists.get(tenant.id, list.id))?.taken).toBe(2 * PER_SERVER);
  expect((await b.statusLists.get(tenant.id, list.id))?.taken).toBe(2 * PER_SERVER);
}

/** 1,000 racers on a list with room for 700: exactly 700 get a position, each a different one, and the list is full, never over. */
async function fullListNeverOverflows(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  const size = 700;
  const list = makeStatusList(tenant.id, { size });
  await a.statusLists.insert(list);
  const took = await Promise.all(Array.from({ length: 2 * PER_SERVER }, (_, i) => (i % 2 === 0 ? a : b).statusLists.takePosition(tenant.id, list.kind)));
  const positions = took.flatMap((t) => (t ? [t.position] : []));
  expect(positions.sort((x, y) => x - y)).toEqual(Array.from({ length: size }, (_, i) => i));
  expect((await b.statusLists.get(tenant.id, list.id))?.taken).toBe(size);
  expect(await a.statusLists.takePosition(tenant.id, list.kind)).toBeUndefined();
}

/** Racing status changes of one entry from `valid`, spread over both servers: exactly one lands, with its own status and time. */
async function statusMovedOnce(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  const list = makeStatusList(tenant.id, { kind: `mdoc:legacy:org.example.${crypto.randomUUID()}` });
  await a.statusLists.insert(list);
  for (let round = 0; round < 10; round++) {
    const credentialId = crypto.randomUUID();
    const entry = { tenantId: tenant.id, listId: list.id, idx: round, credentialId, status: 'valid' as const, updatedAt: iso() };
    await (round % 2 === 0 ? a : b).statusLists.insertEntry(entry);
    const before = (await a.statusLists.get(tenant.id, list.id))?.revision;
    const racers = Array.from({ length: 12 }, (_, i) => ({ to: i % 2 === 0 ? ('invalid' as const) : ('suspended' as const), at: iso(i + 1) }));
    const results = await Promise.all(racers.map(({ to, at }, i) => (i % 2 === 0 ? a : b).statusLists.setStatus(tenant.id, credentialId, 'valid', to, at)));
    const winners = results.flatMap((won, i) => (won ? [i] : []));
    expect(winners).toHaveLength(1);
    const winner = racers[winners[0] as number] as (typeof racers)[number];
    expect(await b.statusLists.entryOf(tenant.id, credentialId)).toEqual({ ...entry, status: winner.to, updatedAt: winner.at });
    expect((await b.statusLists.get(tenant.id, list.id))?.revision).not.toBe(before);
  }
  expect((await a.statusLists.nonValidEntries(tenant.id, list.id)).map((e) => e.idx)).toEqual(Array.from({ length: 10 }, (_, i) => i));
}

describeRaces('status list positions and changes happen once', [
  ['2 × 500 concurrent takePosition calls on one list: 1,000 distinct positions, taken 1,000', positionsTakenOnce],
  ['1,000 racers on a list of 700: exactly 700 positions, none twice', fullListNeverOverflows],
  ['racing setStatus calls from one status: exactly one wins', statusMovedOnce],
]);
