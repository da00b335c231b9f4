// What the two status list token tests share: `lst` read back with pako rather than node:zlib, and
// a signed token changed one byte at a time.
import { expect } from 'vitest';
import { loadPako } from '../src/status-list/independent-zlib.ts';

const pako = await loadPako();

/** `lst` inflated by pako as the ZLIB format only (RFC 1950: windowBits 15, no gzip autodetection). */
export function inflateList(lst: Uint8Array): Uint8Array {
  // RFC 1950 §2.2: CMF says DEFLATE (CM 8); CMF·256 + FLG is a multiple of 31.
  expect((lst[0] as number) & 0x0f).toBe(8);
  expect((((lst[0] as number) << 8) | (lst[1] as number)) % 31).toBe(0);
  return pako.inflate(lst, { windowBits: 15 });
}

/** Flips one bit of the token at each named offset in turn: `verify` must refuse every copy as a signature mismatch. */
export function expectEveryChangeRefused(token: Uint8Array, changes: readonly (readonly [string, number])[], verify: (token: Uint8Array) => unknown) {
  for (const [what, offset] of changes) {
    const tampered = Uint8Array.from(token);
    tampered[offset] = (tampered[offset] as number) ^ 0x01;
    expect(() => verify(tampered), what).toThrow(/signature mismatch/);
  }
}
