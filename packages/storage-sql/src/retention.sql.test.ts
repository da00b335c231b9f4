// The retention job (docs/retention.md) on real databases: rows past their life are gone after a
// run and nothing alive is touched, two runners sharing a database never purge at the same time,
// and every purge finds its batch through an index.
import { createRetentionJob, type Store } from '@vellum/core';
import { fakeClock, makeTenant, presence, seedRetention } from '@vellum/testing';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlStoreFromKysely, migrateToLatest, openSqlStore, type SqlStoreOptions, type VellumDatabase } from './index.ts';
import { migrateTo } from './migrations.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import pg from 'pg';
import { freshDatabases, pgAdminUrl } from '../test/postgres.ts';
import { tempFolder } from '../test/temp-folder.ts';

const EXPIRED = '2025-01-01T00:00:00.000Z';

/** 0018_retention over a database of 0017 that holds a tenant: the tenant keeps the default periods, and the lease table works. */
async function upgradeKeepsDefaults(db: Kysely<VellumDatabase>, kind: 'sqlite' | 'postgres'): Promise<void> {
  await migrateTo(db, '0017_issued_credential_clients', kind);
  const tenant = makeTenant();
  const { id, subdomain, region, name, loggingLevel, createdAt } = tenant;
  await db.insertInto('tenants').values({ id, subdomain, region, name, logging_level: loggingLevel, created_at: createdAt }).execute();
  expect(await migrateToLatest(db, kind)).toContain('0018_retention');
  const store = createSqlStoreFromKysely(db, kind);
  try {
    expect(await store.tenants.findById(tenant.id)).toEqual(tenant);
    expect(await store.leases.acquire('retention', 'a', '2100-01-01T00:00:00.000Z', EXPIRED)).toBe(true);
  } finally {
    await store.close();
  }
}

function describeRetention(kind: 'sqlite' | 'postgres', options: () => Promise<SqlStoreOptions>, raw: () => Promise<Kysely<VellumDatabase>>) {
  const opened: Store[] = [];
  const open = async () => {
    const store = await openSqlStore(await options());
    opened.push(store);
    return store;
  };
  afterAll(async () => {
    for (const s of opened.splice(0)) await s.close();
  });

  it(`${kind}: a run deletes every kind past its life and touches nothing alive`, async () => {
    const store = await open();
    const clock = fakeClock('2026-06-01T00:00:00.000Z');
    const seed = await seedRetention(store, clock.now());
    const run = await createRetentionJob({ store, clock, holder: 'one', batchSize: 2 }).run();
    expect(run).toMatchObject({ ran: true, complete: true });
    const gone = await presence(seed.pastLife);
    const kept = await presence(seed.alive);
    for (const [k, rows] of Object.entries(gone)) expect(rows, `${k} past their life`).toEqual(rows.map(() => false));
    for (const [k, rows] of Object.entries(kept)) expect(rows, `${k} alive`).toEqual(rows.map(() => true));
  });

  it(`${kind}: two runners on one database never purge at the same time, and each row is deleted once`, async () => {
    const [a, b] = [await open(), await open()];
    const clock = fakeClock('2026-06-01T00:00:00.000Z');
    // Whatever earlier tests left past its life goes first, so each round counts its own rows.
    await createRetentionJob({ store: a, clock, holder: 'before' }).run();
    for (let round = 0; round < 3; round++) {
      const tenant = makeTenant();
      await a.tenants.insert(tenant);
      const tenantId = tenant.id;
      const rows = 120;
      for (let i = 0; i < rows; i += 40) {
        await a.transaction(async (tx) => {
          for (let j = i; j < i + 40; j++) await tx.nonces.markUsed({ tenantId, nonce: `n${round}-${j}`, expiresAt: EXPIRED });
        });
      }
      // Each runner notes when each of its batches ends; the batches of two runners must never interleave.
      const ends: { runner: string; at: number }[] = [];
      const job = (store: Store, runner: string) =>
        createRetentionJob({ store, clock, holder: runner, batchSize: 5, onPurged: () => ends.push({ runner, at: ends.length }) });
      const runs = await Promise.all([job(a, 'a').run(), job(b, 'b').run()]);
      expect(runs.reduce((n, r) => n + r.purged.nonces, 0)).toBe(rows);
      const order = ends.map((e) => e.runner).join('');
      expect(order, 'batches of one runner, then possibly of the other, never interleaved').toMatch(/^(a*b*|b*a*)$/);
      expect(runs.some((r) => r.ran)).toBe(true);
    }
  });

  it(`${kind}: each purge finds its batch through an index`, async () => {
    const db = await raw();
    try {
      const plans: Record<string, string> = {
        authorizations: 'select seq from authorizations where expires_at <= $1 limit 5',
        offers: 'select seq from offers where expires_at <= $1 limit 5',
        nonces: 'select tenant_id, nonce from nonces where expires_at <= $1 limit 5',
        rate_limits: 'select key from rate_limits where expires_at <= $1 limit 5',
        deferred_issuances: 'select seq from deferred_issuances where expires_at <= $1 limit 5',
        analytic_events: 'select seq from analytic_events where tenant_id = $2 and "timestamp" < $1 limit 5',
        webhook_deliveries: "select seq from webhook_deliveries where tenant_id = $2 and status <> 'pending' and updated_at < $1 limit 5",
      };
      for (const [name, query] of Object.entries(plans)) {
        const text = query.replace('$1', "'x'").replace('$2', "'t'");
        const plan =
          kind === 'sqlite'
            ? (await sql.raw<{ detail: string }>(`explain query plan ${text}`).execute(db)).rows.map((r) => r.detail).join('\n')
            : await db.connection().execute(async (c) => {
                // Tiny tables are scanned whole; forbidding that shows which index the planner would take.
                await sql`set enable_seqscan = off`.execute(c);
                return (await sql.raw<{ 'QUERY PLAN': string }>(`explain ${text}`).execute(c)).rows.map((r) => r['QUERY PLAN']).join('\n');
              });
        expect(plan, name).toMatch(/index/i);
        expect(plan, name).not.toMatch(/SCAN (TABLE )?\w+$|Seq Scan/m);
      }
    } finally {
      await db.destroy();
    }
  });
}

describe('retention on SQLite', () => {
  const file = tempFolder('vellum-retention-');
  it('sqlite: migration 0018 keeps existing tenants on the default periods', () =>
    upgradeKeepsDefaults(
      new Kysely<VellumDatabase>({ dialect: new SqliteDialect({ database: openSqliteDatabase({ filename: file('upgrade.db'), busyTimeoutMs: 1000 }) }) }),
      'sqlite',
    ));
  describeRetention(
    'sqlite',
    async () => ({ kind: 'sqlite', filename: file('retention.db') }),
    async () =>
      new Kysely<VellumDatabase>({ dialect: new SqliteDialect({ database: openSqliteDatabase({ filename: file('retention.db'), busyTimeoutMs: 1000 }) }) }),
  );
});

// Skipped only when no PostgreSQL is configured (a developer machine without one); CI always sets
// VELLUM_TEST_DATABASE_URL, so this suite always runs there.
describe.skipIf(pgAdminUrl === undefined)('retention on PostgreSQL', () => {
  const databases = freshDatabases();
  let url = '';
  beforeAll(async () => {
    url = await databases.create();
  });
  afterAll(() => databases.dropAll());
  it('postgres: migration 0018 keeps existing tenants on the default periods', async () => {
    const fresh = await databases.create();
    await upgradeKeepsDefaults(
      new Kysely<VellumDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: fresh, max: 2 }) }) }),
      'postgres',
    );
  });
  describeRetention(
    'postgres',
    async () => ({ kind: 'postgres', connectionString: url }),
    async () => new Kysely<VellumDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) }),
  );
});
