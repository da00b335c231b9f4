import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contextFor, withTenants } from '../../test/harness.ts';
import { readFakeSessionToken } from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import type { CredentialConfigurationInput } from '../configurations/model.ts';
import type { Tenant } from '../tenancy/model.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { REQUEST_URI_PREFIX } from './authorize.ts';
import { authorizationClaimsContext, openClaims } from '../shared/sealed-claims.ts';

const mdl = (type = 'org.iso.18013.5.1.mDL'): CredentialConfigurationInput => ({
  type,
  expiresIn: { days: 365 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
});

const REDIRECT = 'https://wallet.example/cb';
const VERIFIER = 'a'.repeat(20) + 'B'.repeat(23);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

async function setup(options: { hook?: boolean; confidential?: boolean } = {}) {
  const h = await withTenants();
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
