import { ECDH } from 'node:crypto';
import type { PublicJwk } from '@vellum/core';

// A did:key resolver for tests, written apart from the core's did-key.ts so that a test finding an
// issuer key through it does not trust the code that made the DID (W3C CCG did:key: multibase z =
// base58btc, then a multicodec prefix, then the key).

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58Decode(text: string): Buffer {
  let n = 0n;
  for (const c of text) {
    const digit = BASE58.indexOf(c);
    if (digit < 0) throw new Error(`Not base58: ${c}`);
    n = n * 58n + BigInt(digit);
  }
  const hex = n === 0n ? '' : n.toString(16);
  const body = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  const zeros = text.length - text.replace(/^1+/, '').length;
  return Buffer.concat([Buffer.alloc(zeros), body]);
}

/** The public JWK a did:key of a P-256 (p256-pub, 0x1200, compressed point) or Ed25519 (0xed) key names. */
export function resolveDidKey(did: string): PublicJwk {
  if (!did.startsWith('did:key:z')) throw new Error(`Not a base58btc did:key: ${did}`);
  const bytes = base58Decode(did.slice('did:key:z'.length));
  if (bytes[0] === 0x80 && bytes[1] === 0x24 && bytes.length === 35) {
    const point = ECDH.convertKey(bytes.subarray(2), 'prime256v1', undefined, undefined, 'uncompressed') as Buffer;
    return { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') };
  }
  if (bytes[0] === 0xed && bytes[1] === 0x01 && bytes.length === 34) return { kty: 'OKP', crv: 'Ed25519', x: bytes.subarray(2).toString('base64url') };
  throw new Error(`A did:key of a key type this resolver does not know: ${did}`);
}
