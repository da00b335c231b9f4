import { randomFillSync } from 'node:crypto';

import type { Clock, Ids } from '@vellum/core';

/** The wall clock. */
export const systemClock: Clock = Object.freeze({ now: () => new Date() });

/** Bytes drawn from the CSPRNG at a time. */
const POOL_BYTES = 4096;

/**
 * Time-ordered UUIDs (v7) and URL-safe random tokens from node:crypto's CSPRNG. Small draws come
 * from a 4 KiB pool filled at once (a call of randomBytes costs a few µs; an offer draws a code and
 * a transaction code), each byte handed out once, as a copy.
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
  // UUIDv7 (RFC 9562 §5.7): 48 bits of Unix milliseconds, then 74 random bits. Ids made one after
  // another sort together, so a new row's id goes to the last page of each id index instead of a
  // random one: the rows of one grouped commit then share pages, and a commit writes fewer.
  const uuid = (): string => {
    const b = draw(16);
    b.writeUIntBE(Date.now(), 0, 6);
    b[6] = ((b[6] as number) & 0x0f) | 0x70;
    b[8] = ((b[8] as number) & 0x3f) | 0x80;
    const hex = b.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
  return {
    uuid,
    token: (bytes = 32) => draw(bytes).toString('base64url'),
    bytes: (n) => new Uint8Array(draw(n)),
  };
}
