import type { Repositories, Store } from '@vellum/core';
import { CompiledQuery, type DatabaseConnection, type Driver, Kysely, PostgresDialect, sql, SqliteDialect, type SqliteDialectConfig, SqliteDriver } from 'kysely';
import pg from 'pg';
import type { SqlDialectKind, VellumDatabase } from './database.ts';
import { migrateToLatest } from './migrations.ts';
import { repositoriesOn } from './repositories.ts';
import { openSqliteDatabase } from './sqlite-database.ts';

/**
 * A SQLite database file (created when missing, with its directory), in WAL mode with foreign keys
 * on. Its transactions begin immediate, so several processes may share the file (see below).
 */
export interface SqliteStoreOptions {
  kind: 'sqlite';
  filename: string;
  /** How long a write waits for another process's lock before failing, in ms (default 5000); the wait does not block the event loop. */
  busyTimeoutMs?: number;
  /** `normal` (default): no fsync per commit, safe against crashes of the process; `full`: every commit is synced to disk. */
  synchronous?: 'normal' | 'full';
}

/** A PostgreSQL database, reached through a connection pool. */
export interface PostgresStoreOptions {
  kind: 'postgres';
  connectionString: string;
  /** Most connections the pool opens (default 10). */
  poolSize?: number;
}

export type SqlStoreOptions = SqliteStoreOptions | PostgresStoreOptions;

/**
 * Kysely's SQLite driver begins transactions with a plain (deferred) `begin`, which takes no lock
 * until the first write. In WAL mode a transaction that read first and then writes fails at once with
 * SQLITE_BUSY_SNAPSHOT, without waiting, when another connection (another process) wrote in between.
 * `begin immediate` takes the write lock at the start instead: a second writer waits for it, and a
 * transaction's snapshot cannot go stale. Within one process nothing changes, as the driver runs one
 * transaction at a time on its single connection anyway.
 *
 * How a writer waits matters too. SQLite's own busy handler sleeps inside the call, and
 * better-sqlite3 calls on the event loop, so a process waiting for another's write lock stopped
 * serving anything for a millisecond or more at a time. With `busyRetryMs`, the connection is meant
 * to be opened with a busy timeout of 0: a statement refused with SQLITE_BUSY (which did nothing) is
 * tried again after the event loop has had a turn, until `busyRetryMs` have passed. Two workers on
 * one file served 13% more flows this way (docs/decisions.md).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #busyRetryMs: number | undefined;

  constructor(config: SqliteDialectConfig, busyRetryMs: number | undefined) {
    super(config);
    this.#busyRetryMs = busyRetryMs;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    const busyRetryMs = this.#busyRetryMs;
    if (busyRetryMs === undefined) return connection;
    return {
      async executeQuery(query) {
        const deadline = performance.now() + busyRetryMs;
        for (let attempt = 0; ; attempt++) {
          try {
            return await connection.executeQuery(query);
          } catch (error) {
            if (!isBusy(error) || performance.now() >= deadline) throw error;
            // A few turns of the event loop first (the lock is usually held for well under a
            // millisecond), then a millisecond at a time.
            await new Promise((resolve) => (attempt < 3 ? setImmediate(resolve) : setTimeout(resolve, 1)));
          }
        }
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
  }
}

/** SQLITE_BUSY (and its recovery variant): the statement was refused before it did anything. */
function isBusy(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_RECOVERY';
}

/** Options of ImmediateSqliteDialect. */
export interface ImmediateSqliteOptions {
  /**
   * Retry statements refused with SQLITE_BUSY for this long, without blocking the event loop; open
   * the better-sqlite3 database with `timeout: 0` when setting it. Unset: SQLite's own busy timeout
   * (a blocking wait) is all there is.
   */
  busyRetryMs?: number;
}

/**
 * SqliteDialect with ImmediateSqliteDriver; compiler, adapter and introspector are SQLite's own.
 * Exported for embedders who bring their own Kysely to `createSqlStoreFromKysely` and share the file
 * between processes.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #busyRetryMs: number | undefined;

  constructor(config: SqliteDialectConfig, options: ImmediateSqliteOptions = {}) {
    super(config);
    this.#config = config;
    this.#busyRetryMs = options.busyRetryMs;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config, this.#busyRetryMs);
  }
}

function openSqlite(options: SqliteStoreOptions): Kysely<VellumDatabase> {
  // SQLite does not wait for a lock itself (timeout 0); the driver retries without blocking, for as
  // long as the busy timeout says.
  const database = openSqliteDatabase({ filename: options.filename, busyTimeoutMs: 0, ...(options.synchronous ? { synchronous: options.synchronous } : {}) });
  return new Kysely<VellumDatabase>({ dialect: new ImmediateSqliteDialect({ database }, { busyRetryMs: options.busyTimeoutMs ?? 5000 }) });
}

function openPostgres(options: PostgresStoreOptions): Kysely<VellumDatabase> {
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolSize ?? 10 });
  // An idle connection that drops (database restart, failover) emits 'error' on the pool, which
  // would crash the process unheard. The pool discards that connection; the next query opens a
  // fresh one or fails where a caller sees it, and ping() reports readiness.
  pool.on('error', () => {});
  return new Kysely<VellumDatabase>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * Wraps a Kysely instance (the embedder's own, or one we opened) as the Store port; `close()` destroys
 * it. Does not migrate. An embedder's own SqliteDialect begins transactions deferred: fine for one
 * process, while several processes on one file need transactions that begin immediate (as ours do).
 */
export function createSqlStoreFromKysely(db: Kysely<VellumDatabase>, dialectKind: SqlDialectKind): Store {
  return {
    ...repositoriesOn(db, dialectKind),
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
  return options.kind === 'sqlite'
    ? createSqlStoreFromKysely(openSqlite(options), 'sqlite')
    : createSqlStoreFromKysely(openPostgres(options), 'postgres');
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
