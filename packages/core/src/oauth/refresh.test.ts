import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contextFor, secondServer, withTenant } from '../../test/harness.ts';
import { API_KEY_CLAIM_SOURCE, dpopProof, jwkThumbprint, proofJwt, readFakeMdoc, walletKey, type WalletKey } from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import type { CredentialConfigurationInput } from '../configurations/model.ts';
import type { WalletClient } from '../oauth-clients/model.ts';
import { PRE_AUTHORIZED_CODE_GRANT } from '../offers/uri.ts';
import type { HttpClient, OutboundFetch } from '../shared/ports.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { TokenRequestProofs, TokenResponse } from './token.ts';

// Refresh tokens through the composed core (RFC 6749 §6, RFC 9700 §4.14, RFC 9449 §5;
// docs/refresh-tokens.md): issued when a configuration allows refresh, rotated on each use, a
// replay revokes the family, a bound family needs its key, and a refreshed access token issues a
// fresh credential with the same claims.

const DOCTYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const HOUR = 3_600_000;
const mdl = (over: Partial<CredentialConfigurationInput> = {}): CredentialConfigurationInput => ({
  type: DOCTYPE,
  expiresIn: { days: 365 },
  claimMappings: { [NS]: { family_name: { mapFrom: 'claims.familyName', required: true }, tier: { mapFrom: 'claims.tier' } } },
  ...over,
});

async function setup(
  policy: CredentialConfigurationInput['refresh'] | null = { allowed: true },
  server?: (h: Awaited<ReturnType<typeof withTenant>>) => ReturnType<typeof secondServer>,
) {
  const h = await withTenant();
  const { tenant, ctx: admin } = h;
  const wallet = contextFor(tenant, null);
  await h.iacas.update(admin, (await h.iacas.create(admin, { country: 'US' })).id, { active: true });
  const extra = server ? { claimSourceId: (await h.claimSources.create(admin, API_KEY_CLAIM_SOURCE)).id } : {};
  const mdoc = await h.configurations.create(admin, 'mso_mdoc', mdl({ ...(policy ? { refresh: policy } : {}), ...extra }));
  // A second server over the same store when the test needs other ports (an outbound HTTP client).
  const endpoints = server ? server(h) : h;
  const issuer = wallet.origin;
  const now = () => Math.floor(h.clock.now().getTime() / 1000);
  const offer = async (claims: Record<string, unknown> = { familyName: 'Lovelace' }) => {
    const created = await h.offers.createPreAuthorizedOffer(admin, { credentials: [mdoc.id], claims });
    const code = JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT][
      'pre-authorized_code'
    ] as string;
    return { id: created.id, code };
  };
  const token = (form: Record<string, unknown>, proofs?: TokenRequestProofs, ctx: RequestContext = wallet) =>
    endpoints.tokenEndpoint.token(ctx, form, undefined, undefined, proofs);
  const preAuthorized = async (proofs?: TokenRequestProofs, form: Record<string, unknown> = {}) =>
    token({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': (await offer()).code, ...form }, proofs);
  const refresh = (refreshToken: string, proofs?: TokenRequestProofs, form: Record<string, unknown> = {}) =>
    token({ grant_type: 'refresh_token', refresh_token: refreshToken, ...form }, proofs);
  const tokenProof = (key: WalletKey) => dpopProof(key, `${issuer}/v1/oauth/token`, { iat: now() });
  /** The mDoc issued for `response`'s access token, bound to `holder`. */
  const credential = async (response: TokenResponse, holder: WalletKey = walletKey(), dpopKey?: WalletKey) => {
    const nonce = (await endpoints.nonces.issue(wallet)).c_nonce;
    const body = JSON.stringify({ credential_configuration_id: mdoc.id, proofs: { jwt: [proofJwt(holder, { audience: issuer, nonce, iat: now() })] } });
    const headers = dpopKey
      ? {
          authorization: `DPoP ${response.access_token}`,
          dpop: dpopProof(dpopKey, `${issuer}/v1/openid/credential`, { iat: now(), accessToken: response.access_token }),
        }
      : { authorization: `Bearer ${response.access_token}` };
    const answer = await endpoints.credentialEndpoint.issue(wallet, { ...headers, contentType: 'application/json', body });
    return readFakeMdoc((JSON.parse(answer.body) as { credentials: Array<{ credential: string }> }).credentials[0]!.credential);
  };
  const registerClient = async (over: Partial<WalletClient>) => {
    const at = h.clock.now().toISOString();
    await h.store.walletClients.insert({
      tenantId: tenant.id,
      clientId: 'wallet',
      clientName: 'A wallet',
      redirectUris: ['https://wallet.example/cb'],
      grantTypes: ['authorization_code', PRE_AUTHORIZED_CODE_GRANT],
      tokenEndpointAuthMethod: 'none',
      createdAt: at,
      updatedAt: at,
      ...over,
    });
  };
  return { ...h, admin, wallet, mdoc, issuer, offer, token, preAuthorized, refresh, tokenProof, credential, registerClient };
}

const claimsOf = (mdoc: ReturnType<typeof readFakeMdoc>) => mdoc.namespaces[NS];

describe('refresh tokens (RFC 6749 §6, docs/refresh-tokens.md)', () => {
  it('gives a refresh token with a grant of a configuration that allows refresh, and stores only its digest', async () => {
    const { preAuthorized, store, tenant, digests } = await setup();
    const response = await preAuthorized();
    expect(response.refresh_token).toEqual(expect.any(String));
    expect(response.refresh_token!.length).toBeGreaterThanOrEqual(43);
    const stored = await store.refreshTokens.findByDigest(tenant.id, digests.sha256(response.refresh_token!));
    expect(stored).toMatchObject({ grant: 'pre-authorized_code', configurationIds: [expect.any(String)] });
    expect(JSON.stringify(stored)).not.toContain(response.refresh_token);
    // The family keeps the offer's claims sealed, never in the clear.
    expect(stored?.sealedClaims).toBeDefined();
    expect(JSON.stringify(stored)).not.toContain('Lovelace');
  });

  it('gives no refresh token, and the token response exactly as before, when no configuration allows refresh', async () => {
    const { preAuthorized, refresh, metadata, wallet } = await setup(null);
    const response = await preAuthorized();
    expect(Object.keys(response).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(await refusal(refresh('not-a-refresh-token'))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_grant' });
    expect((await metadata.authorizationServerMetadata(wallet)).grant_types_supported).not.toContain('refresh_token');
  });

  it('lists refresh_token in the authorization server metadata once a configuration allows refresh', async () => {
    const { metadata, wallet } = await setup();
    expect((await metadata.authorizationServerMetadata(wallet)).grant_types_supported).toContain('refresh_token');
  });

  it('refreshes: a new access token and a new refresh token, and a fresh credential with the same claims bound to a new key', async () => {
    const { preAuthorized, refresh, credential, walletTokens, tenant, issuer } = await setup();
    const first = await preAuthorized();
    const firstKey = walletKey();
    const original = await credential(first, firstKey);
    expect(claimsOf(original)).toMatchObject({ family_name: { value: 'Lovelace' } });

    const refreshed = await refresh(first.refresh_token!);
    expect(refreshed).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: first.scope, refresh_token: expect.any(String) });
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect(await walletTokens.verify(tenant.id, issuer, refreshed.access_token)).toMatchObject({ grant: 'refresh_token' });
    const newKey = walletKey();
    const fresh = await credential(refreshed, newKey);
    expect(claimsOf(fresh)).toEqual(claimsOf(original));
    expect(fresh.deviceKey).toEqual(newKey.publicJwk);
    expect(fresh.deviceKey).not.toEqual(original.deviceKey);

    // One credential per configuration per access token, as for the first token.
    expect(await refusal(credential(refreshed))).toMatchObject({ oauthError: 'credential_request_denied' });
    // The rotated token refreshes again, and so on.
    const again = await refresh(refreshed.refresh_token!);
    expect(claimsOf(await credential(again))).toEqual(claimsOf(original));
  });

  it('carries the offer’s key attestation levels onto every access token of the family, so a refreshed token cannot skip them', async () => {
    const { offers, admin, mdoc, token, refresh, credential, walletTokens, tenant, issuer } = await setup();
    const created = await offers.createPreAuthorizedOffer(admin, {
      credentials: [mdoc.id],
      claims: { familyName: 'Lovelace' },
      keyAttestationsRequired: { keyStorage: ['iso_18045_high'] },
    });
    const code = JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'];
    const first = await token({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': code });
    const refreshed = await refresh(first.refresh_token!);
    for (const response of [first, refreshed]) {
      expect(await walletTokens.verify(tenant.id, issuer, response.access_token)).toMatchObject({
        keyAttestationsRequired: { keyStorage: ['iso_18045_high'] },
      });
      // A proof without a key attestation is refused under either token.
      expect(await refusal(credential(response))).toMatchObject({ oauthError: 'invalid_proof' });
    }
  });

  it('refuses a rotated refresh token presented again with invalid_grant, and revokes its whole family (RFC 9700 §4.14.2)', async () => {
    const { preAuthorized, refresh, credential, store, tenant, digests } = await setup();
    const first = await preAuthorized();
    const second = await refresh(first.refresh_token!);
    expect(await refusal(refresh(first.refresh_token!))).toMatchObject({
      code: 'BadRequest',
      oauthError: 'invalid_grant',
      message: expect.stringContaining('revoked'),
    });
    // The legitimate holder's current token is revoked with the family, and so is what its access token may issue.
    expect(await refusal(refresh(second.refresh_token!))).toMatchObject({ oauthError: 'invalid_grant', message: 'The refresh token has been revoked' });
    expect(await refusal(credential(second))).toMatchObject({ oauthError: 'credential_request_denied' });
    const row = await store.refreshTokens.findByDigest(tenant.id, digests.sha256(second.refresh_token!));
    expect(row?.revokedAt).toBeDefined();
  });

  it('of two refreshes racing with one token, one wins and the other is refused as a replay', async () => {
    const { preAuthorized, refresh } = await setup();
    const first = await preAuthorized();
    const results = await Promise.allSettled([refresh(first.refresh_token!), refresh(first.refresh_token!)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { oauthError: 'invalid_grant' } });
  });

  it('binds the family to the DPoP key of the first token: a proof by another key, or none, is invalid_grant', async () => {
    const { preAuthorized, refresh, tokenProof, credential, walletTokens, tenant, issuer } = await setup();
    const key = walletKey();
    const first = await preAuthorized({ dpop: tokenProof(key) });
    expect(first.token_type).toBe('DPoP');
    expect(await refusal(refresh(first.refresh_token!))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_grant' });
    expect(await refusal(refresh(first.refresh_token!, { dpop: tokenProof(walletKey()) }))).toMatchObject({ oauthError: 'invalid_grant' });
    // Refused before the token was used: the holder of the key still refreshes.
    const refreshed = await refresh(first.refresh_token!, { dpop: tokenProof(key) });
    expect(refreshed.token_type).toBe('DPoP');
    expect((await walletTokens.verify(tenant.id, issuer, refreshed.access_token))?.dpopJkt).toBe(jwkThumbprint(key.publicJwk));
    expect(claimsOf(await credential(refreshed, walletKey(), key))).toMatchObject({ family_name: { value: 'Lovelace' } });
  });

  it('refreshes until maxAge after the first token, rotation or not, then refuses with invalid_grant', async () => {
    const { preAuthorized, refresh, clock } = await setup({ allowed: true, maxAge: { days: 1 } });
    const first = await preAuthorized();
    clock.advance(20 * HOUR);
    const second = await refresh(first.refresh_token!);
    clock.advance(5 * HOUR);
    expect(await refusal(refresh(second.refresh_token!))).toMatchObject({ oauthError: 'invalid_grant', message: 'The refresh token has expired' });
  });

  it('keeps the default maxAge of 30 days', async () => {
    const { preAuthorized, refresh, clock } = await setup();
    const first = await preAuthorized();
    clock.advance(29 * 24 * HOUR);
    const second = await refresh(first.refresh_token!);
    clock.advance(2 * 24 * HOUR);
    expect(await refusal(refresh(second.refresh_token!))).toMatchObject({ oauthError: 'invalid_grant' });
  });

  it('stops refreshing a configuration that no longer allows refresh', async () => {
    const { preAuthorized, refresh, configurations, admin, mdoc } = await setup();
    const first = await preAuthorized();
    const { id: _id, tenantId: _t, createdAt: _c, updatedAt: _u, format: _f, refresh: _r, ...body } = mdoc as typeof mdoc & Record<string, unknown>;
    await configurations.update(admin, 'mso_mdoc', mdoc.id, body as never);
    expect(await refusal(refresh(first.refresh_token!))).toMatchObject({ oauthError: 'invalid_grant' });
  });

  it('revokes every family of a user, and the family that issued a credential', async () => {
    const { offer, token, refresh, credential, refreshTokens, admin, store, tenant, users, digests } = await setup();
    const user = await users.create(admin, { claims: {} });
    const redeem = async () => {
      const o = await offer();
      return token({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': o.code });
    };
    const a = await redeem();
    const b = await redeem();
    await credential(a);
    const issued = (await store.issuedCredentials.list(tenant.id, {}, { limit: 10 })).items;
    expect(issued).toHaveLength(1);
    // The credential's family only: b still refreshes.
    expect(await refreshTokens.revokeForCredential(admin, issued[0]!.id)).toEqual({ revokedFamilies: 1 });
    expect(await refusal(refresh(a.refresh_token!))).toMatchObject({ oauthError: 'invalid_grant', message: 'The refresh token has been revoked' });
    const b2 = await refresh(b.refresh_token!);
    // A credential issued under a refreshed token names its family through the refresh token it came with.
    await credential(b2);
    const refreshedCredential = (await store.issuedCredentials.list(tenant.id, {}, { limit: 10 })).items.find((c) => c.id !== issued[0]!.id);
    expect(await refreshTokens.revokeForCredential(admin, refreshedCredential!.id)).toEqual({ revokedFamilies: 1 });
    expect(await refusal(refresh(b2.refresh_token!))).toMatchObject({ oauthError: 'invalid_grant' });
    // Per user: the offers made no user of their own here, so revoke those of the offers' user.
    const c = await redeem();
    const row = await store.refreshTokens.findByDigest(tenant.id, digests.sha256(c.refresh_token!));
    expect(await refreshTokens.revokeForUser(admin, row!.userId)).toEqual({ revokedFamilies: 1 });
    expect(await refusal(refresh(c.refresh_token!))).toMatchObject({ oauthError: 'invalid_grant' });
    // A user without families, an unknown user or credential.
    expect(await refreshTokens.revokeForUser(admin, user.id)).toEqual({ revokedFamilies: 0 });
    expect(await refusal(refreshTokens.revokeForUser(admin, crypto.randomUUID()))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(refreshTokens.revokeForCredential(admin, crypto.randomUUID()))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(refreshTokens.revokeForCredential(admin, 'nope'))).toMatchObject({ code: 'BadRequest' });
  });

  it('holds a family to the client it was issued to', async () => {
    const { preAuthorized, refresh, registerClient, hasher } = await setup();
    const anonymous = await preAuthorized();
    await registerClient({ tokenEndpointAuthMethod: 'client_secret_post', secretHash: await hasher.hash('s3cret') });
    // A token of an anonymous wallet is not refreshed in a registered client's name.
    expect(await refusal(refresh(anonymous.refresh_token!, undefined, { client_id: 'wallet', client_secret: 's3cret' }))).toMatchObject({
      oauthError: 'invalid_grant',
    });
    const confidential = await preAuthorized(undefined, { client_id: 'wallet', client_secret: 's3cret' });
    // RFC 6749 §6: the client it was issued to authenticates.
    expect(await refusal(refresh(confidential.refresh_token!))).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_client' });
    expect(await refusal(refresh(confidential.refresh_token!, undefined, { client_id: 'wallet', client_secret: 'wrong' }))).toMatchObject({
      oauthError: 'invalid_client',
    });
    expect((await refresh(confidential.refresh_token!, undefined, { client_id: 'wallet', client_secret: 's3cret' })).refresh_token).toBeDefined();
  });

  it('refuses a request without refresh_token, or with an unknown or oversized one', async () => {
    const { token, refresh } = await setup();
    expect(await refusal(token({ grant_type: 'refresh_token' }))).toMatchObject({ oauthError: 'invalid_request' });
    expect(await refusal(refresh('unknown'))).toMatchObject({ oauthError: 'invalid_grant', message: 'The refresh token is not valid' });
    expect(await refusal(refresh('x'.repeat(5000)))).toMatchObject({ code: 'BadRequest' });
  });

  it('re-reads the claim source when issuing the fresh credential, over the claims the family keeps', async () => {
    let tier = 'silver';
    const http: HttpClient = {
      send: async () => ({ error: 'unused' }),
      fetch: async (_request: OutboundFetch) => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: new TextEncoder().encode(JSON.stringify({ tier })),
      }),
    };
    const { preAuthorized, refresh, credential } = await setup({ allowed: true }, (h) =>
      secondServer(h, {
        http,
        walletTokens: h.walletTokens,
        secretBox: h.secretBox,
        ids: {
          uuid: () => crypto.randomUUID(),
          token: () => crypto.randomUUID() + crypto.randomUUID(),
          bytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
        },
      }),
    );
    const first = await preAuthorized();
    expect(claimsOf(await credential(first))).toMatchObject({ family_name: { value: 'Lovelace' }, tier: { value: 'silver' } });
    tier = 'gold';
    expect(claimsOf(await credential(await refresh(first.refresh_token!)))).toMatchObject({ family_name: { value: 'Lovelace' }, tier: { value: 'gold' } });
  });
});

describe('the refresh setting of a configuration', () => {
  it('is kept as given, absent unless set, and its maxAge checked', async () => {
    const { configurations, ctx: admin } = await withTenant();
    const kept = await configurations.create(admin, 'mso_mdoc', mdl({ refresh: { allowed: true, maxAge: { days: 10 } } }));
    expect((await configurations.get(admin, 'mso_mdoc', kept.id)).refresh).toEqual({ allowed: true, maxAge: { days: 10 } });
    const sdJwt = await configurations.create(admin, 'dc+sd-jwt', {
      type: 'https://example.com/badge',
      expiresIn: { days: 30 },
      claimMappings: { name: { mapFrom: 'claims.name' } },
      refresh: { allowed: true },
    });
    expect(sdJwt.refresh).toEqual({ allowed: true });
    const plain = await configurations.create(admin, 'mso_mdoc', mdl({ type: 'org.example.card' }));
    expect(plain).not.toHaveProperty('refresh');
    for (const [refresh, param] of [
      [{ allowed: false }, 'refresh.allowed'],
      [{ allowed: true, maxAge: { days: 0 } }, 'refresh.maxAge'],
      [{ allowed: true, maxAge: { days: 366 } }, 'refresh.maxAge'],
      [{ allowed: true, extra: 1 }, 'refresh.extra'],
    ] as const) {
      const error = await refusal(configurations.create(admin, 'mso_mdoc', mdl({ type: 'org.example.other', refresh: refresh as never })));
      expect(error.code).toBe('BadRequest');
      expect(error.details?.map((d) => d.param)).toContain(param);
    }
  });
});

describe('refresh tokens of the Authorization Code grant', () => {
  const REDIRECT = 'https://wallet.example/cb';
  const VERIFIER = 'c'.repeat(43);

  it('gives a refresh token to the client that redeemed the code, refreshed only by that client, and the fresh credential has the same claims', async () => {
    const h = await withTenant();
    const { tenant, ctx: admin } = h;
    const browser = contextFor(tenant, null);
    await h.iacas.update(admin, (await h.iacas.create(admin, { country: 'US' })).id, { active: true });
    const mdoc = await h.configurations.create(admin, 'mso_mdoc', mdl({ refresh: { allowed: true } }));
    const now = h.clock.now().toISOString();
    await h.store.walletClients.insert({
      tenantId: tenant.id,
      clientId: 'wallet',
      clientName: 'A wallet',
      redirectUris: [REDIRECT],
      grantTypes: ['authorization_code'],
      tokenEndpointAuthMethod: 'none',
      createdAt: now,
      updatedAt: now,
    });
    await h.store.authenticationProviders.insert({
      id: `idp-${tenant.id}`,
      tenantId: tenant.id,
      url: 'https://idp.example',
      clientId: 'vellum',
      sealedClientSecret: h.secretBox.seal('idp-secret', `authentication-provider:${tenant.id}:idp-${tenant.id}`),
      scope: 'openid profile',
      tokenEndpointAuthMethod: 'client_secret_basic',
      staticRequestParameters: {},
      forwardedRequestParameters: [],
      claimsToPersist: ['familyName'],
      createdAt: now,
      updatedAt: now,
    });
    const { location } = await h.authorizationFlow.authorize(browser, {
      response_type: 'code',
      client_id: 'wallet',
      redirect_uri: REDIRECT,
      scope: `mso_mdoc:${mdoc.type}`,
      code_challenge_method: 'S256',
      code_challenge: createHash('sha256').update(VERIFIER).digest('base64url'),
    });
    const callback = await h.identityProvider.signIn(location, 'alice', { familyName: 'Hopper' });
    const code = new URL((await h.authorizationFlow.authenticationCallback(browser, callback)).location).searchParams.get('code') as string;
    const token = (form: Record<string, unknown>) => h.tokenEndpoint.token(browser, form);
    const first = await token({ grant_type: 'authorization_code', client_id: 'wallet', code, redirect_uri: REDIRECT, code_verifier: VERIFIER });
    expect(first.refresh_token).toEqual(expect.any(String));
    const row = await h.store.refreshTokens.findByDigest(tenant.id, h.digests.sha256(first.refresh_token!));
    expect(row).toMatchObject({ grant: 'authorization_code', clientId: 'wallet' });

    // RFC 6749 §6: the client it was issued to, and no one else (an anonymous request names none).
    expect(await refusal(token({ grant_type: 'refresh_token', refresh_token: first.refresh_token }))).toMatchObject({ oauthError: 'invalid_client' });
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: 'wallet' });
    expect(await h.walletTokens.verify(tenant.id, browser.origin, refreshed.access_token)).toMatchObject({ grant: 'refresh_token', clientId: 'wallet' });

    const issue = async (accessToken: string) => {
      const nonce = (await h.nonces.issue(browser)).c_nonce;
      const holder = walletKey();
      const body = JSON.stringify({
        credential_configuration_id: mdoc.id,
        proofs: { jwt: [proofJwt(holder, { audience: browser.origin, nonce, iat: Math.floor(h.clock.now().getTime() / 1000) })] },
      });
      const answer = await h.credentialEndpoint.issue(browser, { authorization: `Bearer ${accessToken}`, contentType: 'application/json', body });
      return readFakeMdoc((JSON.parse(answer.body) as { credentials: Array<{ credential: string }> }).credentials[0]!.credential);
    };
    const original = await issue(first.access_token);
    const fresh = await issue(refreshed.access_token);
    expect(claimsOf(fresh)).toEqual(claimsOf(original));
    expect(claimsOf(fresh)).toMatchObject({ family_name: { value: 'Hopper' } });
  });
});
