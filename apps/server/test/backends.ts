// The databases an end-to-end test runs the server on: SQLite in a temporary folder, and a fresh
// PostgreSQL database when VELLUM_TEST_DATABASE_URL names a server (CI always sets it).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
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

/**
 * Everything the database of a server started with `env` holds, as someone with the disk or a dump
 * would read it: on SQLite the raw bytes of the file and of its WAL (Latin-1, so every byte is one
 * character), on PostgreSQL every row of every table as text. For searching what must not be stored.
 */
export async function storedText(env: Record<string, string>): Promise<{ text: string; files: string[] }> {
  if (env.DATABASE_URL === undefined) {
    const file = join(env.VELLUM_DATA_DIR as string, 'vellum.db');
    const files = [file, `${file}-wal`].filter((f) => existsSync(f));
    return { text: files.map((f) => readFileSync(f).toString('latin1')).join('\n'), files };
  }
  const client = new pg.Client({ connectionString: env.DATABASE_URL });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public'");
    const rows = await Promise.all(tables.rows.map((t) => client.query<{ row: string }>(`select t::text as row from "${t.table_name}" t`)));
    return { text: rows.flatMap((r) => r.rows.map((row) => row.row)).join('\n'), files: [] };
  } finally {
    await client.end();
  }
}

/**
 * The rows of `sql` (a select) in the database of a server started with `env`: node:sqlite, read
 * only, on SQLite; a client on PostgreSQL. For tests that check what the server stored.
 */
export async function storedRows(env: Record<string, string>, sql: string): Promise<Array<Record<string, unknown>>> {
  if (env.DATABASE_URL === undefined) {
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(join(env.VELLUM_DATA_DIR as string, 'vellum.db'), { readOnly: true });
    try {
      return db.prepare(sql).all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: env.DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Array<Record<string, unknown>>;
  } finally {
    await client.end();
  }
}
