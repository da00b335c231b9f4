import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { Clock, Digests, PlatformKeyRepository } from '@vellum/core';
import { loadPlatformSecret } from './platform-secret.ts';
import type { Sealer } from './sealer.ts';

/** The platform key record of the MAC key (docs/decisions.md "Transaction codes at rest"). */
export const DIGEST_MAC_KEY_NAME = 'digest-mac-key';
const KEY_BYTES = 32;

/**
 * The core's Digests port on node:crypto: SHA-256, and HMAC-SHA-256 under `macKey` (32 bytes), both
 * base64url without padding.
 */
export function createDigests(macKey: Uint8Array): Digests {
  if (!(macKey instanceof Uint8Array) || macKey.length !== KEY_BYTES) throw new Error(`The digest MAC key must be exactly ${KEY_BYTES} bytes`);
  const key: KeyObject = createSecretKey(Buffer.from(macKey));
  return {
    sha256: (text) => createHash('sha256').update(text, 'utf8').digest('base64url'),
    mac: (text) => createHmac('sha256', key).update(text, 'utf8').digest('base64url'),
  };
}

export interface LoadDigestsOptions {
  keys: PlatformKeyRepository;
  sealer: Sealer;
  clock: Clock;
}

/**
 * The Digests port with its MAC key: a random 32-byte platform key sealed under the master key,
 * made on first start, so every server sharing the database computes the same MACs. Loading throws
 * when the stored key cannot be opened, so a wrong master key stops the server at start.
 */
export async function loadDigests(options: LoadDigestsOptions): Promise<Digests> {
  return createDigests(await loadPlatformSecret(options, DIGEST_MAC_KEY_NAME, KEY_BYTES));
}
