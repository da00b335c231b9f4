// What rate limits ask of the world: shared attempt counters. Each method's comment is its
// contract, which the Store contract suite in @vellum/testing asserts.

import type { RateLimitHit, RateLimitRule } from './model.ts';

/**
 * Attempt counters in fixed windows, for rate limits; every process using the store shares them.
 * Not part of `transaction`: a counted attempt stays counted whatever happens around it.
 */
export interface RateLimitRepository {
  /**
   * Counts one attempt against `key` in the window of `rule.windowMs` that holds `now` (windows
   * start at whole multiples of `windowMs` since the epoch), in one atomic write: of any number of
   * concurrent hits on a key, from any process, at most `rule.limit` in a window are `allowed`. The
   * count starts again at 1 in a newer window; a hit dated before the stored window (a server whose
   * clock is behind) counts in the stored one. Refused hits are counted too.
   */
  hit(key: string, rule: RateLimitRule, now: Date): Promise<RateLimitHit>;
  /** Takes back one hit on `key` counted in the window that began at `windowStart`; nothing when that window is over or its count is 0. */
  release(key: string, windowStart: string): Promise<void>;
  /** Deletes the counters whose window ended at or before `now`, returning how many. Adapters also do this themselves now and then. */
  deleteExpired(now: Date): Promise<number>;
  /** Deletes up to `limit` counters whose window ended at or before `before` (the retention job, docs/retention.md); returns how many. */
  purgeExpired(before: string, limit: number): Promise<number>;
}
