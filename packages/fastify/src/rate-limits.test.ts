import { PRE_AUTHORIZED_CODE_GRANT, type RateLimitSettings } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { tenantCaller, useTestApp } from '../test/app.ts';

const LIMITS: RateLimitSettings = { adminTokenPerClient: 100, adminTokenPerIp: 10, txCodePerIp: 3, parPerClientIp: 4, windowSeconds: 300 };
const FORM = 'application/x-www-form-urlencoded';
const codeIn = (uri: string) =>
  JSON.parse(new URL(uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'] as string;

type Reply = { statusCode: number; headers: Record<string, unknown>; json(): unknown; body: string };

/** RFC 9110 §10.2.3 and the OAuth error body (docs/errors.md): 429 TooManyRequests, invalid_request, Retry-After in whole seconds. */
function expectTooManyRequests(res: Reply): void {
  expect(res.statusCode, res.body).toBe(429);
  expect(res.headers['cache-control']).toBe('no-store');
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= LIMITS.windowSeconds, `Retry-After ${String(res.headers['retry-after'])}`).toBe(true);
  expect(res.json()).toEqual({
    code: 'TooManyRequests',
    message: expect.stringContaining('retry after'),
    error: 'invalid_request',
    error_description: expect.stringContaining('retry after'),
  });
}

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('rate limits over HTTP (hardening issue 5) (%s)', (mount) => {
  const t = useTestApp(mount, { rateLimits: LIMITS });

  it('POST /oauth/token: the 11th failed request from one IP is 429 with Retry-After and the OAuth error body, and so is the right secret from there', async () => {
    const { clientId, clientSecret, host } = await t.createTenant(`rl-admin-${mount}`);
    const login = (ip: string, body: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: `${t.prefix}/oauth/token`,
        remoteAddress: ip,
        payload: { grant_type: 'client_credentials', audience: `https://${host}`, ...body },
      });
    for (let i = 0; i < 10; i++) {
      // Different client ids, so the per-IP limit is the one that trips.
      const res = await login('198.51.100.20', { client_id: `${clientId}-guess-${i}`, client_secret: 'wrong' });
      expect(res.statusCode, res.body).toBe(401);
    }
    expectTooManyRequests(await login('198.51.100.20', { client_id: clientId, client_secret: 'wrong' }));
    expectTooManyRequests(await login('198.51.100.20', { client_id: clientId, client_secret: clientSecret }));
    // Another address gets its token.
    const other = await login('198.51.100.21', { client_id: clientId, client_secret: clientSecret });
    expect(other.statusCode, other.body).toBe(200);
  });

  it('POST /v1/oauth/token: guessing transaction codes across offers from one IP gets 429 with Retry-After, even for the right code', async () => {
    const name = `rl-wallet-${mount}`;
    const { host } = await t.createTenant(name);
    const call = tenantCaller(t, name, host);
    const config = (
      await call('POST', '/v2/credentials/mobile/configurations', {
        type: 'org.iso.18013.5.1.mDL',
        expiresIn: { days: 365 },
        claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
      })
    ).json() as { id: string };
    const offer = async () => {
      const res = await call('POST', '/v1/openid/offers/pre-authorized', {
        credentials: [config.id],
        claims: { familyName: 'Lovelace' },
        transactionCodeConfiguration: { inputMode: 'numeric', length: 6 },
      });
      expect(res.statusCode, res.body).toBe(200);
      const created = res.json() as { uri: string; transactionCode: string };
      return { code: codeIn(created.uri), right: created.transactionCode, wrong: created.transactionCode === '000000' ? '111111' : '000000' };
    };
    const token = (ip: string, code: string, txCode: string) =>
      t.app.inject({
        method: 'POST',
        url: `${t.prefix}/v1/oauth/token`,
        remoteAddress: ip,
        headers: { host, 'content-type': FORM },
        payload: new URLSearchParams({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': code, tx_code: txCode }).toString(),
      });
    for (let i = 0; i < 3; i++) {
      const o = await offer();
      const res = await token('198.51.100.30', o.code, o.wrong);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_grant' });
    }
    const target = await offer();
    expectTooManyRequests(await token('198.51.100.30', target.code, target.wrong));
    expectTooManyRequests(await token('198.51.100.30', target.code, target.right));
    // The refused requests did not touch the offer: from another address the right code still works.
    const res = await token('198.51.100.31', target.code, target.right);
    expect(res.statusCode, res.body).toBe(200);
  });

  it('POST /v1/oauth/par: past the limit for one wallet client from one IP, 429 with Retry-After; a request keeping too many bytes is 400 invalid_request (Vellum issue 26)', async () => {
    const name = `rl-par-${mount}`;
    const { host } = await t.createTenant(name);
    const call = tenantCaller(t, name, host);
    const created = await call('POST', '/v2/credentials/mobile/configurations', {
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 365 },
      claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName' } } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const client = await call('POST', '/v1/openid/clients', {
      clientName: 'Wallet',
      redirectUris: ['https://wallet.example/cb'],
      tokenEndpointAuthMethod: 'none',
    });
    expect(client.statusCode, client.body).toBe(201);
    const clientId = client.json().clientId as string;
    const par = (ip: string, extra: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: `${t.prefix}/v1/oauth/par`,
        remoteAddress: ip,
        headers: { host, 'content-type': FORM },
        payload: new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: 'https://wallet.example/cb',
          scope: 'mso_mdoc:org.iso.18013.5.1.mDL',
          code_challenge_method: 'S256',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          ...extra,
        }).toString(),
      });
    // Five parameters of 1,000 characters: more than the 4,096 bytes a pushed request may keep.
    const oversized = await par('198.51.100.40', Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`hint_${i}`, 'h'.repeat(1000)])));
    expect(oversized.statusCode, oversized.body).toBe(400);
    expect(oversized.json()).toEqual({
      code: 'BadRequest',
      message: expect.stringContaining('at most 4096 are kept'),
      error: 'invalid_request',
      error_description: expect.stringContaining('at most 4096 are kept'),
    });
    for (let i = 1; i < LIMITS.parPerClientIp; i++) {
      const res = await par('198.51.100.40');
      expect(res.statusCode, res.body).toBe(201);
    }
    expectTooManyRequests(await par('198.51.100.40'));
    const other = await par('198.51.100.41');
    expect(other.statusCode, other.body).toBe(201);
  });
});
