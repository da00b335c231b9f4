import { randomBytes } from 'node:crypto';
import type { Clock } from '@vellum/core';
import { decryptJwe, encryptionKey, encryptJwe } from '@vellum/testing';
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { loadCredentialEncryption, REQUEST_ENCRYPTION_SEED_NAME } from './credential-encryption.ts';
import { createSealer } from './sealer.ts';
import { memoryKeys } from '../test/platform-keys.ts';

const clock: Clock = { now: () => new Date('2026-05-01T12:00:00Z') };

async function setup() {
  const keys = memoryKeys();
  const master = new Uint8Array(randomBytes(32));
  const encryption = await loadCredentialEncryption({ keys, sealer: createSealer(master), clock });
  return { keys, master, encryption };
}

describe('credential response encryption (docs/decisions.md "The credential endpoint", OpenID4VCI 1.0 §8.3: ECDH-ES with A128GCM or A256GCM)', () => {
  it('encrypts to the wallet’s key: jose decrypts it with the wallet’s private key, and the header names the key', async () => {
    const { encryption } = await setup();
    const { publicKey, privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256' });
    const jwk = { ...(await exportJWK(publicKey)), kid: 'wallet-key-1', alg: 'ECDH-ES', use: 'enc' };
    for (const enc of ['A128GCM', 'A256GCM'] as const) {
      const prepared = await encryption.responseEncrypter({ jwk, alg: 'ECDH-ES', enc });
      if (!prepared.ok) throw new Error(prepared.reason);
      const jwe = await prepared.encrypt('{"credentials":[{"credential":"abc"}]}');
      expect(decodeProtectedHeader(jwe)).toMatchObject({ alg: 'ECDH-ES', enc, kid: 'wallet-key-1' });
      const { plaintext } = await compactDecrypt(jwe, privateKey);
      expect(JSON.parse(new TextDecoder().decode(plaintext))).toEqual({ credentials: [{ credential: 'abc' }] });
    }
  });

  it('works with X25519 wallet keys too, and with a second, independent ECDH-ES implementation', async () => {
    const { encryption } = await setup();
    const x = await generateKeyPair('ECDH-ES', { crv: 'X25519' });
    const prepared = await encryption.responseEncrypter({ jwk: { ...(await exportJWK(x.publicKey)) }, alg: 'ECDH-ES', enc: 'A256GCM' });
    if (!prepared.ok) throw new Error(prepared.reason);
    expect(new TextDecoder().decode((await compactDecrypt(await prepared.encrypt('hello'), x.privateKey)).plaintext)).toBe('hello');
    const wallet = encryptionKey();
    const p256 = await encryption.responseEncrypter({ jwk: wallet.publicJwk, alg: 'ECDH-ES', enc: 'A128GCM' });
    if (!p256.ok) throw new Error(p256.reason);
    expect(decryptJwe(await p256.encrypt('{"a":1}'), wallet.privateKey).plaintext).toBe('{"a":1}');
  });

  it('refuses keys it cannot encrypt to, before anything is encrypted', async () => {
    const { encryption } = await setup();
    const { publicKey, privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
    const pub = await exportJWK(publicKey);
    const cases: Array<[string, Record<string, unknown>]> = [
      ['a private key', { ...(await exportJWK(privateKey)) }],
      ['an RSA key', { kty: 'RSA', n: 'AQAB', e: 'AQAB' }],
      ['an Ed25519 (signing) key', { kty: 'OKP', crv: 'Ed25519', x: pub.x }],
      ['a signing use', { ...pub, use: 'sig' }],
      ['a point off the curve', { ...pub, y: pub.x }],
      ['coordinates that are not base64url', { ...pub, x: '!!' }],
      ['nothing at all', {}],
    ];
    for (const [name, jwk] of cases) {
      const result = await encryption.responseEncrypter({ jwk, alg: 'ECDH-ES', enc: 'A128GCM' });
      expect(result.ok, name).toBe(false);
    }
  });
});

describe('credential request encryption: a per-tenant P-256 key derived from one sealed platform seed', () => {
  it('publishes one ECDH-ES encryption key per tenant, the same on every load and different between tenants', async () => {
    const { keys, master, encryption } = await setup();
    const [a] = await encryption.requestEncryptionKeys('tenant-a');
    const [b] = await encryption.requestEncryptionKeys('tenant-b');
    expect(a).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES', kid: expect.any(String), x: expect.any(String), y: expect.any(String) });
    expect(a).not.toHaveProperty('d');
    expect(a?.kid).not.toBe(b?.kid);
    // Another server sharing the database and the master key derives the same keys.
    const again = await loadCredentialEncryption({ keys, sealer: createSealer(master), clock });
    expect(await again.requestEncryptionKeys('tenant-a')).toEqual([a]);
    expect(keys.records.get(REQUEST_ENCRYPTION_SEED_NAME)?.sealed).toMatch(/^v1\./);
  });

  it('stops at load when the stored seed does not open with the master key', async () => {
    const { keys } = await setup();
    await expect(loadCredentialEncryption({ keys, sealer: createSealer(new Uint8Array(32).fill(1)), clock })).rejects.toThrow(/master key/);
  });

  it('decrypts a request jose encrypted to the published key, with either enc', async () => {
    const { encryption } = await setup();
    const [jwk] = await encryption.requestEncryptionKeys('tenant-a');
    const key = await importJWK(jwk as never, 'ECDH-ES');
    for (const enc of ['A128GCM', 'A256GCM']) {
      const jwe = await new CompactEncrypt(new TextEncoder().encode('{"credential_configuration_id":"x"}'))
        .setProtectedHeader({ alg: 'ECDH-ES', enc, kid: jwk?.kid as string })
        .encrypt(key);
      expect(await encryption.decryptRequest('tenant-a', jwe)).toEqual({ ok: true, plaintext: '{"credential_configuration_id":"x"}' });
    }
    // And one made by the independent implementation, without a kid.
    expect(await encryption.decryptRequest('tenant-a', encryptJwe('{"a":1}', { ...jwk, kid: undefined }, 'A256GCM'))).toEqual({
      ok: true,
      plaintext: '{"a":1}',
    });
  });

  it('refuses a request encrypted to another tenant’s key, another kid, other algorithms, zip, and garbage — without throwing', async () => {
    const { encryption } = await setup();
    const [b] = await encryption.requestEncryptionKeys('tenant-b');
    const [a] = await encryption.requestEncryptionKeys('tenant-a');
    const toB = encryptJwe('{}', { ...b, kid: undefined });
    expect(await encryption.decryptRequest('tenant-a', toB)).toEqual({ ok: false, reason: 'The request could not be decrypted with this issuer’s key' });
    expect((await encryption.decryptRequest('tenant-a', encryptJwe('{}', b as Record<string, unknown>))).ok).toBe(false);
    expect((await encryption.decryptRequest('tenant-a', encryptJwe('{}', a as Record<string, unknown>, 'A128GCM', { enc: 'A192GCM' }))).ok).toBe(false);
    expect((await encryption.decryptRequest('tenant-a', encryptJwe('{}', a as Record<string, unknown>, 'A128GCM', { zip: 'DEF' }))).ok).toBe(false);
    for (const garbage of ['', 'a.b.c.d.e', 'eyJhbGciOiJFQ0RILUVTIn0....', 'x'.repeat(2_000_000), 'not a jwe']) {
      expect((await encryption.decryptRequest('tenant-a', garbage)).ok).toBe(false);
    }
  });
});
