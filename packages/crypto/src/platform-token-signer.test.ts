import { generateKeyPairSync, randomBytes, sign as cryptoSign } from 'node:crypto';

import type { Clock } from '@vellum/core';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';

import { ADMIN_TOKEN_KEY_NAME, loadPlatformTokenSigner, rotatePlatformTokenKey } from './platform-token-signer.ts';
import { createSealer } from './sealer.ts';
import { memoryKeys } from '../test/platform-keys.ts';

function testClock(start = '2026-01-01T00:00:00.000Z'): Clock & { advance(ms: number): void } {
  let now = new Date(start).getTime();
  return { now: () => new Date(now), advance: (ms) => void (now += ms) };
}

const masterKey = () => new Uint8Array(randomBytes(32));
const claims = { tid: 'tenant-1', rol: 'admin', prm: 'AQ' };
const opts = { subject: 'client-1', audience: 'https://acme.example.com', expiresInSeconds: 3600 };

async function setup() {
  const keys = memoryKeys();
  const key = masterKey();
  const clock = testClock();
  const signer = await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock });
  return { keys, key, clock, signer };
}

describe('loadPlatformTokenSigner (docs/decisions.md "Tenancy and admin authentication": admin tokens are ES256 JWTs of the platform key)', () => {
  it('signs tokens it verifies, with the claims the core reads', async () => {
    const { signer } = await setup();
    const token = await signer.sign(claims, opts);
    const verified = await signer.verify(token);
    expect(verified).toMatchObject({ ...claims, sub: 'client-1', aud: 'https://acme.example.com', iat: 1767225600, exp: 1767229200 });
    expect(typeof verified?.jti).toBe('string');
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: signer.keyId });
  });

  it('gives every token its own jti', async () => {
    const { signer } = await setup();
    const [a, b] = await Promise.all([signer.sign(claims, opts), signer.sign(claims, opts)]);
    expect(decodeJwt(a).jti).not.toBe(decodeJwt(b).jti);
  });

  it('publishes the public key only, with the thumbprint as kid', async () => {
    const { signer } = await setup();
    expect(signer.publicJwk).toEqual({ kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: signer.keyId, alg: 'ES256', use: 'sig' });
    expect(signer.publicJwk).not.toHaveProperty('d');
    expect(signer.keyId).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('stores the key sealed under its name, never in clear', async () => {
    const { keys, clock } = await setup();
    const record = keys.records.get(ADMIN_TOKEN_KEY_NAME);
    expect(record).toMatchObject({ name: ADMIN_TOKEN_KEY_NAME, createdAt: clock.now().toISOString() });
    expect(record?.sealed).toMatch(/^v1\./);
    expect(record?.sealed).not.toContain('"d"');
  });

  it('refuses expired tokens, by the injected clock', async () => {
    const { signer, clock } = await setup();
    const token = await signer.sign(claims, opts);
    clock.advance(3599_000);
    expect(await signer.verify(token)).toBeDefined();
    clock.advance(1_000);
    expect(await signer.verify(token)).toBeUndefined();
  });

  it('refuses an expired token even after a verification of it was remembered (RFC 7519 §4.1.4)', async () => {
    const { signer, clock } = await setup();
    const token = await signer.sign(claims, { ...opts, expiresInSeconds: 60 });
    for (let i = 0; i < 3; i += 1) expect(await signer.verify(token)).toMatchObject(claims);
    clock.advance(59_999);
    expect(await signer.verify(token)).toMatchObject(claims);
    clock.advance(1);
    expect(await signer.verify(token)).toBeUndefined();
    expect(await signer.verify(token)).toBeUndefined();
  });

  it('gives each caller its own copy of the claims of a remembered token', async () => {
    const { signer } = await setup();
    const token = await signer.sign({ ...claims, scopes: ['a'] }, opts);
    const first = await signer.verify(token);
    if (first) {
      first.rol = 'owner';
      (first.scopes as string[]).push('b');
    }
    expect(await signer.verify(token)).toMatchObject({ rol: 'admin', scopes: ['a'] });
  });

  it('refuses tampered and malformed tokens', async () => {
    const { signer } = await setup();
    const token = await signer.sign(claims, opts);
    const [h, p, s] = token.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...decodeJwt(token), tid: 'tenant-2' })).toString('base64url');
    expect(await signer.verify(`${h}.${forged}.${s}`)).toBeUndefined();
    expect(await signer.verify(`${h}.${p}.${s.slice(0, -4)}AAAA`)).toBeUndefined();
    expect(await signer.verify(`${h}.${p}.`)).toBeUndefined();
    for (const junk of ['', 'abc', 'a.b.c', `${h}.${p}`]) expect(await signer.verify(junk)).toBeUndefined();
  });

  it('refuses unsigned tokens (alg none)', async () => {
    const { signer } = await setup();
    const token = await signer.sign(claims, opts);
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
    expect(await signer.verify(`${header}.${token.split('.')[1]}.`)).toBeUndefined();
  });

  it('refuses tokens signed by another key', async () => {
    const { signer } = await setup();
    const other = await setup();
    expect(await signer.verify(await other.signer.sign(claims, opts))).toBeUndefined();
  });

  it('reloads the same key from the store, so tokens survive a restart', async () => {
    const { keys, key, clock, signer } = await setup();
    const token = await signer.sign(claims, opts);
    const reloaded = await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock });
    expect(reloaded.keyId).toBe(signer.keyId);
    expect(await reloaded.verify(token)).toMatchObject(claims);
    expect(keys.records.size).toBe(1);
  });

  it('agrees on one key when servers start at the same time', async () => {
    const keys = memoryKeys();
    const key = masterKey();
    const clock = testClock();
    const [a, b] = await Promise.all([
      loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock }),
      loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock }),
    ]);
    expect(a.keyId).toBe(b.keyId);
    expect(await b.verify(await a.sign(claims, opts))).toBeDefined();
  });

  it('fails loudly at load when the master key does not match the stored key', async () => {
    const { keys, clock } = await setup();
    await expect(loadPlatformTokenSigner({ keys, sealer: createSealer(masterKey()), clock })).rejects.toThrow(/master key does not match/);
  });

  it('binds iss when an issuer is configured', async () => {
    const keys = memoryKeys();
    const sealer = createSealer(masterKey());
    const clock = testClock();
    const a = await loadPlatformTokenSigner({ keys, sealer, clock, issuer: 'https://auth.example.com' });
    const b = await loadPlatformTokenSigner({ keys, sealer, clock, issuer: 'https://other.example.com' });
    const token = await a.sign(claims, opts);
    expect(await a.verify(token)).toMatchObject({ iss: 'https://auth.example.com' });
    expect(await b.verify(token)).toBeUndefined();
  });
});

describe('rotating the admin-token key (issue 32, point 4; docs/key-custody.md "Rotation")', () => {
  const HOUR = 3_600_000;

  it('signs with the new key at once; the old one verifies its tokens until the overlap ends; a second rotation waits for that', async () => {
    const { keys, key, clock, signer } = await setup();
    const before = await signer.sign(claims, { ...opts, expiresInSeconds: 86_400 });
    const oldKid = signer.keyId;
    const rotated = await rotatePlatformTokenKey({ keys, sealer: createSealer(key), clock, previousUntil: new Date(clock.now().getTime() + HOUR) });
    expect(rotated).toEqual({ activeKid: expect.any(String), retiredKid: oldKid, retiredUntil: '2026-01-01T01:00:00.000Z' });
    // A server started now signs with the new key and verifies both.
    const fresh = await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock });
    const after = await fresh.sign(claims, { ...opts, expiresInSeconds: 86_400 });
    expect(decodeProtectedHeader(after).kid).toBe(rotated.activeKid);
    expect(await fresh.verify(before)).toBeDefined();
    expect(await fresh.verify(after)).toBeDefined();
    await expect(rotatePlatformTokenKey({ keys, sealer: createSealer(key), clock, previousUntil: new Date() })).rejects.toMatchObject({
      code: 'Conflict',
      message: expect.stringContaining('overlaps until 2026-01-01T01:00:00.000Z'),
    });
    clock.advance(HOUR);
    // The overlap has ended: the old key's token is refused though it has not expired.
    const later = await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock });
    expect(await later.verify(before)).toBeUndefined();
    expect(await later.verify(after)).toBeDefined();
    const again = await rotatePlatformTokenKey({ keys, sealer: createSealer(key), clock, previousUntil: new Date(clock.now().getTime() + HOUR) });
    expect(again.retiredKid).toBe(rotated.activeKid);
  });

  it('reaches a running server: it verifies a token of the new key at once, and signs with it after its refresh', async () => {
    const { keys, key, clock } = await setup();
    const running = await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock, refreshMs: 60_000 });
    const quiet = await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock, refreshMs: 60_000 });
    const oldKid = running.keyId;
    const { activeKid } = await rotatePlatformTokenKey({ keys, sealer: createSealer(key), clock, previousUntil: new Date(clock.now().getTime() + HOUR) });
    const other = await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock });
    const fromOther = await other.sign(claims, opts);
    // Within a second of its last read it does not read again for an unknown kid; after it, it does.
    expect(await running.verify(fromOther)).toBeUndefined();
    clock.advance(1500);
    expect(await running.verify(fromOther)).toBeDefined();
    expect(running.keyId).toBe(activeKid);
    // A server that never met an unknown kid signs with the old key until its refresh, then with the new one.
    expect(decodeProtectedHeader(await quiet.sign(claims, opts)).kid).toBe(oldKid);
    clock.advance(60_000);
    expect(decodeProtectedHeader(await quiet.sign(claims, opts)).kid).toBe(activeKid);
  });

  it('reads a key stored before rotation existed (the bare private JWK)', async () => {
    const keys = memoryKeys();
    const key = masterKey();
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { kty, crv, x, y, d } = privateKey.export({ format: 'jwk' });
    const sealed = createSealer(key).seal(Buffer.from(JSON.stringify({ kty, crv, x, y, d }), 'utf8'), ADMIN_TOKEN_KEY_NAME);
    await keys.insertIfAbsent({ name: ADMIN_TOKEN_KEY_NAME, sealed, createdAt: '2025-01-01T00:00:00.000Z' });
    const clock = testClock();
    const signer = await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock });
    expect(signer.publicJwk).toMatchObject({ x, y });
    const token = await signer.sign(claims, opts);
    const { retiredKid } = await rotatePlatformTokenKey({ keys, sealer: createSealer(key), clock, previousUntil: new Date(clock.now().getTime() + HOUR) });
    expect(retiredKid).toBe(signer.keyId);
    expect(await (await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock })).verify(token)).toBeDefined();
  });
});

describe(`the admin-token key in a key holder (a PKCS#11 token; docs/key-custody.md "The platform's keys")`, () => {
  /** A holder whose private keys stay in its own Map: what the signer sees is a reference and a public key. */
  function fakeHolder(name = 'pkcs11:test-token') {
    const held = new Map<string, ReturnType<typeof generateKeyPairSync>['privateKey']>();
    let signatures = 0;
    return {
      name,
      held,
      signatures: () => signatures,
      async generate() {
        const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const ref = `ref-${held.size + 1}`;
        held.set(ref, privateKey);
        const { x, y } = publicKey.export({ format: 'jwk' });
        return { ref, publicJwk: { kty: 'EC' as const, crv: 'P-256' as const, x: x as string, y: y as string } };
      },
      async sign(ref: string, data: Uint8Array) {
        signatures++;
        return new Uint8Array(cryptoSign('sha256', data, { key: held.get(ref) as never, dsaEncoding: 'ieee-p1363' }));
      },
    };
  }
  const plaintextOf = (keys: ReturnType<typeof memoryKeys>, key: Uint8Array) =>
    Buffer.from(createSealer(key).open(keys.records.get(ADMIN_TOKEN_KEY_NAME)?.sealed as string, ADMIN_TOKEN_KEY_NAME)).toString('utf8');

  it('makes the key in the holder and signs there; the record keeps a reference and the public key, nothing private', async () => {
    const keys = memoryKeys();
    const key = masterKey();
    const holder = fakeHolder();
    const signer = await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock: testClock(), holder });
    const token = await signer.sign(claims, opts);
    expect(holder.signatures()).toBe(1);
    expect(await signer.verify(token)).toMatchObject(claims);
    expect(JSON.parse(plaintextOf(keys, key))).toEqual({ v: 2, current: { held: 'ref-1', holder: 'pkcs11:test-token', publicJwk: expect.any(Object) } });
    expect(plaintextOf(keys, key)).not.toContain('"d"');
    // A server without that holder refuses to start rather than sign in software.
    await expect(loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock: testClock() })).rejects.toThrow(/held in pkcs11:test-token/);
    await expect(loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock: testClock(), holder: fakeHolder('pkcs11:other') })).rejects.toThrow(
      /held in pkcs11:test-token/,
    );
  });

  it('keeps a software key where it is when a holder comes, and makes the next key in the holder at rotation', async () => {
    const { keys, key, clock, signer } = await setup();
    const before = await signer.sign(claims, { ...opts, expiresInSeconds: 86_400 });
    const holder = fakeHolder();
    const same = await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock, holder });
    expect(same.keyId).toBe(signer.keyId);
    await same.sign(claims, opts);
    expect(holder.signatures()).toBe(0);
    await rotatePlatformTokenKey({ keys, sealer: createSealer(key), clock, holder, previousUntil: new Date(clock.now().getTime() + 3_600_000) });
    const after = await loadPlatformTokenSigner({ keys, sealer: createSealer(key), clock, holder });
    await after.sign(claims, opts);
    expect(holder.signatures()).toBe(1);
    expect(await after.verify(before)).toBeDefined();
    expect(plaintextOf(keys, key)).not.toContain('"d"');
  });
});
