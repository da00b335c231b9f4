import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derToP1363, ed25519PublicKey, p1363ToDer, p256PublicKey, signEs256, verifyEs256 } from './ecdsa.ts';

const es = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ed = generateKeyPairSync('ed25519');
const data = Buffer.from('the bytes that were signed');

describe('ES256 signatures in r‖s form', () => {
  it('signs what node:crypto verifies as IEEE P1363, and verifies what it signs that way, across many signatures', () => {
    // Half of all r and s have their high bit set and need a DER sign byte; a few hundred
    // signatures cover both encodings of both integers many times over.
    for (let i = 0; i < 300; i++) {
      const input = Buffer.from(`message ${i}`);
      const ours = signEs256(input, es.privateKey);
      expect(ours).toHaveLength(64);
      expect(verify('sha256', input, { key: es.publicKey, dsaEncoding: 'ieee-p1363' }, ours)).toBe(true);
      const theirs = sign('sha256', input, { key: es.privateKey, dsaEncoding: 'ieee-p1363' });
      expect(verifyEs256(input, theirs, es.publicKey)).toBe(true);
    }
  });

  it('refuses a signature of other data, by another key, altered, or of the wrong length', () => {
    const signature = signEs256(data, es.privateKey);
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(verifyEs256(data, signature, es.publicKey)).toBe(true);
    expect(verifyEs256(Buffer.from('other bytes'), signature, es.publicKey)).toBe(false);
    expect(verifyEs256(data, signature, other.publicKey)).toBe(false);
    const altered = Buffer.from(signature);
    altered[40] = (altered[40] as number) ^ 1;
    expect(verifyEs256(data, altered, es.publicKey)).toBe(false);
    expect(verifyEs256(data, signature.subarray(0, 63), es.publicKey)).toBe(false);
    expect(verifyEs256(data, new Uint8Array(64), es.publicKey)).toBe(false);
  });
});

describe('DER and r‖s conversion (RFC 5480 §2.2, RFC 7518 §3.4)', () => {
  it('writes minimal integers: leading zeros dropped, a zero byte before a high bit', () => {
    const rs = new Uint8Array(64);
    rs.set([0x00, 0x00, 0x7f], 0); // r = 0x7f00…: two leading zeros dropped, no sign byte
    rs.set([0x80], 32); // s = 0x80…: a sign byte added
    const der = p1363ToDer(rs);
    expect(der[0]).toBe(0x30);
    expect(der[1]).toBe(der.length - 2);
    expect([...der.subarray(2, 5)]).toEqual([0x02, 30, 0x7f]);
    const sAt = 2 + 2 + 30;
    expect([...der.subarray(sAt, sAt + 4)]).toEqual([0x02, 33, 0x00, 0x80]);
    expect(derToP1363(der).equals(Buffer.from(rs))).toBe(true);
  });

  it('round-trips every DER signature OpenSSL makes', () => {
    for (let i = 0; i < 100; i++) {
      const der = sign('sha256', Buffer.from(`m${i}`), es.privateKey);
      expect(p1363ToDer(derToP1363(der)).equals(der)).toBe(true);
    }
  });

  it('refuses what is not one DER pair of integers of at most 32 bytes', () => {
    const der = sign('sha256', data, es.privateKey);
    expect(() => derToP1363(Buffer.concat([der, Buffer.of(0)]))).toThrow(TypeError); // trailing byte
    expect(() => derToP1363(Buffer.from([0x31, ...der.subarray(1)]))).toThrow(TypeError); // a SET, not a SEQUENCE
    expect(() => derToP1363(Buffer.from([0x30, 0x04, 0x02, 0x00, 0x02, 0x00]))).toThrow(TypeError); // empty integers
    const tooLong = Buffer.concat([Buffer.from([0x30, 2 + 33 + 3, 0x02, 33, 0x01]), Buffer.alloc(32, 1), Buffer.from([0x02, 1, 1])]);
    expect(() => derToP1363(tooLong)).toThrow('Not a P-256 ECDSA signature');
    expect(() => p1363ToDer(new Uint8Array(63))).toThrow(TypeError);
  });
});

describe('public keys from raw coordinates', () => {
  it('makes the same P-256 and Ed25519 keys as a JWK import', () => {
    const jwk = es.publicKey.export({ format: 'jwk' });
    const key = p256PublicKey(Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url'));
    expect(key.export({ format: 'jwk' })).toEqual(jwk);
    const edJwk = ed.publicKey.export({ format: 'jwk' });
    expect(ed25519PublicKey(Buffer.from(edJwk.x as string, 'base64url')).export({ format: 'jwk' })).toEqual(edJwk);
  });

  it('refuses a point off the curve and coordinates of the wrong size', () => {
    const jwk = es.publicKey.export({ format: 'jwk' });
    const x = Buffer.from(jwk.x as string, 'base64url');
    const y = Buffer.from(jwk.y as string, 'base64url');
    const offCurve = Buffer.from(y);
    offCurve[31] = (offCurve[31] as number) ^ 1;
    expect(() => p256PublicKey(x, offCurve)).toThrow();
    expect(() => p256PublicKey(x.subarray(1), y)).toThrow(TypeError);
    expect(() => ed25519PublicKey(new Uint8Array(31))).toThrow(TypeError);
  });
});
