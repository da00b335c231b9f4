// A transaction_id collects its credentials once, across servers (docs/deferred-issuance.md): two
// stores (two connections, as two servers) racing the collecting transaction of one approved
// deferred issuance, and racing decisions on one pending one, on SQLite and on PostgreSQL.
import type { Store } from '@vellum/core';
import { makeDeferredIssuance, makeIssuedCredential, makeTenant } from '@vellum/testing';
import { expect } from 'vitest';
import { describeRaces } from '../test/races.ts';

/** Six collections of one approved issuance spread over both servers: exactly one commits its credential. */
async function collectedOnce(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  for (let round = 0; round < 5; round++) {
    const record = makeDeferredIssuance(tenant.id, { status: 'approved', decidedAt: new Date().toISOString() });
    await a.deferredIssuances.insert(record);
    const configuration = record.credentialConfigurationId;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? a : b).transaction(async (tx) => {
          const credential = makeIssuedCredential(tenant.id, { offerId: record.offerId, credentialConfigurationId: configuration });
          if (!(await tx.deferredIssuances.markIssued(tenant.id, record.id, new Date().toISOString(), [credential.id]))) throw new Error('already collected');
          await tx.issuedCredentials.insert(credential);
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(String(o.reason)).toContain('already collected');
    const { items } = await b.issuedCredentials.list(tenant.id, { credentialConfigurationId: configuration }, { limit: 10 });
    expect(items).toHaveLength(1);
    const stored = await b.deferredIssuances.get(tenant.id, record.id);
    expect(stored).toMatchObject({ status: 'issued', credentialIds: [items[0]?.id] });
    expect(stored?.sealedClaims).toBeUndefined();
  }
}

/** Approvals and denials of one pending issuance from both servers at once: exactly one decision lands. */
async function decidedOnce(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  for (let round = 0; round < 5; round++) {
    const record = makeDeferredIssuance(tenant.id);
    await a.deferredIssuances.insert(record);
    const now = new Date().toISOString();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? a : b).deferredIssuances.decide(
          tenant.id,
          record.id,
          { status: i % 3 === 0 ? 'denied' : 'approved', decidedAt: now, decidedBy: `admin-${i}` },
          now,
        ),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    const winner = results.indexOf(true);
    expect(await a.deferredIssuances.get(tenant.id, record.id)).toMatchObject({
      status: winner % 3 === 0 ? 'denied' : 'approved',
      decidedBy: `admin-${winner}`,
    });
  }
}

describeRaces('a deferred issuance collected and decided once', [
  ['collecting one approved transaction at once: exactly one commits', collectedOnce],
  ['deciding one pending transaction at once: exactly one decision lands', decidedOnce],
]);
