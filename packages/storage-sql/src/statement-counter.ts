// Counting what a SQL store runs on its database: statements, transactions and commits. For tests
// and benchmarks that hold a use case to a budget of database work (docs/performance.md, "The
// flow's store budget (issue 27)"). A store opened without a counter runs on the dialect as it is: nothing is
// wrapped and nothing is counted.

import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';

/** What a store ran on its database, since its counter was made or last taken. */
export interface StatementCounts {
  /**
   * SQL statements that read or write rows: every query the store sent, each counted once however
   * often SQLite's busy retry had to send it again. Transaction control (begin, commit, rollback,
   * the savepoints of SQLite's group commit) is not a statement here; it is counted below.
   */
  statements: number;
  /**
   * Transactions the store began: `store.transaction`, and those a repository opens itself (a write
   * of several statements). Under SQLite's group commit each is still one here, however many share
   * one SQLite transaction.
   */
  transactions: number;
  /**
   * Commits the database itself ran. PostgreSQL, and SQLite without group commit: one per committed
   * transaction. SQLite with group commit: one per batch, which ends every transaction begun in
   * one turn of the event loop (so fewer than `transactions` when they overlap). A write outside
   * any transaction commits on its own (autocommit) and is not counted here.
   */
  commits: number;
  /** Transactions rolled back (each undone on its own, also within a SQLite batch). */
  rollbacks: number;
  /** The SQL text of each statement, in order, when the counter keeps them (`keepSql`); else empty. */
  sql: string[];
}

/** Counts what the store it is given to runs; read it between the pieces of work to be measured. */
export interface StatementCounter {
  /** The counts so far (since it was made or last taken). */
  peek(): StatementCounts;
  /** The counts so far, and starts again from zero. */
  take(): StatementCounts;
}

/** Options of createStatementCounter. */
export interface StatementCounterOptions {
  /** Keep the SQL text of every statement (`sql` in the counts): to say which they were, in a test's report. */
  keepSql?: boolean;
}

/** What the counting driver tells its counter. */
interface Tally {
  statement(sql: string): void;
  began(): void;
  committed(): void;
  rolledBack(): void;
}

/** The tally behind each counter, for the driver only: the counter's own surface is read-only. */
const tallies = new WeakMap<StatementCounter, Tally>();

/** A counter to pass to a store (`statementCounter` in SqliteStoreOptions or PostgresStoreOptions) or to countStatements. */
export function createStatementCounter(options: StatementCounterOptions = {}): StatementCounter {
  const keepSql = options.keepSql ?? false;
  let counts: StatementCounts = { statements: 0, transactions: 0, commits: 0, rollbacks: 0, sql: [] };
  const counter: StatementCounter = {
    peek: () => ({ ...counts, sql: [...counts.sql] }),
    take() {
      const taken = counts;
      counts = { statements: 0, transactions: 0, commits: 0, rollbacks: 0, sql: [] };
      return taken;
    },
  };
  tallies.set(counter, {
    statement(sql) {
      counts.statements += 1;
      if (keepSql) counts.sql.push(sql);
    },
    began: () => void (counts.transactions += 1),
    committed: () => void (counts.commits += 1),
    rolledBack: () => void (counts.rollbacks += 1),
  });
  return counter;
}

/**
 * Implemented by a driver whose commits are not one per transaction (ImmediateSqliteDriver with
 * group commit): it calls the listener after each commit the database ran, and the counting driver
 * counts those instead of the transactions' own ends.
 */
export const REPORT_COMMITS: unique symbol = Symbol('vellum.reportCommits');

/** A driver that reports the database's commits itself (see REPORT_COMMITS). */
export interface ReportsCommits {
  [REPORT_COMMITS](listener: () => void): void;
}

function reportsCommits(driver: Driver): driver is Driver & ReportsCommits {
  return typeof (driver as Partial<ReportsCommits>)[REPORT_COMMITS] === 'function';
}

/** A connection whose queries are counted before they go to the driver's own connection. */
class CountingConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  readonly #tally: Tally;

  constructor(inner: DatabaseConnection, tally: Tally) {
    this.inner = inner;
    this.#tally = tally;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    this.#tally.statement(query.sql);
    return this.inner.executeQuery<R>(query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    this.#tally.statement(query.sql);
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * The driver's own connection goes to its transaction methods: their begin, commit and savepoints
 * are not counted as statements, and a driver that keeps state on its connection (SQLite's group
 * commit does) gets the object it made.
 */
const innerOf = (connection: DatabaseConnection) => (connection as CountingConnection).inner;

class CountingDriver implements Driver {
  readonly #inner: Driver;
  readonly #tally: Tally;
  /** Whether the inner driver reports the database's commits (else each transaction's commit is one). */
  readonly #commitsReported: boolean;

  constructor(inner: Driver, tally: Tally) {
    this.#inner = inner;
    this.#tally = tally;
    this.#commitsReported = reportsCommits(inner);
    if (reportsCommits(inner)) inner[REPORT_COMMITS](() => tally.committed());
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new CountingConnection(await this.#inner.acquireConnection(), this.#tally);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    this.#tally.began();
    await this.#inner.beginTransaction(innerOf(connection), settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#inner.commitTransaction(innerOf(connection));
    if (!this.#commitsReported) this.#tally.committed();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.#tally.rolledBack();
    await this.#inner.rollbackTransaction(innerOf(connection));
  }

  async savepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    if (!this.#inner.savepoint) throw new Error('The `savepoint` method is not supported by this driver');
    await this.#inner.savepoint(innerOf(connection), name, compileQuery);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    if (!this.#inner.rollbackToSavepoint) throw new Error('The `rollbackToSavepoint` method is not supported by this driver');
    await this.#inner.rollbackToSavepoint(innerOf(connection), name, compileQuery);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    if (!this.#inner.releaseSavepoint) throw new Error('The `releaseSavepoint` method is not supported by this driver');
    await this.#inner.releaseSavepoint(innerOf(connection), name, compileQuery);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection(innerOf(connection));
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

/**
 * `dialect` with every statement, transaction and commit its driver runs counted by `counter`; its
 * compiler, adapter and introspector are the dialect's own. For an embedder who brings a Kysely to
 * `createSqlStoreFromKysely`; the stores this package opens take the counter as an option.
 */
export function countStatements(dialect: Dialect, counter: StatementCounter): Dialect {
  const tally = tallies.get(counter);
  if (tally === undefined) throw new TypeError('countStatements needs a counter made by createStatementCounter');
  return {
    createDriver: () => new CountingDriver(dialect.createDriver(), tally),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: (): DialectAdapter => dialect.createAdapter(),
    createIntrospector: (db: Parameters<Dialect['createIntrospector']>[0]): DatabaseIntrospector => dialect.createIntrospector(db),
  };
}
