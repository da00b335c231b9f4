import { randomFillSync } from 'node:crypto';

/** Bytes drawn from the CSPRNG at a time. */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

/**
 * `n` random bytes from node:crypto's CSPRNG, drawn 4 KiB at a time: one call of randomBytes cost
 * about 3 µs on its own and several times that inside a busy server, and an issuance asks for a few
 * small draws (a nonce, a token id, an mDoc's salts). Each byte of the pool is handed out once, as
 * a copy; larger requests go to the CSPRNG directly. randomUUID keeps a similar cache inside Node.
 */
export function randomBytes(n: number): Buffer {
  if (n > POOL_BYTES / 4) return randomFillSync(Buffer.allocUnsafe(n));
  if (used + n > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const out = Buffer.allocUnsafe(n);
  pool.copy(out, 0, used, used + n);
  // What was handed out is not kept: the pool holds only bytes no caller has seen.
  pool.fill(0, used, used + n);
  used += n;
  return out;
}
