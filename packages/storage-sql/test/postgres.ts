// Fresh PostgreSQL databases for the SQL tests, on the server VELLUM_TEST_DATABASE_URL names (CI
// always sets it; a developer machine without PostgreSQL skips those suites).
import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** The administrator connection string of the test PostgreSQL server, when there is one. */
export const pgAdminUrl = process.env.VELLUM_TEST_DATABASE_URL;

async function admin<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: pgAdminUrl });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Waits (at most 10 s) until no session is connected to `name`. A pool's `end()` settles once its
 * clients are asked to end, before the server has seen them go; a `drop … with (force)` in that
 * moment terminates them, and the terminated client's error surfaces in whatever test runs next
 * (seen under load in CI). Force stays for a session that never leaves.
 */
async function untilUnused(name: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const [row] = await admin<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
    if (row?.n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
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
      for (const name of created.splice(0)) {
        await untilUnused(name);
        await admin(`drop database if exists "${name}" with (force)`);
      }
    },
  };
}
