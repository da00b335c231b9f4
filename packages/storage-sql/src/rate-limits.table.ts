// Rate-limit counters: one row per key, holding the count of its latest window.

import { type RateLimitRepository, secondsLeft, windowStartOf } from '@vellum/core';
import { type SqlBool, sql } from 'kysely';
import type { Executor } from './database.ts';
import { deleteBatch } from './retention.table.ts';

export interface RateLimitsTable {
  key: string;
  /** The start of the window `hits` counts (ISO 8601). */
  window_start: string;
  hits: number;
  /** When that window ends (ISO 8601): rows past it are swept. */
  expires_at: string;
}

// Ended windows are swept at most this often per store, on a hit; one indexed delete.
const SWEEP_EVERY_MS = 60_000;

/** The rate-limit counters on `db` (never a transaction: a counted attempt stays counted). */
export function rateLimitsOn(db: Executor): RateLimitRepository {
  let nextSweep = 0;

  async function deleteExpired(now: Date): Promise<number> {
    const result = await db.deleteFrom('rate_limits').where('expires_at', '<=', now.toISOString()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  return {
    async hit(key, rule, now) {
      if (now.getTime() >= nextSweep) {
        nextSweep = now.getTime() + SWEEP_EVERY_MS;
        await deleteExpired(now);
      }
      const start = windowStartOf(rule.windowMs, now);
      // One statement, so concurrent hits from any connection or process serialise on the row: an
      // insert, or an update that adds one in the same window and starts again at 1 in a newer one.
      // A hit from an older window (a clock behind the others) counts in the stored window.
      const newer = sql<boolean>`excluded.window_start > ${sql.ref('rate_limits.window_start')}`;
      const row = await db
        .insertInto('rate_limits')
        .values({ key, window_start: start.toISOString(), hits: 1, expires_at: new Date(start.getTime() + rule.windowMs).toISOString() })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            hits: sql<number>`case when ${newer} then 1 else ${sql.ref('rate_limits.hits')} + 1 end`,
            window_start: sql<string>`case when ${newer} then excluded.window_start else ${sql.ref('rate_limits.window_start')} end`,
            expires_at: sql<string>`case when ${newer} then excluded.expires_at else ${sql.ref('rate_limits.expires_at')} end`,
          }),
        )
        .returning(['hits', 'window_start'])
        .executeTakeFirstOrThrow();
      const count = Number(row.hits);
      return { allowed: count <= rule.limit, count, retryAfterSeconds: secondsLeft(row.window_start, rule.windowMs, now), windowStart: row.window_start };
    },
    async release(key, windowStart) {
      await db
        .updateTable('rate_limits')
        .set({ hits: sql<number>`${sql.ref('hits')} - 1` })
        .where('key', '=', key)
        .where('window_start', '=', windowStart)
        .where('hits', '>', 0)
        .execute();
    },
    deleteExpired,
    async purgeExpired(before, limit) {
      return deleteBatch(db, 'rate_limits', ['key'], limit, sql<SqlBool>`expires_at <= ${before}`);
    },
  };
}
