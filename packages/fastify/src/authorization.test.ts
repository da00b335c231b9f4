import { createHash } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

// OpenID4VCI 1.0 §5, §6 over HTTP (docs/authorization-code.md). The identity provider is the fake
// of @vellum/testing (the real adapter is tested against a real provider in @vellum/node, and the
// whole flow with wallet libraries in tools/interop); session tokens and secrets are the real adapters.
const REDIRECT = 'https://wallet.example.com/cb';
const VERIFIER = 'v'.repeat(50);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const FORM = 'application/x-www-form-urlencoded';

describe.each(['standalone', 'prefixed'] as const)('the Authorization Code flow over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 'ac');

  async function issuer(options: { hook?: boolean; confidential?: boolean } = {}) {
    const created = await tenant();
    const { call } = created;
    const origin = `https://${created.host}${t.prefix}`;
    const configuration = await call('POST', '/v2/credentials/mobile/configurations', {
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 30 },
      claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
    });
    expect(configuration.statusCode, configuration.body).toBe(201);
    const client = await call('POST', '/v1/openid/clients', {
      clientId: 'wallet',
      clientName: 'Wallet',
      redirectUris: [REDIRECT],
      ...(options.confidential ? { tokenEndpointAuthMethod: 'client_secret_basic' } : {}),
    });
    expect(client.statusCode, client.body).toBe(201);
    const provider = await call('POST', '/v1/users/authentication-providers', {
      url: 'https://idp.example.com',
      clientId: 'vellum',
      clientSecret: 'idp-secret',
      claimsToPersist: ['familyName'],
    });
    expect(provider.statusCode, provider.body).toBe(201);
    let hookSecret = '';
    if (options.hook) {
      const hook = await call('PUT', '/v1/openid/configuration', { interactionHook: { url: 'https://hook.example.com/start', claims: ['familyName'] } });
      expect(hook.statusCode, hook.body).toBe(200);
      hookSecret = hook.json().interactionHook.secret;
    }
    const browse = (path: string) => t.app.inject({ method: 'GET', url: `${t.prefix}${path}`, headers: { host: created.host } });
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url: `${t.prefix}${path}`, headers: { host: created.host, 'content-type': FORM, ...headers }, payload: body });
    const query = (over: Record<string, string | undefined> = {}) => {
      const all: Record<string, string | undefined> = {
        response_type: 'code',
        client_id: 'wallet',
        redirect_uri: REDIRECT,
        scope: 'mso_mdoc:org.iso.18013.5.1.mDL',
        state: 'xyz',
        code_challenge_method: 'S256',
        code_challenge: CHALLENGE,
        ...over,
      };
      return new URLSearchParams(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined)).toString();
    };
    return { ...created, call, origin, browse, post, query, hookSecret, clientSecret: client.json().clientSecret as string | undefined };
  }

  /** A 303 and where it points. */
  function seeOther(res: { statusCode: number; headers: Record<string, unknown>; body: string }): URL {
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers['cache-control']).toBe('no-store');
    return new URL(res.headers.location as string);
  }

  /** Runs authorize → provider → callback and returns the code. */
  async function codeFor(i: Awaited<ReturnType<typeof issuer>>): Promise<string> {
    const idp = seeOther(await i.browse(`/v1/oauth/authorize?${i.query()}`));
    const { code, state } = t.identityProvider.signIn(idp.toString(), 'alice', { familyName: 'Lovelace' });
    const back = seeOther(await i.browse(`/v1/oauth/authentication/callback?code=${code}&state=${state}`));
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('xyz');
    expect(back.searchParams.get('iss')).toBe(i.origin);
    return back.searchParams.get('code') as string;
  }

  const tokenForm = (code: string, over: Record<string, string> = {}) =>
    new URLSearchParams({ grant_type: 'authorization_code', client_id: 'wallet', code, redirect_uri: REDIRECT, code_verifier: VERIFIER, ...over }).toString();

  it('runs authorize → sign-in → callback → token, and the token is a Bearer one for the configuration', async () => {
    const i = await issuer();
    const idp = seeOther(await i.browse(`/v1/oauth/authorize?${i.query()}`));
    expect(idp.origin).toBe('https://idp.example.com');
    expect(idp.searchParams.get('redirect_uri')).toBe(`${i.origin}/v1/oauth/authentication/callback`);
    const { code, state } = t.identityProvider.signIn(idp.toString(), 'alice', { familyName: 'Lovelace' });
    const back = seeOther(await i.browse(`/v1/oauth/authentication/callback?code=${code}&state=${state}`));
    const token = await i.post('/v1/oauth/token', tokenForm(back.searchParams.get('code') as string));
    expect(token.statusCode, token.body).toBe(200);
    expect(token.headers['cache-control']).toBe('no-store');
    expect(token.json()).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'mso_mdoc:org.iso.18013.5.1.mDL' });
    expect(decodeJwt(token.json().access_token)).toMatchObject({ gty: 'authorization_code' });
    // The code works once.
    const again = await i.post('/v1/oauth/token', tokenForm(back.searchParams.get('code') as string));
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'BadRequest', error: 'invalid_grant' });
  });

  it('takes a pushed request (201 request_uri), then authorize by request_uri', async () => {
    const i = await issuer();
    const pushed = await i.post('/v1/oauth/par', i.query());
    expect(pushed.statusCode, pushed.body).toBe(201);
    expect(pushed.json()).toEqual({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/), expires_in: 60 });
    const idp = seeOther(await i.browse(`/v1/oauth/authorize?client_id=wallet&request_uri=${encodeURIComponent(pushed.json().request_uri)}`));
    expect(idp.origin).toBe('https://idp.example.com');
    const reused = await i.browse(`/v1/oauth/authorize?client_id=wallet&request_uri=${encodeURIComponent(pushed.json().request_uri)}`);
    expect(reused.statusCode).toBe(400);
    expect(reused.json()).toMatchObject({ error: 'invalid_request' });
    const bad = await i.post('/v1/oauth/par', i.query({ code_challenge_method: 'plain' }));
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'BadRequest', error: 'invalid_request', error_description: expect.any(String) });
  });

  // HAIP 1.0 §4 takes in FAPI 2.0's rules for the authorization server (docs/haip.md rows 22, 30, 32).
  it('refuses a pushed request without redirect_uri, answers authorize with no CORS headers, and takes no access token from the query', async () => {
    const i = await issuer();
    const noRedirect = await i.post('/v1/oauth/par', i.query({ redirect_uri: undefined }));
    expect(noRedirect.statusCode, noRedirect.body).toBe(400);
    expect(noRedirect.json()).toMatchObject({ code: 'BadRequest', error: 'invalid_request', error_description: expect.stringContaining('redirect_uri') });

    // Browsers are sent to the authorization endpoint, never let to call it from a page.
    const fromPage = await t.app.inject({
      method: 'GET',
      url: `${t.prefix}/v1/oauth/authorize?${i.query()}`,
      headers: { host: i.host, origin: 'https://wallet.example.com' },
    });
    expect(fromPage.statusCode).toBe(303);
    expect(Object.keys(fromPage.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: `${t.prefix}/v1/oauth/authorize`,
      headers: { host: i.host, origin: 'https://wallet.example.com', 'access-control-request-method': 'GET' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();

    // A valid access token in the query string is no token at all: the credential endpoint asks for the header.
    const token = (await i.post('/v1/oauth/token', tokenForm(await codeFor(i)))).json().access_token as string;
    const inQuery = await t.app.inject({
      method: 'POST',
      url: `${t.prefix}/v1/openid/credential?access_token=${encodeURIComponent(token)}`,
      headers: { host: i.host, 'content-type': 'application/json' },
      payload: { credential_configuration_id: 'anything' },
    });
    expect(inQuery.statusCode, inQuery.body).toBe(401);
    expect(String(inQuery.headers['www-authenticate'])).toMatch(/^(Bearer|DPoP)/);
    const inForm = await i.post(
      '/v1/openid/notification',
      new URLSearchParams({ access_token: token, notification_id: 'n', event: 'credential_accepted' }).toString(),
    );
    // Nor in a form body: refused before any token is read (the notification endpoint takes JSON with the header).
    expect(inForm.statusCode, inForm.body).toBeGreaterThanOrEqual(400);
    expect(inForm.statusCode).toBeLessThan(500);
  });

  it('answers 400 with the error body before the client and redirect URI are known, and redirects after', async () => {
    const i = await issuer();
    for (const over of [{ client_id: 'nobody' }, { redirect_uri: 'https://evil.example.com/cb' }, { client_id: undefined }]) {
      const res = await i.browse(`/v1/oauth/authorize?${i.query(over)}`);
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.json()).toMatchObject({ code: 'BadRequest', error: expect.stringMatching(/^invalid_(request|client)$/) });
    }
    const plain = seeOther(await i.browse(`/v1/oauth/authorize?${i.query({ code_challenge_method: 'plain' })}`));
    expect(Object.fromEntries(plain.searchParams)).toMatchObject({ error: 'invalid_request', state: 'xyz', iss: i.origin });
    // A parameter given twice is refused as such, at the redirect URI.
    const twice = seeOther(await i.browse(`/v1/oauth/authorize?${i.query()}&scope=other`));
    expect(twice.searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses a wrong code_verifier, another redirect URI and another tenant, without a 5xx', async () => {
    const i = await issuer();
    const other = await issuer();
    const code = await codeFor(i);
    for (const [over, via] of [
      [{ code_verifier: 'w'.repeat(50) }, i],
      [{ redirect_uri: 'https://wallet.example.com/other' }, i],
      [{}, other],
    ] as const) {
      const res = await via.post('/v1/oauth/token', tokenForm(code, over));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toBe('invalid_grant');
    }
    expect((await i.post('/v1/oauth/token', tokenForm(code))).statusCode).toBe(200);
  });

  it('makes a confidential client authenticate with Basic, and challenges it when it does not', async () => {
    const i = await issuer({ confidential: true });
    const code = await codeFor(i);
    const anonymous = await i.post('/v1/oauth/token', tokenForm(code));
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ code: 'Unauthorized', error: 'invalid_client' });
    expect(anonymous.headers['www-authenticate']).toMatch(/^Basic /);
    const basic = `Basic ${Buffer.from(`wallet:${encodeURIComponent(i.clientSecret as string)}`).toString('base64')}`;
    const ok = await i.post('/v1/oauth/token', tokenForm(code), { authorization: basic });
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('goes through the interaction hook with HS256 session tokens both ways', async () => {
    const i = await issuer({ hook: true });
    const idp = seeOther(await i.browse(`/v1/oauth/authorize?${i.query()}`));
    const { code, state } = t.identityProvider.signIn(idp.toString(), 'bob', { familyName: 'Babbage' });
    const hook = seeOther(await i.browse(`/v1/oauth/authentication/callback?code=${code}&state=${state}`));
    expect(`${hook.origin}${hook.pathname}`).toBe('https://hook.example.com/start');
    const outgoing = decodeJwt(hook.searchParams.get('session_token') as string);
    expect(outgoing).toMatchObject({
      redirectUrl: `${i.origin}/v1/oauth/interaction/callback`,
      claims: { familyName: 'Babbage' },
      authenticationProvider: { subjectId: 'bob' },
    });
    const key = new TextEncoder().encode(i.hookSecret);
    const wrong = await new SignJWT({ state: outgoing.state, claims: {} })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode('not-the-secret'));
    const refused = await i.browse(`/v1/oauth/interaction/callback?session_token=${wrong}`);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe('invalid_request');
    const answer = await new SignJWT({ state: outgoing.state, claims: { memberNumber: 'M-7' } })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(key);
    const back = seeOther(await i.browse(`/v1/oauth/interaction/callback?session_token=${answer}`));
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect((await i.post('/v1/oauth/token', tokenForm(back.searchParams.get('code') as string))).statusCode).toBe(200);
  });

  it('tells the wallet access_denied when the provider answers an error', async () => {
    const i = await issuer();
    const idp = seeOther(await i.browse(`/v1/oauth/authorize?${i.query()}`));
    const back = seeOther(await i.browse(`/v1/oauth/authentication/callback?error=access_denied&state=${idp.searchParams.get('state')}`));
    expect(Object.fromEntries(back.searchParams)).toMatchObject({ error: 'access_denied', state: 'xyz' });
    const unknown = await i.browse('/v1/oauth/authentication/callback?code=x&state=nothing-we-made');
    expect(unknown.statusCode).toBe(400);
  });

  // docs/limits.md "Outbound calls": the wallet is not told where the tenant's provider is or why it failed.
  it('tells the wallet only temporarily_unavailable when the provider cannot be reached, at authorize and at the callback', async () => {
    const i = await issuer();
    const reason = 'the provider could not be reached: The server resolves to a loopback, private or other special-purpose address';
    const told = { error: 'temporarily_unavailable', error_description: 'Sign-in is temporarily unavailable; try again later', state: 'xyz', iss: i.origin };
    t.identityProvider.failNext('authorizationUrl', reason, { unavailable: true });
    const atAuthorize = seeOther(await i.browse(`/v1/oauth/authorize?${i.query()}`));
    expect(`${atAuthorize.origin}${atAuthorize.pathname}`).toBe(REDIRECT);
    expect(Object.fromEntries(atAuthorize.searchParams)).toEqual(told);

    const idp = seeOther(await i.browse(`/v1/oauth/authorize?${i.query()}`));
    const { code, state } = t.identityProvider.signIn(idp.toString(), 'alice', { familyName: 'Lovelace' });
    t.identityProvider.failNext('exchangeCode', reason, { unavailable: true });
    const atCallback = seeOther(await i.browse(`/v1/oauth/authentication/callback?code=${code}&state=${state}`));
    expect(Object.fromEntries(atCallback.searchParams)).toEqual(told);
  });
});
