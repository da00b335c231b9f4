// A handle of the Authorization Code flow works once, across servers: two stores (two connections,
// as two servers) on one database race to move one authorization on with the same handle, and to
// mark one configuration issued on it, on SQLite and on PostgreSQL. Exactly one wins each race.
import type { Store } from '@vellum/core';
import { makeAuthorization, makeTenant, raceAdvances } from '@vellum/testing';
import { expect } from 'vitest';
import { describeRaces } from '../test/races.ts';

const RACERS = 12;
const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

/** Racing token requests with one code, spread over both servers, some inside transactions: exactly one redeems it. */
async function codeRedeemedOnce(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  for (let round = 0; round < 5; round++) {
    const record = makeAuthorization(tenant.id, { stage: 'code', userId: crypto.randomUUID() });
    await a.authorizations.insert(record);
    const code = record.handleDigest as string;
    const results = await Promise.all(
      Array.from({ length: RACERS }, (_, i) => {
        const store = i % 2 === 0 ? a : b;
        const redeem = (s: Pick<Store, 'authorizations'>) =>
          s.authorizations.advance(tenant.id, record.id, 'code', code, iso(), { stage: 'redeemed', expiresAt: iso() });
        return i % 3 === 0 ? store.transaction(redeem) : redeem(store);
      }),
    );
    const winners = results.filter((r) => r !== undefined);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ id: record.id, stage: 'redeemed', userId: record.userId });
    expect(winners[0]).not.toHaveProperty('handleDigest');
    expect(await b.authorizations.get(tenant.id, record.id)).toEqual(winners[0]);
    expect(await a.authorizations.findByHandle(tenant.id, code)).toBeUndefined();
  }
}

/** Racing moves of one stage with one handle, each to a handle of its own: exactly one lands, and its handle is the one stored. */
async function stageTakenOnce(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  for (let round = 0; round < 5; round++) {
    const record = makeAuthorization(tenant.id, { stage: 'authenticating' });
    await b.authorizations.insert(record);
    const { handles, winner } = await raceAdvances([a, b], record, 'code', RACERS, () => crypto.randomUUID());
    for (const [i, next] of handles.entries()) if (i !== winner) expect(await b.authorizations.findByHandle(tenant.id, next)).toBeUndefined();
  }
}

/** Racing issuances of one configuration for one authorization's token, in their transactions: exactly one marks it. */
async function issuedOnce(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  for (let round = 0; round < 5; round++) {
    const { handleDigest: _spent, ...record } = makeAuthorization(tenant.id, { stage: 'redeemed' });
    await a.authorizations.insert(record);
    const configuration = crypto.randomUUID();
    const outcomes = await Promise.allSettled(
      Array.from({ length: RACERS }, (_, i) =>
        (i % 2 === 0 ? a : b).transaction(async (tx) => {
          if (!(await tx.authorizations.markIssued(tenant.id, record.id, configuration, 10))) throw new Error('already issued');
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(String(o.reason)).toContain('already issued');
    // And outside transactions, for a second configuration.
    const second = crypto.randomUUID();
    const marks = await Promise.all(
      Array.from({ length: RACERS }, (_, i) => (i % 2 === 0 ? a : b).authorizations.markIssued(tenant.id, record.id, second, 10)),
    );
    expect(marks.filter(Boolean)).toHaveLength(1);
    expect((await b.authorizations.get(tenant.id, record.id))?.issuedConfigurationIds).toEqual([configuration, second]);
  }
}

describeRaces('a handle works once', [
  ['racing redemptions of one code: exactly one wins', codeRedeemedOnce],
  ['racing moves of one stage with one handle: exactly one lands', stageTakenOnce],
  ['racing issuances of one configuration: exactly one marks it', issuedOnce],
]);
