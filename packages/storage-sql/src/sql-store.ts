import type { Repositories, Store } from '@vellum/core';
import { type Dialect, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { SqlDialectKind, VellumDatabase } from './database.ts';
import { migrateToLatest } from './migrations.ts';
import { repositoriesOn } from './repositories.ts';
import { rateLimitsOn } from './rate-limits.table.ts';
import { openSqliteDatabase } from './sqlite-database.ts';
import { ImmediateSqliteDialect } from './sqlite-dialect.ts';
import { countStatements, type StatementCounter } from './statement-counter.ts';

/** What both kinds of store take besides where the database is. */
interface CommonStoreOptions {
  /**
   * Counts the statements, transactions and commits the store runs (createStatementCounter), for
   * tests and benchmarks that hold a use case to a budget. Unset (the default), nothing is counted
   * and the store runs on its dialect unwrapped.
   */
  statementCounter?: StatementCounter;
}

/**
 * A SQLite database file (created when missing, with its directory), in WAL mode with foreign keys
 * on. Its transactions begin immediate, so several processes may share the file (see below).
 */
export interface SqliteStoreOptions extends CommonStoreOptions {
  kind: 'sqlite';
  filename: string;
  /** How long a write waits for another process's lock before failing, in ms (default 5000); the wait does not block the event loop. */
  busyTimeoutMs?: number;
  /** `normal` (default): no fsync per commit, safe against crashes of the process; `full`: every commit is synced to disk. */
  synchronous?: 'normal' | 'full';
  /**
   * Transactions of one event-loop turn share one commit (default true); each still succeeds or
   * fails on its own, and reports success only once committed. See ImmediateSqliteOptions.
   */
  groupCommit?: boolean;
}

/** A PostgreSQL database, reached through a connection pool. */
export interface PostgresStoreOptions extends CommonStoreOptions {
  kind: 'postgres';
  connectionString: string;
  /** Most connections the pool opens (default 10). */
  poolSize?: number;
}

export type SqlStoreOptions = SqliteStoreOptions | PostgresStoreOptions;

/** The dialect, counted when the options name a counter. */
function counted(dialect: Dialect, options: CommonStoreOptions): Dialect {
  return options.statementCounter ? countStatements(dialect, options.statementCounter) : dialect;
}

function openSqlite(options: SqliteStoreOptions): Kysely<VellumDatabase> {
  // SQLite does not wait for a lock itself (timeout 0); the driver retries without blocking, for as
  // long as the busy timeout says.
  const database = openSqliteDatabase({ filename: options.filename, busyTimeoutMs: 0, ...(options.synchronous ? { synchronous: options.synchronous } : {}) });
  const dialect = new ImmediateSqliteDialect({ database }, { busyRetryMs: options.busyTimeoutMs ?? 5000, groupCommit: options.groupCommit ?? true });
  return new Kysely<VellumDatabase>({ dialect: counted(dialect, options) });
}

function openPostgres(options: PostgresStoreOptions): Kysely<VellumDatabase> {
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolSize ?? 10 });
  // An idle connection that drops (database restart, failover) emits 'error' on the pool, which
  // would crash the process unheard. The pool discards that connection; the next query opens a
  // fresh one or fails where a caller sees it, and ping() reports readiness.
  pool.on('error', () => {});
  return new Kysely<VellumDatabase>({ dialect: counted(new PostgresDialect({ pool }), options) });
}

/**
 * Wraps a Kysely instance (the embedder's own, or one we opened) as the Store port; `close()` destroys
 * it. Does not migrate. An embedder's own SqliteDialect begins transactions deferred: fine for one
 * process, while several processes on one file need transactions that begin immediate (as ours do).
 */
export function createSqlStoreFromKysely(db: Kysely<VellumDatabase>, dialectKind: SqlDialectKind): Store {
  return {
    ...repositoriesOn(db, dialectKind),
    rateLimits: rateLimitsOn(db),
    transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T> {
      return db.transaction().execute((trx) => work(repositoriesOn(trx, dialectKind)));
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      await db.destroy();
    },
  };
}

/** Opens a SQLite or PostgreSQL database as the Store port without touching its schema (see openSqlStore). */
export function createSqlStore(options: SqlStoreOptions): Store {
  return options.kind === 'sqlite' ? createSqlStoreFromKysely(openSqlite(options), 'sqlite') : createSqlStoreFromKysely(openPostgres(options), 'postgres');
}

/** Opens a SQLite or PostgreSQL database, brings its schema up to date, and returns it as the Store port. */
export async function openSqlStore(options: SqlStoreOptions): Promise<Store> {
  const db = options.kind === 'sqlite' ? openSqlite(options) : openPostgres(options);
  try {
    await migrateToLatest(db, options.kind);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return createSqlStoreFromKysely(db, options.kind);
}
