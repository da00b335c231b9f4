import { describe, expect, it } from 'vitest';
import { contextFor, withTenants } from '../../test/harness.ts';
import { refusal } from '../../test/refusal.ts';
import type { CredentialConfigurationInput } from '../configurations/model.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { PRE_AUTHORIZED_CODE_GRANT } from './uri.ts';
import { offerClaimsContext, openClaims } from '../shared/sealed-claims.ts';

const MDL = 'org.iso.18013.5.1.mDL';
const mdl: CredentialConfigurationInput = {
  type: MDL,
  expiresIn: { days: 365 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
};
const degree: CredentialConfigurationInput = {
  type: 'Degree',
  expiresIn: { years: 1 },
  issuer: { name: 'Uni' },
  claimMappings: { name: { mapFrom: 'claims.name' } },
};

async function setup() {
  const h = await withTenants();
  const { tenant, other, ctx } = h;
  const mdoc = await h.configurations.create(ctx, 'mso_mdoc', mdl);
  const ldp = await h.configurations.create(ctx, 'ldp_vc', degree);
  return { ...h, tenant, other, ctx, mdoc, ldp, issuer: ctx.origin };
}

/** The offer object inside a by-value offer URI (OpenID4VCI 1.0 §4.1). */
function offerIn(uri: string): Record<string, any> {
  const url = new URL(uri);
  expect(url.protocol).toBe('openid-credential-offer:');
  return JSON.parse(url.searchParams.get('credential_offer') ?? 'null');
}

describe('pre-authorized offers (OpenID4VCI 1.0 §4.1, docs/decisions.md "Users, offers, the token and nonce endpoints")', () => {
  it('creates a user, and an offer URI with the issuer, the ids (current and legacy) and the pre-authorized grant', async () => {
    const { offers, ctx, mdoc, issuer, users } = await setup();
    const created = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], claims: { familyName: 'Lovelace' } });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      userId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      uri: expect.any(String),
      expiresAt: '2026-05-01T12:05:00.000Z',
    });
    const offer = offerIn(created.uri);
    expect(offer).toEqual({
      credential_issuer: issuer,
      credential_configuration_ids: [mdoc.id],
      credentials: [mdoc.id],
      grants: { [PRE_AUTHORIZED_CODE_GRANT]: { 'pre-authorized_code': expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/) } },
    });
    // The new user holds no claims: none were named in claimsToPersist.
    expect(await users.get(ctx, created.userId)).toMatchObject({ id: created.userId, claims: {} });
  });

  it('keeps the code as a SHA-256 digest and the transaction code as a keyed digest (issue 26 point 5), with the claims sealed, configurations, user and expiry', async () => {
    const { offers, ctx, mdoc, store, tenant, digests, secretBox } = await setup();
    const created = await offers.createPreAuthorizedOffer(ctx, {
      credentials: [mdoc.id],
      claims: { familyName: 'Lovelace' },
      transactionCodeConfiguration: { inputMode: 'numeric', length: 6, description: 'Sent by SMS' },
    });
    const code = offerIn(created.uri).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'] as string;
    const stored = await store.offers.get(tenant.id, created.id);
    const txCode = created.transactionCode as string;
    expect(stored).toEqual({
      id: created.id,
      tenantId: tenant.id,
      kind: 'pre-authorized',
      issuer: ctx.origin,
      configurationIds: [mdoc.id],
      userId: created.userId,
      sealedClaims: expect.any(String),
      codeDigest: digests.sha256(code),
      // HMAC under the platform secret, of the offer's code digest and the code: not the bare SHA-256 a dump could reverse.
      txCode: { digest: `k1.${digests.mac(`${digests.sha256(code)}.${txCode}`)}`, inputMode: 'numeric', length: 6, description: 'Sent by SMS' },
      byReference: false,
      status: 'open',
      failedTxAttempts: 0,
      expiresAt: created.expiresAt,
      createdAt: '2026-05-01T12:00:00.000Z',
    });
    expect(stored?.txCode?.digest).not.toContain(digests.sha256(txCode));
    expect(openClaims(secretBox, stored?.sealedClaims, offerClaimsContext(tenant.id, created.id))).toEqual({ familyName: 'Lovelace' });
    expect(JSON.stringify(stored)).not.toContain(code);
    expect(JSON.stringify(stored)).not.toContain(`"${txCode}"`);
    expect(JSON.stringify(stored)).not.toContain('Lovelace');
  });

  it('generates the transaction code the configuration asks for, and tells the wallet about it', async () => {
    const { offers, ctx, mdoc } = await setup();
    const numeric = await offers.createPreAuthorizedOffer(ctx, {
      credentials: [mdoc.id],
      transactionCodeConfiguration: { inputMode: 'numeric', length: 8, description: 'From your letter' },
    });
    expect(numeric.transactionCode).toMatch(/^[0-9]{8}$/);
    expect(offerIn(numeric.uri).grants[PRE_AUTHORIZED_CODE_GRANT].tx_code).toEqual({ length: 8, input_mode: 'numeric', description: 'From your letter' });
    const text = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], transactionCodeConfiguration: { inputMode: 'text' } });
    expect(text.transactionCode).toMatch(/^[A-Z2-9]{6}$/);
    expect(offerIn(text.uri).grants[PRE_AUTHORIZED_CODE_GRANT].tx_code).toEqual({ length: 6, input_mode: 'text' });
  });

  it('persists only the claims named in claimsToPersist: on a new user, or merged into an existing one', async () => {
    const { offers, ctx, mdoc, users, store, tenant, secretBox } = await setup();
    const fresh = await offers.createPreAuthorizedOffer(ctx, {
      credentials: [mdoc.id],
      claims: { familyName: 'Lovelace', oneOff: 'x' },
      claimsToPersist: ['familyName'],
    });
    expect((await users.get(ctx, fresh.userId)).claims).toEqual({ familyName: 'Lovelace' });
    // The offer keeps all its claims for issuance, sealed (docs/decisions.md "Claims at rest").
    const sealed = (await store.offers.get(tenant.id, fresh.id))?.sealedClaims;
    expect(sealed).not.toContain('oneOff');
    expect(openClaims(secretBox, sealed, offerClaimsContext(tenant.id, fresh.id))).toEqual({ familyName: 'Lovelace', oneOff: 'x' });

    const existing = await users.create(ctx, { claims: { givenName: 'Ada', familyName: 'Byron' } });
    const again = await offers.createPreAuthorizedOffer(ctx, {
      credentials: [mdoc.id],
      userId: existing.id,
      claims: { familyName: 'Lovelace', other: 1 },
      claimsToPersist: ['familyName'],
    });
    expect(again.userId).toBe(existing.id);
    expect((await users.get(ctx, existing.id)).claims).toEqual({ givenName: 'Ada', familyName: 'Lovelace' });
  });

  it('takes mDoc configurations only, naming each unknown or other-format id in details', async () => {
    const { offers, ctx, mdoc, ldp, other } = await setup();
    const missing = crypto.randomUUID();
    const error = await refusal(offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id, ldp.id, missing, 'not-a-uuid'] }));
    expect(error).toMatchObject({
      code: 'BadRequest',
      details: [
        { param: 'credentials.1', value: ldp.id, msg: expect.stringContaining('mDocs (mso_mdoc) only') },
        { param: 'credentials.2', value: missing, msg: 'No credential configuration of this tenant has this id' },
        { param: 'credentials.3', value: 'not-a-uuid' },
      ],
    });
    // Another tenant's configuration is unknown here.
    expect(await refusal(offers.createPreAuthorizedOffer(contextFor(other), { credentials: [mdoc.id] }))).toMatchObject({
      details: [{ param: 'credentials.0', value: mdoc.id }],
    });
  });

  it('refuses an unknown userId (400 on userId), another tenant’s user included, and writes nothing', async () => {
    const { offers, ctx, mdoc, other, users } = await setup();
    const theirs = await users.create(contextFor(other), {});
    for (const userId of [crypto.randomUUID(), theirs.id, 'nope']) {
      expect(await refusal(offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], userId }))).toMatchObject({
        code: 'BadRequest',
        details: [{ param: 'userId', value: userId }],
      });
    }
    expect((await users.list(ctx, {})).data).toEqual([]);
  });

  it('expires after expiresIn (default 5 minutes, at most 10)', async () => {
    const { offers, ctx, mdoc } = await setup();
    expect((await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], expiresIn: { minutes: 10 } })).expiresAt).toBe('2026-05-01T12:10:00.000Z');
    expect((await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], expiresIn: { minutes: 1, seconds: 30 } })).expiresAt).toBe(
      '2026-05-01T12:01:30.000Z',
    );
    expect(await refusal(offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], expiresIn: { minutes: 10, seconds: 1 } }))).toMatchObject({
      details: [{ param: 'expiresIn' }],
    });
  });

  it('by reference: the URI points at the issuer’s offer URL, served while the offer is open', async () => {
    const { offers, ctx, mdoc, issuer, tokenEndpoint, clock } = await setup();
    const created = await offers.createPreAuthorizedOffer(ctx, {
      credentials: [mdoc.id],
      byReference: true,
      transactionCodeConfiguration: { inputMode: 'numeric' },
    });
    const url = new URL(created.uri).searchParams.get('credential_offer_uri') as string;
    expect(url.startsWith(`${issuer}/v1/openid/offers/`)).toBe(true);
    const reference = url.slice(url.lastIndexOf('/') + 1);
    const anonymous = contextFor(ctx.tenant, null);
    const offer = await offers.offerByReference(anonymous, reference);
    expect(offer).toMatchObject({ credential_issuer: issuer, credential_configuration_ids: [mdoc.id], credentials: [mdoc.id] });
    const code = (offer.grants[PRE_AUTHORIZED_CODE_GRANT] as { 'pre-authorized_code': string })['pre-authorized_code'];
    await tokenEndpoint.token(anonymous, { grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': code, tx_code: created.transactionCode });
    expect(await refusal(offers.offerByReference(anonymous, reference))).toMatchObject({ code: 'NotFound' });

    const later = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], byReference: true });
    const laterRef = (new URL(later.uri).searchParams.get('credential_offer_uri') as string).split('/').pop() as string;
    clock.advance(300_000);
    expect(await refusal(offers.offerByReference(anonymous, laterRef))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(offers.offerByReference(anonymous, 'x'.repeat(43)))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(offers.offerByReference(anonymous, '../etc'))).toMatchObject({ code: 'NotFound' });
  });

  it('serves a by-value offer nowhere, and another tenant never', async () => {
    const { offers, ctx, mdoc, other } = await setup();
    const byValue = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id] });
    const code = offerIn(byValue.uri).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'] as string;
    expect(await refusal(offers.offerByReference(contextFor(ctx.tenant, null), code))).toMatchObject({ code: 'NotFound' });
    const byRef = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], byReference: true });
    const reference = (new URL(byRef.uri).searchParams.get('credential_offer_uri') as string).split('/').pop() as string;
    expect(await refusal(offers.offerByReference(contextFor(other, null), reference))).toMatchObject({ code: 'NotFound' });
  });

  it('names the issuer with the mount path when the API is under a prefix', async () => {
    const { offers, ctx, mdoc } = await setup();
    const created = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id], byReference: true }, '/issuance');
    expect(new URL(created.uri).searchParams.get('credential_offer_uri')).toMatch(new RegExp(`^${ctx.origin}/issuance/v1/openid/offers/`));
    const byValue = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id] }, '/issuance/');
    expect(offerIn(byValue.uri).credential_issuer).toBe(`${ctx.origin}/issuance`);
  });

  it('deletes an offer (its code stops working); unknown, repeated or malformed ids are 404, 404 and 400', async () => {
    const { offers, ctx, mdoc, other, tokenEndpoint } = await setup();
    const created = await offers.createPreAuthorizedOffer(ctx, { credentials: [mdoc.id] });
    expect(await refusal(offers.deletePreAuthorizedOffer(contextFor(other), created.id))).toMatchObject({ code: 'NotFound' });
    await offers.deletePreAuthorizedOffer(ctx, created.id);
    expect(await refusal(offers.deletePreAuthorizedOffer(ctx, created.id))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(offers.deletePreAuthorizedOffer(ctx, crypto.randomUUID()))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(offers.deletePreAuthorizedOffer(ctx, 'nope'))).toMatchObject({ code: 'BadRequest', details: [{ param: 'id', location: 'params' }] });
    const code = offerIn(created.uri).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'];
    expect(
      await refusal(tokenEndpoint.token(contextFor(ctx.tenant, null), { grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': code })),
    ).toMatchObject({ oauthError: 'invalid_grant' });
  });

  it('needs the offers permission', async () => {
    const { offers, tenant, mdoc } = await setup();
    for (const role of ['admin', 'issuer', 'managed-issuer'] as const)
      await expect(offers.createPreAuthorizedOffer(contextFor(tenant, role), { credentials: [mdoc.id] })).resolves.toBeDefined();
    for (const role of ['verifier', 'auditor', 'dts-provider', 'dts-consumer'] as const) {
      expect(await refusal(offers.createPreAuthorizedOffer(contextFor(tenant, role), { credentials: [mdoc.id] }))).toMatchObject({ code: 'Forbidden' });
      expect(await refusal(offers.createAuthorizationCodeOffer(contextFor(tenant, role), { credentials: [mdoc.id] }))).toMatchObject({ code: 'Forbidden' });
      expect(await refusal(offers.deletePreAuthorizedOffer(contextFor(tenant, role), crypto.randomUUID()))).toMatchObject({ code: 'Forbidden' });
    }
    expect(await refusal(offers.createPreAuthorizedOffer(contextFor(tenant, null), { credentials: [mdoc.id] }))).toMatchObject({ code: 'Unauthorized' });
  });

  it('records OPENID_PRE_AUTHORIZED_OFFER_* events: claims only at level 3, codes and the URI never', async () => {
    const { offers, tenant, mdoc, store, analytics } = await setup();
    await store.tenants.setLoggingLevel(tenant.id, 3);
    const ctx = contextFor({ ...tenant, loggingLevel: 3 });
    const created = await offers.createPreAuthorizedOffer(ctx, {
      credentials: [mdoc.id],
      claims: { familyName: 'Lovelace' },
      transactionCodeConfiguration: { inputMode: 'numeric' },
    });
    await offers.deletePreAuthorizedOffer(ctx, created.id);
    const events = (await analytics.listEvents(contextFor(tenant, 'auditor'), { categories: 'openid' })).data.reverse();
    expect(events.map((e) => e.type)).toEqual([
      'OPENID_PRE_AUTHORIZED_OFFER_CREATE_START',
      'OPENID_PRE_AUTHORIZED_OFFER_CREATE_SUCCESS',
      'OPENID_PRE_AUTHORIZED_OFFER_DELETE_START',
      'OPENID_PRE_AUTHORIZED_OFFER_DELETE_SUCCESS',
    ]);
    const success = events[1]?.data as Record<string, any>;
    expect(success).not.toHaveProperty('userId');
    expect(success).toMatchObject({ id: created.id, newUser: true, configurations: 1, transactionCode: true, byReference: false });
    expect(success.payload.request.claims).toEqual({ familyName: 'Lovelace' });
    expect(success.payload.response).toMatchObject({ id: created.id, uri: '***', transactionCode: '***' });
    const text = JSON.stringify(events);
    expect(text).not.toContain(offerIn(created.uri).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code']);
    expect(text).not.toContain(`"${created.transactionCode}"`);
  });
});

describe('Authorization Code offers (OpenID4VCI 1.0 §4.1, docs/authorization-code.md)', () => {
  it('makes an offer URI with issuer_state and request parameters, for configurations of any format', async () => {
    const { offers, ctx, mdoc, ldp, issuer, store, tenant, digests } = await setup();
    const { uri } = await offers.createAuthorizationCodeOffer(ctx, {
      credentials: [ldp.id, mdoc.id],
      request_parameters: { login_hint: 'ada@example.com', prompt: 'login' },
    });
    const offer = offerIn(uri);
    expect(offer).toEqual({
      credential_issuer: issuer,
      credential_configuration_ids: [ldp.id, mdoc.id],
      credentials: [ldp.id, mdoc.id],
      grants: { authorization_code: { issuer_state: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/) } },
      request_parameters: { login_hint: 'ada@example.com', prompt: 'login' },
    });
    const stored = await store.offers.findByCodeDigest(tenant.id, digests.sha256(offer.grants.authorization_code.issuer_state));
    expect(stored).toMatchObject({ kind: 'authorization-code', configurationIds: [ldp.id, mdoc.id], expiresAt: '2026-05-31T12:00:00.000Z' });
  });

  it('by reference, and refusing unknown ids by name', async () => {
    const { offers, ctx, mdoc, issuer } = await setup();
    const { uri } = await offers.createAuthorizationCodeOffer(ctx, { credentials: [mdoc.id], byReference: true });
    const url = new URL(uri).searchParams.get('credential_offer_uri') as string;
    expect(url.startsWith(`${issuer}/v1/openid/offers/`)).toBe(true);
    const offer = await offers.offerByReference(contextFor(ctx.tenant, null), url.split('/').pop() as string);
    expect(offer.grants.authorization_code?.issuer_state).toBe(url.split('/').pop());
    const missing = crypto.randomUUID();
    expect(await refusal(offers.createAuthorizationCodeOffer(ctx, { credentials: [mdoc.id, missing] }))).toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'credentials.1', value: missing }],
    });
    expect(await refusal(offers.createAuthorizationCodeOffer(ctx, { credentials: [] }))).toMatchObject({ details: [{ param: 'credentials' }] });
    expect(await refusal(offers.createAuthorizationCodeOffer(ctx, { credentials: [mdoc.id], request_parameters: 'x', byReference: 'yes' }))).toMatchObject({
      details: [{ param: 'request_parameters' }, { param: 'byReference' }],
    });
  });

  it('records OPENID_OFFER_CREATE events without the URI', async () => {
    const { offers, tenant, mdoc, store, analytics } = await setup();
    await store.tenants.setLoggingLevel(tenant.id, 3);
    const ctx: RequestContext = contextFor({ ...tenant, loggingLevel: 3 });
    const { uri } = await offers.createAuthorizationCodeOffer(ctx, { credentials: [mdoc.id] });
    const events = (await analytics.listEvents(contextFor(tenant, 'auditor'), { types: 'OPENID_OFFER_CREATE_SUCCESS' })).data;
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain(offerIn(uri).grants.authorization_code.issuer_state);
  });
});
