import { randomBytes, randomUUID } from 'node:crypto';

import type { Clock, Ids } from '@vellum/core';

/** The wall clock. */
export const systemClock: Clock = Object.freeze({ now: () => new Date() });

/** UUIDs and URL-safe random tokens from node:crypto's CSPRNG. */
export function createNodeIds(): Ids {
  return {
    uuid: () => randomUUID(),
    token: (bytes = 32) => randomBytes(bytes).toString('base64url'),
    bytes: (n) => new Uint8Array(randomBytes(n)),
  };
}
