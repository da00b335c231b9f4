import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createInflater } from './inflate.ts';

// draft-ietf-oauth-status-list §4.1: `lst` is zlib (RFC 1950); the output is capped.
describe('the Inflater port over node:zlib', () => {
  const inflater = createInflater();

  it('inflates a zlib stream (RFC 1950) to its bytes', () => {
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => i % 7);
    expect(inflater.inflate(deflateSync(bytes), 1000)).toEqual(bytes);
  });

  it('refuses a stream that inflates past the cap, and bytes that are no zlib stream', () => {
    const bomb = deflateSync(new Uint8Array(1024 * 1024));
    expect(bomb.byteLength).toBeLessThan(2048);
    expect(inflater.inflate(bomb, 1024)).toBeUndefined();
    expect(inflater.inflate(new Uint8Array([1, 2, 3, 4]), 1024)).toBeUndefined();
    expect(inflater.inflate(deflateSync(new Uint8Array(10)).subarray(0, 5), 1024)).toBeUndefined();
  });

  it('gunzips a GZIP stream (RFC 1952, RevocationList2020) within the cap, and refuses zlib, junk and oversize', () => {
    const bits = new Uint8Array(16 * 1024).fill(0x80);
    expect(inflater.gunzip(gzipSync(bits), bits.length)).toEqual(bits);
    expect(inflater.gunzip(gzipSync(bits), bits.length - 1)).toBeUndefined();
    expect(inflater.gunzip(deflateSync(bits), bits.length)).toBeUndefined();
    expect(inflater.gunzip(new Uint8Array([1, 2, 3]), 1024)).toBeUndefined();
  });
});
