import { randomBytes } from 'node:crypto';
import type { Clock, PlatformKeyRepository } from '@vellum/core';
import type { Sealer } from './sealer.ts';

/**
 * The random secret of `bytes` bytes kept as the platform key record `name` (docs/decisions.md),
 * made on first use. It is sealed like every private key, bound to its record name; of servers
 * racing to make it, every one keeps the record stored first.
 */
export async function loadPlatformSecret(
  options: { keys: PlatformKeyRepository; sealer: Sealer; clock: Clock },
  name: string,
  bytes: number,
): Promise<Uint8Array> {
  const { keys, sealer, clock } = options;
  const record =
    (await keys.get(name)) ?? (await keys.insertIfAbsent({ name, sealed: sealer.seal(randomBytes(bytes), name), createdAt: clock.now().toISOString() }));
  const secret = sealer.open(record.sealed, name);
  if (secret.length !== bytes) throw new Error(`The platform key ${name} is not ${bytes} bytes after decryption`);
  return secret;
}
