// Fresh PostgreSQL databases for the SQL tests, on the server VELLUM_TEST_DATABASE_URL names (CI
// always sets it; a developer machine without PostgreSQL skips those suites).
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** The administrator connection string of the test PostgreSQL server, when there is one. */
export const pgAdminUrl = process.env.VELLUM_TEST_DATABASE_URL;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgAdminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates uniquely named databases on demand (`create` returns a URL) and drops them all in `dropAll`. */
export function freshDatabases(): { create(): Promise<string>; dropAll(): Promise<void> } {
  const created: string[] = [];
  return {
    async create() {
      const name = `vellum_test_${process.pid}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      await admin(`create database "${name}"`);
      created.push(name);
      const url = new URL(pgAdminUrl as string);
      url.pathname = `/${name}`;
      return url.toString();
    },
    async dropAll() {
      for (const name of created.splice(0)) await admin(`drop database if exists "${name}" with (force)`);
    },
  };
}
