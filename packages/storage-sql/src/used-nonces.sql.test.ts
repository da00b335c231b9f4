// Used c_nonces on both dialects beyond the Store contract: the migration that turned `nonces` from
// issued nonces into used ones, and two servers (two connections) recording one nonce at once.
import type { Store } from '@vellum/core';
import { makeTenant } from '@vellum/testing';
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import { createSqlStoreFromKysely, migrateToLatest, migrationNames, type VellumDatabase } from './index.ts';
import { migrateTo } from './migrations.ts';
import { describeRaces } from '../test/races.ts';
import { describeMigration, insertTenantRow } from '../test/migration-tests.ts';

const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

/** 0009_used_nonces over a database that holds nonces the old scheme issued and nobody used. */
async function migrationForgetsIssuedNonces(db: Kysely<VellumDatabase>, kind: 'sqlite' | 'postgres'): Promise<void> {
  // As before 0009: the schema of 0008 (later migrations may change tables too), and issued nonces in the table.
  await migrateTo(db, '0008_webhooks', kind);
  const store = createSqlStoreFromKysely(db, kind);
  try {
    const tenant = await insertTenantRow(db);
    const issued = ['issued-1', 'issued-2'];
    await db
      .insertInto('nonces')
      .values(issued.map((nonce) => ({ tenant_id: tenant.id, nonce, expires_at: iso(300_000) })))
      .execute();
    const names = migrationNames();
    expect(await migrateToLatest(db)).toEqual(names.slice(names.indexOf('0009_used_nonces')));
    expect(await db.selectFrom('nonces').select('nonce').execute()).toEqual([]);
    // They would otherwise have read as used.
    for (const nonce of issued) expect(await store.nonces.markUsed({ tenantId: tenant.id, nonce, expiresAt: iso(300_000) })).toBe(true);
  } finally {
    await store.close();
  }
}

/** Of racing markUsed calls for one nonce across both servers, exactly one is true. */
async function nonceUsedOnce(a: Store, b: Store): Promise<void> {
  const tenant = makeTenant();
  await a.tenants.insert(tenant);
  for (let round = 0; round < 10; round++) {
    const record = { tenantId: tenant.id, nonce: `race-${round}-${crypto.randomUUID()}`, expiresAt: iso(300_000) };
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).nonces.markUsed(record)));
    expect(results.filter(Boolean)).toHaveLength(1);
  }
}

describeRaces('used nonces', [['recording one nonce at once: exactly one is first', nonceUsedOnce]]);

describeMigration('used nonces', '0009_used_nonces forgets the nonces the old scheme issued', migrationForgetsIssuedNonces);
