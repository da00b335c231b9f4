// Group commit on SQLite (ImmediateSqliteDialect with `groupCommit`): transactions begun in one turn
// of the event loop share one SQLite transaction and one commit, and still succeed or fail each on
// its own. A second connection to the same file (better-sqlite3, outside Kysely) shows what is
// committed; the statements the driver sends are recorded to show how they were grouped.
import Database from 'better-sqlite3';
import { Kysely, sql, type SqliteDatabase } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ImmediateSqliteDialect } from './index.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import { tempFolder } from '../test/temp-folder.ts';

interface Schema {
  items: { name: string };
}

const folder = tempFolder('vellum-group-commit-');

let opened: Kysely<Schema>[] = [];
afterEach(async () => {
  await Promise.all(opened.map((db) => db.destroy()));
  opened = [];
});

let files = 0;

/** A fresh file with an `items` table, opened through the dialect; `statements` records every SQL text run. */
async function open(groupCommit = true) {
  const file = folder(`db-${(files += 1)}.sqlite`);
  const database = openSqliteDatabase({ filename: file, busyTimeoutMs: 0 });
  const statements: string[] = [];
  const recording = {
    get inTransaction() {
      return database.inTransaction;
    },
    prepare(text: string) {
      statements.push(text);
      return database.prepare(text);
    },
    close: () => database.close(),
  } satisfies SqliteDatabase & { inTransaction: boolean };
  const db = new Kysely<Schema>({ dialect: new ImmediateSqliteDialect({ database: recording }, { busyRetryMs: 1000, groupCommit }) });
  opened.push(db);
  await sql`create table items (name text primary key)`.execute(db);
  statements.length = 0;
  const other = new Database(file, { readonly: true });
  const committed = () => (other.prepare('select name from items order by name').all() as { name: string }[]).map((r) => r.name);
  return { db, statements, committed, count: (text: string) => statements.filter((s) => s === text).length };
}

const insert = (db: Kysely<Schema>, name: string) => db.insertInto('items').values({ name }).execute();

describe('group commit on SQLite', () => {
  it('runs transactions begun in one turn in one SQLite transaction with one commit', async () => {
    const { db, count, committed } = await open();
    const names = Array.from({ length: 10 }, (_, i) => `item-${i}`);
    await Promise.all(names.map((name) => db.transaction().execute((tx) => insert(tx, name))));
    expect(count('begin immediate')).toBe(1);
    expect(count('savepoint vellum_grouped')).toBe(10);
    expect(count('commit')).toBe(1);
    expect(committed()).toEqual(names.sort());
  });

  it('commits each transaction by itself when group commit is off', async () => {
    const { db, count, committed } = await open(false);
    await Promise.all(['a', 'b', 'c'].map((name) => db.transaction().execute((tx) => insert(tx, name))));
    expect(count('begin immediate')).toBe(3);
    expect(count('commit')).toBe(3);
    expect(count('savepoint vellum_grouped')).toBe(0);
    expect(committed()).toEqual(['a', 'b', 'c']);
  });

  it('reports a transaction done only once another connection can read what it wrote', async () => {
    const { db, committed } = await open();
    const seen = await Promise.all(
      ['a', 'b'].map((name) =>
        db
          .transaction()
          .execute((tx) => insert(tx, name))
          .then(() => committed()),
      ),
    );
    expect(seen).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
  });

  it('rolls back a failing transaction to its savepoint and commits the others of its batch', async () => {
    const { db, committed } = await open();
    const outcomes = await Promise.allSettled([
      db.transaction().execute((tx) => insert(tx, 'a')),
      db.transaction().execute(async (tx) => {
        await insert(tx, 'b');
        throw new Error('b changed its mind');
      }),
      // A constraint error from SQLite, after a row that must not stay either.
      db.transaction().execute(async (tx) => {
        await insert(tx, 'c');
        await insert(tx, 'a');
      }),
      db.transaction().execute((tx) => insert(tx, 'd')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toContain('b changed its mind');
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(committed()).toEqual(['a', 'd']);
  });

  it('gives a transaction its result, and runs the next batch after it', async () => {
    const { db, count, committed } = await open();
    expect(await db.transaction().execute(async (tx) => (await insert(tx, 'a'), 'result of a'))).toBe('result of a');
    await db.transaction().execute((tx) => insert(tx, 'b'));
    expect(count('commit')).toBe(2);
    expect(committed()).toEqual(['a', 'b']);
  });

  it('lets statements outside transactions run at once, on committed data only', async () => {
    const { db } = await open();
    await insert(db, 'before');
    const pending = db.transaction().execute((tx) => insert(tx, 'grouped'));
    // The transaction waits for the end of this turn; a plain read does not wait, and sees only
    // what was committed.
    expect((await db.selectFrom('items').select('name').execute()).map((r) => r.name)).toEqual(['before']);
    await pending;
    expect((await db.selectFrom('items').select('name').orderBy('name').execute()).map((r) => r.name)).toEqual(['before', 'grouped']);
  });

  it('fails every transaction of a batch SQLite abandoned, and runs those still waiting in a new one', async () => {
    const { db, committed, count } = await open();
    const outcomes = await Promise.allSettled([
      db.transaction().execute((tx) => insert(tx, 'a')),
      // Ends the SQLite transaction under the batch, as SQLite does itself after some errors.
      db.transaction().execute(async (tx) => {
        await insert(tx, 'b');
        await sql`rollback`.execute(tx);
      }),
      db.transaction().execute((tx) => insert(tx, 'c')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toContain('SQLite rolled back a grouped transaction');
    expect(committed()).toEqual(['c']);
    expect(count('begin immediate')).toBe(2);
  });

  it('finishes waiting transactions before the database closes', async () => {
    const { db, committed } = await open();
    const pending = Promise.all(['a', 'b'].map((name) => db.transaction().execute((tx) => insert(tx, name))));
    opened = opened.filter((o) => o !== db);
    await db.destroy();
    await pending;
    expect(committed()).toEqual(['a', 'b']);
  });
});
