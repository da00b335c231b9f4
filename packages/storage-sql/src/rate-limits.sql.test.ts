// Rate-limit counters shared across processes: two stores (two connection pools, as two servers)
// on one database add to one count, and their concurrent hits never let more than the limit through.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@vellum/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlStore, type SqlStoreOptions } from './index.ts';
import { freshDatabases, pgAdminUrl } from '../test/postgres.ts';

const now = new Date('2030-01-01T00:00:00.000Z');
const rule = { limit: 25, windowMs: 300_000 };

/** Hits from two stores on one database count together, and a flood across both lets exactly `limit` through. */
async function sharedAcrossServers(options: SqlStoreOptions): Promise<void> {
  const stores: Store[] = [await openSqlStore(options), await openSqlStore(options)];
  try {
    const [a, b] = stores as [Store, Store];
    const counted = `shared:${crypto.randomUUID()}`;
    expect((await a.rateLimits.hit(counted, rule, now)).count).toBe(1);
    expect((await b.rateLimits.hit(counted, rule, now)).count).toBe(2);
    expect((await a.rateLimits.hit(counted, rule, now)).count).toBe(3);
    // A release through one server takes back a hit the other counted.
    const hit = await b.rateLimits.hit(counted, rule, now);
    await a.rateLimits.release(counted, hit.windowStart);
    expect((await b.rateLimits.hit(counted, rule, now)).count).toBe(4);

    const flooded = `flood:${crypto.randomUUID()}`;
    const hits = await Promise.all(Array.from({ length: 80 }, (_, i) => (i % 2 === 0 ? a : b).rateLimits.hit(flooded, rule, now)));
    expect(hits.filter((h) => h.allowed)).toHaveLength(rule.limit);
    expect(hits.map((h) => h.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
  } finally {
    for (const store of stores) await store.close();
  }
}

describe('rate limits on SQLite', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vellum-rate-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('two connections on one file share each count, and concurrent hits across them never pass the limit', async () => {
    await sharedAcrossServers({ kind: 'sqlite', filename: join(dir, 'shared.db') });
  });
});

// Skipped only when no PostgreSQL is configured (a developer machine without one); CI sets
// VELLUM_TEST_DATABASE_URL, so this suite always runs there.
describe.skipIf(pgAdminUrl === undefined)('rate limits on PostgreSQL', () => {
  const databases = freshDatabases();
  afterAll(() => databases.dropAll());

  it('two servers (two pools) on one database share each count, and concurrent hits across them never pass the limit', async () => {
    await sharedAcrossServers({ kind: 'postgres', connectionString: await databases.create(), poolSize: 8 });
  });
});
