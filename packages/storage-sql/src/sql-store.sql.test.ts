import { DatabaseSync } from 'node:sqlite';
import { DomainError, type Store } from '@vellum/core';
import { describeStoreContract, makeClient, makeDomain, makeEvent, makeOffer, makeTenant, makeUser } from '@vellum/testing';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlStore, createSqlStoreFromKysely, dialectKindOf, migrateToLatest, migrationNames, openSqlStore, type VellumDatabase } from './index.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import { freshDatabases, pgAdminUrl } from '../test/postgres.ts';
import { tempFolder } from '../test/temp-folder.ts';

describe('SQLite', () => {
  const file = tempFolder('vellum-sql-');

  describeStoreContract('sqlite', () => openSqlStore({ kind: 'sqlite', filename: file('contract.db') }));

  it('runs in WAL mode (kept in the file, so a second connection sees it)', async () => {
    const store = await openSqlStore({ kind: 'sqlite', filename: file('wal.db') });
    try {
      const other = new DatabaseSync(file('wal.db'), { readOnly: true });
      expect(other.prepare('pragma journal_mode').get()).toEqual({ journal_mode: 'wal' });
      other.close();
    } finally {
      await store.close();
    }
  });

  it('commits without an fsync (synchronous NORMAL) unless told to sync every commit (FULL)', () => {
    // PRAGMA synchronous is per connection: read on the connection the store's Kysely uses.
    const level = (synchronous?: 'normal' | 'full') => {
      const db = openSqliteDatabase({ filename: file('sync.db'), busyTimeoutMs: 1000, ...(synchronous ? { synchronous } : {}) });
      try {
        return db.prepare('pragma synchronous').all([]);
      } finally {
        db.close();
      }
    };
    expect(level()).toEqual([{ synchronous: 1 }]);
    expect(level('normal')).toEqual([{ synchronous: 1 }]);
    expect(level('full')).toEqual([{ synchronous: 2 }]);
  });

  it('enforces foreign keys, and a driver error other than a unique violation is not a DomainError', async () => {
    const store = await openSqlStore({ kind: 'sqlite', filename: file('fk.db') });
    try {
      const failure = await store.clients.insert(makeClient(crypto.randomUUID())).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(Error);
      expect(failure).not.toBeInstanceOf(DomainError);
      expect(failure).toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    } finally {
      await store.close();
    }
  });

  it('migrates idempotently on an embedder’s own Kysely, which then serves as a store', async () => {
    const db = new Kysely<VellumDatabase>({
      dialect: new SqliteDialect({ database: openSqliteDatabase({ filename: file('embedded.db'), busyTimeoutMs: 1000 }) }),
    });
    expect(dialectKindOf(db)).toBe('sqlite');
    expect(await migrateToLatest(db)).toEqual(migrationNames());
    expect(await migrateToLatest(db)).toEqual([]);
    const store = createSqlStoreFromKysely(db, 'sqlite');
    try {
      const t = makeTenant();
      await store.tenants.insert(t);
      expect(await store.tenants.findById(t.id)).toEqual(t);
    } finally {
      await store.close();
    }
  });

  it('keeps its data across a reopen, which migrates nothing new', async () => {
    const first = await openSqlStore({ kind: 'sqlite', filename: file('reopen.db') });
    const t = makeTenant();
    await first.tenants.insert(t);
    await first.close();
    const second = await openSqlStore({ kind: 'sqlite', filename: file('reopen.db') });
    try {
      expect(await second.tenants.findById(t.id)).toEqual(t);
    } finally {
      await second.close();
    }
  });

  it('createSqlStore does not migrate: it answers ping on an empty file but has no tables', async () => {
    const store = createSqlStore({ kind: 'sqlite', filename: file('nested/dir/bare.db') });
    try {
      await expect(store.ping()).resolves.toBeUndefined();
      const failure = await store.tenants.findById('x').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(failure).toBeInstanceOf(Error);
      expect(failure).not.toBeInstanceOf(DomainError);
    } finally {
      await store.close();
    }
  });

  it('stores an event batch larger than one statement, whole and in order', async () => {
    const store = await openSqlStore({ kind: 'sqlite', filename: file('batch.db') });
    try {
      const tenantId = crypto.randomUUID();
      const events = Array.from({ length: 1234 }, (_, i) => makeEvent(tenantId, { data: { i } }));
      await store.events.insertMany(events);
      const newest = await store.events.list(tenantId, {}, { limit: 1000 });
      const rest = await store.events.list(tenantId, {}, { limit: 1000, after: newest.last as number });
      expect([...newest.items, ...rest.items].map((e) => e.id)).toEqual([...events].reverse().map((e) => e.id));
      expect(await store.events.list(tenantId, { ids: [] }, { limit: 10 })).toEqual({ items: [] });
    } finally {
      await store.close();
    }
  });

  it('with two connections on one file (two servers), an offer for an existing user is written whole even when the other writes meanwhile', async () => {
    const a = await openSqlStore({ kind: 'sqlite', filename: file('two.db') });
    const b = await openSqlStore({ kind: 'sqlite', filename: file('two.db'), busyTimeoutMs: 50 });
    try {
      const tenant = makeTenant();
      await a.tenants.insert(tenant);
      const user = makeUser(tenant.id);
      await a.users.insert(user);
      let other: unknown;
      const offer = makeOffer(tenant.id, user.id);
      await a.transaction(async (tx) => {
        // No claims to persist: still the user is held (an offer for an existing user does this).
        await tx.users.mergeClaims(tenant.id, user.id, {}, new Date().toISOString());
        // Another server writes now. mergeClaims took the write lock with its first statement, so
        // this waits (here briefly, then gives up) instead of invalidating the transaction's snapshot
        // (in WAL mode a read-then-write transaction would fail with SQLITE_BUSY_SNAPSHOT).
        other = await b.users.insert(makeUser(tenant.id)).then(
          () => 'written',
          (e: { code?: string }) => e.code,
        );
        await tx.offers.insert(offer);
      });
      expect(other).toBe('SQLITE_BUSY');
      expect(await a.offers.get(tenant.id, offer.id)).toEqual(offer);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

// Skipped only when no PostgreSQL is configured (a developer machine without one); CI always sets
// VELLUM_TEST_DATABASE_URL, so this suite always runs there.
describe.skipIf(pgAdminUrl === undefined)('PostgreSQL', () => {
  const databases = freshDatabases();
  const freshDatabase = () => databases.create();

  let url = '';
  beforeAll(async () => {
    url = await freshDatabase();
  });
  // WITH (FORCE) ends any connection a failed test left open, so the drop cannot hang.
  afterAll(() => databases.dropAll());

  describeStoreContract('postgres', () => openSqlStore({ kind: 'postgres', connectionString: url }));

  /** Two stores on one database: two servers sharing PostgreSQL. */
  async function twoServers<T>(run: (a: Store, b: Store) => Promise<T>): Promise<T> {
    const a = await openSqlStore({ kind: 'postgres', connectionString: url });
    const b = await openSqlStore({ kind: 'postgres', connectionString: url });
    try {
      return await run(a, b);
    } finally {
      await a.close();
      await b.close();
    }
  }

  it('two tenants verifying the same name at once: exactly one succeeds, the other gets Conflict', async () => {
    await twoServers(async (a, b) => {
      for (let round = 0; round < 20; round++) {
        const ta = makeTenant(),
          tb = makeTenant();
        await a.tenants.insert(ta);
        await a.tenants.insert(tb);
        const name = `race${round}-${crypto.randomUUID()}.example.com`;
        await a.customDomains.insert(makeDomain(ta.id, { domain: name }));
        await a.customDomains.insert(makeDomain(tb.id, { domain: name }));
        const at = new Date().toISOString();
        const outcomes = await Promise.allSettled([a.customDomains.markVerified(ta.id, at), b.customDomains.markVerified(tb.id, at)]);
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o) => o.status === 'rejected');
        expect(won).toEqual([{ status: 'fulfilled', value: true }]);
        expect(lost).toHaveLength(1);
        expect(lost[0]?.reason).toBeInstanceOf(DomainError);
        expect(lost[0]?.reason).toMatchObject({ code: 'Conflict' });
        const winner = outcomes[0]?.status === 'fulfilled' ? ta.id : tb.id;
        expect((await b.customDomains.findVerified(name))?.tenantId).toBe(winner);
      }
    });
  });

  it('racing insertIfAbsent calls from two servers all return the one stored record', async () => {
    await twoServers(async (a, b) => {
      const name = `key-${crypto.randomUUID()}`;
      const racers = Array.from({ length: 10 }, (_, i) =>
        (i % 2 === 0 ? a : b).platformKeys.insertIfAbsent({ name, sealed: `sealed-${i}`, createdAt: new Date().toISOString() }),
      );
      const results = await Promise.all(racers);
      const stored = await a.platformKeys.get(name);
      expect(stored).toBeDefined();
      for (const r of results) expect(r).toEqual(stored);
    });
  });

  it('migrates idempotently, and two servers migrating a fresh database at once both succeed', async () => {
    const fresh = await freshDatabase();
    const open = () => new Kysely<VellumDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: fresh, max: 2 }) }) });
    const [one, two] = [open(), open()];
    try {
      expect(dialectKindOf(one)).toBe('postgres');
      const applied = await Promise.all([migrateToLatest(one), migrateToLatest(two)]);
      expect(applied.flat()).toEqual(migrationNames());
      expect(await migrateToLatest(one)).toEqual([]);
    } finally {
      await one.destroy();
      await two.destroy();
    }
  });
});
