import { describe, expect, it, vi } from 'vitest';
import { contextFor, withTenant } from '../../test/harness.ts';
import {
  encryptionKey,
  fakeCredentialEncryption,
  fakeJwtProofVerifier,
  fakeProofVerifier,
  fakeRequestJwe,
  makeConfiguration,
  proofJwt,
  readFakeJwe,
  signJwt,
  readFakeMdoc,
  walletKey,
  type WalletKey,
} from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import type { MdocConfiguration } from '../configurations/model.ts';
import type { WalletAccessClaims, WalletTokens } from '../oauth/ports.ts';
import type { JwtProofVerifier } from '../oauth/jwt-proofs.ts';
import type { DomainEvent, DomainEventSink } from '../shared/ports.ts';
import type { RequestContext, Tenant } from '../tenancy/model.ts';
import { createCredentialEndpoint, LEGACY_DEPRECATION_HEADERS } from './credential-endpoint.ts';
import { createIssuedCredentialService } from './issued-credentials.ts';
import { offerClaimsContext, sealClaims } from '../shared/sealed-claims.ts';

const NOW = '2026-05-01T12:00:00.000Z';
const DOCTYPE = 'org.iso.18013.5.1.mDL';

/** Wallet access tokens as the token endpoint would issue them, checked like the real verifier: tenant, issuer, expiry. */
function fakeWalletTokens(clock: { now(): Date }): Pick<WalletTokens, 'verify'> & {
  mint(claims: Partial<WalletAccessClaims> & Pick<WalletAccessClaims, 'tenantId' | 'issuer' | 'userId' | 'offerId' | 'configurationIds'>): string;
} {
  const issued = new Map<string, WalletAccessClaims>();
  return {
    mint(claims) {
      const token = `wallet-token-${issued.size + 1}`;
      const iat = Math.floor(clock.now().getTime() / 1000);
      issued.set(token, { scope: '', jti: token, issuedAt: iat, expiresAt: iat + 600, ...claims });
      return token;
    },
    async verify(tenantId, issuer, token) {
      const claims = issued.get(token);
      const now = clock.now().getTime() / 1000;
      return claims && claims.tenantId === tenantId && claims.issuer === issuer && claims.expiresAt > now ? claims : undefined;
    },
  };
}

function recordingSink(): DomainEventSink & { published: DomainEvent[]; fail?: Error } {
  const sink = {
    published: [] as DomainEvent[],
    fail: undefined as Error | undefined,
    async publish(tx: Parameters<DomainEventSink['publish']>[0], event: DomainEvent) {
      // Proves it runs inside the transaction: the record is visible through tx.
      const record =
        event.type === 'OpenIdCredentialReviewRequested'
          ? await tx.deferredIssuances.get(event.tenantId, event.payload.deferredIssuanceId)
          : event.type === 'OpenIdCredentialIssued' || event.type === 'CredentialStatusUpdated'
            ? await tx.issuedCredentials.get(event.tenantId, event.payload.credentialId)
            : undefined;
      if (!record) throw new Error('publish ran outside the issuing transaction');
      if (sink.fail) throw sink.fail;
      sink.published.push(event);
    },
  };
  return sink;
}

function mdl(tenantId: string, over: Partial<MdocConfiguration> = {}): MdocConfiguration {
  return makeConfiguration(tenantId, {
    format: 'mso_mdoc',
    type: DOCTYPE,
    expiresIn: { days: 365 },
    includeStatus: false,
    claimMappings: {
      'org.iso.18013.5.1': {
        family_name: { mapFrom: 'claims.familyName', required: true },
        given_name: { mapFrom: 'claims.givenName' },
        birth_date: { mapFrom: 'claims.birthDate', type: 'date' },
      },
    },
    ...over,
  } as Partial<MdocConfiguration>) as MdocConfiguration;
}

async function setup(over: { requestEncryptionRequired?: boolean; jwtProofs?: JwtProofVerifier } = {}) {
  const h = await withTenant();
  const walletTokens = fakeWalletTokens(h.clock);
  const proofs = fakeProofVerifier();
  const sink = recordingSink();
  const endpoint = createCredentialEndpoint({
    store: h.store,
    clock: h.clock,
    ids: { uuid: () => crypto.randomUUID(), token: () => crypto.randomUUID(), bytes: (n) => crypto.getRandomValues(new Uint8Array(n)) },
    walletTokens,
    proofs,
    dpop: h.dpop,
    jwtProofs: fakeJwtProofVerifier(),
    nonces: h.nonceCodec,
    encryption: fakeCredentialEncryption(),
    issuance: h.credentialIssuance,
    formats: h.formats,
    domainEvents: sink,
    events: h.recorder,
    secrets: h.secretBox,
    ...over,
  });
  const { tenant, ctx: admin } = h;
  await h.iacas.update(admin, (await h.iacas.create(admin, { country: 'US' })).id, { active: true });
  const configuration = mdl(tenant.id);
  await h.store.credentialConfigurations.insert(configuration);
  const issuer = `https://acme.eu01.vellum.test`;
  const now = () => Math.floor(h.clock.now().getTime() / 1000);

  /** A user, an offer (already redeemed) and a token granting `configurationIds`, as the token endpoint leaves them. */
  async function flow(
    options: {
      for?: Tenant;
      configurationIds?: string[];
      userClaims?: Record<string, unknown>;
      offerClaims?: Record<string, unknown>;
      credentialIdentifiers?: boolean;
    } = {},
  ) {
    const t = options.for ?? tenant;
    const userId = crypto.randomUUID();
    const offerId = crypto.randomUUID();
    const at = h.clock.now().toISOString();
    await h.store.users.insert({
      id: userId,
      tenantId: t.id,
      claims: options.userClaims ?? { familyName: 'Turner', givenName: 'Sam' },
      createdAt: at,
      updatedAt: at,
    });
    const sealed = sealClaims(h.secretBox, options.offerClaims ?? { birthDate: '1990-05-15' }, offerClaimsContext(t.id, offerId));
    await h.store.offers.insert({
      id: offerId,
      tenantId: t.id,
      kind: 'pre-authorized',
      issuer,
      configurationIds: options.configurationIds ?? [configuration.id],
      userId,
      ...(sealed !== undefined ? { sealedClaims: sealed } : {}),
      codeDigest: crypto.randomUUID(),
      byReference: false,
      status: 'used',
      failedTxAttempts: 0,
      expiresAt: new Date(h.clock.now().getTime() + 300_000).toISOString(),
      createdAt: at,
      usedAt: at,
    });
    const token = walletTokens.mint({
      tenantId: t.id,
      issuer,
      userId,
      offerId,
      configurationIds: options.configurationIds ?? [configuration.id],
      ...(options.credentialIdentifiers ? { credentialIdentifiers: true } : {}),
    });
    return { userId, offerId, token, authorization: `Bearer ${token}` };
  }

  /** A nonce from the nonce endpoint of `t`. */
  async function nonce(t: Tenant = tenant): Promise<string> {
    return (await h.nonces.issue(contextFor(t, null))).c_nonce;
  }

  /** Whether the tenant's nonce is still unused; recording its use as a side effect, as the endpoint would. */
  async function unused(value: string, t: Tenant = tenant): Promise<boolean> {
    return h.store.nonces.markUsed({ tenantId: t.id, nonce: value, expiresAt: new Date(h.clock.now().getTime() + 300_000).toISOString() });
  }

  /** A good proof carrying `value` as its nonce, by `key` (a new P-256 wallet key unless given). */
  const proofFor = (value: string, key: WalletKey = walletKey()) => proofJwt(key, { audience: issuer, nonce: value, iat: now() });

  /** A fresh nonce and a good proof by `key` (a new P-256 wallet key unless given). */
  async function proof(key: WalletKey = walletKey(), over: Partial<Parameters<typeof proofJwt>[1]> = {}) {
    return proofJwt(key, { audience: issuer, nonce: await nonce(), iat: now(), ...over });
  }

  /** A current request for `configurationId` (the tenant's mDL unless given) carrying a fresh good proof. */
  async function credentialRequest(configurationId = configuration.id) {
    return { credential_configuration_id: configurationId, proofs: { jwt: [await proof()] } };
  }

  const wallet = contextFor(tenant, null);
  const post = (ctx: RequestContext, authorization: string | undefined, body: unknown, contentType = 'application/json') =>
    endpoint.issue(ctx, { authorization, contentType, body: typeof body === 'string' ? body : JSON.stringify(body) });

  /** POSTs `request` encrypted to the key of `tenantId` (this tenant unless given), as application/jwt. */
  const postEncrypted = (authorization: string, request: unknown, tenantId = tenant.id) =>
    post(wallet, authorization, fakeRequestJwe(tenantId, request), 'application/jwt');

  return {
    ...h,
    tenant,
    admin,
    configuration,
    issuer,
    walletTokens,
    proofs,
    sink,
    endpoint,
    flow,
    nonce,
    unused,
    proof,
    proofFor,
    credentialRequest,
    post,
    postEncrypted,
    now,
    wallet,
  };
}

describe('POST /v1/openid/credential: the current request (OpenID4VCI 1.0 §8)', () => {
  it('issues the mDoc bound to the proof’s key, with claims mapped from the user and the offer', async () => {
    const s = await setup();
    const { authorization, userId, offerId } = await s.flow();
    const key = walletKey();
    const res = await s.post(s.wallet, authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [await s.proof(key)] } });
    expect(res.contentType).toBe('application/json');
    expect(res.headers).toEqual({});
    const body = JSON.parse(res.body) as { credentials: Array<{ credential: string }>; notification_id: string };
    expect(Object.keys(body).sort()).toEqual(['credentials', 'notification_id']);
    expect(body.credentials).toHaveLength(1);
    const mdoc = readFakeMdoc(body.credentials[0]!.credential);
    expect(mdoc.docType).toBe(DOCTYPE);
    expect(mdoc.deviceKey).toEqual(key.publicJwk);
    expect(mdoc.namespaces).toEqual({
      'org.iso.18013.5.1': {
        family_name: { type: 'string', value: 'Turner' },
        given_name: { type: 'string', value: 'Sam' },
        birth_date: { type: 'date', value: '1990-05-15' },
      },
    });

    // The record (docs/decisions.md "The credential endpoint"), without the credential, and the webhook event, in one transaction.
    const [record] = (await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items;
    expect(record).toEqual({
      id: expect.any(String),
      tenantId: s.tenant.id,
      format: 'mso_mdoc',
      credentialConfigurationId: s.configuration.id,
      userId,
      offerId,
      issuedAt: NOW,
      validFrom: NOW,
      validUntil: '2027-05-01T12:00:00.000Z',
      status: 'valid',
      notificationId: body.notification_id,
    });
    expect(JSON.stringify(record)).not.toContain(body.credentials[0]!.credential);
    expect(s.sink.published).toEqual([
      {
        id: expect.any(String),
        tenantId: s.tenant.id,
        type: 'OpenIdCredentialIssued',
        occurredAt: NOW,
        payload: {
          credential: body.credentials[0]!.credential,
          credentialId: record!.id,
          credentialConfigurationId: s.configuration.id,
          credentialProfile: 'mobile',
          format: 'mso_mdoc',
          userId,
          // The claims persisted on the user (docs/decisions.md "Webhooks"), not the offer's one-off claims.
          userClaims: { familyName: 'Turner', givenName: 'Sam' },
        },
      },
    ]);
  });

  it('accepts the draft `proof` object beside credential_configuration_id, and proofs named by did:key are the verifier’s business', async () => {
    const s = await setup();
    const { authorization } = await s.flow();
    const res = await s.post(s.wallet, authorization, { credential_configuration_id: s.configuration.id, proof: { proof_type: 'jwt', jwt: await s.proof() } });
    expect(JSON.parse(res.body)).toMatchObject({ credentials: [{ credential: expect.any(String) }] });
  });

  describe('refuses, with the OAuth error OpenID4VCI 1.0 §8.3.1.2 names, and issues nothing', () => {
    async function expectRefused(s: Awaited<ReturnType<typeof setup>>, p: Promise<unknown>, code: string, oauthError: string) {
      expect(await refusal(p)).toMatchObject({ code, oauthError });
      expect(s.mdocEngine.calls).toBe(0);
      expect((await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items).toEqual([]);
      expect(s.sink.published).toEqual([]);
    }

    it('no, a malformed, an unknown or an expired access token: 401 invalid_token (RFC 6750 §3.1)', async () => {
      const s = await setup();
      const { token } = await s.flow();
      const body = await s.credentialRequest();
      for (const authorization of [undefined, '', 'Basic abc', `Bearer`, `Bearer ${token} extra`, 'Bearer unknown-token', `DPoP ${token}`]) {
        await expectRefused(s, s.post(s.wallet, authorization, body), 'Unauthorized', 'invalid_token');
      }
      s.clock.advance(601_000);
      await expectRefused(s, s.post(s.wallet, `Bearer ${token}`, body), 'Unauthorized', 'invalid_token');
    });

    it('a token from another tenant (docs/decisions.md "Tenancy and admin authentication": always refused)', async () => {
      const s = await setup();
      const { tenant: other } = await s.tenants.createTenant({ subdomain: 'other', region: 'eu01' });
      const { authorization } = await s.flow({ for: other });
      await expectRefused(s, s.post(s.wallet, authorization, await s.credentialRequest()), 'Unauthorized', 'invalid_token');
    });

    it('a token checked before the body: garbage without a token is 401, not 400', async () => {
      const s = await setup();
      await expectRefused(s, s.post(s.wallet, undefined, 'not json'), 'Unauthorized', 'invalid_token');
    });

    it('a proof without a nonce: invalid_proof, not invalid_nonce (OpenID4VCI 1.0 §8.3.1.2)', async () => {
      const s = await setup();
      const { authorization } = await s.flow();
      const jwt = proofJwt(walletKey(), { audience: s.issuer, iat: s.now() });
      await expectRefused(
        s,
        s.post(s.wallet, authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [jwt] } }),
        'BadRequest',
        'invalid_proof',
      );
    });

    it('a wrong nonce, a reused nonce and an expired nonce: invalid_nonce', async () => {
      const s = await setup();
      const { authorization } = await s.flow();
      const key = walletKey();
      const request = (jwt: string) => s.post(s.wallet, authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [jwt] } });
      await expectRefused(s, request(s.proofFor('never-issued', key)), 'BadRequest', 'invalid_nonce');
      const stale = await s.nonce();
      s.clock.advance(301_000);
      await expectRefused(s, request(s.proofFor(stale, key)), 'BadRequest', 'invalid_nonce');

      const used = await s.nonce();
      await request(s.proofFor(used, key));
      expect(await refusal(request(s.proofFor(used, key)))).toMatchObject({ oauthError: 'invalid_nonce' });
    });

    it('requests racing with one nonce: exactly one is issued, recorded and told; the rest are invalid_nonce and leave nothing', async () => {
      const s = await setup();
      const { authorization } = await s.flow();
      const jwt = await s.proof();
      const outcomes = await Promise.allSettled(
        Array.from({ length: 4 }, () => s.post(s.wallet, authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [jwt] } })),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ oauthError: 'invalid_nonce' });
      expect((await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items).toHaveLength(1);
      expect(s.sink.published).toHaveLength(1);
    });

    it('a nonce minted for another tenant: invalid_nonce, and it stays unused for its own tenant', async () => {
      const s = await setup();
      const { tenant: other } = await s.tenants.createTenant({ subdomain: 'other', region: 'eu01' });
      const { authorization } = await s.flow();
      const theirs = await s.nonce(other);
      const jwt = s.proofFor(theirs);
      await expectRefused(
        s,
        s.post(s.wallet, authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [jwt] } }),
        'BadRequest',
        'invalid_nonce',
      );
      expect(await s.unused(theirs, other)).toBe(true);
      expect(await s.unused(theirs)).toBe(true);
    });

    it('an expired nonce, or one never issued, is refused on its own: the store is not asked', async () => {
      const s = await setup();
      const { authorization } = await s.flow();
      const request = (nonce: string) =>
        s.post(s.wallet, authorization, {
          credential_configuration_id: s.configuration.id,
          proofs: { jwt: [s.proofFor(nonce)] },
        });
      const stale = await s.nonce();
      const markUsed = vi.spyOn(s.store.nonces, 'markUsed');
      // A nonce lives exactly 5 minutes: at its expiry it is refused.
      s.clock.advance(300_000);
      await expectRefused(s, request(stale), 'BadRequest', 'invalid_nonce');
      await expectRefused(s, request('never-issued'), 'BadRequest', 'invalid_nonce');
      expect(markUsed).not.toHaveBeenCalled();
      // One a second younger is still good, and is used up through the store.
      await request(await s.nonce());
      expect(markUsed).toHaveBeenCalledTimes(1);
    });

    it('a proof signed by another key than the one it names, and one for another audience: invalid_proof', async () => {
      const s = await setup();
      const { authorization } = await s.flow();
      const [named, signer] = [walletKey(), walletKey()];
      const forged = (await s.proof(signer, { header: { jwk: named.publicJwk } })) as string;
      const request = (jwt: string) => s.post(s.wallet, authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [jwt] } });
      await expectRefused(s, request(forged), 'BadRequest', 'invalid_proof');
      await expectRefused(s, request(await s.proof(walletKey(), { audience: 'https://other.eu01.vellum.test' })), 'BadRequest', 'invalid_proof');
    });

    it('other proof faults: wrong typ, an old or future iat, an expired proof, EdDSA for an mDoc (P-256 device keys only)', async () => {
      const s = await setup();
      const { authorization } = await s.flow();
      const request = (jwt: string) => s.post(s.wallet, authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [jwt] } });
      await expectRefused(s, request(await s.proof(walletKey(), { header: { typ: 'JWT' } })), 'BadRequest', 'invalid_proof');
      await expectRefused(s, request(await s.proof(walletKey(), { iat: s.now() - 301 })), 'BadRequest', 'invalid_proof');
      await expectRefused(s, request(await s.proof(walletKey(), { iat: s.now() + 61 })), 'BadRequest', 'invalid_proof');
      await expectRefused(s, request(await s.proof(walletKey(), { payload: { exp: s.now() } })), 'BadRequest', 'invalid_proof');
      await expectRefused(s, request(await s.proof(walletKey('Ed25519'))), 'BadRequest', 'invalid_proof');
    });

    it('two proofs past a batch size of 1 (the default), none, or both proof and proofs: invalid_proof (OpenID4VCI 1.0 §8.3.1.2, §12.2.4)', async () => {
      const s = await setup();
      const { authorization } = await s.flow();
      const id = s.configuration.id;
      await expectRefused(
        s,
        s.post(s.wallet, authorization, { credential_configuration_id: id, proofs: { jwt: [await s.proof(), await s.proof()] } }),
        'BadRequest',
        'invalid_proof',
      );
      await expectRefused(s, s.post(s.wallet, authorization, { credential_configuration_id: id }), 'BadRequest', 'invalid_proof');
      await expectRefused(s, s.post(s.wallet, authorization, { credential_configuration_id: id, proofs: { jwt: [] } }), 'BadRequest', 'invalid_proof');
      await expectRefused(
        s,
        s.post(s.wallet, authorization, { credential_configuration_id: id, proofs: { attestation: ['x'] } }),
        'BadRequest',
        'invalid_proof',
      );
      await expectRefused(
        s,
        s.post(s.wallet, authorization, { credential_configuration_id: id, proof: { proof_type: 'jwt', jwt: 'a' }, proofs: { jwt: ['a'] } }),
        'BadRequest',
        'invalid_proof',
      );
    });

    it('a configuration the token does not grant, or one deleted since: unknown_credential_configuration — before the nonce is used', async () => {
      const s = await setup();
      const other = mdl(s.tenant.id, { type: 'org.example.other' });
      await s.store.credentialConfigurations.insert(other);
      const { authorization } = await s.flow();
      const nonce = await s.nonce();
      const jwt = s.proofFor(nonce);
      await expectRefused(
        s,
        s.post(s.wallet, authorization, { credential_configuration_id: other.id, proofs: { jwt: [jwt] } }),
        'BadRequest',
        'unknown_credential_configuration',
      );
      expect(await s.unused(nonce)).toBe(true);

      const granted = await s.flow({ configurationIds: [other.id] });
      await s.store.credentialConfigurations.delete(s.tenant.id, other.id);
      await expectRefused(s, s.post(s.wallet, granted.authorization, await s.credentialRequest(other.id)), 'BadRequest', 'unknown_credential_configuration');
    });

    it('malformed requests: not JSON, not an object, no configuration id, both forms at once, a credential_identifier', async () => {
      const s = await setup();
      const { authorization } = await s.flow();
      for (const body of [
        '{',
        '[]',
        '"x"',
        '',
        JSON.stringify({ proofs: { jwt: ['x'] } }),
        JSON.stringify({ credential_configuration_id: s.configuration.id, format: 'mso_mdoc' }),
        JSON.stringify({ credential_configuration_id: 7 }),
      ]) {
        await expectRefused(s, s.post(s.wallet, authorization, body), 'BadRequest', 'invalid_credential_request');
      }
      await expectRefused(s, s.post(s.wallet, authorization, { credential_identifier: 'x' }), 'BadRequest', 'unknown_credential_identifier');
      await expectRefused(s, s.post(s.wallet, authorization, '{}', 'text/plain'), 'UnsupportedMediaType', 'invalid_credential_request');
    });

    it('no claims, or an expiry already past: credential_request_denied from the core’s rules (OpenID4VCI 1.0 §8, docs/decisions.md "Credential configurations")', async () => {
      const s = await setup();
      const none = await s.flow({ userClaims: {}, offerClaims: {} });
      const failure = await refusal(s.post(s.wallet, none.authorization, await s.credentialRequest()));
      expect(failure).toMatchObject({ code: 'BadRequest', oauthError: 'credential_request_denied' });

      const instant = mdl(s.tenant.id, { type: 'org.example.instant', expiresIn: { seconds: 0 } });
      await s.store.credentialConfigurations.insert(instant);
      const flow = await s.flow({ configurationIds: [instant.id] });
      const expired = await refusal(s.post(s.wallet, flow.authorization, await s.credentialRequest(instant.id)));
      expect(expired).toMatchObject({ oauthError: 'credential_request_denied', message: expect.stringContaining('already be expired') });
      expect((await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items).toEqual([]);
    });

    it('an offer deleted, or a user deleted, after the token was issued: credential_request_denied, and the nonce stays usable', async () => {
      const s = await setup();
      const { authorization, offerId } = await s.flow();
      await s.store.offers.markDeleted(s.tenant.id, offerId, 'pre-authorized');
      const nonce = await s.nonce();
      const jwt = s.proofFor(nonce);
      await expectRefused(
        s,
        s.post(s.wallet, authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [jwt] } }),
        'BadRequest',
        'credential_request_denied',
      );
      expect(await s.unused(nonce)).toBe(true);
      const gone = await s.flow();
      await s.store.users.delete(s.tenant.id, gone.userId);
      await expectRefused(s, s.post(s.wallet, gone.authorization, await s.credentialRequest()), 'BadRequest', 'credential_request_denied');
    });
  });

  it('records nothing, and tells webhooks nothing, when the webhook outbox write fails (one transaction)', async () => {
    const s = await setup();
    const { authorization } = await s.flow();
    s.sink.fail = new Error('outbox unavailable');
    await expect(s.post(s.wallet, authorization, await s.credentialRequest())).rejects.toThrow('outbox unavailable');
    expect((await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items).toEqual([]);
  });
});

describe('the legacy request and response (OpenID4VCI 1.0 §8; OpenID4VCI draft 13)', () => {
  it('maps format and doctype to the granted configuration and answers { credential, format, notification_id } with Deprecation and Sunset', async () => {
    const s = await setup();
    const { authorization } = await s.flow();
    const key = walletKey();
    const res = await s.post(s.wallet, authorization, { format: 'mso_mdoc', doctype: DOCTYPE, proof: { proof_type: 'jwt', jwt: await s.proof(key) } });
    const body = JSON.parse(res.body) as { credential: string; format: string; notification_id: string };
    expect(Object.keys(body).sort()).toEqual(['credential', 'format', 'notification_id']);
    expect(body.format).toBe('mso_mdoc');
    expect(readFakeMdoc(body.credential).deviceKey).toEqual(key.publicJwk);
    // RFC 9745: a Structured Field Date (Unix seconds of 2 May 2026); RFC 8594: an HTTP-date.
    expect(res.headers).toEqual({ deprecation: '@1777680000', sunset: 'Sat, 02 May 2026 00:00:00 GMT' });
    expect(LEGACY_DEPRECATION_HEADERS.deprecation).toBe(`@${Date.parse('2026-05-02T00:00:00Z') / 1000}`);
  });

  it('refuses a doctype or format the token does not grant, and a legacy mDoc request without a doctype', async () => {
    const s = await setup();
    const { authorization } = await s.flow();
    const jwt = await s.proof();
    expect(
      await refusal(s.post(s.wallet, authorization, { format: 'mso_mdoc', doctype: 'org.example.other', proof: { proof_type: 'jwt', jwt } })),
    ).toMatchObject({ oauthError: 'unknown_credential_configuration' });
    expect(
      await refusal(
        s.post(s.wallet, authorization, { format: 'ldp_vc', credential_definition: { type: ['VerifiableCredential'] }, proof: { proof_type: 'jwt', jwt } }),
      ),
    ).toMatchObject({ oauthError: 'unknown_credential_configuration' });
    expect(await refusal(s.post(s.wallet, authorization, { format: 'mso_mdoc', proof: { proof_type: 'jwt', jwt } }))).toMatchObject({
      oauthError: 'invalid_credential_request',
    });
    expect(await refusal(s.post(s.wallet, authorization, { format: 'jwt_vc_json', proof: { proof_type: 'jwt', jwt } }))).toMatchObject({
      oauthError: 'invalid_credential_request',
    });
  });
});

describe('every format through the endpoint, each signed by its engine (issue 14)', () => {
  const flatMappings = { familyName: { mapFrom: 'claims.familyName', required: true }, birthDate: { mapFrom: 'claims.birthDate' } };
  const fromBase64Url = (text: string) => JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));

  type Format = 'ldp_vc' | 'cwt' | 'cwt_vc' | 'dc+sd-jwt';

  /** A stored configuration of `format` mapping the flat claims, and a flow whose token grants it. */
  async function granted(s: Awaited<ReturnType<typeof setup>>, format: Format, revocable = false) {
    const configuration = makeConfiguration(s.tenant.id, {
      format,
      revocable,
      claimMappings: flatMappings,
      ...(format === 'ldp_vc' ? { issuer: { name: 'Acme' }, contexts: [] } : {}),
    } as never);
    await s.store.credentialConfigurations.insert(configuration);
    return { configuration, ...(await s.flow({ configurationIds: [configuration.id] })) };
  }

  /** The endpoint's setup plus the tenant's DIDs: an Ed25519 one (ldp_vc) and a P-256 one (cwt, cwt_vc, dc+sd-jwt). */
  async function withDids() {
    const s = await setup();
    const ed25519 = await s.dids.create(s.admin, { method: 'key', options: { keyType: 'Ed25519' } });
    const p256 = await s.dids.create(s.admin, { method: 'key', options: { keyType: 'P-256' } });
    const issue = async (format: Format, body: (id: string, type: string) => Record<string, unknown>) => {
      const { configuration, authorization, userId } = await granted(s, format);
      const key = walletKey();
      const res = await s.post(s.wallet, authorization, { ...body(configuration.id, configuration.type), proofs: { jwt: [await s.proof(key)] } });
      return { res, key, configuration, userId };
    };
    return { ...s, ed25519: ed25519.did, p256: p256.did, issue };
  }

  it.each(['cwt', 'cwt_vc'] as const)('%s: a CWT signed by the newest P-256 DID, bound to the proof key, recorded and told to webhooks', async (format) => {
    const s = await withDids();
    const { res, key, configuration, userId } = await s.issue(format, (id) => ({ credential_configuration_id: id }));
    const body = JSON.parse(res.body) as { credentials: Array<{ credential: string }>; notification_id: string };
    const signed = fromBase64Url(body.credentials[0]!.credential);
    expect(signed.kid).toMatch(new RegExp(`^${s.p256}#`));
    expect(signed.claims).toMatchObject({ iss: s.p256, cnf: key.publicJwk, sub: expect.stringMatching(/^did:key:zDn/) });
    const claims = { familyName: 'Turner', birthDate: '1990-05-15' };
    expect(signed.claims.claims).toEqual(
      format === 'cwt'
        ? { type: configuration.type, ...claims }
        : { vc: { '@context': ['https://www.w3.org/2018/credentials/v1'], type: ['VerifiableCredential', configuration.type], credentialSubject: claims } },
    );
    const [record] = (await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items;
    expect(record).toMatchObject({ format, credentialConfigurationId: configuration.id, userId, validFrom: NOW, validUntil: '2027-05-01T12:00:00.000Z' });
    expect(s.sink.published.map((e) => e.payload)).toEqual([expect.objectContaining({ format, credential: body.credentials[0]!.credential })]);
  });

  it('dc+sd-jwt: every mapped claim disclosable unless configured, vct and cnf.jwk, signed by the P-256 DID', async () => {
    const s = await withDids();
    const { res, key, configuration } = await s.issue('dc+sd-jwt', (id) => ({ credential_configuration_id: id }));
    const credential = (JSON.parse(res.body) as { credentials: Array<{ credential: string }> }).credentials[0]!.credential;
    expect(credential.endsWith('~')).toBe(true);
    const signed = fromBase64Url(credential.slice(0, -1));
    expect(signed.kid).toMatch(new RegExp(`^${s.p256}#`));
    expect(signed.payload).toMatchObject({ iss: s.p256, vct: configuration.type, cnf: { jwk: key.publicJwk }, familyName: 'Turner', birthDate: '1990-05-15' });
    expect([...signed.disclosable].sort()).toEqual(['birthDate', 'familyName']);
  });

  describe('unbound configurations (holderBinding: false; OpenID4VCI 1.0 §6.3 and §8.2, docs/decisions.md "Issuer display and unbound credentials (issue 29)")', () => {
    /** A stored unbound configuration of `format`, and a flow whose token grants it. */
    async function unbound(s: Awaited<ReturnType<typeof withDids>>, format: Format) {
      const configuration = makeConfiguration(s.tenant.id, {
        format,
        revocable: false,
        holderBinding: false,
        claimMappings: flatMappings,
        ...(format === 'ldp_vc' ? { issuer: { name: 'Acme' }, contexts: [] } : {}),
      } as never);
      await s.store.credentialConfigurations.insert(configuration);
      return { configuration, ...(await s.flow({ configurationIds: [configuration.id] })) };
    }
    const credentialOf = (res: { body: string }) => (JSON.parse(res.body) as { credentials: Array<{ credential: unknown }> }).credentials[0]!.credential;

    it('dc+sd-jwt: issued without a proof and without cnf; a second request with the token is refused', async () => {
      const s = await withDids();
      const { configuration, authorization, userId } = await unbound(s, 'dc+sd-jwt');
      const res = await s.post(s.wallet, authorization, { credential_configuration_id: configuration.id });
      const signed = fromBase64Url((credentialOf(res) as string).slice(0, -1));
      expect(signed.payload).toMatchObject({ iss: s.p256, vct: configuration.type, familyName: 'Turner', birthDate: '1990-05-15' });
      expect(signed.payload).not.toHaveProperty('cnf');
      const [record] = (await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items;
      expect(record).toMatchObject({ format: 'dc+sd-jwt', credentialConfigurationId: configuration.id, userId });
      // The token issues one credential per configuration, proof or not.
      await expect(s.post(s.wallet, authorization, { credential_configuration_id: configuration.id })).rejects.toMatchObject({
        code: 'BadRequest',
        oauthError: 'credential_request_denied',
      });
    });

    it('a proof sent anyway is neither checked nor used: a bad one does not fail the request, and its nonce stays unused', async () => {
      const s = await withDids();
      const { configuration, authorization } = await unbound(s, 'dc+sd-jwt');
      const nonce = await s.nonce();
      const verify = vi.spyOn(s.proofs, 'verify');
      const res = await s.post(s.wallet, authorization, {
        credential_configuration_id: configuration.id,
        proofs: { jwt: [s.proofFor(nonce).replace(/\.[^.]+$/, '.AAAA')] },
      });
      expect(fromBase64Url((credentialOf(res) as string).slice(0, -1)).payload).not.toHaveProperty('cnf');
      expect(verify).not.toHaveBeenCalled();
      expect(await s.unused(nonce)).toBe(true);
    });

    it('cwt and cwt_vc carry neither cnf nor sub; ldp_vc names no credentialSubject.id', async () => {
      const s = await withDids();
      for (const format of ['cwt', 'cwt_vc'] as const) {
        const { configuration, authorization } = await unbound(s, format);
        const signed = fromBase64Url(credentialOf(await s.post(s.wallet, authorization, { credential_configuration_id: configuration.id })) as string);
        expect(signed.claims.iss, format).toBe(s.p256);
        expect(signed.claims, format).not.toHaveProperty('cnf');
        expect(signed.claims, format).not.toHaveProperty('sub');
      }
      const { configuration, authorization } = await unbound(s, 'ldp_vc');
      const vc = credentialOf(await s.post(s.wallet, authorization, { credential_configuration_id: configuration.id })) as Record<string, unknown>;
      expect(vc.credentialSubject).toEqual({ familyName: 'Turner', birthDate: '1990-05-15' });
      expect(vc.issuer).toBe(s.ed25519);
    });

    it('a bound configuration still needs its proof (invalid_proof), and the handler refuses to issue it without a key', async () => {
      const s = await withDids();
      const { configuration, authorization } = await granted(s, 'dc+sd-jwt');
      await expect(s.post(s.wallet, authorization, { credential_configuration_id: configuration.id })).rejects.toMatchObject({
        code: 'BadRequest',
        oauthError: 'invalid_proof',
      });
      await expect(
        s.credentialIssuance.issue({ tenant: s.tenant, configuration, subject: { claims: { familyName: 'Turner' } }, credentialIssuer: s.issuer }),
      ).rejects.toMatchObject({ code: 'BadRequest', oauthError: 'invalid_proof' });
      await expect(
        s.credentialIssuance.issue({
          tenant: s.tenant,
          configuration: s.configuration,
          subject: { claims: { familyName: 'Turner' } },
          credentialIssuer: s.issuer,
        }),
      ).rejects.toMatchObject({ code: 'BadRequest', oauthError: 'invalid_proof' });
    });
  });

  it('ldp_vc: the current form names the issuer by DID, the legacy form carries its profile; the holder is the proof key’s did:key', async () => {
    const s = await withDids();
    const current = await s.issue('ldp_vc', (id) => ({ credential_configuration_id: id }));
    const vc = (JSON.parse(current.res.body) as { credentials: Array<{ credential: Record<string, any> }> }).credentials[0]!.credential;
    expect(vc.issuer).toBe(s.ed25519);
    expect(vc.credentialSubject).toMatchObject({ id: expect.stringMatching(/^did:key:zDn/), familyName: 'Turner', birthDate: '1990-05-15' });
    expect(vc.proof).toMatchObject({ verificationMethod: expect.stringMatching(new RegExp(`^${s.ed25519}#`)), proofPurpose: 'assertionMethod' });
    const legacy = await s.issue('ldp_vc', (_id, type) => ({ format: 'ldp_vc', credential_definition: { type: ['VerifiableCredential', type] } }));
    expect(legacy.res.headers).toEqual(LEGACY_DEPRECATION_HEADERS);
    const legacyBody = JSON.parse(legacy.res.body) as { credential: Record<string, any>; format: string };
    expect(legacyBody.format).toBe('ldp_vc');
    expect(legacyBody.credential.issuer).toMatchObject({ id: s.ed25519, name: 'Acme' });
  });

  it('encrypts the answer of every format when the wallet asks (ldp_vc, cwt, cwt_vc, dc+sd-jwt)', async () => {
    const s = await withDids();
    for (const format of ['ldp_vc', 'cwt', 'cwt_vc', 'dc+sd-jwt'] as const) {
      const wallet = encryptionKey();
      const { configuration, authorization } = await granted(s, format);
      const request = { ...(await s.credentialRequest(configuration.id)), credential_response_encryption: { jwk: wallet.publicJwk, enc: 'A128GCM' } };
      const res = await s.postEncrypted(authorization, request);
      expect(res.contentType, format).toBe('application/jwt');
      const credential = format === 'ldp_vc' ? expect.objectContaining({ type: ['VerifiableCredential', configuration.type] }) : expect.any(String);
      expect(readFakeJwe(res.body), format).toMatchObject({ enc: 'A128GCM', x: wallet.publicJwk.x, json: { credentials: [{ credential }] } });
    }
  });

  it('revocable configurations: each credential names its list entry, recorded with it, and revocation shows in the list its DID signs', async () => {
    const s = await withDids();
    const fromFake = (text: string) => JSON.parse(new TextDecoder().decode(typeof text === 'string' ? new TextEncoder().encode(text) : text));
    for (const format of ['ldp_vc', 'cwt', 'cwt_vc', 'dc+sd-jwt'] as const) {
      const { configuration, authorization } = await granted(s, format, true);
      const res = await s.post(s.wallet, authorization, await s.credentialRequest(configuration.id));
      const credential = (JSON.parse(res.body) as { credentials: Array<{ credential: unknown }> }).credentials[0]?.credential;
      const reference =
        format === 'ldp_vc'
          ? (credential as { credentialStatus: { revocationListIndex: string; revocationListCredential: string; type: string } }).credentialStatus
          : format === 'dc+sd-jwt'
            ? fromBase64Url((credential as string).slice(0, -1)).payload.status.status_list
            : fromBase64Url(credential as string).claims.status;
      const idx = format === 'ldp_vc' ? Number((reference as { revocationListIndex: string }).revocationListIndex) : (reference as { idx: number }).idx;
      const uri = format === 'ldp_vc' ? (reference as { revocationListCredential: string }).revocationListCredential : (reference as { uri: string }).uri;
      const path = { ldp_vc: 'web-semantic/revocation-lists', cwt: 'compact/status-lists', cwt_vc: 'compact/status-lists', 'dc+sd-jwt': 'sd-jwt/status-lists' }[
        format
      ];
      expect(uri, format).toMatch(new RegExp(`^${s.issuer}/v2/credentials/${path}/[0-9a-f-]{36}$`));
      const [record] = (await s.store.issuedCredentials.list(s.tenant.id, { credentialConfigurationId: configuration.id }, { limit: 1 })).items;
      expect(await s.store.statusLists.entryOf(s.tenant.id, record!.id), format).toMatchObject({ idx, status: 'valid' });

      const profile = { ldp_vc: 'web-semantic', cwt: 'compact', cwt_vc: 'compact-semantic', 'dc+sd-jwt': 'sd-jwt' } as const;
      expect(await s.statusLists.setRevocation(s.admin, profile[format], record!.id, { isRevoked: true })).toEqual({ isRevoked: true });
      const form = format === 'ldp_vc' ? 'revocation-list' : format === 'dc+sd-jwt' ? 'token-jwt' : 'token-cwt';
      const list = await s.statusLists.referencedList({ ...s.wallet }, form, uri.slice(uri.lastIndexOf('/') + 1));
      const read = fromFake(new TextDecoder().decode(list.body));
      const statuses = Buffer.from(read.statuses, 'base64url');
      expect(((statuses[idx >> 3] as number) >> (idx & 7)) & 1, format).toBe(1);
      expect(read.issuer, format).toBe(format === 'ldp_vc' ? s.ed25519 : s.p256);
      // A revocation of these formats can be lifted (one bit: valid or not).
      expect(await s.statusLists.setRevocation(s.admin, profile[format], record!.id, { isRevoked: false })).toEqual({ isRevoked: false });
      expect(await s.statusLists.getRevocation(s.admin, profile[format], record!.id)).toEqual({ isRevoked: false });
    }
  });

  it('legacy cwt, cwt_vc and dc+sd-jwt requests name their type as draft 13 did', async () => {
    const s = await withDids();
    for (const [format, body] of [
      ['cwt', (_: string, type: string) => ({ format: 'cwt', type })],
      ['cwt_vc', (_: string, type: string) => ({ format: 'cwt_vc', types: ['VerifiableCredential', type] })],
      ['dc+sd-jwt', (_: string, type: string) => ({ format: 'dc+sd-jwt', vct: type })],
    ] as const) {
      const { res } = await s.issue(format, body);
      expect(JSON.parse(res.body), format).toMatchObject({ format, credential: expect.any(String) });
    }
  });

  it('without a DID of the right key: credential_request_denied saying what to create, and nothing issued', async () => {
    const s = await setup();
    const { configuration, authorization } = await granted(s, 'cwt');
    const failure = await refusal(s.post(s.wallet, authorization, await s.credentialRequest(configuration.id)));
    expect(failure).toMatchObject({ code: 'BadRequest', oauthError: 'credential_request_denied', message: expect.stringContaining('POST /v1/dids') });
    expect((await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items).toEqual([]);
  });
});

describe('one credential per configuration per access token (hardening: one offer issued four mDocs)', () => {
  it('a second request with the same token for the same configuration: credential_request_denied, and it leaves nothing', async () => {
    const s = await setup();
    const { authorization } = await s.flow();
    await s.post(s.wallet, authorization, await s.credentialRequest());
    const nonce = await s.nonce();
    const again = { credential_configuration_id: s.configuration.id, proofs: { jwt: [s.proofFor(nonce)] } };
    expect(await refusal(s.post(s.wallet, authorization, again))).toMatchObject({ code: 'BadRequest', oauthError: 'credential_request_denied' });
    expect((await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items).toHaveLength(1);
    expect(s.sink.published).toHaveLength(1);
    // Refused in the issuing transaction: the nonce it carried was not used up.
    expect(await s.unused(nonce)).toBe(true);
    // Another flow (another token) for the same configuration is issued.
    const other = await s.flow();
    await s.post(s.wallet, other.authorization, await s.credentialRequest());
    expect((await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items).toHaveLength(2);
  });

  it('a token granting two configurations issues each once', async () => {
    const s = await setup();
    const second = mdl(s.tenant.id, { type: 'org.example.second' });
    await s.store.credentialConfigurations.insert(second);
    const { authorization, offerId } = await s.flow({ configurationIds: [s.configuration.id, second.id] });
    const sealed = async () => (await s.store.offers.get(s.tenant.id, offerId))?.sealedClaims;
    await s.post(s.wallet, authorization, await s.credentialRequest(s.configuration.id));
    // Its claims are kept (sealed) for the second credential, and erased with it (issue 26 point 4).
    expect(await sealed()).toEqual(expect.any(String));
    await s.post(s.wallet, authorization, await s.credentialRequest(second.id));
    expect(await sealed()).toBeUndefined();
    for (const id of [s.configuration.id, second.id]) {
      expect(await refusal(s.post(s.wallet, authorization, await s.credentialRequest(id)))).toMatchObject({
        oauthError: 'credential_request_denied',
        message: expect.stringContaining('already issued'),
      });
    }
    const items = (await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items;
    expect(items.map((r) => r.credentialConfigurationId).sort()).toEqual([s.configuration.id, second.id].sort());
  });

  it('requests racing with one token and different nonces: exactly one is issued; the rest are credential_request_denied', async () => {
    const s = await setup();
    const { authorization } = await s.flow();
    const bodies = await Promise.all(Array.from({ length: 4 }, () => s.credentialRequest()));
    const outcomes = await Promise.allSettled(bodies.map((b) => s.post(s.wallet, authorization, b)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ oauthError: 'credential_request_denied' });
    expect((await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items).toHaveLength(1);
    expect(s.sink.published).toHaveLength(1);
  });
});

describe('credential identifiers from the token response (OpenID4VCI 1.0 §6.2, §8.2)', () => {
  it('a token whose response gave credential_identifiers takes credential_identifier, and refuses credential_configuration_id', async () => {
    const s = await setup();
    const { authorization } = await s.flow({ credentialIdentifiers: true });
    const configurationRequest = await s.credentialRequest();
    expect(await refusal(s.post(s.wallet, authorization, configurationRequest))).toMatchObject({ oauthError: 'invalid_credential_request' });
    expect(await refusal(s.post(s.wallet, authorization, { credential_identifier: 'not-given', proofs: { jwt: [await s.proof()] } }))).toMatchObject({
      oauthError: 'unknown_credential_identifier',
    });
    expect(await refusal(s.post(s.wallet, authorization, { credential_identifier: s.configuration.id, format: 'mso_mdoc' }))).toMatchObject({
      oauthError: 'invalid_credential_request',
    });
    const res = await s.post(s.wallet, authorization, { credential_identifier: s.configuration.id, proofs: { jwt: [await s.proof()] } });
    expect(JSON.parse(res.body)).toMatchObject({ credentials: [{ credential: expect.any(String) }] });
    // And once only, as with a configuration id.
    expect(await refusal(s.post(s.wallet, authorization, { credential_identifier: s.configuration.id, proofs: { jwt: [await s.proof()] } }))).toMatchObject({
      oauthError: 'credential_request_denied',
    });
  });
});

describe('credential response encryption (docs/decisions.md "The credential endpoint"; OpenID4VCI 1.0 §8.2, §10)', () => {
  it.each(['A128GCM', 'A256GCM'])(
    'takes a request encrypted to the tenant’s key and answers application/jwt sealed to the wallet’s key with %s',
    async (enc) => {
      const s = await setup();
      const { authorization } = await s.flow();
      const wallet = encryptionKey();
      const request = { ...(await s.credentialRequest()), credential_response_encryption: { jwk: wallet.publicJwk, enc } };
      const res = await s.postEncrypted(authorization, request);
      expect(res.contentType).toBe('application/jwt');
      const sealed = readFakeJwe(res.body);
      expect(sealed).toMatchObject({
        enc,
        x: wallet.publicJwk.x,
        json: { credentials: [{ credential: expect.any(String) }], notification_id: expect.any(String) },
      });
    },
  );

  it('refuses unusable parameters with invalid_encryption_parameters before issuing or using the nonce', async () => {
    const s = await setup();
    const { authorization } = await s.flow();
    const wallet = encryptionKey();
    const cases: unknown[] = [
      'A128GCM',
      { enc: 'A128GCM' },
      { jwk: wallet.publicJwk },
      { jwk: wallet.publicJwk, enc: 'A192GCM' },
      { jwk: wallet.publicJwk, enc: 'A128GCM', zip: 'DEF' },
      { jwk: { ...wallet.publicJwk, alg: 'RSA-OAEP-256' }, enc: 'A128GCM' },
      { jwk: wallet.publicJwk, alg: 'ECDH-ES+A128KW', enc: 'A128GCM' },
      { jwk: { ...wallet.publicJwk, d: 'private' }, enc: 'A128GCM' },
    ];
    for (const credential_response_encryption of cases) {
      const nonce = await s.nonce();
      const jwt = s.proofFor(nonce);
      const failure = await refusal(
        s.post(s.wallet, authorization, { credential_configuration_id: s.configuration.id, proofs: { jwt: [jwt] }, credential_response_encryption }),
      );
      expect(failure, JSON.stringify(credential_response_encryption)).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_encryption_parameters' });
      expect(await s.unused(nonce)).toBe(true);
    }
    expect(s.mdocEngine.calls).toBe(0);
  });

  it('refuses a plain (application/json) request that asks for an encrypted response: invalid_encryption_parameters (1.0 §8.2)', async () => {
    const s = await setup();
    const { authorization } = await s.flow();
    const nonce = await s.nonce();
    const request = {
      credential_configuration_id: s.configuration.id,
      proofs: { jwt: [s.proofFor(nonce)] },
      credential_response_encryption: { jwk: encryptionKey().publicJwk, enc: 'A128GCM' },
    };
    expect(await refusal(s.post(s.wallet, authorization, request))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_encryption_parameters' });
    expect(await s.unused(nonce)).toBe(true);
    expect(s.mdocEngine.calls).toBe(0);
  });

  it('where the issuer requires encrypted requests (encryption_required), refuses every plain one: invalid_encryption_parameters', async () => {
    const s = await setup({ requestEncryptionRequired: true });
    const { authorization } = await s.flow();
    const plain = await s.credentialRequest();
    expect(await refusal(s.post(s.wallet, authorization, plain))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_encryption_parameters' });
    const request = { ...plain, credential_response_encryption: { jwk: encryptionKey().publicJwk, enc: 'A128GCM' } };
    expect((await s.postEncrypted(authorization, request)).contentType).toBe('application/jwt');
  });

  it('refuses an encrypted request (application/jwt) that does not ask for an encrypted response, one sealed to another key, and an empty one', async () => {
    const s = await setup();
    const { authorization } = await s.flow();
    const request = { ...(await s.credentialRequest()), credential_response_encryption: { jwk: encryptionKey().publicJwk, enc: 'A128GCM' } };
    const plain = await s.credentialRequest();
    expect(await refusal(s.postEncrypted(authorization, plain))).toMatchObject({
      oauthError: 'invalid_encryption_parameters',
    });
    expect(await refusal(s.postEncrypted(authorization, request, 'another-tenant'))).toMatchObject({
      oauthError: 'invalid_encryption_parameters',
    });
    expect(await refusal(s.post(s.wallet, authorization, '', 'application/jwt'))).toMatchObject({ oauthError: 'invalid_credential_request' });
  });
});

describe('POST /v1/openid/notification (OpenID4VCI 1.0 §11)', () => {
  async function issued() {
    const s = await setup();
    const flow = await s.flow();
    const res = await s.post(s.wallet, flow.authorization, await s.credentialRequest());
    const { notification_id } = JSON.parse(res.body) as { notification_id: string };
    const notify = (authorization: string | undefined, body: unknown) =>
      s.endpoint.notify(s.wallet, { authorization, contentType: 'application/json', body: typeof body === 'string' ? body : JSON.stringify(body) });
    return { ...s, ...flow, notificationId: notification_id, notify };
  }

  it('records the wallet’s event on the issued-credential record', async () => {
    const s = await issued();
    await s.notify(s.authorization, { notification_id: s.notificationId, event: 'credential_accepted' });
    const [record] = (await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 1 })).items;
    expect(record?.notification).toEqual({ event: 'credential_accepted', receivedAt: NOW });
    s.clock.advance(1000);
    await s.notify(s.authorization, { notification_id: s.notificationId, event: 'credential_deleted', event_description: 'Removed by the holder' });
    expect((await s.store.issuedCredentials.get(s.tenant.id, record!.id))?.notification).toEqual({
      event: 'credential_deleted',
      eventDescription: 'Removed by the holder',
      receivedAt: '2026-05-01T12:00:01.000Z',
    });
  });

  it('refuses an unknown notification id, and one issued under another token: invalid_notification_id', async () => {
    const s = await issued();
    expect(await refusal(s.notify(s.authorization, { notification_id: 'unknown', event: 'credential_accepted' }))).toMatchObject({
      code: 'BadRequest',
      oauthError: 'invalid_notification_id',
    });
    const other = await s.flow();
    expect(await refusal(s.notify(other.authorization, { notification_id: s.notificationId, event: 'credential_accepted' }))).toMatchObject({
      oauthError: 'invalid_notification_id',
    });
  });

  it('refuses malformed notifications (invalid_notification_request) and missing tokens (invalid_token)', async () => {
    const s = await issued();
    for (const body of [
      'nope',
      '[]',
      { event: 'credential_accepted' },
      { notification_id: s.notificationId },
      { notification_id: s.notificationId, event: 'credential_lost' },
      { notification_id: s.notificationId, event: 'credential_failure', event_description: 'naïve' },
    ]) {
      expect(await refusal(s.notify(s.authorization, body)), JSON.stringify(body)).toMatchObject({
        code: 'BadRequest',
        oauthError: 'invalid_notification_request',
      });
    }
    expect(await refusal(s.notify(undefined, { notification_id: s.notificationId, event: 'credential_accepted' }))).toMatchObject({
      code: 'Unauthorized',
      oauthError: 'invalid_token',
    });
  });
});

describe('analytic events OPENID_CREDENTIAL_* and OPENID_NOTIFICATION_* (docs/decisions.md "Analytic events")', () => {
  it('keep no personal data at level 1, metadata at level 2, and masked payloads at level 3', async () => {
    const s = await setup();
    const { authorization } = await s.flow();
    const body = await s.credentialRequest();
    const read = async () => {
      await s.recorder.flush();
      return (
        await s.store.events.list(s.tenant.id, { types: ['OPENID_CREDENTIAL_START', 'OPENID_CREDENTIAL_SUCCESS', 'OPENID_CREDENTIAL_FAIL'] }, { limit: 10 })
      ).items;
    };
    await s.post(s.wallet, authorization, body);
    const [success, start] = await read();
    expect([start?.type, success?.type]).toEqual(['OPENID_CREDENTIAL_START', 'OPENID_CREDENTIAL_SUCCESS']);
    expect(success?.category).toBe('openid');
    expect(success?.data).toBeUndefined();

    await s.store.tenants.setLoggingLevel(s.tenant.id, 3);
    const ctx = contextFor({ ...s.tenant, loggingLevel: 3 }, null);
    // Another flow: a token issues its configuration once.
    const another = (await s.flow()).authorization;
    await s.post(ctx, another, { ...body, proofs: { jwt: [await s.proof()] } });
    await refusal(s.post(ctx, another, { ...body, proofs: { jwt: ['forged'] } }));
    const [fail, , levelThree] = await read();
    expect(fail?.data).toEqual({ errorCode: 'invalid_proof', payload: { request: { credential_configuration_id: s.configuration.id, proofs: '***' } } });
    expect(levelThree?.data).toMatchObject({
      credentialConfigurationId: s.configuration.id,
      format: 'mso_mdoc',
      requestForm: 'current',
      encryptedResponse: false,
      // The issued credential is never kept, at any level (docs/limits.md "Analytic events").
      payload: { request: { proofs: '***' }, response: { credentials: '***', notification_id: expect.any(String) } },
    });
  });
});

describe('issued-credential records for the admin API (docs/decisions.md "The credential endpoint")', () => {
  it('lists with filters (permission credentials) and per user (permission users, 404 for an unknown user)', async () => {
    const s = await setup();
    const service = createIssuedCredentialService({ store: s.store, events: s.recorder });
    const a = await s.flow();
    const b = await s.flow();
    await s.post(s.wallet, a.authorization, await s.credentialRequest());
    await s.post(s.wallet, b.authorization, await s.credentialRequest());
    const all = await service.list(s.admin, {});
    expect(all.data.map((r) => r.userId)).toEqual([a.userId, b.userId]);
    expect(all.data[0]).not.toHaveProperty('notificationId');
    expect(all.data[0]).not.toHaveProperty('tenantId');
    expect((await service.list(s.admin, { userId: b.userId })).data.map((r) => r.userId)).toEqual([b.userId]);
    expect((await service.list(s.admin, { format: 'ldp_vc' })).data).toEqual([]);
    expect((await service.list(s.admin, { credentialConfigurationId: s.configuration.id, limit: 1 })).nextCursor).toEqual(expect.any(String));
    expect((await service.listForUser(s.admin, a.userId, {})).data.map((r) => r.offerId)).toEqual([a.offerId]);
    await expect(service.listForUser(s.admin, crypto.randomUUID(), {})).rejects.toMatchObject({ code: 'NotFound' });
    await expect(service.list(s.admin, { format: 'jwt_vc', userId: 'x' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'format' }, { param: 'userId' }],
    });
    await expect(service.list(contextFor(s.tenant, 'auditor'), {})).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(service.listForUser(contextFor(s.tenant, 'verifier'), a.userId, {})).rejects.toMatchObject({ code: 'Forbidden' });
  });
});

describe('batch issuance and the attestation proof type (OpenID4VCI 1.0 §8.2, §12.2.4, App. F.3; issue 30)', () => {
  const ROOT = 'acme-wallet-root';
  /**
   * The chain check is the adapter's (tested in @vellum/crypto and tools/interop): here a key
   * attestation is trusted when its header names a root the configuration lists.
   */
  const attestationTrust = (): JwtProofVerifier => {
    const base = fakeJwtProofVerifier();
    return {
      ...base,
      async verifyWithX5c(jwt, roots) {
        const [header, payload] = jwt
          .split('.')
          .slice(0, 2)
          .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')));
        return roots.includes(header.root) ? { ok: true, header, payload } : { ok: false, reason: 'The chain does not lead to a trusted root' };
      },
    };
  };
  const provider = walletKey();
  /** A key attestation by the trusted provider for `keys`, at iso_18045_high. */
  const keyAttestation = (keys: WalletKey[], payload: Record<string, unknown> = {}, now = Math.floor(Date.parse(NOW) / 1000)) =>
    signJwt(
      provider,
      { typ: 'key-attestation+jwt', root: ROOT },
      { iat: now, exp: now + 600, attested_keys: keys.map((k) => k.publicJwk), key_storage: ['iso_18045_high'], ...payload },
    );

  /** The endpoint with a tenant whose batch size is `batchSize`, and an mDL configuration that requires key attestations. */
  async function batch(batchSize: number) {
    const s = await setup({ jwtProofs: attestationTrust() });
    expect(await s.store.tenants.setBatchSize(s.tenant.id, batchSize)).toBe(true);
    const wallet = contextFor({ ...s.tenant, batchSize }, null);
    const attested = mdl(s.tenant.id, { type: 'org.example.attested', keyAttestationsRequired: { keyStorage: ['iso_18045_high'], rootCertificates: [ROOT] } });
    await s.store.credentialConfigurations.insert(attested);
    const records = async () => (await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 200 })).items;
    return { ...s, wallet, attested, records };
  }
  const credentialsOf = (body: string) => JSON.parse(body) as { credentials: Array<{ credential: string }>; notification_id: string };

  it('a batch of 3 proofs by 3 keys with one c_nonce: 3 mDocs, each bound to its key, 3 records and 3 events under one notification id', async () => {
    const s = await batch(3);
    const { authorization, userId } = await s.flow();
    const keys = [walletKey(), walletKey(), walletKey()];
    const nonce = await s.nonce();
    const res = await s.post(s.wallet, authorization, {
      credential_configuration_id: s.configuration.id,
      proofs: { jwt: keys.map((k) => s.proofFor(nonce, k)) },
    });
    const body = credentialsOf(res.body);
    expect(Object.keys(body).sort()).toEqual(['credentials', 'notification_id']);
    expect(body.credentials.map((c) => readFakeMdoc(c.credential).deviceKey)).toEqual(keys.map((k) => k.publicJwk));
    expect(new Set(body.credentials.map((c) => c.credential)).size).toBe(3);
    const records = await s.records();
    expect(records).toHaveLength(3);
    expect(new Set(records.map((r) => r.id)).size).toBe(3);
    for (const r of records) expect(r).toMatchObject({ userId, notificationId: body.notification_id, status: 'valid' });
    expect(s.sink.published.map((e) => (e.payload as { credentialId?: string }).credentialId).sort()).toEqual(records.map((r) => r.id).sort());
    expect(s.sink.published.map((e) => (e.payload as { credential?: unknown }).credential as string).sort()).toEqual(
      body.credentials.map((c) => c.credential).sort(),
    );
    // The nonce is used once, for the whole request.
    expect(await s.unused(nonce)).toBe(false);
  });

  it('a revocable dc+sd-jwt batch: each credential its own status list entry and its own cnf', async () => {
    const s = await batch(3);
    await s.dids.create(s.admin, { method: 'key', options: { keyType: 'P-256' } });
    const configuration = makeConfiguration(s.tenant.id, {
      format: 'dc+sd-jwt',
      revocable: true,
      claimMappings: { familyName: { mapFrom: 'claims.familyName' } },
    } as never);
    await s.store.credentialConfigurations.insert(configuration);
    const { authorization } = await s.flow({ configurationIds: [configuration.id] });
    const keys = [walletKey(), walletKey(), walletKey()];
    const nonce = await s.nonce();
    const res = await s.post(s.wallet, authorization, {
      credential_configuration_id: configuration.id,
      proofs: { jwt: keys.map((k) => s.proofFor(nonce, k)) },
    });
    const payloads = credentialsOf(res.body).credentials.map((c) => JSON.parse(Buffer.from(c.credential.slice(0, -1), 'base64url').toString('utf8')).payload);
    expect(payloads.map((p) => p.cnf.jwk)).toEqual(keys.map((k) => k.publicJwk));
    const references = payloads.map((p) => `${p.status.status_list.uri} ${p.status.status_list.idx}`);
    expect(new Set(references).size).toBe(3);
    const entries = await Promise.all((await s.records()).map((r) => s.store.statusLists.entryOf(s.tenant.id, r.id)));
    expect(entries.map((e) => `${e?.listId} ${e?.idx}`).sort()).toEqual(
      payloads.map((p) => `${p.status.status_list.uri.slice(p.status.status_list.uri.lastIndexOf('/') + 1)} ${p.status.status_list.idx}`).sort(),
    );
  });

  it('more proofs than the batch size, one key twice, or proofs with different c_nonces: refused, nothing issued, the nonce unused', async () => {
    const s = await batch(3);
    const { authorization } = await s.flow();
    const id = s.configuration.id;
    const nonce = await s.nonce();
    const [a, b, c, d] = [walletKey(), walletKey(), walletKey(), walletKey()];
    const refusedWith = async (jwts: string[], oauthError: string) =>
      expect(await refusal(s.post(s.wallet, authorization, { credential_configuration_id: id, proofs: { jwt: jwts } }))).toMatchObject({ oauthError });
    await refusedWith(
      [a, b, c, d].map((k) => s.proofFor(nonce, k)),
      'invalid_proof',
    );
    await refusedWith([s.proofFor(nonce, a), s.proofFor(nonce, b), s.proofFor(nonce, a)], 'invalid_proof');
    await refusedWith([s.proofFor(nonce, a), s.proofFor(await s.nonce(), b)], 'invalid_nonce');
    // Past every tenant's ceiling (100) the request is refused before a proof is read.
    await refusedWith(
      Array.from({ length: 101 }, () => 'x'),
      'invalid_proof',
    );
    expect(await s.records()).toEqual([]);
    expect(s.mdocEngine.calls).toBe(0);
    expect(await s.unused(nonce)).toBe(true);
  });

  it('the legacy (draft 13) request stays one proof, one credential, whatever the batch size', async () => {
    const s = await batch(3);
    const { authorization } = await s.flow();
    const nonce = await s.nonce();
    const jwts = [walletKey(), walletKey()].map((k) => s.proofFor(nonce, k));
    expect(await refusal(s.post(s.wallet, authorization, { format: 'mso_mdoc', doctype: DOCTYPE, proofs: { jwt: jwts } }))).toMatchObject({
      oauthError: 'invalid_proof',
    });
    const res = await s.post(s.wallet, authorization, { format: 'mso_mdoc', doctype: DOCTYPE, proof: { proof_type: 'jwt', jwt: jwts[0] } });
    expect(Object.keys(JSON.parse(res.body)).sort()).toEqual(['credential', 'format', 'notification_id']);
  });

  it('jwt proofs whose key_attestation header is one attestation naming all their keys (HAIP §4.5.1): one credential per proof', async () => {
    const s = await batch(3);
    const { authorization } = await s.flow({ configurationIds: [s.attested.id] });
    const keys = [walletKey(), walletKey(), walletKey()];
    const nonce = await s.nonce();
    const attestation = keyAttestation([...keys, walletKey()], { nonce });
    const jwts = keys.map((k) => proofJwt(k, { audience: s.issuer, nonce, iat: s.now(), header: { key_attestation: attestation } }));
    const res = await s.post(s.wallet, authorization, { credential_configuration_id: s.attested.id, proofs: { jwt: jwts } });
    expect(credentialsOf(res.body).credentials.map((c) => readFakeMdoc(c.credential).deviceKey)).toEqual(keys.map((k) => k.publicJwk));
  });

  it('an attestation proof naming 10 keys: 10 credentials, one per attested key; with a batch size of 5 it is invalid_proof', async () => {
    const s = await batch(10);
    const keys = Array.from({ length: 10 }, () => walletKey());
    const { authorization } = await s.flow({ configurationIds: [s.attested.id] });
    const res = await s.post(s.wallet, authorization, {
      credential_configuration_id: s.attested.id,
      proofs: { attestation: [keyAttestation(keys, { nonce: await s.nonce() })] },
    });
    const body = credentialsOf(res.body);
    expect(body.credentials.map((c) => readFakeMdoc(c.credential).deviceKey)).toEqual(keys.map((k) => k.publicJwk));
    expect(new Set((await s.records()).map((r) => r.notificationId))).toEqual(new Set([body.notification_id]));

    const small = await batch(5);
    const flow = await small.flow({ configurationIds: [small.attested.id] });
    const nonce = await small.nonce();
    const refused = small.post(small.wallet, flow.authorization, {
      credential_configuration_id: small.attested.id,
      proofs: { attestation: [keyAttestation(keys, { nonce })] },
    });
    expect(await refusal(refused)).toMatchObject({ oauthError: 'invalid_proof' });
    expect(await small.unused(nonce)).toBe(true);
  });

  it('an attestation proof is single use through its nonce: the same attestation again is invalid_nonce', async () => {
    const s = await batch(2);
    const keys = [walletKey(), walletKey()];
    const attestation = keyAttestation(keys, { nonce: await s.nonce() });
    const first = await s.flow({ configurationIds: [s.attested.id] });
    const request = { credential_configuration_id: s.attested.id, proofs: { attestation: [attestation] } };
    expect(credentialsOf((await s.post(s.wallet, first.authorization, request)).body).credentials).toHaveLength(2);
    const second = await s.flow({ configurationIds: [s.attested.id] });
    expect(await refusal(s.post(s.wallet, second.authorization, request))).toMatchObject({ oauthError: 'invalid_nonce' });
    expect(await s.records()).toHaveLength(2);
  });

  it('attestation proofs refused: without a nonce, with a nonce not ours, an untrusted root, a level too low, a key twice, an unbindable key, or for a configuration without key attestations', async () => {
    const s = await batch(5);
    const { authorization } = await s.flow({ configurationIds: [s.attested.id, s.configuration.id] });
    const keys = [walletKey(), walletKey()];
    const post = (id: string, attestation: string) =>
      s.post(s.wallet, authorization, { credential_configuration_id: id, proofs: { attestation: [attestation] } });
    const nonce = await s.nonce();
    const untrusted = signJwt(
      provider,
      { typ: 'key-attestation+jwt', root: 'other-root' },
      { iat: s.now(), attested_keys: keys.map((k) => k.publicJwk), nonce },
    );
    const cases: Array<[string, string, string]> = [
      [s.attested.id, keyAttestation(keys), 'invalid_proof'],
      [s.attested.id, keyAttestation(keys, { nonce: 'made-up' }), 'invalid_nonce'],
      [s.attested.id, untrusted, 'invalid_proof'],
      [s.attested.id, keyAttestation(keys, { nonce, key_storage: ['iso_18045_basic'] }), 'invalid_proof'],
      [s.attested.id, keyAttestation([keys[0] as WalletKey, keys[0] as WalletKey], { nonce }), 'invalid_proof'],
      [s.attested.id, keyAttestation([walletKey('Ed25519')], { nonce }), 'invalid_proof'],
      [
        s.attested.id,
        keyAttestation(keys, { nonce, typ: undefined }).replace(
          /^[^.]+/,
          Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JWT', root: ROOT })).toString('base64url'),
        ),
        'invalid_proof',
      ],
      [s.configuration.id, keyAttestation(keys, { nonce }), 'invalid_proof'],
    ];
    for (const [id, attestation, oauthError] of cases) expect(await refusal(post(id, attestation))).toMatchObject({ oauthError });
    expect(await refusal(s.post(s.wallet, authorization, { credential_configuration_id: s.attested.id, proofs: { attestation: ['a', 'b'] } }))).toMatchObject({
      oauthError: 'invalid_proof',
    });
    expect(await s.records()).toEqual([]);
    expect(await s.unused(nonce)).toBe(true);
  });

  it('the notification of a batch response is recorded on every credential of it', async () => {
    const s = await batch(3);
    const flow = await s.flow();
    const nonce = await s.nonce();
    const res = await s.post(s.wallet, flow.authorization, {
      credential_configuration_id: s.configuration.id,
      proofs: { jwt: [walletKey(), walletKey(), walletKey()].map((k) => s.proofFor(nonce, k)) },
    });
    const { notification_id } = credentialsOf(res.body);
    await s.endpoint.notify(s.wallet, {
      authorization: flow.authorization,
      contentType: 'application/json',
      body: JSON.stringify({ notification_id, event: 'credential_accepted' }),
    });
    const records = await s.records();
    expect(records).toHaveLength(3);
    for (const r of records) expect(r.notification).toEqual({ event: 'credential_accepted', receivedAt: NOW });
  });
});
