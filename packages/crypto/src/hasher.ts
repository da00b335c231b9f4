import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

import type { SecretHasher } from '@vellum/core';

export interface ScryptHasherOptions {
  /** CPU/memory cost, a power of two (default 2^15). Tests may lower it. */
  N?: number;
  /** Block size (default 8). */
  r?: number;
  /** Parallelisation (default 1). */
  p?: number;
}

const SALT_BYTES = 16;
const KEY_BYTES = 32;
const DEFAULTS = { N: 2 ** 15, r: 8, p: 1 } as const;
// Bounds on parameters read back from a stored hash, so a corrupt or hostile row cannot make one
// verification allocate gigabytes or run for minutes.
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

interface Params {
  N: number;
  r: number;
  p: number;
}

function validParams({ N, r, p }: Params): boolean {
  const int = (v: number, max: number) => Number.isSafeInteger(v) && v >= 1 && v <= max;
  return int(N, MAX_N) && N >= 2 && (N & (N - 1)) === 0 && int(r, MAX_R) && int(p, MAX_P);
}

function derive(secret: string, salt: Uint8Array, params: Params, length: number): Promise<Buffer> {
  // Node's default maxmem (32 MiB) is exactly what N=2^15, r=8 needs, which OpenSSL refuses; give headroom.
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(secret.normalize('NFC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

// Only the canonical unpadded base64url alphabet: Buffer.from(…, 'base64url') would silently skip junk.
const B64URL = /^[A-Za-z0-9_-]+$/;
const DECIMAL = /^[1-9][0-9]{0,9}$/;

function parse(stored: string): { params: Params; salt: Buffer; hash: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  if (![n, r, p].every((v) => DECIMAL.test(v)) || !B64URL.test(salt) || !B64URL.test(hash)) return undefined;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (!validParams(params)) return undefined;
  const saltBytes = Buffer.from(salt, 'base64url');
  const hashBytes = Buffer.from(hash, 'base64url');
  if (saltBytes.length < 8 || hashBytes.length < 16 || hashBytes.length > 64) return undefined;
  return { params, salt: saltBytes, hash: hashBytes };
}

/** Slow, salted hashing of client secrets with scrypt, stored as `scrypt$N$r$p$salt$hash` (base64url). */
export function createScryptHasher(options: ScryptHasherOptions = {}): SecretHasher {
  const params: Params = { N: options.N ?? DEFAULTS.N, r: options.r ?? DEFAULTS.r, p: options.p ?? DEFAULTS.p };
  if (!validParams(params)) {
    throw new Error(`Invalid scrypt parameters: N must be a power of two in [2, ${MAX_N}], r in [1, ${MAX_R}], p in [1, ${MAX_P}]`);
  }
  // Derived once per hasher: verifying against a malformed or unknown hash still costs one
  // derivation, so response timing does not reveal which client ids exist.
  const decoySalt = randomBytes(SALT_BYTES);

  return {
    async hash(secret) {
      const salt = randomBytes(SALT_BYTES);
      const key = await derive(secret, salt, params, KEY_BYTES);
      return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
    },

    async verify(secret, stored) {
      try {
        const parsed = typeof stored === 'string' ? parse(stored) : undefined;
        if (!parsed) {
          await derive(secret, decoySalt, params, KEY_BYTES);
          return false;
        }
        const key = await derive(secret, parsed.salt, parsed.params, parsed.hash.length);
        return timingSafeEqual(key, parsed.hash);
      } catch {
        return false;
      }
    },
  };
}
