import { generateKeyPairSync } from 'node:crypto';
import { didKeyOf } from '@vellum/core';
import { proofJwt, signJwt, walletKey } from '@vellum/testing';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createProofVerifier } from './proof-verifier.ts';

const aud = 'https://acme.eu01.vellum.test';
const verifier = createProofVerifier();

describe('ProofVerifier (OpenID4VCI 1.0 §8.2.1.1 key proofs, signature only)', () => {
  it('verifies a jose-made ES256 proof with its public jwk and returns header, payload and holder key', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const jwt = await new SignJWT({ aud, nonce: 'n-1', iat: 1_770_000_000 })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk })
      .sign(privateKey);
    const result = await verifier.verify(jwt);
    expect(result).toEqual({
      ok: true,
      proof: {
        header: { alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk },
        payload: { aud, nonce: 'n-1', iat: 1_770_000_000 },
        holderKey: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y },
      },
    });
  });

  it('verifies an EdDSA proof with an Ed25519 jwk', async () => {
    const key = walletKey('Ed25519');
    const result = await verifier.verify(proofJwt(key, { audience: aud, nonce: 'n' }));
    expect(result).toMatchObject({ ok: true, proof: { holderKey: key.publicJwk } });
  });

  it('reads the key from a did:key kid: P-256 (compressed point, decompressed) and Ed25519', async () => {
    for (const curve of ['P-256', 'Ed25519'] as const) {
      const key = walletKey(curve);
      const result = await verifier.verify(proofJwt(key, { audience: aud, nonce: 'n', keyBy: 'did' }));
      expect(result, curve).toMatchObject({ ok: true, proof: { holderKey: key.publicJwk, header: { kid: key.didUrl } } });
      // The DID without a fragment names the same key.
      const bare = await verifier.verify(proofJwt(key, { audience: aud, keyBy: 'did', header: { kid: didKeyOf(key.publicJwk) } }));
      expect(bare.ok, curve).toBe(true);
    }
  });

  it('refuses a proof signed by another key than the one it names', async () => {
    const [named, signer] = [walletKey(), walletKey()];
    const forged = signJwt(signer, { typ: 'openid4vci-proof+jwt', jwk: named.publicJwk }, { aud, nonce: 'n' });
    expect(await verifier.verify(forged)).toEqual({ ok: false, reason: 'The proof’s signature does not verify with the key it names' });
    const viaDid = signJwt(signer, { typ: 'openid4vci-proof+jwt', kid: named.didUrl }, { aud });
    expect((await verifier.verify(viaDid)).ok).toBe(false);
  });

  it('refuses a jwk with private key material, even when the signature is good', async () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const key = walletKey();
    const privateJwk = { ...pair.privateKey.export({ format: 'jwk' }) };
    const withPrivate = signJwt({ ...key, privateKey: pair.privateKey }, { typ: 'openid4vci-proof+jwt', jwk: privateJwk }, { aud });
    expect(await verifier.verify(withPrivate)).toEqual({ ok: false, reason: 'The proof’s jwk holds private key material' });
  });

  it('refuses algorithms outside the allowed list (mDoc proofs: ES256 only), none, and HS256', async () => {
    const ed = walletKey('Ed25519');
    expect(await verifier.verify(proofJwt(ed, { audience: aud }), { algorithms: ['ES256'] })).toEqual({
      ok: false,
      reason: 'The proof’s alg must be one of ES256',
    });
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const key = walletKey();
    expect((await verifier.verify(`${b64({ alg: 'none', jwk: key.publicJwk })}.${b64({ aud })}.`)).ok).toBe(false);
    expect((await verifier.verify(`${b64({ alg: 'HS256', jwk: key.publicJwk })}.${b64({ aud })}.c2ln`)).ok).toBe(false);
  });

  it('refuses keys it cannot use: wrong curve for the alg, unknown key types, x5c, both jwk and kid, no key, a did:web kid, a mismatched fragment', async () => {
    const key = walletKey();
    const ed = walletKey('Ed25519');
    const cases: Array<[string, Record<string, unknown>]> = [
      ['ES256 with an Ed25519 jwk', { jwk: ed.publicJwk }],
      ['an RSA jwk', { jwk: { kty: 'RSA', n: 'AQAB', e: 'AQAB' } }],
      ['a P-384 jwk', { jwk: { kty: 'EC', crv: 'P-384', x: key.publicJwk.x, y: key.publicJwk.y } }],
      ['x5c', { x5c: ['MIIB'] }],
      ['jwk and kid', { kid: key.didUrl }],
      ['no key', { jwk: undefined }],
      ['a did:web kid', { jwk: undefined, kid: 'did:web:example.com#key-1' }],
      ['a fragment naming another key', { jwk: undefined, kid: `${didKeyOf(key.publicJwk)}#${didKeyOf(ed.publicJwk).slice(8)}` }],
      ['a point not on the curve', { jwk: { ...key.publicJwk, y: key.publicJwk.x } }],
    ];
    for (const [name, header] of cases) {
      const jwt = signJwt(key, { typ: 'openid4vci-proof+jwt', jwk: key.publicJwk, ...header }, { aud });
      const result = await verifier.verify(jwt);
      expect(result.ok, name).toBe(false);
    }
  });

  it('never throws on garbage, and says so in a reason', async () => {
    const garbage: unknown[] = [
      '',
      'a.b.c',
      'x'.repeat(20_000),
      '..',
      'eyJ9.e30.',
      `${Buffer.from('{"alg":"ES256","jwk":1}').toString('base64url')}.e30.AA`,
      42,
      null,
      undefined,
      {},
    ];
    for (const g of garbage) {
      const result = await verifier.verify(g as string);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(/^The proof/);
    }
    const key = walletKey();
    // A good signature over a payload that is not a JSON object.
    expect(await verifier.verify(signJwt(key, { jwk: key.publicJwk }, '[1,2]'))).toEqual({ ok: false, reason: 'The proof’s payload is not a JSON object' });
    expect(await verifier.verify(signJwt(key, { jwk: key.publicJwk }, 'not json'))).toEqual({ ok: false, reason: 'The proof’s payload is not JSON' });
  });
});
