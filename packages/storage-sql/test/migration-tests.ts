// A migration's test over data an earlier release wrote, run on a fresh SQLite file and (when
// VELLUM_TEST_DATABASE_URL is set; CI always sets it) on a fresh PostgreSQL database.
import type { Tenant } from '@vellum/core';
import { makeTenant } from '@vellum/testing';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, it } from 'vitest';
import type { VellumDatabase } from '../src/index.ts';
import type { SqlDialectKind } from '../src/database.ts';
import { openSqliteDatabase } from '../src/sqlite-database.ts';
import { freshDatabases, pgAdminUrl } from './postgres.ts';
import { tempFolder } from './temp-folder.ts';

export type MigrationTest = (db: Kysely<VellumDatabase>, kind: SqlDialectKind) => Promise<void>;

/** Runs `test` as `title` under `<what> on SQLite` and `<what> on PostgreSQL`. */
export function describeMigration(what: string, title: string, test: MigrationTest): void {
  describe(`${what} on SQLite`, () => {
    const file = tempFolder('vellum-migration-');
    it(title, async () => {
      const db = new Kysely<VellumDatabase>({
        dialect: new SqliteDialect({ database: openSqliteDatabase({ filename: file('migrate.db'), busyTimeoutMs: 1000 }) }),
      });
      await test(db, 'sqlite');
    });
  });

  // Skipped only when no PostgreSQL is configured (a developer machine without one); CI sets
  // VELLUM_TEST_DATABASE_URL, so this suite always runs there.
  describe.skipIf(pgAdminUrl === undefined)(`${what} on PostgreSQL`, () => {
    const databases = freshDatabases();
    afterAll(() => databases.dropAll());
    it(title, async () => {
      const db = new Kysely<VellumDatabase>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: await databases.create(), max: 2 }) }) });
      await test(db, 'postgres');
    });
  });
}

/** Inserts a new tenant's row as the earliest schema has it (the columns every migration since keeps); the tenant. */
export async function insertTenantRow(db: Kysely<VellumDatabase>): Promise<Tenant> {
  const tenant = makeTenant();
  await db
    .insertInto('tenants')
    .values({
      id: tenant.id,
      subdomain: tenant.subdomain,
      region: tenant.region,
      name: tenant.name,
      logging_level: tenant.loggingLevel,
      created_at: tenant.createdAt,
    })
    .execute();
  return tenant;
}
