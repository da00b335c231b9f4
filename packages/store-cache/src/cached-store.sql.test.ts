import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlStore } from '@vellum/storage-sql';
import { describeStoreContract } from '@vellum/testing';
import { afterAll, describe } from 'vitest';
import { cacheReads } from './read-cache.ts';

// As cached-store.test.ts, over a store with real transactions: writes inside one must empty the
// cache once it ends, and reads inside one must reach the database.
describe('cacheReads over SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-store-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  describeStoreContract('sqlite behind cacheReads', async () =>
    cacheReads(await openSqlStore({ kind: 'sqlite', filename: join(dir, 'contract.db') }), { ttlMs: 60_000 }),
  );
});
