// The statement counter (createStatementCounter, countStatements, `statementCounter` of the store
// options): what it counts on SQLite, with and without group commit, and on PostgreSQL (when
// VELLUM_TEST_DATABASE_URL is set). Each count is checked against what the database itself ran:
// on SQLite the SQL texts better-sqlite3 was asked to prepare.
import { makeTenant } from '@vellum/testing';
import { Kysely, PostgresDialect, sql, type SqliteDatabase } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { countStatements, createStatementCounter, ImmediateSqliteDialect, openSqlStore, type StatementCounter } from './index.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import { freshDatabases, pgAdminUrl } from '../test/postgres.ts';
import { tempFolder } from '../test/temp-folder.ts';

interface Schema {
  items: { name: string };
}

const folder = tempFolder('vellum-counter-');
let files = 0;
let opened: Kysely<Schema>[] = [];
afterEach(async () => {
  await Promise.all(opened.map((db) => db.destroy()));
  opened = [];
});

/** A fresh SQLite file with an `items` table, counted by `counter`; `prepared` lists every SQL text SQLite was given. */
async function sqlite(counter: StatementCounter, groupCommit: boolean) {
  const database = openSqliteDatabase({ filename: folder(`db-${(files += 1)}.sqlite`), busyTimeoutMs: 0 });
  const prepared: string[] = [];
  const recording = {
    get inTransaction() {
      return database.inTransaction;
    },
    prepare(text: string) {
      prepared.push(text);
      return database.prepare(text);
    },
    close: () => database.close(),
  } satisfies SqliteDatabase & { inTransaction: boolean };
  const db = new Kysely<Schema>({ dialect: countStatements(new ImmediateSqliteDialect({ database: recording }, { busyRetryMs: 1000, groupCommit }), counter) });
  opened.push(db);
  await sql`create table items (name text primary key)`.execute(db);
  await insert(db, 'seed');
  counter.take();
  prepared.length = 0;
  return { db, prepared, count: (text: string) => prepared.filter((s) => s === text).length };
}

const insert = (db: Kysely<Schema>, name: string) => db.insertInto('items').values({ name }).execute();
const selectAll = (db: Kysely<Schema>) => db.selectFrom('items').selectAll().execute();

/** Ten transactions begun in one turn (two statements each), one of which fails on its second (a row already there), and a statement outside them. */
async function work(db: Kysely<Schema>) {
  const outcomes = await Promise.allSettled(
    Array.from({ length: 10 }, (_, i) =>
      db.transaction().execute(async (tx) => {
        await insert(tx, `item-${i}`);
        await (i === 3 ? insert(tx, 'seed') : selectAll(tx));
      }),
    ),
  );
  expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(1);
  await selectAll(db);
}

describe('the statement counter on SQLite', () => {
  it('with group commit: every statement and transaction once, and the one SQLite commit that ended the batch', async () => {
    const counter = createStatementCounter({ keepSql: true });
    const { db, prepared, count } = await sqlite(counter, true);
    await work(db);
    const counts = counter.take();
    expect(counts).toMatchObject({ statements: 21, transactions: 10, commits: 1, rollbacks: 1 });
    // What SQLite ran: the same 21 statements, and the control statements the counter leaves out.
    expect(counts.sql).toEqual(prepared.filter((s) => !/^(begin|commit|rollback|savepoint|release)\b/.test(s)));
    expect(count('commit')).toBe(1);
    expect(count('savepoint vellum_grouped')).toBe(10);
    expect(counter.take()).toEqual({ statements: 0, transactions: 0, commits: 0, rollbacks: 0, sql: [] });
  });

  it('without group commit: one SQLite commit per committed transaction', async () => {
    const counter = createStatementCounter();
    const { db, count } = await sqlite(counter, false);
    await work(db);
    expect(counter.peek()).toEqual({ statements: 21, transactions: 10, commits: 9, rollbacks: 1, sql: [] });
    expect(count('commit')).toBe(9);
    expect(count('begin immediate')).toBe(10);
  });

  it('counts a store opened with `statementCounter`, migrations included, and nothing once taken', async () => {
    const counter = createStatementCounter();
    const store = await openSqlStore({ kind: 'sqlite', filename: folder('store.db'), statementCounter: counter });
    try {
      expect(counter.take().statements).toBeGreaterThan(50);
      await store.ping();
      expect(counter.take()).toMatchObject({ statements: 1, transactions: 0, commits: 0 });
      await store.tenants.insert(makeTenant());
      expect(counter.take().statements).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it('refuses a counter it did not make', () => {
    const fake: StatementCounter = { peek: () => ({ statements: 0, transactions: 0, commits: 0, rollbacks: 0, sql: [] }), take: () => fake.peek() };
    expect(() => countStatements(new ImmediateSqliteDialect({ database: openSqliteDatabase({ filename: ':memory:', busyTimeoutMs: 0 }) }), fake)).toThrow(
      TypeError,
    );
  });
});

// Skipped only when no PostgreSQL is configured (a developer machine without one); CI sets
// VELLUM_TEST_DATABASE_URL, so this suite always runs there.
describe.skipIf(pgAdminUrl === undefined)('the statement counter on PostgreSQL', () => {
  const databases = freshDatabases();
  afterAll(() => databases.dropAll());

  it('one commit per committed transaction; begin and commit are not statements', async () => {
    const counter = createStatementCounter({ keepSql: true });
    const pool = new pg.Pool({ connectionString: await databases.create(), max: 4 });
    const db = new Kysely<Schema>({ dialect: countStatements(new PostgresDialect({ pool }), counter) });
    opened.push(db);
    await sql`create table items (name text primary key)`.execute(db);
    await insert(db, 'seed');
    counter.take();
    await work(db);
    const counts = counter.take();
    expect(counts).toMatchObject({ statements: 21, transactions: 10, commits: 9, rollbacks: 1 });
    expect(counts.sql.filter((s) => /^(begin|commit|rollback)/i.test(s))).toEqual([]);
  });
});
