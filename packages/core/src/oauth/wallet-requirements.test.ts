import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contextFor, harness } from '../../test/harness.ts';
import { dpopProof, fakeJwtProofVerifier, jwkThumbprint, proofJwt, signJwt, walletKey, type WalletKey } from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import type { CredentialConfigurationInput } from '../configurations/model.ts';
import { PRE_AUTHORIZED_CODE_GRANT } from '../offers/uri.ts';
import type { WalletProviderPurpose, WalletProviderTrust } from '../wallet-providers/trust.ts';
import type { TokenRequestProofs } from './token.ts';

// Wallet requirements per configuration and per offer (docs/decisions.md "Wallet requirements per
// configuration and offer (issue 30)"), through the composed core. The tenant's trusted wallet
// providers are an in-memory fake of the WalletProviderTrust port: a provider is a key, trusted for
// some purposes; its JWTs are checked with the fake JWT verifier (real signatures, no chains).

const DOCTYPE = 'org.iso.18013.5.1.mDL';
const HOOK = 'https://hooks.example.com/vellum';

interface FakeProvider {
  id: string;
  tenantId: string;
  purposes: WalletProviderPurpose[];
  key: WalletKey;
}

/** The port, over a list the test edits (adding, removing or revoking providers). */
function fakeTrust(): { providers: FakeProvider[]; trust: WalletProviderTrust } {
  const providers: FakeProvider[] = [];
  const jwts = fakeJwtProofVerifier();
  const trusted = (tenantId: string, purpose: WalletProviderPurpose) => providers.filter((p) => p.tenantId === tenantId && p.purposes.includes(purpose));
  return {
    providers,
    trust: {
      async any(tenantId, purpose) {
        return trusted(tenantId, purpose).length > 0;
      },
      async verify(tenantId, jwt, { purpose, algorithms }) {
        for (const p of trusted(tenantId, purpose)) {
          const checked = await jwts.verifyWithKey(jwt, p.key.publicJwk, algorithms);
          if (checked.ok) return { ...checked, providerId: p.id };
        }
        return { ok: false, reason: 'no wallet provider this issuer trusts signed it' };
      },
    },
  };
}

const mdl = (over: Partial<CredentialConfigurationInput> = {}): CredentialConfigurationInput => ({
  type: DOCTYPE,
  expiresIn: { days: 365 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
  ...over,
});

async function setup(configuration: Partial<CredentialConfigurationInput> = {}) {
  const { providers, trust } = fakeTrust();
  const h = harness({ walletProviderTrust: trust });
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  const admin = contextFor(tenant);
  const wallet = contextFor(tenant, null);
  await h.iacas.update(admin, (await h.iacas.create(admin, { country: 'US' })).id, { active: true });
  const mdoc = await h.configurations.create(admin, 'mso_mdoc', mdl(configuration));
  const issuer = wallet.origin;
  const tokenUrl = `${issuer}/v1/oauth/token`;
  const now = () => Math.floor(h.clock.now().getTime() / 1000);
  /** A wallet provider the tenant trusts for `purposes`. */
  const trustProvider = (purposes: WalletProviderPurpose[] = ['walletAttestation', 'keyAttestation']) => {
    const provider = { id: `provider-${providers.length + 1}`, tenantId: tenant.id, purposes, key: walletKey() };
    providers.push(provider);
    return provider;
  };
  /** The wallet instance's key, attested as cnf.jwk. */
  const instance = walletKey();
  /** A wallet attestation of `instance`, signed by `by`. */
  const attestation = (by: WalletKey, payload: Record<string, unknown> = {}) =>
    signJwt(
      by,
      { typ: 'oauth-client-attestation+jwt' },
      {
        iss: 'https://wallet-provider.example',
        sub: 'eudi-wallet',
        iat: now(),
        exp: now() + 3600,
        cnf: { jwk: instance.publicJwk },
        client_instance_id: 'instance-7',
        ...payload,
      },
    );
  /** A proof of possession of the instance key (Standard Mode). */
  const pop = (iss = 'eudi-wallet') =>
    signJwt(instance, { typ: 'oauth-client-attestation-pop+jwt' }, { iss, aud: issuer, iat: now(), jti: randomBytes(12).toString('base64url') });
  const attested = (by: WalletKey, payload?: Record<string, unknown>): TokenRequestProofs => ({
    attestation: { attestation: attestation(by, payload), pop: pop() },
  });

  /** The pre-authorized code of a new offer for the configuration, with `over` (the offer's own requirements). */
  const offerCode = async (over: Record<string, unknown> = {}) => {
    const created = await h.offers.createPreAuthorizedOffer(admin, { credentials: [mdoc.id], claims: { familyName: 'Lovelace' }, ...over });
    return JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'] as string;
  };
  const redeem = (code: string, proofs?: TokenRequestProofs, form: Record<string, unknown> = {}) =>
    h.tokenEndpoint.token(wallet, { grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': code, ...form }, undefined, undefined, proofs);
  const tokenProof = (key: WalletKey) => dpopProof(key, tokenUrl, { iat: now() });
  /** A credential request with a Bearer token and a key proof by `holder`, carrying `keyAttestation` when given. */
  const credential = async (accessToken: string, holder: WalletKey, keyAttestation?: string) => {
    const nonce = (await h.nonces.issue(wallet)).c_nonce;
    const proof = proofJwt(holder, { audience: issuer, nonce, iat: now(), ...(keyAttestation ? { header: { key_attestation: keyAttestation } } : {}) });
    const body = JSON.stringify({ credential_configuration_id: mdoc.id, proofs: { jwt: [proof] } });
    return h.credentialEndpoint.issue(wallet, { authorization: `Bearer ${accessToken}`, contentType: 'application/json', body });
  };
  /** A key attestation of `holder`'s key, signed by `by`, attesting `levels`. */
  const keyAttestation = (by: WalletKey, holder: WalletKey, levels: Record<string, unknown>) =>
    signJwt(by, { typ: 'key-attestation+jwt' }, { iat: now(), exp: now() + 600, attested_keys: [holder.publicJwk], ...levels });
  return {
    ...h,
    tenant,
    admin,
    wallet,
    mdoc,
    issuer,
    now,
    providers,
    trustProvider,
    instance,
    attestation,
    pop,
    attested,
    offerCode,
    redeem,
    tokenProof,
    credential,
    keyAttestation,
  };
}

describe('a wallet attestation from a provider the tenant trusts (no registered client)', () => {
  it('authenticates an anonymous wallet on a Pre-authorized offer that requires it; its instance reaches the token, the record and the webhook', async () => {
    const s = await setup();
    const provider = s.trustProvider();
    const hook = await s.webhooks.create(s.admin, { events: ['OpenIdCredentialIssuedSummary'], url: HOOK });
    const code = await s.offerCode({ walletRequirements: { walletAttestation: true } });
    const response = await s.redeem(code, s.attested(provider.key));
    const claims = await s.walletTokens.verify(s.tenant.id, s.issuer, response.access_token);
    expect(claims).toMatchObject({ clientInstanceId: 'instance-7' });
    expect(claims).not.toHaveProperty('clientId');
    await s.credential(response.access_token, walletKey());
    const [record] = (await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items;
    expect(record).toMatchObject({ clientInstanceId: 'instance-7' });
    const [delivery] = (await s.store.webhookDeliveries.list(s.tenant.id, hook.id, { limit: 10 })).items;
    expect(delivery?.payload).toMatchObject({ credentialId: record?.id, clientInstanceId: 'instance-7' });
  });

  it('names the instance by the attestation’s sub when it has no client_instance_id, and holds sub to the client_id sent', async () => {
    const s = await setup();
    const provider = s.trustProvider();
    const code = await s.offerCode({ walletRequirements: { walletAttestation: true } });
    expect(await refusal(s.redeem(code, s.attested(provider.key), { client_id: 'another-wallet' }))).toMatchObject({
      code: 'BadRequest',
      oauthError: 'invalid_client_attestation',
      message: expect.stringContaining('sub'),
    });
    const response = await s.redeem(code, s.attested(provider.key, { client_instance_id: undefined }), { client_id: 'eudi-wallet' });
    expect(await s.walletTokens.verify(s.tenant.id, s.issuer, response.access_token)).toMatchObject({ clientInstanceId: 'eudi-wallet' });
  });

  it('refuses an attestation no trusted provider signed (400) and a missing one (401), leaving the code usable', async () => {
    const s = await setup();
    const provider = s.trustProvider();
    const code = await s.offerCode({ walletRequirements: { walletAttestation: true } });
    expect(await refusal(s.redeem(code, s.attested(walletKey())))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_client_attestation' });
    expect(await refusal(s.redeem(code))).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_client' });
    // A provider trusted for key attestations only vouches for no wallet.
    const keysOnly = s.trustProvider(['keyAttestation']);
    expect(await refusal(s.redeem(code, s.attested(keysOnly.key)))).toMatchObject({ oauthError: 'invalid_client_attestation' });
    expect((await s.redeem(code, s.attested(provider.key))).token_type).toBe('Bearer');
  });

  it('refuses an attestation whose provider the tenant no longer trusts', async () => {
    const s = await setup();
    const provider = s.trustProvider();
    s.trustProvider(['walletAttestation']);
    const code = await s.offerCode({ walletRequirements: { walletAttestation: true } });
    s.providers.splice(s.providers.indexOf(provider), 1);
    expect(await refusal(s.redeem(code, s.attested(provider.key)))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_client_attestation' });
  });

  it('takes Combined Mode: a DPoP proof by the attested key instead of a separate proof of possession', async () => {
    const s = await setup();
    const provider = s.trustProvider();
    const code = await s.offerCode({ walletRequirements: { walletAttestation: true } });
    expect(await refusal(s.redeem(code, { attestation: { attestation: s.attestation(provider.key) }, dpop: s.tokenProof(walletKey()) }))).toMatchObject({
      oauthError: 'invalid_client_attestation',
      message: expect.stringContaining('attested key'),
    });
    const response = await s.redeem(code, { attestation: { attestation: s.attestation(provider.key) }, dpop: s.tokenProof(s.instance) });
    expect(response.token_type).toBe('DPoP');
    expect(await s.walletTokens.verify(s.tenant.id, s.issuer, response.access_token)).toMatchObject({
      dpopJkt: jwkThumbprint(s.instance.publicJwk),
      clientInstanceId: 'instance-7',
    });
  });

  it('checks an attestation sent where none is required when the tenant trusts providers; ignores it when the tenant trusts none, as before', async () => {
    const s = await setup();
    const stranger = walletKey();
    const ignored = await s.redeem(await s.offerCode(), s.attested(stranger));
    expect(await s.walletTokens.verify(s.tenant.id, s.issuer, ignored.access_token)).not.toHaveProperty('clientInstanceId');
    s.trustProvider();
    expect(await refusal(s.redeem(await s.offerCode(), s.attested(stranger)))).toMatchObject({ oauthError: 'invalid_client_attestation' });
  });

  it('is required by a configuration’s walletRequirements as by an offer’s', async () => {
    const s = await setup({ walletRequirements: { walletAttestation: true } });
    expect(s.mdoc.walletRequirements).toEqual({ walletAttestation: true });
    const provider = s.trustProvider();
    const code = await s.offerCode();
    expect(await refusal(s.redeem(code))).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_client' });
    expect((await s.redeem(code, s.attested(provider.key))).token_type).toBe('Bearer');
  });
});

describe('DPoP required by a configuration or an offer (RFC 9449)', () => {
  it('refuses a Bearer token request with invalid_dpop_proof and leaves the code usable for a DPoP one', async () => {
    const s = await setup({ walletRequirements: { dpop: true } });
    const code = await s.offerCode();
    expect(await refusal(s.redeem(code))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_dpop_proof' });
    expect((await s.redeem(code, { dpop: s.tokenProof(walletKey()) })).token_type).toBe('DPoP');
  });

  it('takes the requirement from the offer, and keeps only true members', async () => {
    const s = await setup();
    const code = await s.offerCode({ walletRequirements: { dpop: true, walletAttestation: false } });
    const offer = (await s.store.offers.findByCodeDigest(s.tenant.id, s.digests.sha256(code)))!;
    expect(offer.walletRequirements).toEqual({ dpop: true });
    expect(await refusal(s.redeem(code))).toMatchObject({ oauthError: 'invalid_dpop_proof' });
    expect((await s.redeem(code, { dpop: s.tokenProof(walletKey()) })).token_type).toBe('DPoP');
    // An offer without requirements is redeemed for a Bearer token, as before.
    expect((await s.redeem(await s.offerCode())).token_type).toBe('Bearer');
  });
});

describe('key attestation levels from the offer and the configuration (OpenID4VCI 1.0 App. D)', () => {
  it('checks an offer’s levels against the tenant’s providers trusted for key attestations', async () => {
    const s = await setup();
    const provider = s.trustProvider(['keyAttestation']);
    const token = async () =>
      (await s.redeem(await s.offerCode({ keyAttestationsRequired: { keyStorage: ['iso_18045_high'], userAuthentication: ['iso_18045_moderate'] } })))
        .access_token;
    const holder = walletKey();
    const high = { key_storage: ['iso_18045_high'], user_authentication: ['iso_18045_moderate'] };
    expect(await refusal(s.credential(await token(), holder))).toMatchObject({
      oauthError: 'invalid_proof',
      message: expect.stringContaining('key attestation'),
    });
    expect(
      await refusal(s.credential(await token(), holder, s.keyAttestation(provider.key, holder, { ...high, key_storage: ['iso_18045_basic'] }))),
    ).toMatchObject({
      oauthError: 'invalid_proof',
      message: expect.stringContaining('key_storage'),
    });
    expect(await refusal(s.credential(await token(), holder, s.keyAttestation(walletKey(), holder, high)))).toMatchObject({ oauthError: 'invalid_proof' });
    const issued = JSON.parse((await s.credential(await token(), holder, s.keyAttestation(provider.key, holder, high))).body);
    expect(issued.credentials).toHaveLength(1);
  });

  it('holds a key attestation to both the configuration’s levels and the offer’s; a configuration without roots trusts the providers', async () => {
    const s = await setup({ keyAttestationsRequired: { keyStorage: ['iso_18045_high'] } });
    expect(s.mdoc.keyAttestationsRequired).toEqual({ keyStorage: ['iso_18045_high'] });
    const provider = s.trustProvider(['keyAttestation']);
    const holder = walletKey();
    const withOffer = async () => (await s.redeem(await s.offerCode({ keyAttestationsRequired: { userAuthentication: ['iso_18045_high'] } }))).access_token;
    const onlyStorage = s.keyAttestation(provider.key, holder, { key_storage: ['iso_18045_high'], user_authentication: ['iso_18045_basic'] });
    expect(await refusal(s.credential(await withOffer(), holder, onlyStorage))).toMatchObject({
      oauthError: 'invalid_proof',
      message: expect.stringContaining('user_authentication'),
    });
    // The configuration's levels alone hold for a token of an offer without its own.
    expect(JSON.parse((await s.credential((await s.redeem(await s.offerCode())).access_token, holder, onlyStorage)).body).credentials).toHaveLength(1);
    const both = s.keyAttestation(provider.key, holder, { key_storage: ['iso_18045_high'], user_authentication: ['iso_18045_high'] });
    expect(JSON.parse((await s.credential(await withOffer(), holder, both)).body).credentials).toHaveLength(1);
  });
});

describe('requirements at the Authorization Code grant, checked before the code is spent', () => {
  const REDIRECT = 'https://wallet.example/cb';
  const VERIFIER = 'v'.repeat(43);
  const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

  async function authorizationCode(configuration: Partial<CredentialConfigurationInput> = {}) {
    const s = await setup(configuration);
    const at = s.clock.now().toISOString();
    // A registered client without roots of its own: the tenant's providers vouch for its instances.
    await s.store.walletClients.insert({
      tenantId: s.tenant.id,
      clientId: 'eudi-wallet',
      clientName: 'A wallet',
      redirectUris: [REDIRECT],
      grantTypes: ['authorization_code'],
      tokenEndpointAuthMethod: 'none',
      createdAt: at,
      updatedAt: at,
    });
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
    /** Pushes a request (with `extra` fields), signs the user in, and returns the code the wallet receives. */
    const code = async (extra: Record<string, unknown> = {}, proofs?: TokenRequestProofs) => {
      const request = {
        response_type: 'code',
        client_id: 'eudi-wallet',
        redirect_uri: REDIRECT,
        scope: `mso_mdoc:${DOCTYPE}`,
        code_challenge_method: 'S256',
        code_challenge: CHALLENGE,
        ...extra,
      };
      const { request_uri } = await s.authorizationFlow.pushAuthorizationRequest(s.wallet, request, undefined, undefined, proofs);
      const { location } = await s.authorizationFlow.authorize(s.wallet, { client_id: 'eudi-wallet', request_uri });
      const callback = await s.identityProvider.signIn(location, 'ada', { familyName: 'Lovelace' });
      return new URL((await s.authorizationFlow.authenticationCallback(s.wallet, callback)).location).searchParams.get('code') as string;
    };
    const exchange = (c: string, proofs?: TokenRequestProofs) =>
      s.tokenEndpoint.token(
        s.wallet,
        { grant_type: 'authorization_code', client_id: 'eudi-wallet', code: c, redirect_uri: REDIRECT, code_verifier: VERIFIER },
        undefined,
        undefined,
        proofs,
      );
    return { ...s, code, exchange };
  }

  it('holds the grant to the configuration’s DPoP requirement', async () => {
    const s = await authorizationCode({ walletRequirements: { dpop: true } });
    const c = await s.code();
    expect(await refusal(s.exchange(c))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_dpop_proof' });
    expect((await s.exchange(c, { dpop: s.tokenProof(walletKey()) })).token_type).toBe('DPoP');
  });

  it('holds the pushed request and the grant to the offer its issuer_state names, with a provider vouching for a client registered without roots', async () => {
    const s = await authorizationCode();
    const provider = s.trustProvider(['walletAttestation']);
    const { uri } = await s.offers.createAuthorizationCodeOffer(s.admin, { credentials: [s.mdoc.id], walletRequirements: { walletAttestation: true } });
    const offer = JSON.parse(new URL(uri).searchParams.get('credential_offer') as string);
    const issuerState = { issuer_state: offer.grants.authorization_code.issuer_state };
    // The pushed request authenticates the client (RFC 9126 §2): without the attestation it is refused there already.
    expect(await refusal(s.code(issuerState))).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_client' });
    const par = `${s.issuer}/v1/oauth/par`;
    const pushPop = signJwt(
      s.instance,
      { typ: 'oauth-client-attestation-pop+jwt' },
      { iss: 'eudi-wallet', aud: par, iat: s.now(), jti: randomBytes(12).toString('base64url') },
    );
    const c = await s.code(issuerState, { attestation: { attestation: s.attestation(provider.key), pop: pushPop } });
    expect(await refusal(s.exchange(c))).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_client' });
    const response = await s.exchange(c, s.attested(provider.key));
    expect(await s.walletTokens.verify(s.tenant.id, s.issuer, response.access_token)).toMatchObject({
      clientId: 'eudi-wallet',
      clientInstanceId: 'instance-7',
    });
  });
});
