import { randomFillSync, randomUUID } from 'node:crypto';

import type { Clock, Ids } from '@vellum/core';

/** The wall clock. */
export const systemClock: Clock = Object.freeze({ now: () => new Date() });

/** Bytes drawn from the CSPRNG at a time. */
const POOL_BYTES = 4096;

/**
 * UUIDs and URL-safe random tokens from node:crypto's CSPRNG. Small draws come from a 4 KiB pool
 * filled at once (a call of randomBytes costs a few µs; an offer draws a code and a transaction
 * code), each byte handed out once, as a copy; randomUUID keeps such a cache inside Node itself.
 * `@vellum/crypto` keeps its own pool: adapters do not import each other (ARCHITECTURE.md).
 */
export function createNodeIds(): Ids {
  const pool = Buffer.alloc(POOL_BYTES);
  let used = POOL_BYTES;
  const draw = (n: number): Buffer => {
    if (n > POOL_BYTES / 4) return randomFillSync(Buffer.allocUnsafe(n));
    if (used + n > POOL_BYTES) {
      randomFillSync(pool);
      used = 0;
    }
    const out = Buffer.allocUnsafe(n);
    pool.copy(out, 0, used, used + n);
    pool.fill(0, used, used + n);
    used += n;
    return out;
  };
  return {
    uuid: () => randomUUID(),
    token: (bytes = 32) => draw(bytes).toString('base64url'),
    bytes: (n) => new Uint8Array(draw(n)),
  };
}
