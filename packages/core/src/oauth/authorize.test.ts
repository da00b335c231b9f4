import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { contextFor, withTenants } from '../../test/harness.ts';
import { readFakeSessionToken } from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import type { CredentialConfigurationInput } from '../configurations/model.ts';
import type { Tenant } from '../tenancy/model.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from '../rate-limits/model.ts';
import { MAX_KEPT_REQUEST_BYTES, REQUEST_URI_PREFIX } from './authorize.ts';
import { authorizationClaimsContext, openClaims } from '../shared/sealed-claims.ts';

const mdl = (type = 'org.iso.18013.5.1.mDL'): CredentialConfigurationInput => ({
  type,
  expiresIn: { days: 365 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
});

const REDIRECT = 'https://wallet.example/cb';
const VERIFIER = 'a'.repeat(20) + 'B'.repeat(23);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

async function setup(options: { hook?: boolean; confidential?: boolean; rateLimits?: RateLimitSettings } = {}) {
  const h = await withTenants(undefined, options.rateLimits ? { rateLimits: options.rateLimits } : {});
  const { tenant, other, ctx: admin } = h;
  const browser = contextFor(tenant, null);
  const mdoc = await h.configurations.create(admin, 'mso_mdoc', mdl());
  const now = h.clock.now().toISOString();
  for (const t of [tenant, other]) {
    await h.store.walletClients.insert({
      tenantId: t.id,
      clientId: 'wallet',
      clientName: 'A wallet',
      redirectUris: [REDIRECT, 'com.example.wallet:/cb'],
      grantTypes: ['authorization_code'],
      tokenEndpointAuthMethod: options.confidential ? 'client_secret_post' : 'none',
      ...(options.confidential ? { secretHash: await h.hasher.hash('s3cret') } : {}),
      createdAt: now,
      updatedAt: now,
    });
    await h.store.authenticationProviders.insert({
      id: `idp-${t.id}`,
      tenantId: t.id,
      url: 'https://idp.example',
      clientId: 'vellum',
      sealedClientSecret: h.secretBox.seal('idp-secret', `authentication-provider:${t.id}:idp-${t.id}`),
      scope: 'openid profile',
      tokenEndpointAuthMethod: 'client_secret_basic',
      staticRequestParameters: { ui_locales: 'en' },
      forwardedRequestParameters: ['login_hint'],
      claimsToPersist: ['familyName'],
      createdAt: now,
      updatedAt: now,
    });
  }
  if (options.hook) {
    await h.store.openIdSettings.put({
      tenantId: tenant.id,
      interactionHook: {
        url: 'https://hook.example/start',
        claims: ['familyName', 'email'],
        sessionTimeoutInSec: 300,
        disabled: false,
        sealedSecret: h.secretBox.seal('hook-secret', `interaction-hook:${tenant.id}`),
      },
      updatedAt: now,
    });
  }
  const request = (over: Record<string, unknown> = {}) => ({
    response_type: 'code',
    client_id: 'wallet',
    redirect_uri: REDIRECT,
    scope: `mso_mdoc:${mdoc.type}`,
    state: 'wallet-state',
    code_challenge_method: 'S256',
    code_challenge: CHALLENGE,
    ...over,
  });
  /** Authorize and sign in at the fake provider: the callback's query. */
  const signIn = async (
    over: Record<string, unknown> = {},
    subject = 'alice',
    claims: Record<string, unknown> = { familyName: 'Lovelace', email: 'ada@example.com' },
    ctx: RequestContext = browser,
  ) => {
    const { location } = await h.authorizationFlow.authorize(ctx, request(over));
    return h.identityProvider.signIn(location, subject, claims);
  };
  const codeFrom = (location: string) => {
    const url = new URL(location);
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    return url.searchParams.get('code') as string;
  };
  const redeem = (code: string, over: Record<string, unknown> = {}, ctx: RequestContext = browser, authorization?: string) =>
    h.tokenEndpoint.token(
      ctx,
      { grant_type: 'authorization_code', client_id: 'wallet', code, redirect_uri: REDIRECT, code_verifier: VERIFIER, ...over },
      undefined,
      authorization,
    );
  return { ...h, tenant, other, admin, browser, mdoc, request, signIn, codeFrom, redeem };
}

/** The error a wallet redirect carries. */
function redirectError(location: string) {
  const url = new URL(location);
  return {
    at: `${url.origin}${url.pathname}`,
    error: url.searchParams.get('error'),
    description: url.searchParams.get('error_description'),
    state: url.searchParams.get('state'),
    iss: url.searchParams.get('iss'),
  };
}

describe('the Authorization Code flow (OpenID4VCI 1.0 §5, §6; RFC 6749 §4.1, RFC 7636)', () => {
  it('signs the user in at the provider, redirects back with code, state and iss, and the code buys a token for the user', async () => {
    const { authorizationFlow, browser, signIn, codeFrom, redeem, store, tenant, walletTokens, mdoc, identityProvider } = await setup();
    const { code: idpCode, state } = await signIn({ login_hint: 'ada', prompt: 'login' });
    // The provider was asked with the static and the forwarded parameters (not prompt: not forwarded).
    const asked = identityProvider.requests.at(-1) as URL;
    expect(asked.searchParams.get('login_hint')).toBe('ada');
    expect(asked.searchParams.get('ui_locales')).toBe('en');
    expect(asked.searchParams.get('prompt')).toBeNull();
    expect(asked.searchParams.get('redirect_uri')).toBe(`${browser.origin}/v1/oauth/authentication/callback`);

    const { location } = await authorizationFlow.authenticationCallback(browser, { code: idpCode, state });
    const back = new URL(location);
    expect(back.searchParams.get('state')).toBe('wallet-state');
    expect(back.searchParams.get('iss')).toBe(browser.origin);
    const response = await redeem(codeFrom(location));
    expect(response).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: `mso_mdoc:${mdoc.type}` });
    expect(response.authorization_details).toBeUndefined();
    const claims = walletTokens.issued.at(-1);
    expect(claims).toMatchObject({ grant: 'authorization_code', configurationIds: [mdoc.id], tenantId: tenant.id });
    // The user was made for the provider's subject, with the claims to persist only.
    const user = await store.users.get(tenant.id, claims?.userId as string);
    expect(user).toMatchObject({ claims: { familyName: 'Lovelace' }, authenticationProvider: { url: 'https://idp.example', subjectId: 'alice' } });
  });

  it('finds the same user on a second sign-in, and updates the persisted claims', async () => {
    const { authorizationFlow, browser, signIn, codeFrom, redeem, walletTokens, store, tenant } = await setup();
    const first = await signIn();
    await redeem(codeFrom((await authorizationFlow.authenticationCallback(browser, first)).location));
    const userId = walletTokens.issued.at(-1)?.userId as string;
    const second = await signIn({}, 'alice', { familyName: 'King' });
    await redeem(codeFrom((await authorizationFlow.authenticationCallback(browser, second)).location));
    expect(walletTokens.issued.at(-1)?.userId).toBe(userId);
    expect((await store.users.get(tenant.id, userId))?.claims).toEqual({ familyName: 'King' });
  });

  it('answers authorization_details with credential_identifiers (OpenID4VCI 1.0 §6.2)', async () => {
    const { authorizationFlow, browser, signIn, codeFrom, redeem, mdoc } = await setup();
    const details = JSON.stringify([{ type: 'openid_credential', credential_configuration_id: mdoc.id }]);
    const cb = await signIn({ scope: undefined, authorization_details: details });
    const response = await redeem(codeFrom((await authorizationFlow.authenticationCallback(browser, cb)).location));
    expect(response.authorization_details).toEqual([{ type: 'openid_credential', credential_configuration_id: mdoc.id, credential_identifiers: [mdoc.id] }]);
  });

  it('takes a pushed request (RFC 9126): request_uri works once, for the client that pushed it', async () => {
    const { authorizationFlow, browser, request, identityProvider } = await setup();
    const pushed = await authorizationFlow.pushAuthorizationRequest(browser, request(), undefined);
    expect(pushed.expires_in).toBe(60);
    expect(pushed.request_uri.startsWith(REQUEST_URI_PREFIX)).toBe(true);
    const { location } = await authorizationFlow.authorize(browser, { client_id: 'wallet', request_uri: pushed.request_uri });
    expect(location).toBe(identityProvider.requests.at(-1)?.toString());
    expect((await refusal(authorizationFlow.authorize(browser, { client_id: 'wallet', request_uri: pushed.request_uri }))).oauthError).toBe('invalid_request');
    const again = await authorizationFlow.pushAuthorizationRequest(browser, request(), undefined);
    expect((await refusal(authorizationFlow.authorize(browser, { client_id: 'other-wallet', request_uri: again.request_uri }))).oauthError).toBe(
      'invalid_client',
    );
  });

  it('answers a pushed request’s problems directly, never by redirect', async () => {
    const { authorizationFlow, browser, request } = await setup();
    const plain = await refusal(authorizationFlow.pushAuthorizationRequest(browser, request({ code_challenge_method: 'plain' }), undefined));
    expect(plain).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_request' });
  });

  it('refuses with a 400 while the client or redirect URI is unknown', async () => {
    const { authorizationFlow, browser, request } = await setup();
    expect(await refusal(authorizationFlow.authorize(browser, request({ client_id: undefined })))).toMatchObject({
      code: 'BadRequest',
      oauthError: 'invalid_request',
    });
    expect(await refusal(authorizationFlow.authorize(browser, request({ client_id: 'nobody' })))).toMatchObject({ oauthError: 'invalid_client' });
    expect(await refusal(authorizationFlow.authorize(browser, request({ redirect_uri: 'https://evil.example/cb' })))).toMatchObject({
      oauthError: 'invalid_request',
    });
    // Exact comparison: a trailing slash or another case is another URI.
    expect(await refusal(authorizationFlow.authorize(browser, request({ redirect_uri: `${REDIRECT}/` })))).toMatchObject({ oauthError: 'invalid_request' });
  });

  it('redirects with error, error_description, state and iss once the redirect URI is known', async () => {
    const { authorizationFlow, browser, request } = await setup();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge: 'short' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'mso_mdoc:org.example.unknown' }, 'invalid_scope'],
      [{ scope: undefined }, 'invalid_request'],
      [{ authorization_details: '[{"type":"openid_credential","credential_configuration_id":"nope"}]' }, 'invalid_authorization_details'],
      [{ dpop_jkt: 'not a thumbprint' }, 'invalid_request'],
      [{ issuer_state: 'x'.repeat(43) }, 'invalid_request'],
      [{ scope: ['a', 'b'] }, 'invalid_request'],
    ];
    for (const [over, error] of cases) {
      const { location } = await authorizationFlow.authorize(browser, request(over));
      expect(redirectError(location), JSON.stringify(over)).toMatchObject({ at: REDIRECT, error, state: 'wallet-state', iss: browser.origin });
    }
    // A state sent twice cannot be echoed: the wallet still hears of it, without one.
    const twice = redirectError((await authorizationFlow.authorize(browser, request({ state: ['s1', 's2'] }))).location);
    expect(twice).toMatchObject({ at: REDIRECT, error: 'invalid_request', iss: browser.origin });
    expect(twice.state).toBeNull();
  });

  it('says so when the tenant has no authentication provider', async () => {
    const { authorizationFlow, browser, request, store, tenant } = await setup();
    await store.authenticationProviders.delete(tenant.id, `idp-${tenant.id}`);
    expect(redirectError((await authorizationFlow.authorize(browser, request())).location)).toMatchObject({ error: 'server_error', state: 'wallet-state' });
  });

  it('takes issuer_state from an Authorization Code offer and forwards its request_parameters', async () => {
    const { authorizationFlow, browser, request, offers, admin, mdoc, identityProvider } = await setup();
    const { uri } = await offers.createAuthorizationCodeOffer(admin, { credentials: [mdoc.id], request_parameters: { login_hint: 'from-offer' } });
    const offer = JSON.parse(new URL(uri).searchParams.get('credential_offer') as string);
    const issuerState = offer.grants.authorization_code.issuer_state as string;
    await authorizationFlow.authorize(browser, request({ issuer_state: issuerState }));
    expect(identityProvider.requests.at(-1)?.searchParams.get('login_hint')).toBe('from-offer');
  });

  it('tells the wallet when sign-in fails at the provider, and the state works once', async () => {
    const { authorizationFlow, browser, signIn, identityProvider } = await setup();
    const cb = await signIn();
    const denied = await authorizationFlow.authenticationCallback(browser, { error: 'access_denied', state: cb.state });
    expect(redirectError(denied.location)).toMatchObject({ at: REDIRECT, error: 'access_denied', state: 'wallet-state' });
    expect(await refusal(authorizationFlow.authenticationCallback(browser, cb))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_request' });
    const cb2 = await signIn();
    identityProvider.failNext('exchangeCode', 'the ID token signature does not verify');
    expect(redirectError((await authorizationFlow.authenticationCallback(browser, cb2)).location)).toMatchObject({ error: 'access_denied' });
  });

  // docs/limits.md "Outbound calls": where the provider is and why it failed describe the tenant's
  // configuration; the wallet hears temporarily_unavailable, the host's log hears why.
  it('tells the wallet only temporarily_unavailable when the provider cannot be used, and the host why', async () => {
    const { authorizationFlow, browser, request, signIn, identityProvider, providerFailures, tenant } = await setup();
    const reason = 'the provider could not be reached: The server resolves to a loopback, private or other special-purpose address';
    identityProvider.failNext('authorizationUrl', reason, { unavailable: true });
    const atAuthorize = redirectError((await authorizationFlow.authorize(browser, request())).location);
    expect(atAuthorize).toEqual({
      at: REDIRECT,
      error: 'temporarily_unavailable',
      description: 'Sign-in is temporarily unavailable; try again later',
      state: 'wallet-state',
      iss: expect.any(String),
    });
    // Discovery that fails for another reason (a document naming another issuer) is told the same way.
    identityProvider.failNext('authorizationUrl', 'the provider’s discovery document names another issuer');
    expect(redirectError((await authorizationFlow.authorize(browser, request())).location)).toMatchObject({
      error: 'temporarily_unavailable',
      description: 'Sign-in is temporarily unavailable; try again later',
    });

    const cb = await signIn();
    identityProvider.failNext('exchangeCode', reason, { unavailable: true });
    const atCallback = redirectError((await authorizationFlow.authenticationCallback(browser, cb)).location);
    expect(atCallback).toMatchObject({ at: REDIRECT, error: 'temporarily_unavailable', description: 'Sign-in is temporarily unavailable; try again later' });
    for (const told of [atAuthorize, atCallback]) expect(told.description).not.toMatch(/idp\.example|loopback|reached/);

    expect(providerFailures).toEqual([
      { tenantId: tenant.id, step: 'authorize', providerUrl: 'https://idp.example/', reason, unavailable: true },
      {
        tenantId: tenant.id,
        step: 'authorize',
        providerUrl: 'https://idp.example/',
        reason: 'the provider’s discovery document names another issuer',
        unavailable: false,
      },
      { tenantId: tenant.id, step: 'callback', providerUrl: 'https://idp.example/', reason, unavailable: true },
    ]);
  });

  it('sends the browser through the interaction hook, whose claims join the user’s for this authorization only', async () => {
    const { authorizationFlow, browser, signIn, codeFrom, redeem, sessionTokens, store, tenant, walletTokens, secretBox } = await setup({ hook: true });
    const cb = await signIn();
    const { location } = await authorizationFlow.authenticationCallback(browser, cb);
    const hook = new URL(location);
    expect(`${hook.origin}${hook.pathname}`).toBe('https://hook.example/start');
    const outgoing = readFakeSessionToken(hook.searchParams.get('session_token') as string);
    expect(outgoing).toMatchObject({
      redirectUrl: `${browser.origin}/v1/oauth/interaction/callback`,
      claims: { familyName: 'Lovelace', email: 'ada@example.com' },
      authenticationProvider: { subjectId: 'alice' },
    });
    // A token signed with another secret is refused; the right one issues the code.
    const forged = await sessionTokens.sign('not-the-secret', { state: outgoing.state, claims: {} }, 60);
    expect(await refusal(authorizationFlow.interactionCallback(browser, { session_token: forged }))).toMatchObject({ oauthError: 'invalid_request' });
    const answer = await sessionTokens.sign('hook-secret', { state: outgoing.state, claims: { memberNumber: 'M-1' } }, 60);
    const code = codeFrom((await authorizationFlow.interactionCallback(browser, { session_token: answer })).location);
    await redeem(code);
    const grant = await store.authorizations.get(tenant.id, walletTokens.issued.at(-1)?.offerId as string);
    // Kept sealed, for issuance only (docs/decisions.md "Claims at rest").
    expect(openClaims(secretBox, grant?.sealedClaims, authorizationClaimsContext(tenant.id, grant?.id as string))).toEqual({ memberNumber: 'M-1' });
    expect(grant?.sealedClaims).not.toContain('M-1');
    expect(await refusal(authorizationFlow.interactionCallback(browser, { session_token: answer }))).toMatchObject({ oauthError: 'invalid_request' });
  });

  it('lets the interaction hook refuse the user', async () => {
    const { authorizationFlow, browser, signIn, sessionTokens } = await setup({ hook: true });
    const hook = new URL((await authorizationFlow.authenticationCallback(browser, await signIn())).location);
    const state = readFakeSessionToken(hook.searchParams.get('session_token') as string).state;
    const refusal = await sessionTokens.sign('hook-secret', { state, error: 'access_denied', error_description: 'Not a member' }, 60);
    expect(redirectError((await authorizationFlow.interactionCallback(browser, { session_token: refusal })).location)).toMatchObject({
      error: 'access_denied',
      description: 'Not a member',
    });
  });
});

describe('the token endpoint, Authorization Code grant (OpenID4VCI 1.0 §6; RFC 7636 §4.6)', () => {
  async function withCode(options: { confidential?: boolean } = {}) {
    const s = await setup(options);
    const cb = await s.signIn();
    const code = s.codeFrom((await s.authorizationFlow.authenticationCallback(s.browser, cb)).location);
    return { ...s, code };
  }

  it('refuses a wrong code_verifier without spending the code', async () => {
    const { redeem, code } = await withCode();
    expect(await refusal(redeem(code, { code_verifier: 'b'.repeat(43) }))).toMatchObject({ oauthError: 'invalid_grant' });
    expect(await refusal(redeem(code, { code_verifier: 'short' }))).toMatchObject({ oauthError: 'invalid_request' });
    await redeem(code);
  });

  it('takes a code once', async () => {
    const { redeem, code } = await withCode();
    await redeem(code);
    expect(await refusal(redeem(code))).toMatchObject({ oauthError: 'invalid_grant' });
  });

  it('of racing redemptions, exactly one wins', async () => {
    const { redeem, code } = await withCode();
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => redeem(code)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });

  it('refuses a code after 60 seconds', async () => {
    const { redeem, code, clock } = await withCode();
    clock.advance(61_000);
    expect(await refusal(redeem(code))).toMatchObject({ oauthError: 'invalid_grant' });
  });

  it('checks the redirect URI and the client', async () => {
    const { redeem, code } = await withCode();
    expect(await refusal(redeem(code, { redirect_uri: 'com.example.wallet:/cb' }))).toMatchObject({ oauthError: 'invalid_grant' });
    expect(await refusal(redeem(code, { client_id: 'nobody' }))).toMatchObject({ oauthError: 'invalid_client' });
    expect(await refusal(redeem(code, { redirect_uri: undefined }))).toMatchObject({ oauthError: 'invalid_request' });
  });

  it('does not take tenant A’s code at tenant B', async () => {
    const { redeem, code, other } = await withCode();
    const elsewhere = contextFor(other as Tenant, null);
    expect(await refusal(redeem(code, {}, elsewhere))).toMatchObject({ oauthError: 'invalid_grant' });
    await redeem(code);
  });

  it('makes a confidential client authenticate', async () => {
    const { redeem, code } = await withCode({ confidential: true });
    expect(await refusal(redeem(code))).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_client' });
    expect(await refusal(redeem(code, { client_secret: 'wrong' }))).toMatchObject({ oauthError: 'invalid_client' });
    await redeem(code, { client_secret: 's3cret' });
  });
});

describe('pushed requests cannot fill the disk (Vellum issue 26; RFC 9126 §2, §4; docs/limits.md)', () => {
  const LIMITS: RateLimitSettings = { ...DEFAULT_RATE_LIMITS, parPerClientIp: 3 };
  const from = (ctx: RequestContext, ip: string): RequestContext => ({ ...ctx, ip });
  /** 20 extra parameters of 1,000 characters: with a 1,000-character state, about 22 KB kept per request before the byte bound. */
  const LARGEST_BEFORE = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`x_${i}`, 'a'.repeat(1000)]));

  it('counts pushed requests per wallet client and source IP: past the limit TooManyRequests with Retry-After, and nothing stored', async () => {
    const { authorizationFlow, browser, other, request, store, clock, recorder } = await setup({ rateLimits: LIMITS });
    const push = (ctx: RequestContext, over: Record<string, unknown> = {}) => authorizationFlow.pushAuthorizationRequest(ctx, request(over), undefined);
    for (let i = 0; i < 3; i++) await push(from(browser, '203.0.113.1'));
    const inserts = vi.spyOn(store.authorizations, 'insert');
    const recorded = vi.spyOn(recorder, 'record');
    expect(await refusal(push(from(browser, '203.0.113.1')))).toMatchObject({ code: 'TooManyRequests', oauthError: 'invalid_request', retryAfterSeconds: 300 });
    // The window's first refusal is recorded (START and FAIL); later ones are not, so a flood records no more than the limit allows.
    expect(recorded.mock.calls.map(([, prefix, outcome]) => `${prefix}_${outcome}`)).toEqual([
      'OPENID_PUSHED_AUTHORIZATION_START',
      'OPENID_PUSHED_AUTHORIZATION_FAIL',
    ]);
    // The count comes before the request is read: a request that would be refused anyway is refused so too.
    expect(await refusal(push(from(browser, '203.0.113.1'), { code_challenge_method: 'plain' }))).toMatchObject({ code: 'TooManyRequests' });
    expect(await refusal(push(from(browser, '203.0.113.1')))).toMatchObject({ code: 'TooManyRequests' });
    expect(recorded).toHaveBeenCalledTimes(2);
    expect(inserts).not.toHaveBeenCalled();
    // Another address, and the same address at another tenant (whose client has the same id), have counts of their own:
    // the other tenant offers no such credential, which it can say only once past the count.
    await push(from(browser, '203.0.113.2'));
    expect(await refusal(push(from(contextFor(other, null), '203.0.113.1')))).toMatchObject({ oauthError: 'invalid_scope' });
    clock.advance(300_000);
    await push(from(browser, '203.0.113.1'));
  });

  it('writes nothing, not even a count, for a request that names no registered client', async () => {
    const { authorizationFlow, browser, request, store } = await setup({ rateLimits: LIMITS });
    const hits = vi.spyOn(store.rateLimits, 'hit');
    for (let i = 0; i < 5; i++) {
      expect(await refusal(authorizationFlow.pushAuthorizationRequest(browser, request({ client_id: `guess-${i}` }), undefined))).toMatchObject({
        oauthError: 'invalid_client',
      });
    }
    expect(hits).not.toHaveBeenCalled();
  });

  it('counts a confidential client before its secret is checked, so wrong secrets use the limit up too', async () => {
    const { authorizationFlow, browser, request } = await setup({ confidential: true, rateLimits: LIMITS });
    const push = (secret: string) => authorizationFlow.pushAuthorizationRequest(browser, request({ client_secret: secret }), undefined);
    for (let i = 0; i < 3; i++) expect(await refusal(push('wrong'))).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_client' });
    expect(await refusal(push('s3cret'))).toMatchObject({ code: 'TooManyRequests' });
  });

  it(`keeps at most ${MAX_KEPT_REQUEST_BYTES} bytes of state and extra parameters, in UTF-8 as stored: more is invalid_request, before anything is stored`, async () => {
    const { authorizationFlow, browser, request, store } = await setup();
    const push = (over: Record<string, unknown>) => authorizationFlow.pushAuthorizationRequest(browser, request(over), undefined);
    const state = 's'.repeat(1000);
    // The bound counts the state and the stored JSON of the parameters kept for the identity provider.
    const hints = (last: number) => ({ x_a: 'a'.repeat(900), x_b: 'b'.repeat(900), x_c: 'c'.repeat(900), x_d: 'd'.repeat(last) });
    const last = MAX_KEPT_REQUEST_BYTES - 1000 - new TextEncoder().encode(JSON.stringify(hints(0))).length;
    expect(last).toBeGreaterThan(0);
    const inserts = vi.spyOn(store.authorizations, 'insert');
    const tooLarge = [
      { state, ...hints(last + 1) },
      { state, ...LARGEST_BEFORE },
      { x_a: 'é'.repeat(1000), x_b: 'é'.repeat(1000), x_c: 'é'.repeat(100) },
    ];
    for (const over of tooLarge) {
      expect(await refusal(push(over))).toMatchObject({
        code: 'BadRequest',
        oauthError: 'invalid_request',
        message: expect.stringContaining(`at most ${MAX_KEPT_REQUEST_BYTES} are kept`),
      });
    }
    expect(inserts).not.toHaveBeenCalled();
    // Exactly at the bound is kept.
    await push({ state, ...hints(last) });
    expect(inserts).toHaveBeenCalledTimes(1);
    // The authorization endpoint keeps the same bound, and says so at the wallet's redirect URI.
    const { location } = await authorizationFlow.authorize(browser, request(LARGEST_BEFORE));
    expect(redirectError(location)).toMatchObject({ at: REDIRECT, error: 'invalid_request', state: 'wallet-state' });
  });

  it('spends a request_uri at its first use at the authorization endpoint, even when that attempt fails', async () => {
    const { authorizationFlow, browser, request, store, tenant, identityProvider, clock } = await setup();
    const now = clock.now().toISOString();
    await store.walletClients.insert({
      tenantId: tenant.id,
      clientId: 'wallet-b',
      clientName: 'Another wallet',
      redirectUris: [REDIRECT],
      grantTypes: ['authorization_code'],
      tokenEndpointAuthMethod: 'none',
      createdAt: now,
      updatedAt: now,
    });
    const failures: Array<[string, (uri: string) => Promise<unknown>, Record<string, unknown>]> = [
      [
        'another registered client',
        (uri) => refusal(authorizationFlow.authorize(browser, { client_id: 'wallet-b', request_uri: uri })),
        { oauthError: 'invalid_request' },
      ],
      [
        'an unknown client',
        (uri) => refusal(authorizationFlow.authorize(browser, { client_id: 'nobody', request_uri: uri })),
        { oauthError: 'invalid_client' },
      ],
      ['no client_id', (uri) => refusal(authorizationFlow.authorize(browser, { request_uri: uri })), { oauthError: 'invalid_request' }],
      [
        'an identity provider that cannot be reached',
        async (uri) => {
          identityProvider.failNext('authorizationUrl', 'discovery failed');
          return redirectError((await authorizationFlow.authorize(browser, { client_id: 'wallet', request_uri: uri })).location);
        },
        { error: 'temporarily_unavailable', state: 'wallet-state' },
      ],
    ];
    for (const [what, attempt, outcome] of failures) {
      const { request_uri } = await authorizationFlow.pushAuthorizationRequest(browser, request(), undefined);
      expect(await attempt(request_uri), what).toMatchObject(outcome);
      // The wallet that pushed it cannot use it now.
      expect(await refusal(authorizationFlow.authorize(browser, { client_id: 'wallet', request_uri })), what).toMatchObject({
        code: 'BadRequest',
        oauthError: 'invalid_request',
        message: 'The request_uri is unknown, used, expired or pushed by another client',
      });
    }
    // An expired one goes nowhere either.
    const { request_uri } = await authorizationFlow.pushAuthorizationRequest(browser, request(), undefined);
    clock.advance(60_000);
    expect(await refusal(authorizationFlow.authorize(browser, { client_id: 'wallet', request_uri }))).toMatchObject({ oauthError: 'invalid_request' });
  });

  it('of racing attempts with one request_uri, exactly one goes on to sign-in', async () => {
    const { authorizationFlow, browser, request, identityProvider } = await setup();
    const { request_uri } = await authorizationFlow.pushAuthorizationRequest(browser, request(), undefined);
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => authorizationFlow.authorize(browser, { client_id: 'wallet', request_uri })));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(won[0]?.value.location).toBe(identityProvider.requests.at(-1)?.toString());
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ oauthError: 'invalid_request' });
  });
});
