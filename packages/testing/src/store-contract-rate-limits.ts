// The Store contract for rate-limit counters (ports.ts: RateLimitRepository), run inside
// describeStoreContract against every adapter.
import type { Store } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { unique, uuid } from './store-contract-support.ts';

/** A key no other test (nor an earlier run on the same database) uses. */
const key = (p: string) => `contract:${unique(`${p}:`)}:${uuid()}`;
const at = (iso: string) => new Date(iso);
const MINUTE = { limit: 3, windowMs: 60_000 };

export function describeRateLimitContract(store: () => Store): void {
  describe('rate limits', () => {
    it('counts hits in a fixed window: allowed up to the limit, then refused until the window ends (Retry-After)', async () => {
      const k = key('window');
      const hits = [];
      for (const s of ['10', '20', '30', '40', '50']) hits.push(await store().rateLimits.hit(k, MINUTE, at(`2030-01-01T00:00:${s}.000Z`)));
      expect(hits.map((h) => h.count)).toEqual([1, 2, 3, 4, 5]);
      expect(hits.map((h) => h.allowed)).toEqual([true, true, true, false, false]);
      expect(hits.map((h) => h.windowStart)).toEqual(Array(5).fill('2030-01-01T00:00:00.000Z'));
      // Seconds until 00:01:00, rounded up, never 0.
      expect(hits.map((h) => h.retryAfterSeconds)).toEqual([50, 40, 30, 20, 10]);
      expect((await store().rateLimits.hit(k, MINUTE, at('2030-01-01T00:00:59.999Z'))).retryAfterSeconds).toBe(1);
    });

    it('starts again at 1 in a newer window; a hit from an older window (a clock behind) counts in the stored one', async () => {
      const k = key('roll');
      for (let i = 0; i < 4; i++) await store().rateLimits.hit(k, MINUTE, at('2030-01-01T00:00:05.000Z'));
      const fresh = await store().rateLimits.hit(k, MINUTE, at('2030-01-01T00:01:05.000Z'));
      expect(fresh).toEqual({ allowed: true, count: 1, retryAfterSeconds: 55, windowStart: '2030-01-01T00:01:00.000Z' });
      const late = await store().rateLimits.hit(k, MINUTE, at('2030-01-01T00:00:59.000Z'));
      expect(late).toMatchObject({ allowed: true, count: 2, windowStart: '2030-01-01T00:01:00.000Z' });
    });

    it('keeps each key apart', async () => {
      const [a, b] = [key('a'), key('b')];
      const now = at('2030-01-01T00:00:00.000Z');
      for (let i = 0; i < 3; i++) await store().rateLimits.hit(a, MINUTE, now);
      expect(await store().rateLimits.hit(b, MINUTE, now)).toMatchObject({ allowed: true, count: 1 });
      expect(await store().rateLimits.hit(a, MINUTE, now)).toMatchObject({ allowed: false, count: 4 });
    });

    it('release takes back one hit of the window it names, never below 0, and nothing once that window is over', async () => {
      const k = key('release');
      const now = at('2030-01-01T00:00:10.000Z');
      const first = await store().rateLimits.hit(k, MINUTE, now);
      await store().rateLimits.hit(k, MINUTE, now);
      await store().rateLimits.release(k, first.windowStart);
      expect((await store().rateLimits.hit(k, MINUTE, now)).count).toBe(2);
      for (let i = 0; i < 4; i++) await store().rateLimits.release(k, first.windowStart);
      expect((await store().rateLimits.hit(k, MINUTE, now)).count).toBe(1);
      // A release naming an older window leaves the newer one alone.
      const next = await store().rateLimits.hit(k, MINUTE, at('2030-01-01T00:01:10.000Z'));
      await store().rateLimits.release(k, first.windowStart);
      expect(next.count).toBe(1);
      expect((await store().rateLimits.hit(k, MINUTE, at('2030-01-01T00:01:11.000Z'))).count).toBe(2);
      // Unknown keys are no error.
      await store().rateLimits.release(key('none'), first.windowStart);
    });

    it('deleteExpired removes the counters whose window has ended, and only those', async () => {
      const [ended, open] = [key('ended'), key('open')];
      await store().rateLimits.hit(ended, MINUTE, at('2001-01-01T00:00:10.000Z'));
      await store().rateLimits.hit(ended, MINUTE, at('2001-01-01T00:00:10.000Z'));
      await store().rateLimits.hit(open, { limit: 3, windowMs: 3_600_000 }, at('2001-01-01T00:00:10.000Z'));
      expect(await store().rateLimits.deleteExpired(at('2001-01-01T00:01:00.000Z'))).toBeGreaterThanOrEqual(1);
      // Gone: a hit dated in that window again starts from 1, while the hour-long window kept its count.
      expect((await store().rateLimits.hit(ended, MINUTE, at('2001-01-01T00:00:20.000Z'))).count).toBe(1);
      expect((await store().rateLimits.hit(open, { limit: 3, windowMs: 3_600_000 }, at('2001-01-01T00:00:20.000Z'))).count).toBe(2);
    });

    it('is atomic: of 40 concurrent hits on one key, exactly the limit are allowed and each count is seen once', async () => {
      const k = key('race');
      const now = at('2030-01-01T00:00:00.000Z');
      const hits = await Promise.all(Array.from({ length: 40 }, () => store().rateLimits.hit(k, { limit: 10, windowMs: 60_000 }, now)));
      expect(hits.filter((h) => h.allowed)).toHaveLength(10);
      expect(hits.map((h) => h.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    });
  });
}
