import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock, Ids, NonceCodec, PlatformKeyRepository } from '@vellum/core';
import { loadPlatformSecret } from './platform-secret.ts';
import type { Sealer } from './sealer.ts';

/** The platform key record holding the HMAC key every server mints and opens c_nonces with. */
export const NONCE_MAC_KEY_NAME = 'wallet-nonce-mac-key';

const KEY_BYTES = 32;
const VERSION = 1;
const EXPIRY_BYTES = 4;
const RANDOM_BYTES = 16;
const TAG_BYTES = 16;
const BODY_BYTES = 1 + EXPIRY_BYTES + RANDOM_BYTES;
const NONCE_BYTES = BODY_BYTES + TAG_BYTES;
/** Unpadded base64url of NONCE_BYTES bytes. */
const NONCE_LENGTH = Math.ceil((NONCE_BYTES * 4) / 3);
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAX_EXPIRY_SECONDS = 2 ** 32 - 1;

export interface LoadNonceCodecOptions {
  keys: PlatformKeyRepository;
  sealer: Sealer;
  clock: Clock;
  /** Where each nonce's random bytes come from (the server passes its pooled Ids); node:crypto's CSPRNG by default. */
  ids?: Pick<Ids, 'bytes'>;
}

/** HMAC-SHA-256 over version ‖ tenant id ‖ expiry ‖ random, truncated. The tenant id is the only part of variable length, so the input parses one way. */
function tagOf(key: KeyObject, tenantId: string, body: Uint8Array): Buffer {
  return createHmac('sha256', key).update(body.subarray(0, 1)).update(tenantId, 'utf8').update(body.subarray(1, BODY_BYTES)).digest().subarray(0, TAG_BYTES);
}

/**
 * The NonceCodec port with HMAC-SHA-256 (docs/decisions.md): a nonce is the base64url of version (1
 * byte) ‖ expiry in Unix seconds (uint32 BE) ‖ 16 random bytes ‖ the first 16 bytes of the HMAC,
 * 50 characters. The key is a random 32-byte platform key sealed under the master key, created on
 * first start (insert-if-absent), so every server sharing the database mints and opens alike.
 * Loading throws when the stored key cannot be opened, so a wrong master key stops the server at start.
 */
export async function loadNonceCodec(options: LoadNonceCodecOptions): Promise<NonceCodec> {
  const key = createSecretKey(await loadPlatformSecret(options, NONCE_MAC_KEY_NAME, KEY_BYTES));
  const random = options.ids?.bytes ?? ((n: number) => randomBytes(n));
  return {
    mint(tenantId, expiresAt) {
      const seconds = Math.floor(expiresAt.getTime() / 1000);
      if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > MAX_EXPIRY_SECONDS) throw new RangeError('A nonce expiry must fall between 1970 and 2106');
      const nonce = Buffer.alloc(NONCE_BYTES);
      nonce.writeUInt8(VERSION, 0);
      nonce.writeUInt32BE(seconds, 1);
      nonce.set(random(RANDOM_BYTES), 1 + EXPIRY_BYTES);
      tagOf(key, tenantId, nonce).copy(nonce, BODY_BYTES);
      return nonce.toString('base64url');
    },

    open(tenantId, nonce) {
      if (typeof nonce !== 'string' || typeof tenantId !== 'string' || nonce.length !== NONCE_LENGTH || !BASE64URL.test(nonce)) return undefined;
      const bytes = Buffer.from(nonce, 'base64url');
      // The last character carries bits the decoder drops: only the canonical spelling is the nonce,
      // or one nonce could be recorded as used under one spelling and used again under another.
      if (bytes.length !== NONCE_BYTES || bytes.toString('base64url') !== nonce || bytes.readUInt8(0) !== VERSION) return undefined;
      if (!timingSafeEqual(tagOf(key, tenantId, bytes), bytes.subarray(BODY_BYTES))) return undefined;
      return { expiresAt: new Date(bytes.readUInt32BE(1) * 1000) };
    },
  };
}
