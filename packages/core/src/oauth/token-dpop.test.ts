import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contextFor, withTenant } from '../../test/harness.ts';
import { dpopProof, jwkThumbprint, proofJwt, readFakeMdoc, walletKey, type WalletKey } from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import type { CredentialConfigurationInput } from '../configurations/model.ts';
import type { WalletClient } from '../oauth-clients/model.ts';
import { PRE_AUTHORIZED_CODE_GRANT } from '../offers/uri.ts';
import type { DomainError } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { TokenRequestProofs } from './token.ts';

// DPoP through the composed core (RFC 9449): the token endpoint binds the access token to the key
// of the request's proof, and the credential endpoint then takes that token only with a proof by
// the same key, for this request and this token.

const DOCTYPE = 'org.iso.18013.5.1.mDL';
const mdl = (): CredentialConfigurationInput => ({
  type: DOCTYPE,
  expiresIn: { days: 365 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
});
const REDIRECT = 'https://wallet.example/cb';
const VERIFIER = 'v'.repeat(43);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

async function setup() {
  const h = await withTenant();
  const { tenant, ctx: admin } = h;
  const wallet = contextFor(tenant, null);
  await h.iacas.update(admin, (await h.iacas.create(admin, { country: 'US' })).id, { active: true });
  const mdoc = await h.configurations.create(admin, 'mso_mdoc', mdl());
  const issuer = wallet.origin;
  const tokenUrl = `${issuer}/v1/oauth/token`;
  const credentialUrl = `${issuer}/v1/openid/credential`;
  const now = () => Math.floor(h.clock.now().getTime() / 1000);

  /** The pre-authorized code of a new offer. */
  const offerCode = async () => {
    const created = await h.offers.createPreAuthorizedOffer(admin, { credentials: [mdoc.id], claims: { familyName: 'Lovelace' } });
    return JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'] as string;
  };
  const token = (form: Record<string, unknown>, proofs?: TokenRequestProofs, ctx: RequestContext = wallet) =>
    h.tokenEndpoint.token(ctx, form, undefined, undefined, proofs);
  const preAuthorized = async (proofs?: TokenRequestProofs, form: Record<string, unknown> = {}) =>
    token({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': await offerCode(), ...form }, proofs);
  /** A DPoP proof by `key` for the token endpoint, issued now on the test's clock. */
  const tokenProof = (key: WalletKey, over: Parameters<typeof dpopProof>[2] = {}) => dpopProof(key, tokenUrl, { iat: now(), ...over });

  /** A credential request for the mDoc with a fresh key proof by `holder`, sent with the given headers. */
  const credential = async (headers: { authorization?: string; dpop?: string | string[] }, holder: WalletKey = walletKey()) => {
    const nonce = (await h.nonces.issue(wallet)).c_nonce;
    const body = JSON.stringify({ credential_configuration_id: mdoc.id, proofs: { jwt: [proofJwt(holder, { audience: issuer, nonce, iat: now() })] } });
    return h.credentialEndpoint.issue(wallet, { ...headers, contentType: 'application/json', body });
  };
  /** A DPoP proof by `key` for the credential endpoint, naming `accessToken` by its hash unless told not to. */
  const credentialProof = (key: WalletKey, accessToken: string | undefined, over: Parameters<typeof dpopProof>[2] = {}) =>
    dpopProof(key, credentialUrl, { iat: now(), ...(accessToken !== undefined ? { accessToken } : {}), ...over });

  /** Registers a wallet client in the tenant, straight in the store. */
  const registerClient = async (over: Partial<WalletClient>) => {
    const at = h.clock.now().toISOString();
    await h.store.walletClients.insert({
      tenantId: tenant.id,
      clientId: 'wallet',
      clientName: 'A wallet',
      redirectUris: [REDIRECT],
      grantTypes: ['authorization_code', PRE_AUTHORIZED_CODE_GRANT],
      tokenEndpointAuthMethod: 'none',
      createdAt: at,
      updatedAt: at,
      ...over,
    });
  };
  return {
    ...h,
    tenant,
    admin,
    wallet,
    mdoc,
    issuer,
    tokenUrl,
    credentialUrl,
    now,
    offerCode,
    token,
    preAuthorized,
    tokenProof,
    credential,
    credentialProof,
    registerClient,
  };
}

describe('the token endpoint with DPoP (RFC 9449 §5, §6)', () => {
  it('gives a DPoP-bound token (token_type DPoP, cnf.jkt the proof key’s thumbprint) to a pre-authorized grant with a proof', async () => {
    const { preAuthorized, tokenProof, walletTokens, tenant, issuer } = await setup();
    const key = walletKey();
    const response = await preAuthorized({ dpop: tokenProof(key) });
    expect(response.token_type).toBe('DPoP');
    const claims = await walletTokens.verify(tenant.id, issuer, response.access_token);
    expect(claims?.dpopJkt).toBe(jwkThumbprint(key.publicJwk));
    // Computed here from RFC 7638 §3.1, apart from both kits: the required members in lexicographic order.
    const { crv, kty, x, y } = key.publicJwk as { crv: string; kty: string; x: string; y: string };
    expect(claims?.dpopJkt).toBe(createHash('sha256').update(`{"crv":"${crv}","kty":"${kty}","x":"${x}","y":"${y}"}`).digest('base64url'));
  });

  it('gives a Bearer token, unbound, to a grant without a proof', async () => {
    const { preAuthorized, walletTokens, tenant, issuer } = await setup();
    const response = await preAuthorized();
    expect(response.token_type).toBe('Bearer');
    expect((await walletTokens.verify(tenant.id, issuer, response.access_token))?.dpopJkt).toBeUndefined();
  });

  it('refuses a bad proof with 400 invalid_dpop_proof before the code is spent, so that the wallet can try again', async () => {
    const { token, offerCode, tokenProof, credentialUrl, now } = await setup();
    const key = walletKey();
    const code = await offerCode();
    const form = { grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': code };
    for (const dpop of [dpopProof(key, credentialUrl, { iat: now() }), tokenProof(key, { header: { typ: 'JWT' } }), [tokenProof(key), tokenProof(key)]]) {
      const error = await refusal(token(form, { dpop }));
      expect(error).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_dpop_proof' });
      expect(error.headers?.['www-authenticate']).toBeUndefined();
    }
    expect((await token(form, { dpop: tokenProof(key) })).token_type).toBe('DPoP');
  });

  it('refuses a replayed token request proof', async () => {
    const { preAuthorized, tokenProof } = await setup();
    const proof = tokenProof(walletKey());
    await preAuthorized({ dpop: proof });
    expect(await refusal(preAuthorized({ dpop: proof }))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_dpop_proof' });
  });

  it('holds a client registered with dpop.required to DPoP: without a proof it is refused and its code stays usable', async () => {
    const { token, offerCode, tokenProof, registerClient, walletTokens, tenant, issuer } = await setup();
    await registerClient({ dpop: { required: true } });
    const form = { grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': await offerCode(), client_id: 'wallet' };
    expect(await refusal(token(form))).toMatchObject({
      code: 'BadRequest',
      oauthError: 'invalid_dpop_proof',
      message: expect.stringContaining('dpop.required'),
    });
    const key = walletKey();
    const response = await token(form, { dpop: tokenProof(key) });
    expect(response.token_type).toBe('DPoP');
    expect(await walletTokens.verify(tenant.id, issuer, response.access_token)).toMatchObject({ dpopJkt: jwkThumbprint(key.publicJwk), clientId: 'wallet' });
  });

  it('lets anonymous wallets and clients without dpop.required choose Bearer', async () => {
    const { preAuthorized, registerClient } = await setup();
    await registerClient({ dpop: { required: false } });
    expect((await preAuthorized(undefined, { client_id: 'wallet' })).token_type).toBe('Bearer');
    expect((await preAuthorized(undefined, { client_id: 'unregistered-wallet' })).token_type).toBe('Bearer');
  });

  it('authenticates a confidential client a pre-authorized request names, and stamps only an authenticated client on the token', async () => {
    const { preAuthorized, registerClient, walletTokens, tenant, issuer, hasher } = await setup();
    await registerClient({ tokenEndpointAuthMethod: 'client_secret_post', secretHash: await hasher.hash('s3cret') });
    // Naming a confidential client without its secret is no way to have its name on the token.
    expect(await refusal(preAuthorized(undefined, { client_id: 'wallet' }))).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_client' });
    expect(await refusal(preAuthorized(undefined, { client_id: 'wallet', client_secret: 'wrong' }))).toMatchObject({
      code: 'Unauthorized',
      oauthError: 'invalid_client',
    });
    const authenticated = await preAuthorized(undefined, { client_id: 'wallet', client_secret: 's3cret' });
    expect(await walletTokens.verify(tenant.id, issuer, authenticated.access_token)).toMatchObject({ clientId: 'wallet' });
    // An id no client holds stays anonymous: no client on the token.
    const anonymous = await preAuthorized(undefined, { client_id: 'unregistered-wallet' });
    expect(await walletTokens.verify(tenant.id, issuer, anonymous.access_token)).not.toHaveProperty('clientId');
  });
});

describe('the credential endpoint with a DPoP-bound token (RFC 9449 §7)', () => {
  async function bound() {
    const s = await setup();
    const key = walletKey();
    const { access_token } = await s.preAuthorized({ dpop: s.tokenProof(key) });
    return { ...s, key, accessToken: access_token };
  }

  /** A 401 whose WWW-Authenticate is a DPoP challenge with `error`. */
  function expectDpopChallenge(error: DomainError, oauthError: string) {
    expect(error).toMatchObject({ code: 'Unauthorized', oauthError });
    expect(error.headers?.['www-authenticate']).toMatch(new RegExp(`^DPoP error="${oauthError}", (?:.*, )?algs="ES256 EdDSA"$`));
  }

  it('issues with Authorization: DPoP and a proof by the bound key for this request and this token', async () => {
    const { credential, credentialProof, key, accessToken } = await bound();
    const holder = walletKey();
    const response = await credential({ authorization: `DPoP ${accessToken}`, dpop: credentialProof(key, accessToken) }, holder);
    const body = JSON.parse(response.body) as { credentials: Array<{ credential: string }> };
    expect(readFakeMdoc(body.credentials[0]!.credential).deviceKey).toEqual(holder.publicJwk);
  });

  it('refuses the bound token sent as a Bearer token, with or without a proof: 401 invalid_token', async () => {
    const { credential, credentialProof, key, accessToken } = await bound();
    expectDpopChallenge(await refusal(credential({ authorization: `Bearer ${accessToken}` })), 'invalid_token');
    expectDpopChallenge(await refusal(credential({ authorization: `Bearer ${accessToken}`, dpop: credentialProof(key, accessToken) })), 'invalid_token');
  });

  it('refuses DPoP without a proof, with a proof by another key, or with a proof without ath: 401 invalid_dpop_proof', async () => {
    const { credential, credentialProof, key, accessToken, tokenUrl, now, mdocEngine } = await bound();
    const authorization = `DPoP ${accessToken}`;
    expectDpopChallenge(await refusal(credential({ authorization })), 'invalid_dpop_proof');
    expectDpopChallenge(await refusal(credential({ authorization, dpop: credentialProof(walletKey(), accessToken) })), 'invalid_dpop_proof');
    expectDpopChallenge(await refusal(credential({ authorization, dpop: credentialProof(key, undefined) })), 'invalid_dpop_proof');
    expectDpopChallenge(await refusal(credential({ authorization, dpop: credentialProof(key, 'another-token') })), 'invalid_dpop_proof');
    expectDpopChallenge(await refusal(credential({ authorization, dpop: dpopProof(key, tokenUrl, { iat: now(), accessToken }) })), 'invalid_dpop_proof');
    expect(mdocEngine.calls).toBe(0);
  });

  it('refuses a replayed proof, even one first spent on a request refused for its body', async () => {
    const { credential, credentialEndpoint, credentialProof, key, accessToken, wallet } = await bound();
    const proof = credentialProof(key, accessToken);
    const malformed = await refusal(
      credentialEndpoint.issue(wallet, { authorization: `DPoP ${accessToken}`, dpop: proof, contentType: 'application/json', body: 'not json' }),
    );
    // Past authentication: refused for its body, not for its token.
    expect(malformed.code).toBe('BadRequest');
    expectDpopChallenge(await refusal(credential({ authorization: `DPoP ${accessToken}`, dpop: proof })), 'invalid_dpop_proof');
    expect(JSON.parse((await credential({ authorization: `DPoP ${accessToken}`, dpop: credentialProof(key, accessToken) })).body)).toHaveProperty(
      'credentials',
    );
  });

  it('takes the bound token at the notification endpoint with a proof whose htu is that endpoint', async () => {
    const { credential, credentialProof, credentialEndpoint, key, accessToken, wallet, issuer, now } = await bound();
    const issued = JSON.parse((await credential({ authorization: `DPoP ${accessToken}`, dpop: credentialProof(key, accessToken) })).body) as {
      notification_id: string;
    };
    const body = JSON.stringify({ notification_id: issued.notification_id, event: 'credential_accepted' });
    const notify = (dpop: string) => credentialEndpoint.notify(wallet, { authorization: `DPoP ${accessToken}`, dpop, contentType: 'application/json', body });
    // A proof made for the credential endpoint does not do for the notification endpoint.
    expectDpopChallenge(await refusal(notify(credentialProof(key, accessToken))), 'invalid_dpop_proof');
    await expect(notify(dpopProof(key, `${issuer}/v1/openid/notification`, { iat: now(), accessToken }))).resolves.toBeUndefined();
  });

  it('takes the bound token at the deferred credential endpoint only with a proof whose htu is that endpoint (docs/deferred-issuance.md)', async () => {
    const { credential, credentialProof, deferredCredentialEndpoint, configurations, admin, mdoc, key, accessToken, wallet, issuer, now } = await bound();
    await configurations.update(admin, 'mso_mdoc', mdoc.id, { ...mdl(), deferred: {} });
    const held = await credential({ authorization: `DPoP ${accessToken}`, dpop: credentialProof(key, accessToken) });
    expect(held.status).toBe(202);
    const { transaction_id } = JSON.parse(held.body) as { transaction_id: string };
    const body = JSON.stringify({ transaction_id });
    const poll = (authorization: string, dpop?: string) =>
      deferredCredentialEndpoint.collect(wallet, { authorization, ...(dpop ? { dpop } : {}), contentType: 'application/json', body });
    const deferredUrl = `${issuer}/v1/openid/deferred_credential`;
    expectDpopChallenge(await refusal(poll(`Bearer ${accessToken}`)), 'invalid_token');
    expectDpopChallenge(await refusal(poll(`DPoP ${accessToken}`)), 'invalid_dpop_proof');
    expectDpopChallenge(await refusal(poll(`DPoP ${accessToken}`, credentialProof(key, accessToken))), 'invalid_dpop_proof');
    expectDpopChallenge(await refusal(poll(`DPoP ${accessToken}`, dpopProof(walletKey(), deferredUrl, { iat: now(), accessToken }))), 'invalid_dpop_proof');
    const pending = await poll(`DPoP ${accessToken}`, dpopProof(key, deferredUrl, { iat: now(), accessToken }));
    expect(pending).toMatchObject({ status: 202 });
    expect(JSON.parse(pending.body)).toEqual({ transaction_id, interval: 5 });
  });

  it('names the mount path in htu when the API is mounted under one, at the token and the credential endpoint', async () => {
    const { tokenEndpoint, credentialEndpoint, offerCode, nonces, mdoc, wallet, issuer, now } = await setup();
    const key = walletKey();
    const mounted = `${issuer}/issuance`;
    const form = { grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': await offerCode() };
    expect(
      await refusal(tokenEndpoint.token(wallet, form, '/issuance', undefined, { dpop: dpopProof(key, `${issuer}/v1/oauth/token`, { iat: now() }) })),
    ).toMatchObject({ oauthError: 'invalid_dpop_proof' });
    const { access_token, token_type } = await tokenEndpoint.token(wallet, form, '/issuance', undefined, {
      dpop: dpopProof(key, `${mounted}/v1/oauth/token`, { iat: now() }),
    });
    expect(token_type).toBe('DPoP');
    const request = async (htu: string) => {
      const body = JSON.stringify({
        credential_configuration_id: mdoc.id,
        proofs: { jwt: [proofJwt(walletKey(), { audience: mounted, nonce: (await nonces.issue(wallet)).c_nonce, iat: now() })] },
      });
      return credentialEndpoint.issue(wallet, {
        authorization: `DPoP ${access_token}`,
        dpop: dpopProof(key, htu, { iat: now(), accessToken: access_token }),
        contentType: 'application/json',
        body,
        basePath: '/issuance',
      });
    };
    expect(await refusal(request(`${issuer}/v1/openid/credential`))).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_dpop_proof' });
    expect(JSON.parse((await request(`${mounted}/v1/openid/credential`)).body)).toHaveProperty('credentials');
  });

  it('refuses a Bearer token sent with the DPoP scheme', async () => {
    const { preAuthorized, credential, credentialProof } = await setup();
    const { access_token } = await preAuthorized();
    expectDpopChallenge(
      await refusal(credential({ authorization: `DPoP ${access_token}`, dpop: credentialProof(walletKey(), access_token) })),
      'invalid_token',
    );
    expect(JSON.parse((await credential({ authorization: `Bearer ${access_token}` })).body)).toHaveProperty('credentials');
  });
});

describe('dpop_jkt at the pushed authorization request (RFC 9449 §10), enforced at the token endpoint', () => {
  async function authorizationCode() {
    const s = await setup();
    await s.registerClient({});
    const at = s.clock.now().toISOString();
    await s.store.authenticationProviders.insert({
      id: 'idp',
      tenantId: s.tenant.id,
      url: 'https://idp.example',
      clientId: 'vellum',
      sealedClientSecret: s.secretBox.seal('idp-secret', `authentication-provider:${s.tenant.id}:idp`),
      scope: 'openid',
      tokenEndpointAuthMethod: 'client_secret_basic',
      staticRequestParameters: {},
      forwardedRequestParameters: [],
      claimsToPersist: ['familyName'],
      createdAt: at,
      updatedAt: at,
    });
    const request = {
      response_type: 'code',
      client_id: 'wallet',
      redirect_uri: REDIRECT,
      scope: `mso_mdoc:${DOCTYPE}`,
      code_challenge_method: 'S256',
      code_challenge: CHALLENGE,
    };
    const parUrl = `${s.issuer}/v1/oauth/par`;
    /** Pushes the request (with `extra` fields and proofs), signs the user in, and returns the code the wallet receives. */
    const code = async (extra: Record<string, unknown> = {}, proofs?: TokenRequestProofs) => {
      const { request_uri } = await s.authorizationFlow.pushAuthorizationRequest(s.wallet, { ...request, ...extra }, undefined, undefined, proofs);
      const { location } = await s.authorizationFlow.authorize(s.wallet, { client_id: 'wallet', request_uri });
      const callback = await s.identityProvider.signIn(location, 'ada', { familyName: 'Lovelace' });
      const back = new URL((await s.authorizationFlow.authenticationCallback(s.wallet, callback)).location);
      return back.searchParams.get('code') as string;
    };
    const redeem = (c: string, proofs?: TokenRequestProofs) =>
      s.token({ grant_type: 'authorization_code', client_id: 'wallet', code: c, redirect_uri: REDIRECT, code_verifier: VERIFIER }, proofs);
    return { ...s, request, code, redeem, parUrl };
  }

  it('redeems a code bound by dpop_jkt only with a proof by that key; a refused attempt leaves the code usable', async () => {
    const { code, redeem, tokenProof, walletTokens, tenant, issuer } = await authorizationCode();
    const key = walletKey();
    const c = await code({ dpop_jkt: jwkThumbprint(key.publicJwk) });
    expect(await refusal(redeem(c))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_dpop_proof', message: expect.stringContaining('dpop_jkt') });
    expect(await refusal(redeem(c, { dpop: tokenProof(walletKey()) }))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_dpop_proof' });
    const response = await redeem(c, { dpop: tokenProof(key) });
    expect(response.token_type).toBe('DPoP');
    expect((await walletTokens.verify(tenant.id, issuer, response.access_token))?.dpopJkt).toBe(jwkThumbprint(key.publicJwk));
  });

  it('binds the code to the key of a DPoP proof sent with the pushed request, as dpop_jkt would', async () => {
    const { code, redeem, tokenProof, parUrl, now } = await authorizationCode();
    const key = walletKey();
    const c = await code({}, { dpop: dpopProof(key, parUrl, { iat: now() }) });
    expect(await refusal(redeem(c))).toMatchObject({ oauthError: 'invalid_dpop_proof' });
    expect((await redeem(c, { dpop: tokenProof(key) })).token_type).toBe('DPoP');
  });

  it('refuses a pushed request whose dpop_jkt is not the thumbprint of its DPoP proof’s key', async () => {
    const { authorizationFlow, wallet, request, parUrl, now } = await authorizationCode();
    const form = { ...request, dpop_jkt: jwkThumbprint(walletKey().publicJwk) };
    const error = await refusal(
      authorizationFlow.pushAuthorizationRequest(wallet, form, undefined, undefined, { dpop: dpopProof(walletKey(), parUrl, { iat: now() }) }),
    );
    expect(error).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_dpop_proof' });
  });

  it('leaves a code without dpop_jkt free to be redeemed for a Bearer token', async () => {
    const { code, redeem } = await authorizationCode();
    expect((await redeem(await code())).token_type).toBe('Bearer');
  });
});
