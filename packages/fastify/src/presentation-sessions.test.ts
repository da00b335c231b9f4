import type { FormatVerifier } from '@vellum/core';
import { CompactEncrypt, importJWK, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

// docs/verification.md "Presentation sessions" over HTTP, standalone and mounted under a prefix
// (STYLE 14). Verifier applications and DCQL are built beside this part (issue 31 contracts A and
// B): here both are the real modules (a redirect_uri application, whose requests are unsigned), and
// the SD-JWT VC verifier is a fake. The real
// parts, the real verifiers and a wallet library meet in tools/interop. The JWE is made with jose
// to the key the request object publishes, and opened by @vellum/crypto.
const APP_ID = '0195f0c0-0000-7000-8000-0000000000a1';
const QUERY = { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: ['urn:eudi:pid:1'] } }] };
const FORM = 'application/x-www-form-urlencoded';

const sdJwt: FormatVerifier = async (credential, options) => ({
  verified: credential === 'good' && options.nonce !== undefined,
  format: 'dc+sd-jwt',
  issuer: { kind: 'x509', id: 'https://issuer.example', trusted: true },
  credentialType: 'urn:eudi:pid:1',
  holderBound: credential === 'good',
  claims: { given_name: 'Erika' },
  checks: credential === 'good' ? [] : [{ check: 'signature', ok: false, reason: 'The signature does not verify' }],
});

const decode = (jwt: string, part = 1) => JSON.parse(Buffer.from(jwt.split('.')[part] as string, 'base64url').toString()) as Record<string, any>;
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe.each(['standalone', 'prefixed'] as const)('presentation sessions over HTTP (%s)', (mount) => {
  const t = useTestApp(mount, { formatVerifiers: { 'dc+sd-jwt': sdJwt } });
  const fresh = freshTenants(t, 'vps');
  /** A tenant with a redirect_uri verifier application (unsigned requests) allowing both response modes. */
  const tenant = async () => {
    const made = await fresh();
    const app = await made.call('POST', '/v2/presentations/applications', {
      name: 'Shop',
      clientIdPrefix: 'redirect_uri',
      responseModes: ['direct_post', 'direct_post.jwt'],
      redirectUris: ['https://rp.example/done'],
    });
    expect(app.statusCode, app.body).toBe(201);
    return { ...made, appId: app.json().id as string };
  };
  const wallet = (host: string, method: 'GET' | 'POST', url: string, payload?: string) =>
    t.app.inject({
      method,
      url: `${t.prefix}${url}`,
      headers: { host, ...(payload !== undefined ? { 'content-type': FORM } : {}) },
      ...(payload !== undefined ? { payload } : {}),
    });
  const walletPath = (uri: string) => new URL(uri).pathname.slice(t.prefix.length);

  it('creates a session (201), serves the request object by GET and POST with wallet_nonce, verifies an encrypted response once, and shows the result', async () => {
    const { call, host, appId } = await tenant();
    const created = await call('POST', '/v2/presentations/sessions', { applicationId: appId, dcqlQuery: QUERY, redirectUri: 'https://rp.example/done' });
    expect(created.statusCode, created.body).toBe(201);
    const s = created.json();
    expect(s).toMatchObject({
      state: 'pending',
      responseMode: 'direct_post.jwt',
      authorizationRequestUri: expect.stringMatching(/^openid4vp:\/\/\?client_id=/),
    });
    expect(new URL(s.authorizationRequestUri).searchParams.get('request_uri_method')).toBe('post');

    const got = await wallet(host, 'GET', walletPath(s.requestUri));
    expect(got.statusCode, got.body).toBe(200);
    expect(got.headers['content-type']).toBe('application/oauth-authz-req+jwt');
    expect(decode(got.body, 0)).toEqual({ alg: 'none', typ: 'oauth-authz-req+jwt' });
    const posted = await wallet(host, 'POST', walletPath(s.requestUri), form({ wallet_nonce: 'wn-42', wallet_metadata: '{}' }));
    expect(posted.statusCode, posted.body).toBe(200);
    const request = decode(posted.body);
    expect(request).toMatchObject({
      wallet_nonce: 'wn-42',
      response_type: 'vp_token',
      response_mode: 'direct_post.jwt',
      state: s.oauthState,
      dcql_query: QUERY,
    });
    expect(request.client_id).toBe(`redirect_uri:${request.response_uri}`);

    const key = request.client_metadata.jwks.keys[0];
    const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ state: s.oauthState, vp_token: { pid: ['good'] } })))
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: key.kid })
      .encrypt(await importJWK(key as JWK, 'ECDH-ES'));
    const answered = await wallet(host, 'POST', walletPath(request.response_uri), form({ response: jwe }));
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.headers['cache-control']).toBe('no-store');
    const redirect = answered.json().redirect_uri as string;
    expect(redirect).toMatch(/^https:\/\/rp\.example\/done#response_code=/);
    const code = redirect.split('response_code=')[1] as string;

    const replay = await wallet(host, 'POST', walletPath(request.response_uri), form({ response: jwe }));
    expect(replay.statusCode).toBe(400);
    expect(replay.json()).toMatchObject({ error: 'invalid_request', error_description: 'The presentation session has been answered already' });

    const read = await call('GET', `/v2/presentations/sessions/${s.id}?responseCode=${encodeURIComponent(code)}`);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject({
      state: 'verified',
      result: { verified: true, credentials: { pid: { satisfied: true, claims: [{ given_name: 'Erika' }] } } },
    });
    expect((await call('GET', `/v2/presentations/sessions/${s.id}?responseCode=nope`)).statusCode).toBe(400);
    // The page shows only sessions still waiting.
    const page = await wallet(host, 'GET', `/v1/openid/presentations/${s.id}/page`);
    expect(page.statusCode).toBe(404);
  });

  it('the page: a QR code and the Open in wallet link under the offer page’s CSP', async () => {
    const { call, host, appId } = await tenant();
    const s = (await call('POST', '/v2/presentations/sessions', { applicationId: appId, dcqlQuery: QUERY, responseMode: 'direct_post' })).json();
    const page = await wallet(host, 'GET', `/v1/openid/presentations/${s.id}/page`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('<svg');
    expect(page.body).toContain(`href="${s.authorizationRequestUri.replaceAll('&', '&#38;')}"`);
    expect((await wallet(host, 'GET', '/v1/openid/presentations/not-a-session/page')).statusCode).toBe(404);
  });

  it('refuses: roles without verification (403), no token (401), a bad body naming each field (400), an unknown session for the wallet (404 with the OAuth error)', async () => {
    const { call, host, appId } = await tenant();
    expect((await call('POST', '/v2/presentations/sessions', { applicationId: appId, dcqlQuery: QUERY }, 'issuer')).statusCode).toBe(403);
    expect((await call('POST', '/v2/presentations/sessions', { applicationId: appId, dcqlQuery: QUERY }, null)).statusCode).toBe(401);
    const bad = await call('POST', '/v2/presentations/sessions', { applicationId: 'x', dcqlQuery: {}, expiresIn: 1, extra: 1 });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .details.map((d: { param: string }) => d.param)
        .sort(),
    ).toEqual(['applicationId', 'dcqlQuery.credentials', 'expiresIn', 'extra']);
    // The DCQL module's rules beyond the schema (Contract B), named under dcqlQuery.
    const twice = { credentials: [QUERY.credentials[0], QUERY.credentials[0]] };
    const dcqlBad = await call('POST', '/v2/presentations/sessions', { applicationId: appId, dcqlQuery: twice });
    expect(dcqlBad.statusCode).toBe(400);
    expect(dcqlBad.json().details).toEqual([expect.objectContaining({ param: 'dcqlQuery.credentials.1.id' })]);
    const s = (await call('POST', '/v2/presentations/sessions', { applicationId: appId, dcqlQuery: QUERY, responseMode: 'direct_post' })).json();
    expect((await call('POST', '/v2/presentations/sessions', { applicationId: APP_ID, dcqlQuery: QUERY })).statusCode).toBe(404);
    const verifier = await call('GET', `/v2/presentations/sessions/${s.id}`, undefined, 'verifier');
    expect(verifier.statusCode).toBe(200);
    const unknown = await wallet(host, 'POST', '/v1/openid/presentations/0195f0c0-0000-7000-8000-0000000000ff/response', form({ state: 'x', vp_token: '{}' }));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: 'invalid_request' });
    const wrongState = await wallet(host, 'POST', `/v1/openid/presentations/${s.id}/response`, form({ state: 'x', vp_token: '{"pid":["good"]}' }));
    expect(wrongState.json()).toMatchObject({ error: 'invalid_request', error_description: 'state does not match the session' });
    const failed = await wallet(host, 'POST', `/v1/openid/presentations/${s.id}/response`, form({ state: s.oauthState, vp_token: '{"pid":["bad"]}' }));
    expect(failed.statusCode, failed.body).toBe(200);
    expect(failed.json()).toEqual({});
    expect((await call('GET', `/v2/presentations/sessions/${s.id}`)).json()).toMatchObject({
      state: 'failed',
      result: {
        verified: false,
        credentials: { pid: { presentations: [{ failedChecks: [{ check: 'signature', reason: 'The signature does not verify' }] }] } },
      },
    });
  });
});

describe('presentation sessions on a server composed without verifier applications or DCQL', () => {
  const t = useTestApp('standalone', { presentationCrypto: false });
  const tenant = freshTenants(t, 'vpn');
  it('answers 503 ServiceUnavailable, after the permission check', async () => {
    const { call, host } = await tenant();
    const r = await call('POST', '/v2/presentations/sessions', { applicationId: APP_ID, dcqlQuery: QUERY });
    expect(r.statusCode).toBe(503);
    expect(r.json()).toMatchObject({ code: 'ServiceUnavailable' });
    expect((await call('POST', '/v2/presentations/sessions', { applicationId: APP_ID, dcqlQuery: QUERY }, 'issuer')).statusCode).toBe(403);
    const w = await t.app.inject({ method: 'GET', url: `/v1/openid/presentations/${APP_ID}/request`, headers: { host } });
    expect(w.statusCode).toBe(503);
  });
});
