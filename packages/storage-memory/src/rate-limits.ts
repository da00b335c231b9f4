import { type RateLimitRepository, secondsLeft, windowStartOf } from '@vellum/core';
import { purgeWhere } from './rows.ts';

interface Counter {
  windowStart: string;
  count: number;
  /** When the window ends (ms since the epoch). */
  endsAt: number;
}

// Ended windows are swept at most this often, on a hit: a cheap bound on the map's size.
const SWEEP_EVERY_MS = 60_000;

/** Rate-limit counters in one process's memory (RateLimitRepository); each call runs to completion, so it is atomic. */
export function createMemoryRateLimits(): RateLimitRepository {
  const counters = new Map<string, Counter>();
  let nextSweep = 0;

  function deleteExpired(nowMs: number): number {
    let deleted = 0;
    for (const [key, c] of counters) {
      if (c.endsAt <= nowMs) {
        counters.delete(key);
        deleted += 1;
      }
    }
    return deleted;
  }

  return {
    async hit(key, rule, now) {
      if (now.getTime() >= nextSweep) {
        nextSweep = now.getTime() + SWEEP_EVERY_MS;
        deleteExpired(now.getTime());
      }
      const start = windowStartOf(rule.windowMs, now);
      const current = counters.get(key);
      let c: Counter;
      if (current === undefined || Date.parse(current.windowStart) < start.getTime()) {
        c = { windowStart: start.toISOString(), count: 1, endsAt: start.getTime() + rule.windowMs };
        counters.set(key, c);
      } else {
        // The same window, or a newer one a server with a faster clock began: counted there.
        c = current;
        c.count += 1;
      }
      return { allowed: c.count <= rule.limit, count: c.count, retryAfterSeconds: secondsLeft(c.windowStart, rule.windowMs, now), windowStart: c.windowStart };
    },
    async release(key, windowStart) {
      const c = counters.get(key);
      if (c !== undefined && c.windowStart === windowStart && c.count > 0) c.count -= 1;
    },
    async deleteExpired(now) {
      return deleteExpired(now.getTime());
    },
    async purgeExpired(before, limit) {
      const beforeMs = Date.parse(before);
      return purgeWhere(counters, limit, (c) => c.endsAt <= beforeMs);
    },
  };
}
