// The databases an end-to-end test runs the server on: SQLite in a temporary folder, and a fresh
// PostgreSQL database when VELLUM_TEST_DATABASE_URL names a server (CI always sets it).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { tempDir } from './process.ts';

/** The administrator connection string of the test PostgreSQL server, when there is one. */
export const pgAdminUrl = process.env.VELLUM_TEST_DATABASE_URL;

export interface Backend {
  /** The server's environment for this database; creates the database on PostgreSQL. */
  env(): Promise<Record<string, string>>;
  /** Drops the database (PostgreSQL) and removes the data folder. */
  cleanup(): Promise<void>;
}

/** SQLite in a fresh data folder; with `masterKey`, the server also gets a random VELLUM_MASTER_KEY. */
export function sqliteBackend(options: { masterKey?: boolean } = {}): Backend {
  const dir = tempDir();
  return {
    env: async () => ({ VELLUM_DATA_DIR: dir, ...(options.masterKey ? { VELLUM_MASTER_KEY: randomBytes(32).toString('base64') } : {}) }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: pgAdminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A new PostgreSQL database named `<prefix>_<random>` on the VELLUM_TEST_DATABASE_URL server, with a random master key. */
export function postgresBackend(prefix: string): Backend {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const dir = tempDir();
  return {
    env: async () => {
      await adminQuery(`CREATE DATABASE ${name}`);
      const url = new URL(pgAdminUrl as string);
      url.pathname = `/${name}`;
      return { DATABASE_URL: url.toString(), VELLUM_MASTER_KEY: randomBytes(32).toString('base64'), VELLUM_DATA_DIR: dir };
    },
    cleanup: async () => {
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
