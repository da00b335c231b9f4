import type { HttpClient, OutboundFetch, ProviderSettings } from '@vellum/core';
import { fakeClock, localhostCertificate, startOidcProvider, type LocalhostCertificate, type OidcTestProvider } from '@vellum/testing';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from './http-client.ts';
import { createIdentityProvider } from './identity-provider.ts';

const REDIRECT_URI = 'https://vellum.test/v1/oauth/authentication/callback';
const SECRET = 'the-client-secret-0123456789abcdef';
const ACCOUNTS = {
  alice: { email: 'alice@example.com', email_verified: true, given_name: 'Alice', family_name: 'Liddell', birthdate: '1852-05-04' },
};

const random = () => randomBytes(32).toString('base64url');
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function settings(provider: OidcTestProvider, over: Partial<ProviderSettings> = {}): ProviderSettings {
  return {
    id: 'p1',
    tenantId: 't1',
    url: provider.issuer,
    clientId: 'vellum',
    clientSecret: SECRET,
    scope: 'profile email',
    tokenEndpointAuthMethod: 'client_secret_basic',
    staticRequestParameters: { ui_locales: 'en' },
    forwardedRequestParameters: ['login_hint'],
    claimsToPersist: ['email'],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

/** The real HttpClient, with every request it makes written down. */
function recording(http: HttpClient): HttpClient & { urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    send: (request) => http.send(request),
    fetch: (request: OutboundFetch) => {
      urls.push(request.url);
      return http.fetch(request);
    },
  };
}

describe('createIdentityProvider against a real OpenID Connect provider over HTTPS (OpenID Connect Core 1.0 §3.1)', () => {
  let tls: LocalhostCertificate;
  let basic: OidcTestProvider;
  let post: OidcTestProvider;
  let http: ReturnType<typeof createHttpClient>;

  beforeAll(async () => {
    tls = localhostCertificate();
    const client = { clientId: 'vellum', clientSecret: SECRET, redirectUris: [REDIRECT_URI] };
    const { certPem, keyPem } = tls;
    basic = await startOidcProvider({ certPem, keyPem, clients: [client], accounts: ACCOUNTS });
    post = await startOidcProvider({ certPem, keyPem, clients: [{ ...client, tokenEndpointAuthMethod: 'client_secret_post' }], accounts: ACCOUNTS });
    // The outbound client refuses loopback unless told otherwise, and checks TLS against the test CA.
    http = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem });
  });
  afterAll(async () => {
    http.close();
    await Promise.all([basic.close(), post.close()]);
    tls.dispose();
  });

  /** Builds the authentication request, signs in at the provider, and returns where it sent the browser, with the request's secrets. */
  async function signIn(
    idp: ReturnType<typeof createIdentityProvider>,
    provider: ProviderSettings,
    at: OidcTestProvider,
    as: { account?: string; deny?: boolean; badIdToken?: boolean } = {},
  ) {
    const request = {
      redirectUri: REDIRECT_URI,
      state: random(),
      nonce: random(),
      codeVerifier: random(),
      extraParameters: { login_hint: 'alice@example.com' },
    };
    const built = await idp.authorizationUrl(provider, request);
    if (!built.ok) throw new Error(built.reason);
    const back = new URL(as.deny ? await at.deny(built.url) : await at.signIn(built.url, as.account ?? 'alice', { badIdToken: as.badIdToken ?? false }));
    return { request, authorizationUrl: new URL(built.url), back, code: back.searchParams.get('code') ?? '' };
  }

  /** Exchanges `code` as the core does after the sign-in that sent `request`; `over` changes what is sent. */
  function exchange(
    idp: ReturnType<typeof createIdentityProvider>,
    provider: ProviderSettings,
    code: string,
    request: { codeVerifier: string; nonce: string },
    over: { codeVerifier?: string; nonce?: string } = {},
  ) {
    return idp.exchangeCode(provider, { code, redirectUri: REDIRECT_URI, codeVerifier: request.codeVerifier, nonce: request.nonce, ...over });
  }

  it('builds the authentication request from discovery: code, openid scope, PKCE S256, state, nonce and the tenant’s parameters', async () => {
    const idp = createIdentityProvider({ http });
    // The tenant's static parameters cannot replace one the flow depends on.
    const provider = settings(basic, { staticRequestParameters: { ui_locales: 'en', state: 'tenant-state', client_id: 'other' } });
    const request = { redirectUri: REDIRECT_URI, state: 'st-1', nonce: 'n-1', codeVerifier: random(), extraParameters: { login_hint: 'alice@example.com' } };
    const built = await idp.authorizationUrl(provider, request);
    if (!built.ok) throw new Error(built.reason);
    const url = new URL(built.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${basic.issuer}/auth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'vellum',
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile email',
      state: 'st-1',
      nonce: 'n-1',
      code_challenge: s256(request.codeVerifier),
      code_challenge_method: 'S256',
      ui_locales: 'en',
      login_hint: 'alice@example.com',
    });
  });

  it('signs the user in: exchanges the code with client_secret_basic and returns the verified ID token’s subject and claims', async () => {
    const idp = createIdentityProvider({ http });
    const provider = settings(basic);
    const { request, back, code } = await signIn(idp, provider, basic);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe(request.state);
    expect(code).not.toBe('');

    const result = await exchange(idp, provider, code, request);
    if (!result.ok) throw new Error(result.reason);
    expect(result.subject).toBe('alice');
    expect(result.claims).toMatchObject({ sub: 'alice', iss: basic.issuer, aud: 'vellum', nonce: request.nonce, ...ACCOUNTS.alice });
    expect(typeof result.claims.iat).toBe('number');
    expect(typeof result.claims.exp).toBe('number');

    // A code works once.
    const again = await exchange(idp, provider, code, request);
    expect(again).toEqual({ ok: false, reason: 'the provider refused the code (invalid_grant)' });
  });

  it('authenticates at the token endpoint with the provider’s method: client_secret_post or client_secret_basic', async () => {
    const idp = createIdentityProvider({ http });
    for (const [at, method] of [
      [post, 'client_secret_post'],
      [basic, 'client_secret_basic'],
      [post, 'client_secret_basic'],
    ] as const) {
      const provider = settings(at, { tokenEndpointAuthMethod: method });
      const { request, code } = await signIn(idp, provider, at);
      const before = at.tokenRequests.length;
      const result = await exchange(idp, provider, code, request);
      expect(result).toMatchObject({ ok: true, subject: 'alice' });
      expect(at.tokenRequests.slice(before)).toEqual([{ clientId: 'vellum', authentication: method }]);
    }
  });

  it('a wrong client secret is refused, and the reason does not show it', async () => {
    const idp = createIdentityProvider({ http });
    const { request, code } = await signIn(idp, settings(basic), basic);
    const wrong = settings(basic, { clientSecret: 'not-the-secret-at-all-0123456789' });
    const result = await exchange(idp, wrong, code, request);
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/invalid_client/) });
    expect(JSON.stringify(result)).not.toContain('not-the-secret');
  });

  it('a token endpoint that cannot be reached makes the provider unavailable, unlike a provider that refuses', async () => {
    // Discovery passes; the token request (the one POST) is refused as the SSRF guard refuses it.
    const guardedToken: HttpClient = {
      send: (request) => http.send(request),
      fetch: (request) =>
        request.method === 'POST'
          ? Promise.resolve({ error: 'The server resolves to a loopback, private or other special-purpose address' })
          : http.fetch(request),
    };
    const idp = createIdentityProvider({ http: guardedToken });
    const provider = settings(basic);
    const { request, code } = await signIn(idp, provider, basic);
    expect(await exchange(idp, provider, code, request)).toEqual({
      ok: false,
      reason: 'the provider could not be reached: The server resolves to a loopback, private or other special-purpose address',
      unavailable: true,
    });
  });

  it('refuses an ID token whose nonce is not the one sent (§3.1.3.7 step 11)', async () => {
    const idp = createIdentityProvider({ http });
    const provider = settings(basic);
    const { request, code } = await signIn(idp, provider, basic);
    const result = await exchange(idp, provider, code, request, { nonce: 'another-nonce' });
    expect(result).toEqual({ ok: false, reason: 'the ID token nonce does not match' });
  });

  it('a wrong code verifier is refused by the provider (RFC 7636 §4.6)', async () => {
    const idp = createIdentityProvider({ http });
    const provider = settings(basic);
    const { request, code } = await signIn(idp, provider, basic);
    const result = await exchange(idp, provider, code, request, { codeVerifier: random() });
    expect(result).toEqual({ ok: false, reason: 'the provider refused the code (invalid_grant)' });
  });

  it('the provider’s error comes back to the redirect URI, and a code it never gave is refused', async () => {
    const idp = createIdentityProvider({ http });
    const provider = settings(basic);
    // The user declines on the provider's sign-in page.
    const { request, back } = await signIn(idp, provider, basic, { deny: true });
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe(request.state);
    expect(back.searchParams.has('code')).toBe(false);
    const result = await exchange(idp, provider, 'made-up-code', request);
    expect(result).toEqual({ ok: false, reason: 'the provider refused the code (invalid_grant)' });
  });

  it('refuses an ID token whose signature does not verify against the provider’s JWKS (§3.1.3.7 step 6)', async () => {
    const idp = createIdentityProvider({ http });
    const provider = settings(basic);
    // The provider's keys are already known from an earlier sign-in; the forged token names the same kid.
    const good = await signIn(idp, provider, basic);
    expect(await exchange(idp, provider, good.code, good.request)).toMatchObject({ ok: true });
    const { request, code } = await signIn(idp, provider, basic, { badIdToken: true });
    expect(code).not.toBe('');
    const result = await exchange(idp, provider, code, request);
    expect(result).toEqual({ ok: false, reason: 'the ID token signature does not verify' });
    // A fresh client that fetches the keys first refuses it too.
    const fresh = createIdentityProvider({ http });
    const again = await signIn(fresh, provider, basic, { badIdToken: true });
    expect(await exchange(fresh, provider, again.code, again.request)).toEqual({
      ok: false,
      reason: 'the ID token signature does not verify',
    });
  });

  it('an account the test gives no claims signs in with its subject alone', async () => {
    const idp = createIdentityProvider({ http });
    const provider = settings(basic);
    const { request, code } = await signIn(idp, provider, basic, { account: 'bob-2' });
    const result = await exchange(idp, provider, code, request);
    if (!result.ok) throw new Error(result.reason);
    expect(result.subject).toBe('bob-2');
    expect(result.claims.email).toBeUndefined();
  });

  it.each([
    // Two hours ahead: the provider's one-hour ID token has expired.
    ['two hours ahead', 2 * 3600_000, 'the ID token has expired'],
    // Ten minutes behind: the token was issued in our future.
    ['ten minutes behind', -10 * 60_000, 'the ID token has no valid issue time'],
  ])('checks exp and iat against the given clock (§3.1.3.7 steps 9 and 10): %s', async (_name, offsetMs, reason) => {
    const idp = createIdentityProvider({ http, clock: fakeClock(new Date(Date.now() + offsetMs)) });
    const { request, code } = await signIn(idp, settings(basic), basic);
    expect(await exchange(idp, settings(basic), code, request)).toEqual({ ok: false, reason });
  });

  it('discovery of a URL that is not a provider, or of one that names another issuer, fails with a reason', async () => {
    const idp = createIdentityProvider({ http });
    const request = { redirectUri: REDIRECT_URI, state: 's', nonce: 'n', codeVerifier: random(), extraParameters: {} };
    expect(await idp.authorizationUrl(settings(basic, { url: `${basic.issuer}/not-a-provider` }), request)).toEqual({
      ok: false,
      reason: 'the provider’s discovery document could not be read (HTTP 404)',
      unavailable: true,
    });
    // The document is there, but for `https://localhost:<port>`, not for 127.0.0.1.
    expect(await idp.authorizationUrl(settings(basic, { url: basic.issuer.replace('localhost', '127.0.0.1') }), request)).toEqual({
      ok: false,
      reason: 'the provider’s discovery document names another issuer',
      unavailable: true,
    });
    expect(
      await idp.exchangeCode(settings(basic, { url: `${basic.issuer}/not-a-provider` }), {
        code: 'c',
        redirectUri: REDIRECT_URI,
        codeVerifier: random(),
        nonce: 'n',
      }),
    ).toEqual({
      ok: false,
      reason: 'the provider’s discovery document could not be read (HTTP 404)',
      unavailable: true,
    });
  });

  it('every request goes through the guarded HttpClient: loopback is refused without allowPrivate, a closed port is unreachable', async () => {
    const guarded = createHttpClient({ extraCaPem: tls.certPem });
    const request = { redirectUri: REDIRECT_URI, state: 's', nonce: 'n', codeVerifier: random(), extraParameters: {} };
    expect(await createIdentityProvider({ http: guarded }).authorizationUrl(settings(basic), request)).toEqual({
      ok: false,
      reason: 'the provider could not be reached: The server resolves to a loopback, private or other special-purpose address',
      unavailable: true,
    });
    guarded.close();
    expect(await createIdentityProvider({ http }).authorizationUrl(settings(basic, { url: 'https://localhost:1' }), request)).toEqual({
      ok: false,
      reason: 'the provider could not be reached: The server refused the connection',
      unavailable: true,
    });
    expect(await createIdentityProvider({ http }).authorizationUrl(settings(basic, { url: 'not a url' }), request)).toEqual({
      ok: false,
      reason: 'the provider could not be reached: The server URL is not valid',
      unavailable: true,
    });
    expect(await createIdentityProvider({ http }).authorizationUrl(settings(basic, { url: basic.issuer.replace('https:', 'http:') }), request)).toEqual({
      ok: false,
      reason: 'the provider’s URL and endpoints must use https',
      unavailable: true,
    });
    // An HttpClient that breaks its promise and throws still yields a reason.
    const throwing: HttpClient = { send: () => Promise.reject(new Error('boom')), fetch: () => Promise.reject(new Error('boom')) };
    expect(await createIdentityProvider({ http: throwing }).authorizationUrl(settings(basic), request)).toEqual({
      ok: false,
      reason: 'the provider could not be reached: The request failed',
      unavailable: true,
    });
  });

  it('reuses the discovery document and the provider’s keys for a while, not for ever', async () => {
    const recorded = recording(http);
    const clock = fakeClock(new Date());
    const idp = createIdentityProvider({ http: recorded, clock, discoveryTtlMs: 60_000 });
    const provider = settings(basic);
    for (let i = 0; i < 2; i += 1) {
      const { request, code } = await signIn(idp, provider, basic);
      expect(await exchange(idp, provider, code, request)).toMatchObject({
        ok: true,
      });
    }
    const paths = () => recorded.urls.map((u) => new URL(u).pathname);
    expect(paths()).toEqual(['/.well-known/openid-configuration', '/token', '/jwks', '/token']);
    clock.advance(61_000);
    expect(
      await idp.authorizationUrl(provider, { redirectUri: REDIRECT_URI, state: 's', nonce: 'n', codeVerifier: random(), extraParameters: {} }),
    ).toMatchObject({ ok: true });
    expect(paths().filter((p) => p === '/.well-known/openid-configuration')).toHaveLength(2);
  });
});
