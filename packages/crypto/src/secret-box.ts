// The core's SecretBox port over the Sealer (AES-256-GCM under the master key): secrets Vellum must
// read again, such as an identity provider's client secret, kept as UTF-8 text bound to a context.
import type { SecretBox } from '@vellum/core';

import type { Sealer } from './sealer.ts';

// The Sealer also seals platform keys under their bare names ('admin-token-signing', ...). Every
// context is prefixed here, so no context string can ever name one of those records and open it.
const DOMAIN = 'secret-box:';

/** Seals UTF-8 text with `context` as associated data; `open` gives undefined for anything it cannot open. */
export function createSecretBox(sealer: Sealer): SecretBox {
  return {
    seal(plaintext, context) {
      return sealer.seal(new TextEncoder().encode(plaintext), DOMAIN + context);
    },
    open(sealed, context) {
      try {
        // fatal: bytes that are not UTF-8 were never sealed by `seal`.
        return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(sealer.open(sealed, DOMAIN + context));
      } catch {
        return undefined;
      }
    },
  };
}
