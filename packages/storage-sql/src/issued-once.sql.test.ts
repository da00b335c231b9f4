// One credential per configuration per wallet access token, across servers: two stores (two
// connections, as two servers) racing to mark the same configuration issued on the offer the token
// came from, in the issuing transaction, on SQLite and on PostgreSQL. Exactly one commits; the
// others leave nothing behind.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@vellum/core';
import { makeIssuedCredential, makeOffer, makeTenant } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlStore, type SqlStoreOptions } from './index.ts';
import { freshDatabases, pgAdminUrl } from '../test/postgres.ts';

async function twoServersIssueOnce(options: SqlStoreOptions): Promise<void> {
  const stores: Store[] = [await openSqlStore(options), await openSqlStore(options)];
  try {
    const [a, b] = stores as [Store, Store];
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
            if (!(await tx.offers.markIssued(tenant.id, offer.id, configuration))) throw new Error('already issued');
            await tx.issuedCredentials.insert(makeIssuedCredential(tenant.id, { offerId: offer.id, credentialConfigurationId: configuration }));
          }),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(String(o.reason)).toContain('already issued');
      const { items } = await b.issuedCredentials.list(tenant.id, { credentialConfigurationId: configuration }, { limit: 10 });
      expect(items.map((r) => r.offerId)).toEqual([offer.id]);
    }
  } finally {
    for (const store of stores) await store.close();
  }
}

describe('one credential per configuration per access token on SQLite', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vellum-issued-once-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('two connections on one file issuing for one token and configuration at once: exactly one commits', async () => {
    await twoServersIssueOnce({ kind: 'sqlite', filename: join(dir, 'race.db') });
  });
});

// Skipped only when no PostgreSQL is configured; CI sets VELLUM_TEST_DATABASE_URL.
describe.skipIf(pgAdminUrl === undefined)('one credential per configuration per access token on PostgreSQL', () => {
  const databases = freshDatabases();
  afterAll(() => databases.dropAll());

  it('two servers sharing the database issuing for one token and configuration at once: exactly one commits', async () => {
    await twoServersIssueOnce({ kind: 'postgres', connectionString: await databases.create() });
  });
});
