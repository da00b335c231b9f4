// One credential per configuration per wallet access token, across servers: two stores (two
// connections, as two servers) racing to mark the same configuration issued on the offer the token
// came from, in the issuing transaction, on SQLite and on PostgreSQL. Exactly one commits; the
// others leave nothing behind.
import type { Store } from '@vellum/core';
import { makeIssuedCredential, makeOffer, makeTenant } from '@vellum/testing';
import { expect } from 'vitest';
import { describeRaces } from '../test/races.ts';

/** Six issuing transactions for one token and configuration, spread over both servers: exactly one commits. */
async function issuedOnce(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  const expiresAt = new Date(Date.now() + 300_000).toISOString();
  for (let round = 0; round < 5; round++) {
    const offer = makeOffer(tenant.id, undefined);
    await a.offers.insert(offer);
    const configuration = crypto.randomUUID();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        (i % 2 === 0 ? a : b).transaction(async (tx) => {
          if (!(await tx.nonces.markUsed({ tenantId: tenant.id, nonce: `n-${round}-${i}-${crypto.randomUUID()}`, expiresAt }))) throw new Error('nonce used');
          if (!(await tx.offers.markIssued(tenant.id, offer.id, configuration, 10))) throw new Error('already issued');
          await tx.issuedCredentials.insert(makeIssuedCredential(tenant.id, { offerId: offer.id, credentialConfigurationId: configuration }));
        }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(String(o.reason)).toContain('already issued');
    const { items } = await b.issuedCredentials.list(tenant.id, { credentialConfigurationId: configuration }, { limit: 10 });
    expect(items.map((r) => r.offerId)).toEqual([offer.id]);
  }
}

describeRaces('one credential per configuration per access token', [['issuing for one token and configuration at once: exactly one commits', issuedOnce]]);
