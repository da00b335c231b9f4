// Rate-limit counters shared across processes: two stores (two connection pools, as two servers)
// on one database add to one count, and their concurrent hits never let more than the limit through.
import type { Store } from '@vellum/core';
import { expect } from 'vitest';
import { describeRaces } from '../test/races.ts';

const now = new Date('2030-01-01T00:00:00.000Z');
const rule = { limit: 25, windowMs: 300_000 };

/** Hits from two stores on one database count together, and a flood across both lets exactly `limit` through. */
async function sharedAcrossServers(a: Store, b: Store): Promise<void> {
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
}

describeRaces('rate limits', [['each count is shared, and concurrent hits never pass the limit', sharedAcrossServers]]);
