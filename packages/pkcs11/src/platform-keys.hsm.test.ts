// The platform's admin-token key in a SoftHSM 2 token (docs/key-custody.md "The platform's keys"):
// @vellum/crypto's admin-token signer on the PKCS#11 PlatformKeyHolder. Tokens it signs verify with
// node:crypto against the public key, the key is sensitive and never extractable, and the stored
// record keeps a reference to it and its public half, nothing private.
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { join } from 'node:path';
import type { Store } from '@vellum/core';
import { ADMIN_TOKEN_KEY_NAME, createSealer, loadPlatformTokenSigner, rotatePlatformTokenKey } from '@vellum/crypto';
import { systemClock } from '@vellum/node';
import { openSqlStore } from '@vellum/storage-sql';
import { initSoftHsmToken, type SoftHsmToken, softHsmInstalled } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkcs11PlatformKeyHolder, openPkcs11Token, type Pkcs11Token, pkcs11PlatformLabelOf } from './index.ts';

/** A compact JWS's ES256 signature checked by node:crypto against a public JWK; its header and payload. */
function es256(jwt: string, jwk: object) {
  const [header, payload, signature] = jwt.split('.') as [string, string, string];
  const ok = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key: createPublicKey({ key: jwk as never, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  expect(ok).toBe(true);
  return { protectedHeader: JSON.parse(Buffer.from(header, 'base64url').toString()), payload: JSON.parse(Buffer.from(payload, 'base64url').toString()) };
}

// Skipped only where Debian's softhsm2 is not installed (.ci/run installs it): there is no token to use.
describe.skipIf(!softHsmInstalled)('the admin-token key in a PKCS#11 token (SoftHSM 2)', () => {
  let hsm: SoftHsmToken;
  let token: Pkcs11Token;
  let store: Store;
  beforeAll(async () => {
    hsm = initSoftHsmToken({ label: 'vellum-platform' });
    token = openPkcs11Token({ module: hsm.module, tokenLabel: hsm.label, pin: hsm.pin, threadPool: false });
    store = await openSqlStore({ kind: 'sqlite', filename: join(hsm.dir, 'store.db') });
  });
  afterAll(async () => {
    await token?.close();
    await store?.close();
  });

  it('signs admin tokens in the token: jose verifies them, the key never leaves, the record holds nothing private', async () => {
    const keys = store.platformKeys;
    const master = randomBytes(32);
    const holder = createPkcs11PlatformKeyHolder(token);
    expect(holder.name).toBe('pkcs11:vellum-platform');
    const signer = await loadPlatformTokenSigner({ keys, sealer: createSealer(master), clock: systemClock, holder });
    const jwt = await signer.sign({ tid: 't1' }, { subject: 'client-1', audience: 'https://acme.example', expiresInSeconds: 600 });
    const { payload, protectedHeader } = es256(jwt, { ...signer.publicJwk });
    expect(protectedHeader.typ).toBe('at+jwt');
    expect(payload).toMatchObject({ tid: 't1', sub: 'client-1' });
    expect(protectedHeader.kid).toBe(signer.keyId);
    expect(await signer.verify(jwt)).toMatchObject({ tid: 't1' });

    const record = await keys.get(ADMIN_TOKEN_KEY_NAME);
    const plaintext = Buffer.from(createSealer(master).open(record?.sealed as string, ADMIN_TOKEN_KEY_NAME)).toString('utf8');
    const { current } = JSON.parse(plaintext) as { current: { held: string; holder: string } };
    expect(current).toMatchObject({ held: expect.stringMatching(/^platform-/), holder: 'pkcs11:vellum-platform' });
    expect(plaintext).not.toContain('"d"');
    expect(await token.protectionOf(current.held, pkcs11PlatformLabelOf(current.held))).toEqual({
      sensitive: true,
      extractable: false,
      alwaysSensitive: true,
      neverExtractable: true,
      valueRefused: true,
    });

    // A rotation makes the next key in the token too; the first keeps verifying its tokens.
    const { activeKid } = await rotatePlatformTokenKey({
      keys,
      sealer: createSealer(master),
      clock: systemClock,
      holder,
      previousUntil: new Date(Date.now() + 3_600_000),
    });
    const next = await loadPlatformTokenSigner({ keys, sealer: createSealer(master), clock: systemClock, holder });
    expect(next.keyId).toBe(activeKid);
    expect(await next.verify(jwt)).toMatchObject({ tid: 't1' });
    const second = await next.sign({ tid: 't1' }, { subject: 'client-1', audience: 'https://acme.example', expiresInSeconds: 600 });
    es256(second, { ...next.publicJwk });
  });
});
