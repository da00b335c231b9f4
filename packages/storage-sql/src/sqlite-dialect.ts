import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, SqliteDialect, type SqliteDialectConfig, SqliteDriver } from 'kysely';
import { REPORT_COMMITS, type ReportsCommits } from './statement-counter.ts';

/** Options of ImmediateSqliteDialect. */
export interface ImmediateSqliteOptions {
  /**
   * Retry statements refused with SQLITE_BUSY for this long, without blocking the event loop; open
   * the better-sqlite3 database with `timeout: 0` when setting it. Unset: SQLite's own busy timeout
   * (a blocking wait) is all there is.
   */
  busyRetryMs?: number;
  /**
   * Group commit: transactions that run during one turn of the event loop share one SQLite
   * transaction, each inside its own savepoint, and one commit at the end of the turn. Each
   * transaction's promise settles only once that commit is done, so a caller never sees success for
   * data that is not committed; a transaction that fails is rolled back to its savepoint and leaves
   * the others alone. Needs a database that tells `inTransaction` (better-sqlite3 does).
   */
  groupCommit?: boolean;
}

/** SQLITE_BUSY (and its recovery variant): the statement was refused before it did anything. */
function isBusy(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_RECOVERY';
}

/** Runs `query`, retrying SQLITE_BUSY on later turns of the event loop until `busyRetryMs` have passed. */
async function executeRetrying<R>(connection: DatabaseConnection, query: CompiledQuery, busyRetryMs: number | undefined): Promise<QueryResult<R>> {
  if (busyRetryMs === undefined) return connection.executeQuery<R>(query);
  const deadline = performance.now() + busyRetryMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await connection.executeQuery<R>(query);
    } catch (error) {
      if (!isBusy(error) || performance.now() >= deadline) throw error;
      // A few turns of the event loop first (the lock is usually held for well under a
      // millisecond), then a millisecond at a time.
      await new Promise((resolve) => (attempt < 3 ? setImmediate(resolve) : setTimeout(resolve, 1)));
    }
  }
}

/** A deferred promise. */
interface Signal<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function signal<T = void>(): Signal<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Settling a signal nobody awaits (yet, or any more) is not an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** One grouped transaction: its turn in a batch, its end, and the batch's commit. */
interface Ticket {
  /** Resolved by the batch when the transaction may run its statements. */
  turn: Signal;
  /** Resolved by the transaction when it has released (or rolled back to) its savepoint. */
  done: Signal;
  /** Settles once the batch that ran the transaction committed, or failed. */
  committed: Signal;
  /** Waiting for its turn, running its statements, or done with the connection. */
  state: 'waiting' | 'running' | 'finished';
}

/** One use of the single connection, from acquireConnection to releaseConnection. */
class Lease implements DatabaseConnection {
  /** The grouped transaction this lease runs, once it began one. */
  ticket: Ticket | undefined;
  /** The connection's mutex went back before Kysely released the lease (a grouped transaction). */
  released = false;
  readonly inner: DatabaseConnection;
  readonly #busyRetryMs: number | undefined;

  constructor(inner: DatabaseConnection, busyRetryMs: number | undefined) {
    this.inner = inner;
    this.#busyRetryMs = busyRetryMs;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return executeRetrying<R>(this.inner, query, this.#busyRetryMs);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

const SAVEPOINT = 'vellum_grouped';
const raw = (text: string) => CompiledQuery.raw(text);

/**
 * Kysely's SQLite driver, changed in three ways.
 *
 * Transactions begin immediate. Kysely begins them deferred, which takes no lock until the first
 * write; in WAL mode a transaction that read first and then writes fails at once with
 * SQLITE_BUSY_SNAPSHOT when another connection (another process) wrote in between. `begin
 * immediate` takes the write lock at the start: a second writer waits, and no snapshot goes stale.
 *
 * Waiting does not block. SQLite's own busy handler sleeps inside the call, and better-sqlite3 calls
 * on the event loop, so a process waiting for another's write lock stopped serving anything. With
 * `busyRetryMs` (and the connection opened with a busy timeout of 0) a statement refused with
 * SQLITE_BUSY, which did nothing, is tried again after the event loop has had a turn.
 *
 * Commits can be grouped (`groupCommit`). A SQLite commit costs far more than the statements before
 * it: every page the transaction changed goes to the WAL, two writes each, and a table's last page
 * and its sequence indexes are the same pages from one transaction to the next. So transactions
 * begun during one turn of the event loop wait for its end (setImmediate), and then run one after
 * the other in one SQLite transaction, each in its own savepoint, and one `commit` ends them all.
 * A transaction that fails is rolled back to its savepoint and leaves the others alone; none reports
 * success before the commit. The write lock is held only while the batch runs, not while the event
 * loop waits for its turn, and statements outside transactions run at once, on committed data only.
 * When SQLite itself abandons the transaction (a full disk, an I/O error), every transaction that
 * ran in it fails, and those that had not run yet go on in the next batch.
 */
class ImmediateSqliteDriver extends SqliteDriver implements ReportsCommits {
  readonly #busyRetryMs: number | undefined;
  readonly #groupCommit: boolean;
  readonly #database: SqliteDialectConfig['database'];
  /** Grouped transactions waiting for the end of this turn of the event loop. */
  #waiting: Ticket[] = [];
  /** Told after each commit SQLite ran, when a statement counter asked (statement-counter.ts). */
  #onCommit: (() => void) | undefined;

  constructor(config: SqliteDialectConfig, options: ImmediateSqliteOptions) {
    super(config);
    this.#busyRetryMs = options.busyRetryMs;
    this.#groupCommit = options.groupCommit ?? false;
    this.#database = config.database;
    if (this.#groupCommit && typeof config.database === 'function')
      throw new TypeError('Group commit needs the SQLite database itself, not a function that opens it');
  }

  /** With group commit a SQLite commit may end several transactions: a counter learns of each commit here. */
  [REPORT_COMMITS](listener: () => void): void {
    this.#onCommit = listener;
  }

  /** Whether SQLite holds an open transaction on the connection (better-sqlite3's `inTransaction`). */
  #inTransaction(): boolean {
    const database = this.#database as { inTransaction?: unknown };
    if (typeof database.inTransaction !== 'boolean') throw new Error('Group commit needs a SQLite database that tells inTransaction (better-sqlite3)');
    return database.inTransaction;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(await super.acquireConnection(), this.#busyRetryMs);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (!this.#groupCommit) {
      await lease.executeQuery(raw('begin immediate'));
      return;
    }
    // Give the connection back while this transaction waits for its batch, which lends it back.
    lease.released = true;
    await super.releaseConnection();
    const ticket: Ticket = { turn: signal(), done: signal(), committed: signal(), state: 'waiting' };
    lease.ticket = ticket;
    this.#waiting.push(ticket);
    if (this.#waiting.length === 1) setImmediate(() => void this.#runBatch());
    await ticket.turn.promise;
    try {
      await lease.executeQuery(raw(`savepoint ${SAVEPOINT}`));
    } catch (error) {
      // Kysely rolls back only what began: the batch must hear that this one is over.
      ticket.state = 'finished';
      ticket.done.resolve();
      throw error;
    }
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (!this.#groupCommit) {
      await lease.executeQuery(raw('commit'));
      this.#onCommit?.();
      return;
    }
    const ticket = lease.ticket as Ticket;
    await lease.executeQuery(raw(`release ${SAVEPOINT}`));
    ticket.state = 'finished';
    ticket.done.resolve();
    await ticket.committed.promise;
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (!this.#groupCommit) {
      await lease.executeQuery(raw('rollback'));
      return;
    }
    const ticket = lease.ticket;
    // Only while its statements run: once it is finished the connection belongs to others, and
    // the batch's own outcome (a failed commit, say) has already decided for it.
    if (ticket === undefined || ticket.state !== 'running') return;
    ticket.state = 'finished';
    try {
      await lease.executeQuery(raw(`rollback to ${SAVEPOINT}`));
      await lease.executeQuery(raw(`release ${SAVEPOINT}`));
    } catch {
      // No savepoint to go back to: SQLite gave the transaction up, or something is badly wrong.
      // Either way nothing of this transaction may be committed, so the whole batch goes.
      if (this.#inTransaction()) await lease.executeQuery(raw('rollback')).catch(() => {});
    } finally {
      // The batch then checks whether SQLite still holds its transaction.
      ticket.done.resolve();
    }
  }

  // Kysely passes the connection it acquired; SqliteDriver's own signature leaves it out.
  override async releaseConnection(connection?: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.released) return;
    lease.released = true;
    await super.releaseConnection();
  }

  override async destroy(): Promise<void> {
    if (this.#groupCommit) {
      // Waiting transactions run first: the connection is free, with none waiting, once they are done.
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve));
        await super.acquireConnection();
        if (this.#waiting.length === 0) break;
        await super.releaseConnection();
      }
    }
    await super.destroy();
  }

  /** Runs the transactions that waited for this turn's end in one SQLite transaction, then commits. */
  async #runBatch(): Promise<void> {
    // The batch holds the connection from here to its commit; statements outside transactions wait.
    const inner = await super.acquireConnection();
    let pending = this.#waiting;
    // Transactions begun from now on wait for the next batch.
    this.#waiting = [];
    try {
      while (pending.length > 0) {
        await executeRetrying(inner, raw('begin immediate'), this.#busyRetryMs);
        const ran: Ticket[] = [];
        let abandoned = false;
        for (const ticket of pending) {
          ticket.state = 'running';
          ticket.turn.resolve();
          await ticket.done.promise;
          ran.push(ticket);
          if (!this.#inTransaction()) {
            abandoned = true;
            break;
          }
        }
        pending = pending.slice(ran.length);
        if (abandoned) {
          // Everything that ran is gone; those still waiting go on in a fresh transaction.
          const error = new Error('SQLite rolled back a grouped transaction: the error of the transaction that failed says why');
          for (const ticket of ran) ticket.committed.reject(error);
          continue;
        }
        try {
          await executeRetrying(inner, raw('commit'), this.#busyRetryMs);
          this.#onCommit?.();
          for (const ticket of ran) ticket.committed.resolve();
        } catch (error) {
          if (this.#inTransaction()) await inner.executeQuery(raw('rollback')).catch(() => {});
          for (const ticket of ran) ticket.committed.reject(error);
        }
      }
    } catch (error) {
      // `begin immediate` failed (another process held the lock past the busy timeout): those
      // that did not run fail with it.
      for (const ticket of pending) ticket.turn.reject(error);
    } finally {
      await super.releaseConnection();
    }
  }
}

/**
 * SqliteDialect with ImmediateSqliteDriver; compiler, adapter and introspector are SQLite's own.
 * Exported for embedders who bring their own Kysely to `createSqlStoreFromKysely` and share the file
 * between processes, or want grouped commits.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #options: ImmediateSqliteOptions;

  constructor(config: SqliteDialectConfig, options: ImmediateSqliteOptions = {}) {
    super(config);
    this.#config = config;
    this.#options = options;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config, this.#options);
  }
}
