// SQLite through better-sqlite3, opened the way every Vellum store wants it.
//
// better-sqlite3 must be 13 or newer: 12.x wraps statements in node::ObjectWrap, and Node 24.19+
// aborts the process when the garbage collector finalizes one (nodejs/node#65446), which happens
// to every prepared statement after a few thousand queries. 13.x is built on node-addon-api and
// ships prebuilt N-API binaries, so it neither crashes nor needs a compiler to install.

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export interface SqliteFileOptions {
  filename: string;
  busyTimeoutMs: number;
  /**
   * When a commit reaches the disk. `normal` (the default): the WAL is synced at checkpoints, not at
   * every commit, so a commit costs no fsync; a crash of the process loses nothing, a power cut can
   * lose the last commits but never corrupts the file. `full`: every commit is synced.
   */
  synchronous?: 'normal' | 'full';
}

/** How many prepared statements the connection keeps (least recently used go first). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query it runs, and preparing costs more than running a small indexed
 * query: on hot public endpoints it was most of the database time. Statements are kept by their SQL
 * and reused. Safe because Kysely runs one query at a time on the single SQLite connection (a
 * streamed query holds the connection until it is done), and SQLite re-prepares a kept statement
 * by itself when the schema changes.
 */
function withStatementCache(db: Database.Database): SqliteDatabase & { readonly inTransaction: boolean } {
  const statements = new Map<string, SqliteStatement>();
  return {
    /** Whether a transaction is open (group commit checks SQLite did not abandon one). */
    get inTransaction() {
      return db.inTransaction;
    },
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql);
      } else {
        statement = db.prepare(sql) as unknown as SqliteStatement;
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string);
      }
      statements.set(sql, statement);
      return statement;
    },
    close() {
      statements.clear();
      db.close();
    },
  };
}

/** Opens (creating when missing) a SQLite file in WAL mode with foreign keys on, for Kysely's SqliteDialect. */
export function openSqliteDatabase({
  filename,
  busyTimeoutMs,
  synchronous = 'normal',
}: SqliteFileOptions): SqliteDatabase & { readonly inTransaction: boolean } {
  const inMemory = filename === ':memory:' || filename === '';
  if (!inMemory) mkdirSync(dirname(filename), { recursive: true });
  // The busy timeout makes a second process wait for the write lock instead of failing at once.
  const db = new Database(filename, { timeout: busyTimeoutMs });
  // WAL lets readers go on while one writer writes; it is a property of the file, kept across opens.
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  // better-sqlite3 is synchronous: an fsync per commit stops the whole event loop while the disk
  // answers (100–250 µs a commit here, several commits per issuance), which is why `normal` is
  // the default (docs/decisions.md, SQLite durability).
  db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  return withStatementCache(db);
}
