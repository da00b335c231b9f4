import { describe, expect, it } from 'vitest';
import { contextFor, withTenant } from '../../test/harness.ts';
import { fakeRequestJwe, makeAuthorization, makeConfiguration, proofJwt, readFakeJwe, readFakeMdoc, walletKey, type WalletKey } from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import type { MdocConfiguration } from '../configurations/model.ts';
import { buildIssuerMetadata, LIVE_ISSUANCE_FEATURES } from '../metadata/issuer-metadata.ts';
import { offerClaimsContext, sealClaims } from '../shared/sealed-claims.ts';
import type { RequestContext } from '../tenancy/model.ts';

const DOCTYPE = 'org.iso.18013.5.1.mDL';
const DAY = 86_400_000;

/** A tenant with an active IACA and an mDL configuration that requires review, and a Pre-authorized flow's helpers. */
async function setup(deferred: MdocConfiguration['deferred'] | null = { intervalSeconds: 7, expiresIn: { days: 2 } }) {
  const h = await withTenant();
  const { tenant, ctx: admin } = h;
  await h.iacas.update(admin, (await h.iacas.create(admin, { country: 'US' })).id, { active: true });
  const configuration = makeConfiguration(tenant.id, {
    format: 'mso_mdoc',
    type: DOCTYPE,
    expiresIn: { days: 365 },
    includeStatus: false,
    claimMappings: {
      'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true }, birth_date: { mapFrom: 'claims.birthDate', type: 'date' } },
    },
    ...(deferred ? { deferred } : {}),
  } as Partial<MdocConfiguration>) as MdocConfiguration;
  await h.store.credentialConfigurations.insert(configuration);
  const issuer = 'https://acme.eu01.vellum.test';
  const wallet = contextFor(tenant, null);
  // A webhook for the review event and the issued one, so the outbox shows what each transaction published.
  const hook = await h.webhooks.create(admin, {
    url: 'https://hooks.example.com/review',
    events: ['OpenIdCredentialReviewRequested', 'OpenIdCredentialIssued'],
  });

  /** A user, a redeemed offer and an access token for it, as the token endpoint leaves them. */
  async function flow(configurationIds = [configuration.id]) {
    const userId = crypto.randomUUID();
    const offerId = crypto.randomUUID();
    const at = h.clock.now().toISOString();
    await h.store.users.insert({ id: userId, tenantId: tenant.id, claims: { familyName: 'Turner' }, createdAt: at, updatedAt: at });
    const sealed = sealClaims(h.secretBox, { birthDate: '1990-05-15' }, offerClaimsContext(tenant.id, offerId));
    await h.store.offers.insert({
      id: offerId,
      tenantId: tenant.id,
      kind: 'pre-authorized',
      issuer,
      configurationIds,
      userId,
      ...(sealed ? { sealedClaims: sealed } : {}),
      codeDigest: crypto.randomUUID(),
      byReference: false,
      status: 'used',
      failedTxAttempts: 0,
      expiresAt: new Date(h.clock.now().getTime() + 300_000).toISOString(),
      createdAt: at,
      usedAt: at,
    });
    const mint = async () => `Bearer ${(await h.walletTokens.issue({ tenantId: tenant.id, issuer, userId, offerId, configurationIds, scope: '' }, 600)).token}`;
    return { userId, offerId, authorization: await mint(), mint };
  }

  async function proof(key: WalletKey) {
    const nonce = (await h.nonces.issue(contextFor(tenant, null))).c_nonce;
    return proofJwt(key, { audience: issuer, nonce, iat: Math.floor(h.clock.now().getTime() / 1000) });
  }
  const request = async (key: WalletKey) => ({ credential_configuration_id: configuration.id, proofs: { jwt: [await proof(key)] } });
  const post = (ctx: RequestContext, authorization: string, body: unknown, contentType = 'application/json') =>
    h.credentialEndpoint.issue(ctx, { authorization, contentType, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const poll = (authorization: string, body: unknown, contentType = 'application/json') =>
    h.deferredCredentialEndpoint.collect(wallet, { authorization, contentType, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const deliveries = async (type: string) =>
    (await h.store.webhookDeliveries.list(tenant.id, hook.id, { limit: 100 })).items.filter((d) => d.eventType === type);

  /** A request held for review: its transaction_id and flow. */
  async function held(key: WalletKey = walletKey()) {
    const f = await flow();
    const res = await post(wallet, f.authorization, await request(key));
    const body = JSON.parse(res.body) as { transaction_id: string; interval: number };
    return { ...f, key, transactionId: body.transaction_id, res };
  }
  return { ...h, tenant, admin, configuration, issuer, wallet, flow, request, post, poll, held, deliveries };
}

describe('deferred issuance: the credential endpoint holds a reviewed configuration’s request (OpenID4VCI 1.0 §8.3)', () => {
  it('answers 202 with transaction_id and interval (no notification_id), keeping only the digest and the claims sealed', async () => {
    const s = await setup();
    const { res, transactionId, userId, offerId, key } = await s.held();
    expect(res.status).toBe(202);
    expect(res.contentType).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({ transaction_id: transactionId, interval: 7 });
    expect(transactionId.length).toBeGreaterThanOrEqual(32);
    const [record] = (await s.store.deferredIssuances.list(s.tenant.id, {}, { limit: 10 })).items;
    expect(record).toMatchObject({
      status: 'pending',
      userId,
      offerId,
      credentialConfigurationId: s.configuration.id,
      holderKeys: [key.publicJwk],
      intervalSeconds: 7,
    });
    expect(record?.expiresAt).toBe(new Date(s.clock.now().getTime() + 2 * DAY).toISOString());
    expect(record?.transactionDigest).toBe(s.digests.sha256(transactionId));
    expect(JSON.stringify(record)).not.toContain(transactionId);
    expect(record?.sealedClaims).toBeDefined();
    expect(record?.sealedClaims).not.toContain('Turner');
    // Nothing issued yet; the review webhook is queued in the same transaction, without claims.
    expect((await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items).toEqual([]);
    const [review] = await s.deliveries('OpenIdCredentialReviewRequested');
    expect(review?.payload).toEqual({
      deferredIssuanceId: record?.id,
      credentialConfigurationId: s.configuration.id,
      credentialProfile: 'mobile',
      format: 'mso_mdoc',
      userId,
      expiresAt: record?.expiresAt,
    });
  });

  it('uses the token up for that configuration: asking again is credential_request_denied, and leaves no second record', async () => {
    const s = await setup();
    const { authorization, key } = await s.held();
    const again = await refusal(s.post(s.wallet, authorization, await s.request(key)));
    expect(again.oauthError).toBe('credential_request_denied');
    expect((await s.store.deferredIssuances.list(s.tenant.id, {}, { limit: 10 })).items).toHaveLength(1);
  });

  it('encrypts the 202 when the request asked for an encrypted response (OpenID4VCI 1.0 §8.3, §10)', async () => {
    const s = await setup();
    const f = await s.flow();
    const jwk = { kty: 'EC', crv: 'P-256', x: 'wallet-x', y: 'wallet-y', use: 'enc' };
    const body = { ...(await s.request(walletKey())), credential_response_encryption: { jwk, enc: 'A128GCM' } };
    const res = await s.post(s.wallet, f.authorization, fakeRequestJwe(s.tenant.id, body), 'application/jwt');
    expect(res.status).toBe(202);
    expect(res.contentType).toBe('application/jwt');
    const opened = readFakeJwe(res.body);
    expect(opened).toMatchObject({ enc: 'A128GCM', x: 'wallet-x' });
    expect(opened.json).toEqual({ transaction_id: expect.any(String), interval: 7 });
  });

  it('refuses a draft 13 (legacy) request for a reviewed configuration and holds nothing', async () => {
    const s = await setup();
    const f = await s.flow();
    const legacy = { format: 'mso_mdoc', doctype: DOCTYPE, proof: { proof_type: 'jwt', jwt: (await s.request(walletKey())).proofs.jwt[0] } };
    const refused = await refusal(s.post(s.wallet, f.authorization, legacy));
    expect(refused.oauthError).toBe('credential_request_denied');
    expect((await s.store.deferredIssuances.list(s.tenant.id, {}, { limit: 10 })).items).toEqual([]);
  });

  it('issues at once, as before, for a configuration without the setting', async () => {
    const s = await setup(null);
    const f = await s.flow();
    const res = await s.post(s.wallet, f.authorization, await s.request(walletKey()));
    expect(res.status ?? 200).toBe(200);
    expect(JSON.parse(res.body)).toHaveProperty('notification_id');
  });
});

describe('deferred issuance: the deferred credential endpoint (OpenID4VCI 1.0 §9)', () => {
  it('answers 202 with the same transaction_id while pending, then the credentials once approved, exactly once', async () => {
    const s = await setup();
    const { authorization, transactionId, key, userId } = await s.held();
    const pending = await s.poll(authorization, { transaction_id: transactionId });
    expect(pending.status).toBe(202);
    expect(JSON.parse(pending.body)).toEqual({ transaction_id: transactionId, interval: 7 });

    const [record] = (await s.store.deferredIssuances.list(s.tenant.id, {}, { limit: 1 })).items;
    const approved = await s.deferredIssuances.approve(s.admin, record!.id);
    expect(approved).toMatchObject({ status: 'approved', decidedBy: 'client-admin', expired: false });

    const res = await s.poll(authorization, { transaction_id: transactionId });
    expect(res.status).toBe(200);
    const body = JSON.parse(res.body) as { credentials: { credential: string }[]; notification_id: string };
    expect(Object.keys(body).sort()).toEqual(['credentials', 'notification_id']);
    const mdoc = readFakeMdoc(body.credentials[0]!.credential);
    expect(mdoc.deviceKey).toEqual(key.publicJwk);
    expect(mdoc.namespaces['org.iso.18013.5.1']).toEqual({
      family_name: { type: 'string', value: 'Turner' },
      birth_date: { type: 'date', value: '1990-05-15' },
    });

    const [issued] = (await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items;
    expect(issued).toMatchObject({ userId, notificationId: body.notification_id, credentialConfigurationId: s.configuration.id });
    const after = await s.store.deferredIssuances.get(s.tenant.id, record!.id);
    expect(after).toMatchObject({ status: 'issued', credentialIds: [issued!.id] });
    expect(after?.sealedClaims).toBeUndefined();
    const [event] = await s.deliveries('OpenIdCredentialIssued');
    expect(event?.payload).toMatchObject({ credentialId: issued!.id, userId, userClaims: { familyName: 'Turner' } });

    // Single use: the transaction_id is spent.
    expect((await refusal(s.poll(authorization, { transaction_id: transactionId }))).oauthError).toBe('invalid_transaction_id');
  });

  it('holds and collects under the Authorization Code grant too, the authorization recording what its token asked for', async () => {
    const s = await setup();
    const at = s.clock.now().toISOString();
    const userId = crypto.randomUUID();
    await s.store.users.insert({ id: userId, tenantId: s.tenant.id, claims: { familyName: 'Hopper' }, createdAt: at, updatedAt: at });
    const run = makeAuthorization(s.tenant.id, {
      issuer: s.issuer,
      configurationIds: [s.configuration.id],
      stage: 'redeemed',
      userId,
      expiresAt: new Date(s.clock.now().getTime() + 600_000).toISOString(),
    });
    delete run.handleDigest;
    await s.store.authorizations.insert(run);
    const claims = {
      tenantId: s.tenant.id,
      issuer: s.issuer,
      userId,
      offerId: run.id,
      grant: 'authorization_code' as const,
      configurationIds: [s.configuration.id],
      scope: '',
    };
    const authorization = `Bearer ${(await s.walletTokens.issue(claims, 600)).token}`;
    const res = await s.post(s.wallet, authorization, await s.request(walletKey()));
    expect(res.status).toBe(202);
    const { transaction_id } = JSON.parse(res.body) as { transaction_id: string };
    expect((await s.store.authorizations.get(s.tenant.id, run.id))?.issuedConfigurationIds).toEqual([s.configuration.id]);
    const [record] = (await s.store.deferredIssuances.list(s.tenant.id, {}, { limit: 1 })).items;
    expect(record).toMatchObject({ grant: 'authorization_code', offerId: run.id, userId });
    // A Pre-authorized token naming the same id is another grant.
    const { grant: _g, ...preAuthorized } = claims;
    const other = `Bearer ${(await s.walletTokens.issue(preAuthorized, 600)).token}`;
    expect((await refusal(s.poll(other, { transaction_id }))).oauthError).toBe('invalid_transaction_id');
    await s.deferredIssuances.approve(s.admin, record!.id);
    const collected = await s.poll(authorization, { transaction_id });
    expect(collected.status).toBe(200);
    const { credentials } = JSON.parse(collected.body) as { credentials: { credential: string }[] };
    expect(readFakeMdoc(credentials[0]!.credential).namespaces['org.iso.18013.5.1']).toEqual({ family_name: { type: 'string', value: 'Hopper' } });
  });

  it('an unbound configuration (holderBinding: false) is held without a key proof and collected as one credential without cnf', async () => {
    const s = await setup();
    await s.dids.create(s.admin, { method: 'key', options: { keyType: 'P-256' } });
    const unbound = makeConfiguration(s.tenant.id, {
      format: 'dc+sd-jwt',
      type: 'Ticket',
      revocable: false,
      holderBinding: false,
      claimMappings: { familyName: { mapFrom: 'claims.familyName', required: true } },
      deferred: { intervalSeconds: 2, expiresIn: { days: 1 } },
    } as never);
    await s.store.credentialConfigurations.insert(unbound);
    const f = await s.flow([unbound.id]);
    const held = await s.post(s.wallet, f.authorization, { credential_configuration_id: unbound.id });
    expect(held.status).toBe(202);
    const { transaction_id } = JSON.parse(held.body) as { transaction_id: string };
    const [record] = (await s.store.deferredIssuances.list(s.tenant.id, {}, { limit: 1 })).items;
    expect(record?.holderKeys).toEqual([]);
    await s.deferredIssuances.approve(s.admin, record!.id);
    const { credentials } = JSON.parse((await s.poll(f.authorization, { transaction_id })).body) as { credentials: { credential: string }[] };
    expect(credentials).toHaveLength(1);
    const payload = JSON.parse(Buffer.from(credentials[0]!.credential.slice(0, -1), 'base64url').toString('utf8')).payload;
    expect(payload).toMatchObject({ vct: 'Ticket', familyName: 'Turner' });
    expect(payload).not.toHaveProperty('cnf');
  });

  it('works with a later token of the same grant, and with no token of another grant', async () => {
    const s = await setup();
    const { transactionId, mint } = await s.held();
    const other = await s.flow();
    expect((await refusal(s.poll(other.authorization, { transaction_id: transactionId }))).oauthError).toBe('invalid_transaction_id');
    const later = await mint();
    expect((await s.poll(later, { transaction_id: transactionId })).status).toBe(202);
  });

  it('answers credential_request_denied once denied, and the claims are erased', async () => {
    const s = await setup();
    const { authorization, transactionId } = await s.held();
    const [record] = (await s.store.deferredIssuances.list(s.tenant.id, {}, { limit: 1 })).items;
    const denied = await s.deferredIssuances.deny(s.admin, record!.id, { reason: 'Licence suspended' });
    expect(denied).toMatchObject({ status: 'denied', reason: 'Licence suspended' });
    expect((await s.store.deferredIssuances.get(s.tenant.id, record!.id))?.sealedClaims).toBeUndefined();
    const refused = await refusal(s.poll(authorization, { transaction_id: transactionId }));
    expect(refused.oauthError).toBe('credential_request_denied');
    expect(refused.message).not.toContain('Licence');
    // A decision is made once.
    expect((await refusal(s.deferredIssuances.approve(s.admin, record!.id))).code).toBe('Conflict');
  });

  it('issues nothing to a user deleted after approval: credential_request_denied, and the approval stands', async () => {
    const s = await setup();
    const { authorization, transactionId, userId } = await s.held();
    const [record] = (await s.store.deferredIssuances.list(s.tenant.id, {}, { limit: 1 })).items;
    await s.deferredIssuances.approve(s.admin, record!.id);
    await s.store.users.delete(s.tenant.id, userId);
    expect((await refusal(s.poll(authorization, { transaction_id: transactionId }))).oauthError).toBe('credential_request_denied');
    expect((await s.store.issuedCredentials.list(s.tenant.id, {}, { limit: 10 })).items).toEqual([]);
    expect((await s.store.deferredIssuances.get(s.tenant.id, record!.id))?.status).toBe('approved');
  });

  it('answers invalid_transaction_id once expired, approved or not, and an expired one cannot be decided', async () => {
    const s = await setup();
    const first = await s.held();
    const second = await s.held();
    const [a, b] = (await s.store.deferredIssuances.list(s.tenant.id, {}, { limit: 2 })).items;
    await s.deferredIssuances.approve(s.admin, a!.id);
    s.clock.advance(2 * DAY);
    // A fresh token of the same grant: the transaction, not the token, has expired.
    for (const f of [first, second])
      expect((await refusal(s.poll(await f.mint(), { transaction_id: f.transactionId }))).oauthError).toBe('invalid_transaction_id');
    const late = await refusal(s.deferredIssuances.approve(s.admin, b!.id));
    expect(late.code).toBe('Conflict');
    expect((await s.deferredIssuances.get(s.admin, b!.id)).expired).toBe(true);
  });

  it('refuses malformed requests with the OAuth error, and unknown ids as invalid_transaction_id', async () => {
    const s = await setup();
    const { authorization } = await s.held();
    expect((await refusal(s.poll(authorization, 'nope'))).oauthError).toBe('invalid_credential_request');
    expect((await refusal(s.poll(authorization, { transaction_id: 5 }))).oauthError).toBe('invalid_credential_request');
    expect((await refusal(s.poll(authorization, { transaction_id: 'x'.repeat(600) }))).oauthError).toBe('invalid_credential_request');
    expect((await refusal(s.poll(authorization, { transaction_id: 'unknown' }))).oauthError).toBe('invalid_transaction_id');
    const jwk = { kty: 'EC', crv: 'P-256', x: 'a', y: 'b' };
    const plainWithEncryption = await refusal(s.poll(authorization, { transaction_id: 'unknown', credential_response_encryption: { jwk, enc: 'A128GCM' } }));
    expect(plainWithEncryption.oauthError).toBe('invalid_encryption_parameters');
    expect((await refusal(s.poll('Bearer nope', { transaction_id: 'unknown' }))).oauthError).toBe('invalid_token');
  });

  it('encrypts the answer to the wallet’s key when the encrypted request asks for it', async () => {
    const s = await setup();
    const { authorization, transactionId } = await s.held();
    const jwk = { kty: 'EC', crv: 'P-256', x: 'wallet-x', y: 'wallet-y', use: 'enc' };
    const res = await s.poll(
      authorization,
      fakeRequestJwe(s.tenant.id, { transaction_id: transactionId, credential_response_encryption: { jwk, enc: 'A256GCM' } }),
      'application/jwt',
    );
    expect(res).toMatchObject({ status: 202, contentType: 'application/jwt' });
    expect(readFakeJwe(res.body)).toEqual({ enc: 'A256GCM', x: 'wallet-x', json: { transaction_id: transactionId, interval: 7 } });
  });
});

describe('deferred issuance: the admin API (docs/deferred-issuance.md)', () => {
  it('lists by status in creation order, and shows claims on a single read only to roles that may read users’ claims', async () => {
    const s = await setup();
    await s.held();
    await s.held();
    const page = await s.deferredIssuances.list(s.admin, { status: 'pending' });
    expect(page.data).toHaveLength(2);
    expect(page.data[0]).not.toHaveProperty('claims');
    await s.deferredIssuances.approve(s.admin, page.data[0]!.id);
    expect((await s.deferredIssuances.list(s.admin, { status: 'approved' })).data.map((v) => v.id)).toEqual([page.data[0]!.id]);
    const one = await s.deferredIssuances.get(s.admin, page.data[1]!.id);
    expect(one.claims).toEqual({ familyName: 'Turner', birthDate: '1990-05-15' });
    expect(one).not.toHaveProperty('transactionDigest');
    expect((await refusal(s.deferredIssuances.list(s.admin, { status: 'maybe' }))).details).toEqual([
      expect.objectContaining({ param: 'status', location: 'query' }),
    ]);
  });

  it('is refused to roles without the credentials permission, 404 for an unknown id and 400 for a malformed one', async () => {
    const s = await setup();
    await s.held();
    const auditor = contextFor(s.tenant, 'auditor');
    expect((await refusal(s.deferredIssuances.list(auditor, {}))).code).toBe('Forbidden');
    expect((await refusal(s.deferredIssuances.approve(contextFor(s.tenant, 'verifier'), crypto.randomUUID()))).code).toBe('Forbidden');
    expect((await refusal(s.deferredIssuances.get(s.admin, crypto.randomUUID()))).code).toBe('NotFound');
    expect((await refusal(s.deferredIssuances.deny(s.admin, 'not-an-id', undefined))).code).toBe('BadRequest');
  });
});

describe('deferred issuance: configuration and metadata', () => {
  it('takes deferred on every format, fills in the defaults, and bounds the transaction life', async () => {
    const s = await setup(null);
    const body = {
      type: 'org.iso.18013.5.1.aamva',
      claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName' } } },
      expiresIn: { days: 365 },
    };
    const created = await s.configurations.create(s.admin, 'mso_mdoc', { ...body, deferred: {} });
    expect(created.deferred).toEqual({ intervalSeconds: 5, expiresIn: { days: 30 } });
    const sd = await s.configurations.create(s.admin, 'dc+sd-jwt', {
      type: 'Ticket',
      expiresIn: { days: 365 },
      claimMappings: { name: { mapFrom: 'claims.name' } },
      deferred: { intervalSeconds: 60 },
    });
    expect(sd.deferred).toEqual({ intervalSeconds: 60, expiresIn: { days: 30 } });
    const tooLong = await refusal(
      s.configurations.create(s.admin, 'dc+sd-jwt', {
        type: 'Pass',
        expiresIn: { days: 365 },
        claimMappings: { name: { mapFrom: 'claims.name' } },
        deferred: { expiresIn: { days: 91 } },
      }),
    );
    expect(tooLong.details).toEqual([expect.objectContaining({ param: 'deferred.expiresIn', msg: 'At most 90 days' })]);
    const badInterval = await refusal(
      s.configurations.create(s.admin, 'dc+sd-jwt', {
        type: 'Pass',
        expiresIn: { days: 365 },
        claimMappings: { name: { mapFrom: 'claims.name' } },
        deferred: { intervalSeconds: 0 },
      }),
    );
    expect(badInterval.details).toEqual([expect.objectContaining({ param: 'deferred.intervalSeconds' })]);
  });

  it('advertises deferred_credential_endpoint only while some configuration defers (OpenID4VCI 1.0 §12.2.4)', async () => {
    const s = await setup();
    const plain = { ...s.configuration, deferred: undefined };
    delete plain.deferred;
    const origin = 'https://acme.eu01.vellum.test';
    expect(buildIssuerMetadata(origin, [s.configuration], LIVE_ISSUANCE_FEATURES, s.formats).deferred_credential_endpoint).toBe(
      `${origin}/v1/openid/deferred_credential`,
    );
    expect(buildIssuerMetadata(origin, [plain], LIVE_ISSUANCE_FEATURES, s.formats)).not.toHaveProperty('deferred_credential_endpoint');
  });
});
