// The public surface of @vellum/storage-sql: the Store port on SQLite and PostgreSQL, via Kysely.

export type { SqlDialectKind, VellumDatabase } from './database.ts';
export {
  // dialectKindOf: tells SQLite from PostgreSQL on a Kysely instance (migrateToLatest's default).
  dialectKindOf,
  // migrateToLatest: brings a database's schema up to date (server start, `vellum migrate`).
  migrateToLatest,
  // migrationNames: every migration, in the order it applies.
  migrationNames,
} from './migrations.ts';
export {
  // createSqlStore: opens SQLite or PostgreSQL as a Store, leaving the schema alone.
  createSqlStore,
  // createSqlStoreFromKysely: wraps an embedder's own Kysely instance as a Store.
  createSqlStoreFromKysely,
  // openSqlStore: opens and migrates; what the server and tests use.
  openSqlStore,
} from './sql-store.ts';
export type { PostgresStoreOptions, SqliteStoreOptions, SqlStoreOptions } from './sql-store.ts';
export {
  // countStatements: a Kysely dialect whose statements, transactions and commits a counter counts.
  countStatements,
  // createStatementCounter: the counter a store takes as `statementCounter`, for budget tests and benchmarks.
  createStatementCounter,
} from './statement-counter.ts';
export type { StatementCounter, StatementCounterOptions, StatementCounts } from './statement-counter.ts';
// ImmediateSqliteDialect: Kysely's SqliteDialect with transactions that begin immediate and an
// optional group commit, for an embedder's own Kysely on a SQLite file that several processes share.
export { ImmediateSqliteDialect, type ImmediateSqliteOptions } from './sqlite-dialect.ts';
