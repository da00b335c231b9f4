import { createHash } from 'node:crypto';
import type { Digests } from '@vellum/core';

/** The core's Digests port on node:crypto. */
export function createDigests(): Digests {
  return {
    sha256: (text) => createHash('sha256').update(text, 'utf8').digest('base64url'),
  };
}
