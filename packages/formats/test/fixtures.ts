// What the format tests set up alike: the real KeyManager over the memory store (the crypto tests'
// fixture), holders' keys, and what an mDoc status entry reads as. Kept out of src, which the
// layer check (tools/checks) reads as what the package ships.
import { generateKeyPairSync } from 'node:crypto';
import type { PublicJwk } from '@vellum/core';

export { memoryKeyManager } from '../../crypto/test/key-manager.ts';

/** A new P-256 public key, as a holder's key (node:crypto). */
export function p256Holder(): PublicJwk {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
  return { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
}

/** A new Ed25519 public key, as a holder's key (node:crypto). */
export function ed25519Holder(): PublicJwk {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  return { kty: 'OKP', crv: 'Ed25519', x: jwk.x as string };
}

/** An MSO's status entry `{ status_list: { idx, uri } }` as a decoder reading maps as Maps gives it (docs/status-lists.md). */
export const mdocStatusEntry = (idx: number, uri: string) =>
  new Map([
    [
      'status_list',
      new Map<string, unknown>([
        ['idx', idx],
        ['uri', uri],
      ]),
    ],
  ]);
