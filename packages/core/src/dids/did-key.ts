// did:key (W3C CCG did:key method): the DID is the multibase (base58btc) encoding of the
// multicodec-prefixed public key. Ed25519 keys are `ed25519-pub` (0xed, varint 0xed 0x01) with
// the 32 raw bytes; P-256 keys are `p256-pub` (0x1200, varint 0x80 0x24) with the 33-byte
// compressed point.

import type { KeyAlgorithm, PublicJwk } from '../keys/model.ts';
import { base64UrlToBytes } from '../shared/encoding.ts';
import { base58btcDecode, base58btcEncode, MULTIBASE_BASE58BTC } from './multibase.ts';

const CODECS: ReadonlyArray<{ algorithm: KeyAlgorithm; prefix: readonly [number, number]; length: number }> = [
  { algorithm: 'Ed25519', prefix: [0xed, 0x01], length: 32 },
  { algorithm: 'P-256', prefix: [0x80, 0x24], length: 33 },
];

function coordinate(value: string | undefined, name: string): Uint8Array {
  const bytes = value === undefined ? undefined : base64UrlToBytes(value);
  if (bytes?.length !== 32) throw new Error(`A public JWK whose ${name} is not 32 bytes of base64url`);
  return bytes;
}

/** The raw public key bytes did:key encodes: 32 bytes for Ed25519, the compressed point for P-256. */
export function publicKeyBytes(jwk: PublicJwk): Uint8Array {
  const x = coordinate(jwk.x, 'x');
  if (jwk.crv === 'Ed25519') return x;
  const y = coordinate(jwk.y, 'y');
  const compressed = new Uint8Array(33);
  // SEC 1 2.3.3: 0x02 when y is even, 0x03 when odd, then x.
  compressed[0] = ((y[31] as number) & 1) === 0 ? 0x02 : 0x03;
  compressed.set(x, 1);
  return compressed;
}

/** The multibase fingerprint of a public key (`z6Mk…` for Ed25519, `zDn…` for P-256). */
export function keyFingerprint(jwk: PublicJwk): string {
  const codec = CODECS.find((c) => c.algorithm === jwk.crv);
  if (!codec) throw new Error(`No multicodec for curve ${jwk.crv}`);
  const key = publicKeyBytes(jwk);
  const bytes = new Uint8Array(2 + key.length);
  bytes.set(codec.prefix, 0);
  bytes.set(key, 2);
  return MULTIBASE_BASE58BTC + base58btcEncode(bytes);
}

/** The did:key of a public key. */
export function didKeyOf(jwk: PublicJwk): string {
  return `did:key:${keyFingerprint(jwk)}`;
}

/** What a did:key holds: the key type and its raw public key (compressed point for P-256). */
export interface DecodedDidKey {
  algorithm: KeyAlgorithm;
  publicKey: Uint8Array;
}

/** Decodes a did:key of a key type Vellum knows; undefined for anything else. */
export function parseDidKey(did: string): DecodedDidKey | undefined {
  const match = /^did:key:z([1-9A-HJ-NP-Za-km-z]{40,60})$/.exec(did);
  const bytes = match ? base58btcDecode(match[1] as string) : undefined;
  if (!bytes) return undefined;
  for (const codec of CODECS) {
    if (bytes[0] === codec.prefix[0] && bytes[1] === codec.prefix[1] && bytes.length === 2 + codec.length) {
      const publicKey = bytes.slice(2);
      if (codec.algorithm === 'P-256' && publicKey[0] !== 0x02 && publicKey[0] !== 0x03) return undefined;
      return { algorithm: codec.algorithm, publicKey };
    }
  }
  return undefined;
}
