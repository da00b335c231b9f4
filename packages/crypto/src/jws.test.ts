import { generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { CompactSign, compactVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { decodeJwsHeader, publicKeyFromJwk, signCompactJws, verifyCompactJws } from './jws.ts';

const es = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ed = generateKeyPairSync('ed25519');
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
const BOTH = ['ES256', 'EdDSA'] as const;

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8'));

/**
 * Signs exactly the signing input it is given, however it is spelled: the way to make tokens whose
 * only fault is their form, so that a refusal can only come from the check under test.
 */
function rawToken(encodedHeader: string, encodedPayload: string, privateKey: KeyObject, dsaEncoding: 'ieee-p1363' | 'der' = 'ieee-p1363'): string {
  const input = Buffer.from(`${encodedHeader}.${encodedPayload}`, 'latin1');
  const signature = privateKey.asymmetricKeyType === 'ed25519' ? sign(null, input, privateKey) : sign('sha256', input, { key: privateKey, dsaEncoding });
  return `${encodedHeader}.${encodedPayload}.${signature.toString('base64url')}`;
}

const good = (privateKey: KeyObject, header: Record<string, unknown>, payload: unknown = { sub: 'x' }) => rawToken(b64(header), b64(payload), privateKey);

describe('verifyCompactJws (RFC 7515 §7.1 compact serialization, RFC 7518 §3.4 ES256, RFC 8037 §3.1 EdDSA)', () => {
  it('verifies tokens jose signed, returning the header and the payload bytes', async () => {
    for (const [alg, pair] of [
      ['ES256', es],
      ['EdDSA', ed],
    ] as const) {
      const token = await new CompactSign(new TextEncoder().encode('{"hello":"world"}')).setProtectedHeader({ alg, typ: 'test+jwt' }).sign(pair.privateKey);
      const result = verifyCompactJws(token, pair.publicKey, BOTH);
      expect(result?.header, alg).toEqual({ alg, typ: 'test+jwt' });
      expect(text(result?.payload), alg).toBe('{"hello":"world"}');
      expect(result?.payload, alg).toBeInstanceOf(Uint8Array);
    }
  });

  it('signs tokens jose verifies (ES256 in the r‖s form), from objects and from bytes', async () => {
    for (const pair of [es, ed]) {
      const fromObject = signCompactJws({ typ: 'at+jwt', kid: 'k1' }, { sub: 'client', n: 1 }, pair.privateKey);
      const jose = await compactVerify(fromObject, pair.publicKey);
      expect(jose.protectedHeader).toEqual({ alg: pair === es ? 'ES256' : 'EdDSA', typ: 'at+jwt', kid: 'k1' });
      expect(text(jose.payload)).toBe('{"sub":"client","n":1}');
      const bytes = Uint8Array.from([0xfb, 0xff, 0x00, 0x01]);
      const fromBytes = signCompactJws({}, bytes, pair.privateKey);
      expect((await compactVerify(fromBytes, pair.publicKey)).payload).toEqual(bytes);
      expect(verifyCompactJws(fromBytes, pair.publicKey, BOTH)?.payload).toEqual(bytes);
    }
    expect(fromRaw(signCompactJws({}, { a: 1 }, es.privateKey).split('.')[2])).toHaveLength(64);
  });

  it('refuses a tampered payload, header or signature', () => {
    const token = good(es.privateKey, { alg: 'ES256', typ: 'at+jwt' }, { sub: 'alice' });
    expect(verifyCompactJws(token, es.publicKey, BOTH)).toBeDefined();
    const [h, p, s] = token.split('.') as [string, string, string];
    expect(verifyCompactJws(`${h}.${b64({ sub: 'mallory' })}.${s}`, es.publicKey, BOTH)).toBeUndefined();
    expect(verifyCompactJws(`${b64({ alg: 'ES256', typ: 'other+jwt' })}.${p}.${s}`, es.publicKey, BOTH)).toBeUndefined();
    const flipped = Buffer.from(s, 'base64url');
    flipped[10] = (flipped[10] as number) ^ 1;
    expect(verifyCompactJws(`${h}.${p}.${flipped.toString('base64url')}`, es.publicKey, BOTH)).toBeUndefined();
    expect(verifyCompactJws(`${h}.${p}.`, es.publicKey, BOTH)).toBeUndefined();
  });

  it('refuses a token signed by another key of the same type', () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const token = good(other.privateKey, { alg: 'ES256' });
    expect(verifyCompactJws(token, other.publicKey, BOTH)).toBeDefined();
    expect(verifyCompactJws(token, es.publicKey, BOTH)).toBeUndefined();
  });

  it('refuses alg none, and an alg outside the allowed list', () => {
    const payload = b64({ sub: 'x' });
    expect(verifyCompactJws(`${b64({ alg: 'none' })}.${payload}.`, es.publicKey, BOTH)).toBeUndefined();
    // A real signature does not make `none` acceptable either.
    const signature = good(es.privateKey, { alg: 'none' }).split('.')[2] as string;
    expect(verifyCompactJws(`${b64({ alg: 'none' })}.${payload}.${signature}`, es.publicKey, BOTH)).toBeUndefined();
    const token = good(ed.privateKey, { alg: 'EdDSA' });
    expect(verifyCompactJws(token, ed.publicKey, ['EdDSA'])).toBeDefined();
    expect(verifyCompactJws(token, ed.publicKey, ['ES256'])).toBeUndefined();
    expect(verifyCompactJws(token, ed.publicKey, [])).toBeUndefined();
  });

  it('refuses a header alg that does not match the key, even when the signature is right for the key (RFC 8725 §3.1)', () => {
    // Each signature is valid for the key; only the header's alg is wrong, so a verifier that let
    // the key pick the algorithm would accept these.
    const edAsEs256 = good(ed.privateKey, { alg: 'ES256' });
    expect(verify(null, Buffer.from(edAsEs256.split('.').slice(0, 2).join('.')), ed.publicKey, fromRaw(edAsEs256.split('.')[2]))).toBe(true);
    expect(verifyCompactJws(edAsEs256, ed.publicKey, BOTH)).toBeUndefined();
    const esAsEdDsa = good(es.privateKey, { alg: 'EdDSA' });
    expect(verifyCompactJws(esAsEdDsa, es.publicKey, BOTH)).toBeUndefined();
    expect(verifyCompactJws(good(es.privateKey, { alg: 'ES256' }), es.publicKey, BOTH)).toBeDefined();
  });

  it('refuses ES256 with a key on another curve (P-384), and symmetric keys', () => {
    const token = good(p384.privateKey, { alg: 'ES256' });
    expect(
      verify('sha256', Buffer.from(token.split('.').slice(0, 2).join('.')), { key: p384.publicKey, dsaEncoding: 'ieee-p1363' }, fromRaw(token.split('.')[2])),
    ).toBe(true);
    expect(verifyCompactJws(token, p384.publicKey, BOTH)).toBeUndefined();
    expect(verifyCompactJws(good(es.privateKey, { alg: 'ES256' }), p384.publicKey, BOTH)).toBeUndefined();
  });

  it('refuses crit (no extension is understood, RFC 7515 §4.1.11) and b64 (RFC 7797)', () => {
    expect(verifyCompactJws(good(es.privateKey, { alg: 'ES256', kid: 'k' }), es.publicKey, BOTH)).toBeDefined();
    expect(verifyCompactJws(good(es.privateKey, { alg: 'ES256', crit: ['exp'], exp: 1 }), es.publicKey, BOTH)).toBeUndefined();
    expect(verifyCompactJws(good(es.privateKey, { alg: 'ES256', crit: ['b64'], b64: false }), es.publicKey, BOTH)).toBeUndefined();
    expect(verifyCompactJws(good(es.privateKey, { alg: 'ES256', b64: false }), es.publicKey, BOTH)).toBeUndefined();
    expect(verifyCompactJws(good(ed.privateKey, { alg: 'EdDSA', b64: true }), ed.publicKey, BOTH)).toBeUndefined();
  });

  it('refuses anything but strict base64url (RFC 7515 §2): padding, + and /, stray bits, other characters', () => {
    // Bytes whose base64url holds `-` and `_`, the characters base64 spells `+` and `/`.
    const payload = b64({ sub: 'x' });
    const header = b64({ alg: 'ES256' });
    expect(Buffer.from([0xfb, 0xff, 0xbf]).toString('base64url')).toBe('-_-_');
    expect(verifyCompactJws(rawToken(header, '-_-_', es.privateKey), es.publicKey, BOTH)).toBeDefined();
    // Each token below is properly signed over exactly the characters it carries.
    expect(verifyCompactJws(rawToken(header, '+/+/', es.privateKey), es.publicKey, BOTH)).toBeUndefined();
    expect(verifyCompactJws(rawToken(`${b64({ alg: 'ES256', x: 1 })}=`, payload, es.privateKey), es.publicKey, BOTH)).toBeUndefined();
    expect(verifyCompactJws(rawToken(header, `${b64('ab')}==`, es.privateKey), es.publicKey, BOTH)).toBeUndefined();
    expect(verifyCompactJws(rawToken(header, `${b64('ab')} `, es.privateKey), es.publicKey, BOTH)).toBeUndefined();
    expect(verifyCompactJws(rawToken(header, `${b64('abc')}A`, es.privateKey), es.publicKey, BOTH)).toBeUndefined();
    const token = good(es.privateKey, { alg: 'ES256' });
    const signature = token.split('.')[2] as string;
    expect(verifyCompactJws(`${token}=`, es.publicKey, BOTH)).toBeUndefined();
    // 64 bytes are 86 characters; the last one carries 4 unused bits, which must be zero.
    const last = signature.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const stray = alphabet[alphabet.indexOf(last) | 1] as string;
    const respelled = `${token.slice(0, -1)}${stray}`;
    expect(fromRaw(respelled.split('.')[2])).toEqual(fromRaw(signature));
    expect(verifyCompactJws(respelled, es.publicKey, BOTH)).toBeUndefined();
  });

  it('refuses a token with other than three parts', () => {
    const token = good(es.privateKey, { alg: 'ES256' });
    const [h, p, s] = token.split('.') as [string, string, string];
    expect(verifyCompactJws(token, es.publicKey, BOTH)).toBeDefined();
    for (const wrong of [`${h}.${p}`, `${token}.`, `${token}.${s}`, `${h}.${p}.${s}.${h}.${p}`, h, '', '..', '...']) {
      expect(verifyCompactJws(wrong, es.publicKey, BOTH), wrong).toBeUndefined();
    }
  });

  it('refuses a header that is not a JSON object, and never throws on junk', () => {
    for (const header of [
      b64(['ES256']),
      b64('"ES256"'),
      b64('null'),
      b64('1'),
      b64('{"alg":"ES256"'),
      '',
      Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url'),
    ]) {
      const token = rawToken(header, b64({ sub: 'x' }), es.privateKey);
      expect(verifyCompactJws(token, es.publicKey, BOTH), header).toBeUndefined();
      expect(decodeJwsHeader(token), header).toBeUndefined();
    }
    for (const junk of [undefined, null, 42, {}, 'a.b.c', 'x'.repeat(100_000)]) {
      expect(verifyCompactJws(junk as string, es.publicKey, BOTH)).toBeUndefined();
      expect(decodeJwsHeader(junk as string)).toBeUndefined();
    }
  });

  it('refuses a DER-encoded ES256 signature (RFC 7518 §3.4 wants r‖s, 64 bytes)', () => {
    const header = b64({ alg: 'ES256' });
    const payload = b64({ sub: 'x' });
    const der = rawToken(header, payload, es.privateKey, 'der');
    const signature = fromRaw(der.split('.')[2]);
    expect(signature.length).toBeGreaterThanOrEqual(68);
    expect(signature.length).toBeLessThanOrEqual(72);
    expect(verify('sha256', Buffer.from(`${header}.${payload}`), { key: es.publicKey, dsaEncoding: 'der' }, signature)).toBe(true);
    expect(verifyCompactJws(der, es.publicKey, BOTH)).toBeUndefined();
  });
});

describe('decodeJwsHeader', () => {
  it('reads the protected header of a compact JWS without verifying it', () => {
    const token = good(ed.privateKey, { alg: 'EdDSA', kid: 'did:key:z#z' });
    expect(decodeJwsHeader(token)).toEqual({ alg: 'EdDSA', kid: 'did:key:z#z' });
    expect(decodeJwsHeader(`${b64({ alg: 'ES256' })}.e30.`)).toEqual({ alg: 'ES256' });
    expect(decodeJwsHeader(`${b64({ alg: 'ES256' })}=.e30.`)).toBeUndefined();
    expect(decodeJwsHeader(`${b64({ alg: 'ES256' })}.e30`)).toBeUndefined();
  });
});

describe('publicKeyFromJwk (RFC 7518 §6.2 EC, RFC 8037 §2 OKP)', () => {
  it('makes key objects from P-256 and Ed25519 public JWKs, ignoring other members', () => {
    for (const pair of [es, ed]) {
      const jwk = pair.publicKey.export({ format: 'jwk' });
      const key = publicKeyFromJwk({ ...jwk, kid: 'k', alg: 'ignored', use: 'sig' });
      expect(key.type).toBe('public');
      expect(key.equals(pair.publicKey)).toBe(true);
    }
  });

  it('refuses private JWKs, other curves and key types, and points not on the curve', () => {
    expect(() => publicKeyFromJwk(es.privateKey.export({ format: 'jwk' }))).toThrow(/private/);
    expect(() => publicKeyFromJwk(ed.privateKey.export({ format: 'jwk' }))).toThrow(/private/);
    expect(() => publicKeyFromJwk({ ...es.publicKey.export({ format: 'jwk' }), k: 'AAAA' })).toThrow(/private/);
    expect(() => publicKeyFromJwk(p384.publicKey.export({ format: 'jwk' }))).toThrow();
    expect(() => publicKeyFromJwk({ ...p384.publicKey.export({ format: 'jwk' }), crv: 'P-256' })).toThrow();
    expect(() => publicKeyFromJwk(generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' }))).toThrow();
    expect(() => publicKeyFromJwk(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }))).toThrow();
    const { x } = es.publicKey.export({ format: 'jwk' });
    expect(() => publicKeyFromJwk({ kty: 'EC', crv: 'P-256', x, y: x })).toThrow();
    for (const junk of [null, 'jwk', [], { kty: 'OKP', crv: 'Ed25519' }]) expect(() => publicKeyFromJwk(junk)).toThrow();
  });
});

describe('signCompactJws', () => {
  it('takes alg from the key and refuses a header that names another, public keys, crit and b64', () => {
    expect(decodeJwsHeader(signCompactJws({ typ: 'x' }, {}, ed.privateKey))).toEqual({ alg: 'EdDSA', typ: 'x' });
    expect(decodeJwsHeader(signCompactJws({ alg: 'ES256' }, {}, es.privateKey))).toEqual({ alg: 'ES256' });
    expect(() => signCompactJws({ alg: 'EdDSA' }, {}, es.privateKey)).toThrow(/alg/);
    expect(() => signCompactJws({ alg: 'none' }, {}, ed.privateKey)).toThrow(/alg/);
    expect(() => signCompactJws({}, {}, es.publicKey)).toThrow();
    expect(() => signCompactJws({}, {}, p384.privateKey)).toThrow();
    expect(() => signCompactJws({ crit: ['b64'], b64: false }, {}, es.privateKey)).toThrow();
  });
});

function fromRaw(part: string | undefined): Buffer {
  return Buffer.from(part ?? '', 'base64url');
}
