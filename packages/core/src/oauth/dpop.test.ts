import { describe, expect, it } from 'vitest';
import { contextFor, withTenants } from '../../test/harness.ts';
import { dpopProof, fakeJwtProofVerifier, jwkThumbprint, walletKey, type WalletKey } from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import { createDpop, DPOP_MAX_AGE_SECONDS, DPOP_MAX_SKEW_SECONDS, DPOP_NONCE_TTL_SECONDS, type DpopTarget } from './dpop.ts';

async function setup(options: { requireNonce?: boolean } = {}) {
  const h = await withTenants();
  const { tenant, other } = h;
  const wallet = contextFor(tenant, null);
  const make = (requireNonce = options.requireNonce) =>
    createDpop({
      store: h.store,
      clock: h.clock,
      digests: h.digests,
      verifier: fakeJwtProofVerifier(),
      nonces: h.nonceCodec,
      ...(requireNonce !== undefined ? { requireNonce } : {}),
    });
  const dpop = make();
  const tokenUrl = `${wallet.origin}/v1/oauth/token`;
  const credentialUrl = `${wallet.origin}/v1/openid/credential`;
  const token: DpopTarget = { method: 'POST', url: tokenUrl, endpoint: 'token' };
  const resource = (accessToken: string): DpopTarget => ({ method: 'POST', url: credentialUrl, accessToken, endpoint: 'resource' });
  const now = () => Math.floor(h.clock.now().getTime() / 1000);
  /** A proof by `key` for `htu`, issued now on the test's clock. */
  const proof = (key: WalletKey, htu: string, over: Parameters<typeof dpopProof>[2] = {}) => dpopProof(key, htu, { iat: now(), ...over });
  /** Why a proof by `key` for the token endpoint, made with `over`, is refused as invalid_dpop_proof (RFC 9449 §4.3). */
  const badProof = async (key: WalletKey, over: Parameters<typeof dpopProof>[2] = {}) => {
    const error = await refusal(dpop.check(wallet, proof(key, tokenUrl, over), token));
    expect(error.oauthError).toBe('invalid_dpop_proof');
    return error.message;
  };
  return { ...h, tenant, other, wallet, make, dpop, tokenUrl, credentialUrl, token, resource, now, proof, badProof };
}

/** Parses a `WWW-Authenticate` challenge of quoted auth-params (RFC 9110 §11.6.1). */
function parseChallenge(header: string | undefined): { scheme: string; params: Record<string, string> } {
  const match = /^(\S+)(?: (.*))?$/.exec(header ?? '');
  if (!match) throw new Error(`not a challenge: ${String(header)}`);
  const params: Record<string, string> = {};
  for (const [, name, value] of (match[2] ?? '').matchAll(/([A-Za-z_]+)="([^"]*)"(?:, |$)/g)) params[name as string] = value as string;
  return { scheme: match[1] as string, params };
}

describe('createDpop().check: a DPoP proof (RFC 9449 §4.3)', () => {
  it('returns undefined when the request has no DPoP header, at the token endpoint and at a resource', async () => {
    const { dpop, wallet, token, resource } = await setup();
    expect(await dpop.check(wallet, undefined, token)).toBeUndefined();
    expect(await dpop.check(wallet, undefined, resource('t'))).toBeUndefined();
  });

  it('accepts a well-formed proof and returns its key and RFC 7638 thumbprint, for P-256 and Ed25519 keys', async () => {
    const { dpop, wallet, token, tokenUrl, proof } = await setup();
    for (const key of [walletKey('P-256'), walletKey('Ed25519')]) {
      const verified = await dpop.check(wallet, proof(key, tokenUrl), token);
      expect(verified).toEqual({ jkt: jwkThumbprint(key.publicJwk), jwk: key.publicJwk });
    }
  });

  it('compares htu after normalising it: the query and fragment of htu and of the request URL are ignored, as are host case and a default port (RFC 9449 §4.3 step 9)', async () => {
    const { dpop, wallet, tokenUrl, proof } = await setup();
    const key = walletKey();
    expect(await dpop.check(wallet, proof(key, `${tokenUrl}?a=1#frag`), { method: 'POST', url: tokenUrl, endpoint: 'token' })).toMatchObject({
      jkt: jwkThumbprint(key.publicJwk),
    });
    expect(await dpop.check(wallet, proof(key, tokenUrl), { method: 'POST', url: `${tokenUrl}?b=2`, endpoint: 'token' })).toMatchObject({
      jkt: jwkThumbprint(key.publicJwk),
    });
    expect(
      await dpop.check(wallet, proof(key, tokenUrl.replace('https://acme.eu01.vellum.test', 'https://ACME.eu01.vellum.test:443')), {
        method: 'POST',
        url: tokenUrl,
        endpoint: 'token',
      }),
    ).toBeDefined();
  });

  it('refuses an htu for another path or another origin, or one that is not an http(s) URL', async () => {
    const { dpop, wallet, token, tokenUrl, credentialUrl, proof } = await setup();
    const key = walletKey();
    const others = [
      credentialUrl,
      `${tokenUrl}/`,
      tokenUrl.replace('https://', 'http://'),
      tokenUrl.replace('acme.eu01', 'other.us01'),
      tokenUrl.replace('vellum.test', 'vellum.test:8443'),
      'urn:example:token',
      'not a url',
    ];
    for (const htu of others) {
      expect(await refusal(dpop.check(wallet, proof(key, htu), token)), htu).toMatchObject({
        code: 'BadRequest',
        oauthError: 'invalid_dpop_proof',
        message: `The DPoP proof's htu must be ${tokenUrl}`,
      });
    }
    expect(await refusal(dpop.check(wallet, proof(key, tokenUrl, { payload: { htu: 42 } }), token))).toMatchObject({ oauthError: 'invalid_dpop_proof' });
  });

  it('refuses a proof whose typ is not dpop+jwt, or whose htm is not the request’s method', async () => {
    const { badProof } = await setup();
    const key = walletKey();
    for (const typ of ['JWT', 'openid4vci-proof+jwt', undefined]) {
      expect(await badProof(key, { header: { typ } })).toEqual('The DPoP proof must have typ dpop+jwt');
    }
    for (const htm of ['GET', 'post', undefined]) {
      expect(await badProof(key, { payload: { htm } })).toEqual("The DPoP proof's htm must be POST");
    }
  });

  it('refuses a proof that is not signed by the key in its jwk header, uses an algorithm not offered, or is no JWT at all', async () => {
    const { dpop, wallet, token, tokenUrl, proof } = await setup();
    const key = walletKey();
    const other = walletKey();
    const good = proof(key, tokenUrl);
    const [h, p] = good.split('.');
    const forged = `${h}.${p}.${proof(other, tokenUrl).split('.')[2]}`;
    const cases = [
      forged,
      proof(key, tokenUrl, { header: { jwk: other.publicJwk } }),
      proof(key, tokenUrl, { header: { alg: 'ES384' } }),
      proof(key, tokenUrl, { header: { jwk: undefined } }),
      'not-a-jwt',
      '',
      'x'.repeat(9000),
    ];
    for (const jwt of cases) {
      expect(await refusal(dpop.check(wallet, jwt, token)), jwt.slice(0, 40)).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_dpop_proof' });
    }
  });

  it('takes proofs issued at most 300 seconds ago and at most 60 seconds ahead; refuses anything older, later, or without iat', async () => {
    const { dpop, wallet, token, tokenUrl, proof, now, badProof } = await setup();
    const key = walletKey();
    expect(DPOP_MAX_AGE_SECONDS).toBe(300);
    expect(DPOP_MAX_SKEW_SECONDS).toBe(60);
    expect(await dpop.check(wallet, proof(key, tokenUrl, { iat: now() - 300 }), token)).toBeDefined();
    expect(await dpop.check(wallet, proof(key, tokenUrl, { iat: now() + 60 }), token)).toBeDefined();
    expect(await badProof(key, { iat: now() - 301 })).toEqual(expect.stringContaining('too old'));
    expect(await badProof(key, { iat: now() + 61 })).toEqual('The DPoP proof was issued in the future');
    for (const iat of [undefined, String(now()), null]) {
      expect(await badProof(key, { payload: { iat } })).toEqual('The DPoP proof needs iat (seconds)');
    }
  });

  it('needs a jti of 1 to 256 characters', async () => {
    const { dpop, wallet, token, tokenUrl, proof, badProof } = await setup();
    const key = walletKey();
    expect(await dpop.check(wallet, proof(key, tokenUrl, { jti: 'j'.repeat(256) }), token)).toBeDefined();
    for (const jti of [undefined, '', 'j'.repeat(257), 7]) {
      expect(await badProof(key, { payload: { jti } }), String(jti).slice(0, 10)).toEqual('The DPoP proof needs a jti of 1 to 256 characters');
    }
  });

  it('toward a resource, needs ath, the base64url SHA-256 of the access token (§4.3 step 11)', async () => {
    const { dpop, wallet, resource, credentialUrl, proof } = await setup();
    const key = walletKey();
    const accessToken = 'an-access-token';
    expect(await refusal(dpop.check(wallet, proof(key, credentialUrl), resource(accessToken)))).toMatchObject({
      oauthError: 'invalid_dpop_proof',
      message: 'The DPoP proof must carry ath, the hash of the access token',
    });
    expect(await refusal(dpop.check(wallet, proof(key, credentialUrl, { accessToken: 'another-token' }), resource(accessToken)))).toMatchObject({
      oauthError: 'invalid_dpop_proof',
      message: "The DPoP proof's ath is not the hash of this access token",
    });
    expect(await dpop.check(wallet, proof(key, credentialUrl, { accessToken }), resource(accessToken))).toEqual({
      jkt: jwkThumbprint(key.publicJwk),
      jwk: key.publicJwk,
    });
  });

  it('takes each proof once (§11.1): a replay is refused, on this instance or another sharing the store, while fresh proofs pass', async () => {
    const { dpop, make, wallet, token, tokenUrl, proof } = await setup();
    const key = walletKey();
    const first = proof(key, tokenUrl);
    expect(await dpop.check(wallet, first, token)).toBeDefined();
    expect(await refusal(dpop.check(wallet, first, token))).toMatchObject({
      oauthError: 'invalid_dpop_proof',
      message: expect.stringContaining('has been used'),
    });
    const second = proof(key, tokenUrl);
    expect(await dpop.check(wallet, second, token)).toBeDefined();
    expect(await dpop.check(wallet, proof(key, tokenUrl), token)).toBeDefined();
    // Another server on the same store has seen it too.
    expect(await refusal(make().check(wallet, second, token))).toMatchObject({ oauthError: 'invalid_dpop_proof' });
    // A proof refused before the replay check does not spend its jti.
    const later = proof(key, tokenUrl, { jti: 'reused-after-a-refusal' });
    expect(await refusal(dpop.check(wallet, later, { ...token, method: 'PUT' }))).toMatchObject({ oauthError: 'invalid_dpop_proof' });
    expect(await dpop.check(wallet, later, token)).toBeDefined();
  });

  it('refuses two DPoP headers (§4.3 step 1)', async () => {
    const { dpop, wallet, token, tokenUrl, proof } = await setup();
    const key = walletKey();
    expect(await refusal(dpop.check(wallet, [proof(key, tokenUrl), proof(key, tokenUrl)], token))).toMatchObject({
      code: 'BadRequest',
      oauthError: 'invalid_dpop_proof',
      message: 'Send one DPoP header',
    });
    expect(await refusal(dpop.check(wallet, [proof(key, tokenUrl)], token))).toMatchObject({ oauthError: 'invalid_dpop_proof' });
  });
});

describe('how a refused proof is answered', () => {
  it('at the token endpoint: 400 invalid_dpop_proof (RFC 9449 §5), without a WWW-Authenticate challenge', async () => {
    const { dpop, wallet, token, credentialUrl, proof } = await setup();
    const error = await refusal(dpop.check(wallet, proof(walletKey(), credentialUrl), token));
    expect(error.code).toBe('BadRequest');
    expect(error.oauthError).toBe('invalid_dpop_proof');
    expect(error.headers?.['www-authenticate']).toBeUndefined();
    expect(error.headers?.['dpop-nonce']).toBeUndefined();
  });

  it('at a resource: 401 with a DPoP challenge naming the error and the algorithms (RFC 9449 §7.1)', async () => {
    const { dpop, wallet, resource, tokenUrl, proof } = await setup();
    const error = await refusal(dpop.check(wallet, proof(walletKey(), tokenUrl, { accessToken: 't' }), resource('t')));
    expect(error.code).toBe('Unauthorized');
    expect(error.oauthError).toBe('invalid_dpop_proof');
    const challenge = parseChallenge(error.headers?.['www-authenticate']);
    expect(challenge.scheme).toBe('DPoP');
    expect(challenge.params.error).toBe('invalid_dpop_proof');
    expect(challenge.params.algs?.split(' ')).toEqual(['ES256', 'EdDSA']);
    expect(challenge.params.error_description).toContain('htu');
  });

  it('offers the algorithms it takes, and a challenge without an error for a request that sent no token', async () => {
    const { dpop } = await setup();
    expect(dpop.algorithms).toEqual(['ES256', 'EdDSA']);
    expect(dpop.challenge()).toBe('DPoP algs="ES256 EdDSA"');
    expect(parseChallenge(dpop.challenge('invalid_token', 'say "hi"')).params).toEqual({
      error: 'invalid_token',
      error_description: 'say  hi ',
      algs: 'ES256 EdDSA',
    });
  });
});

describe('server nonces (RFC 9449 §8, §9), when the server requires them', () => {
  it('asks a proof without a nonce to retry with one: use_dpop_nonce and a DPoP-Nonce header, which then works', async () => {
    const { dpop, wallet, token, tokenUrl, proof } = await setup({ requireNonce: true });
    expect(dpop.requireNonce).toBe(true);
    const key = walletKey();
    const error = await refusal(dpop.check(wallet, proof(key, tokenUrl), token));
    expect(error).toMatchObject({ code: 'BadRequest', oauthError: 'use_dpop_nonce' });
    expect(error.headers?.['www-authenticate']).toBeUndefined();
    const nonce = error.headers?.['dpop-nonce'];
    expect(nonce).toEqual(expect.any(String));
    expect(await dpop.check(wallet, proof(key, tokenUrl, { nonce }), token)).toEqual({ jkt: jwkThumbprint(key.publicJwk), jwk: key.publicJwk });
  });

  it('accepts a nonce from freshNonce() while it is fresh, and refuses it once expired', async () => {
    const { dpop, wallet, token, tokenUrl, proof, clock } = await setup({ requireNonce: true });
    const key = walletKey();
    const nonce = dpop.freshNonce(wallet);
    expect(nonce).toEqual(expect.any(String));
    expect(await dpop.check(wallet, proof(key, tokenUrl, { nonce }), token)).toBeDefined();
    clock.advance((DPOP_NONCE_TTL_SECONDS + 1) * 1000);
    const error = await refusal(dpop.check(wallet, proof(key, tokenUrl, { nonce }), token));
    expect(error).toMatchObject({ oauthError: 'use_dpop_nonce', message: expect.stringContaining('unknown or expired') });
    // The refusal hands out a new nonce, different from the stale one, and that one works.
    const renewed = error.headers?.['dpop-nonce'];
    expect(renewed).toEqual(expect.any(String));
    expect(renewed).not.toBe(nonce);
    expect(await dpop.check(wallet, proof(key, tokenUrl, { nonce: renewed }), token)).toBeDefined();
  });

  it('refuses a nonce minted for another tenant, a c_nonce, and a made-up value', async () => {
    const { dpop, wallet, other, token, tokenUrl, proof, nonces } = await setup({ requireNonce: true });
    const key = walletKey();
    const elsewhere = dpop.freshNonce(contextFor(other, null));
    const cNonce = (await nonces.issue(wallet)).c_nonce;
    for (const nonce of [elsewhere, cNonce, 'made-up', 12]) {
      expect(await refusal(dpop.check(wallet, proof(key, tokenUrl, { payload: { nonce } }), token)), String(nonce)).toMatchObject({
        oauthError: 'use_dpop_nonce',
      });
    }
  });

  it('at a resource, asks for a nonce with 401, a DPoP challenge with error use_dpop_nonce, and a DPoP-Nonce header', async () => {
    const { dpop, wallet, resource, credentialUrl, proof } = await setup({ requireNonce: true });
    const error = await refusal(dpop.check(wallet, proof(walletKey(), credentialUrl, { accessToken: 't' }), resource('t')));
    expect(error).toMatchObject({ code: 'Unauthorized', oauthError: 'use_dpop_nonce' });
    expect(parseChallenge(error.headers?.['www-authenticate'])).toMatchObject({ scheme: 'DPoP', params: { error: 'use_dpop_nonce', algs: 'ES256 EdDSA' } });
    expect(error.headers?.['dpop-nonce']).toEqual(expect.any(String));
  });

  it('hands out no nonce, and ignores any nonce a proof carries, when nonces are not required (the default)', async () => {
    const { dpop, make, wallet, token, tokenUrl, proof } = await setup();
    expect(dpop.requireNonce).toBe(false);
    expect(dpop.freshNonce(wallet)).toBeUndefined();
    expect(make(false).freshNonce(wallet)).toBeUndefined();
    expect(await dpop.check(wallet, proof(walletKey(), tokenUrl, { nonce: 'whatever' }), token)).toBeDefined();
  });
});
