import { describe, expect, it, vi } from 'vitest';
import { contextFor, withTenants } from '../../test/harness.ts';
import { refusal } from '../../test/refusal.ts';
import type { CredentialConfigurationInput } from '../configurations/model.ts';
import { PRE_AUTHORIZED_CODE_GRANT } from '../offers/uri.ts';
import type { Tenant } from '../tenancy/model.ts';
import { NONCE_TTL_SECONDS } from './nonces.ts';
import { createRetentionJob } from '../retention/job.ts';

const mdl = (type = 'org.iso.18013.5.1.mDL'): CredentialConfigurationInput => ({
  type,
  expiresIn: { days: 365 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
});

async function setup() {
  const h = await withTenants();
  const { tenant, other, ctx: admin } = h;
  const wallet = contextFor(tenant, null);
  const mdoc = await h.configurations.create(admin, 'mso_mdoc', mdl());
  /** A pre-authorized offer and the code in its URI. */
  const offer = async (input: Record<string, unknown> = {}) => {
    const created = await h.offers.createPreAuthorizedOffer(admin, { credentials: [mdoc.id], claims: { familyName: 'Lovelace' }, ...input });
    const code = JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT][
      'pre-authorized_code'
    ] as string;
    return { ...created, code };
  };
  const token = (form: Record<string, unknown>, ctx = wallet) => h.tokenEndpoint.token(ctx, { grant_type: PRE_AUTHORIZED_CODE_GRANT, ...form });
  return { ...h, tenant, other, admin, wallet, mdoc, offer, token };
}

describe('the token endpoint, Pre-authorized Code grant (OpenID4VCI 1.0 §6, §6.2; OpenID4VCI 1.0 §6)', () => {
  it('exchanges the code for a Bearer access token for the offer’s configurations, anonymously', async () => {
    const { offer, token, mdoc, walletTokens, tenant, wallet } = await setup();
    const o = await offer();
    const response = await token({ 'pre-authorized_code': o.code });
    expect(response).toEqual({ access_token: expect.stringMatching(/^fakewt\./), token_type: 'Bearer', expires_in: 600, scope: `mso_mdoc:${mdoc.type}` });
    const claims = await walletTokens.verify(tenant.id, wallet.origin, response.access_token);
    expect(claims).toEqual({
      tenantId: tenant.id,
      issuer: wallet.origin,
      userId: o.userId,
      offerId: o.id,
      configurationIds: [mdoc.id],
      scope: `mso_mdoc:${mdoc.type}`,
      jti: expect.any(String),
      issuedAt: Date.parse('2026-05-01T12:00:00Z') / 1000,
      expiresAt: Date.parse('2026-05-01T12:10:00Z') / 1000,
    });
  });

  it('accepts a client_id without checking it (anonymous wallets are welcome), and names the issuer with the mount path', async () => {
    const { offer, token, tokenEndpoint, walletTokens, wallet } = await setup();
    await token({ 'pre-authorized_code': (await offer()).code, client_id: 'some-wallet', extra: 'ignored' });
    expect(walletTokens.issued.at(-1)?.issuer).toBe(wallet.origin);
    await tokenEndpoint.token(wallet, { grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': (await offer()).code }, '/issuance');
    expect(walletTokens.issued.at(-1)?.issuer).toBe(`${wallet.origin}/issuance`);
  });

  it('lists every granted configuration in the scope, space-separated, leaving out one deleted since', async () => {
    const { configurations, admin, offers, token, mdoc } = await setup();
    const second = await configurations.create(admin, 'mso_mdoc', mdl('org.example.card'));
    const third = await configurations.create(admin, 'mso_mdoc', mdl('org.example.gone'));
    const created = await offers.createPreAuthorizedOffer(admin, { credentials: [mdoc.id, second.id, third.id] });
    const code = JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'];
    await configurations.delete(admin, 'mso_mdoc', third.id);
    expect((await token({ 'pre-authorized_code': code })).scope).toBe(`mso_mdoc:${mdoc.type} mso_mdoc:org.example.card`);
  });

  it('honours authorization_details (OpenID4VCI 1.0 §6.1, §6.2): the token grants what they name, and the answer gives credential_identifiers', async () => {
    const { configurations, admin, offers, token, mdoc, walletTokens, tenant, wallet } = await setup();
    const second = await configurations.create(admin, 'mso_mdoc', mdl('org.example.card'));
    const created = await offers.createPreAuthorizedOffer(admin, { credentials: [mdoc.id, second.id] });
    const code = JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'];
    const details = JSON.stringify([{ type: 'openid_credential', credential_configuration_id: second.id }]);
    const response = await token({ 'pre-authorized_code': code, authorization_details: details });
    expect(response).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 600,
      scope: 'mso_mdoc:org.example.card',
      authorization_details: [{ type: 'openid_credential', credential_configuration_id: second.id, credential_identifiers: [second.id] }],
    });
    expect(await walletTokens.verify(tenant.id, wallet.origin, response.access_token)).toMatchObject({
      configurationIds: [second.id],
      credentialIdentifiers: true,
    });
  });

  it('refuses authorization_details that are malformed or name what the offer does not grant: invalid_authorization_details, and the code stays usable', async () => {
    const { configurations, admin, offer, token, mdoc } = await setup();
    const elsewhere = await configurations.create(admin, 'mso_mdoc', mdl('org.example.elsewhere'));
    const o = await offer();
    for (const authorization_details of [
      'not json',
      '{}',
      '[]',
      JSON.stringify(['x']),
      JSON.stringify([{ type: 'other', credential_configuration_id: mdoc.id }]),
      JSON.stringify([{ type: 'openid_credential' }]),
      JSON.stringify([{ type: 'openid_credential', format: 'mso_mdoc', doctype: mdoc.type }]),
      JSON.stringify([{ type: 'openid_credential', credential_configuration_id: elsewhere.id }]),
    ]) {
      expect(await refusal(token({ 'pre-authorized_code': o.code, authorization_details })), authorization_details).toMatchObject({
        code: 'BadRequest',
        oauthError: 'invalid_authorization_details',
      });
    }
    const details = JSON.stringify([{ type: 'openid_credential', credential_configuration_id: mdoc.id }]);
    expect((await token({ 'pre-authorized_code': o.code, authorization_details: details })).authorization_details).toHaveLength(1);
  });

  it('works once: a second request with the same code is invalid_grant', async () => {
    const { offer, token } = await setup();
    const o = await offer();
    await token({ 'pre-authorized_code': o.code });
    expect(await refusal(token({ 'pre-authorized_code': o.code }))).toMatchObject({
      code: 'BadRequest',
      oauthError: 'invalid_grant',
      message: 'The pre-authorized code has been used',
    });
  });

  it('gives exactly one token to racing requests for one code', async () => {
    const { offer, token } = await setup();
    const o = await offer({ transactionCodeConfiguration: { inputMode: 'numeric' } });
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => token({ 'pre-authorized_code': o.code, tx_code: o.transactionCode })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ oauthError: 'invalid_grant' });
  });

  it('asks for the transaction code the offer has (invalid_request when missing or unexpected, no attempt counted)', async () => {
    const { offer, token, store, tenant } = await setup();
    const withCode = await offer({ transactionCodeConfiguration: { inputMode: 'numeric' } });
    expect(await refusal(token({ 'pre-authorized_code': withCode.code }))).toMatchObject({
      oauthError: 'invalid_request',
      message: expect.stringContaining('tx_code is required'),
    });
    expect(await refusal(token({ 'pre-authorized_code': withCode.code, tx_code: '' }))).toMatchObject({ oauthError: 'invalid_request' });
    expect((await store.offers.get(tenant.id, withCode.id))?.failedTxAttempts).toBe(0);
    const without = await offer();
    expect(await refusal(token({ 'pre-authorized_code': without.code, tx_code: '123456' }))).toMatchObject({
      oauthError: 'invalid_request',
      message: 'This offer takes no tx_code',
    });
    await expect(token({ 'pre-authorized_code': without.code })).resolves.toBeDefined();
  });

  it('counts wrong transaction codes, and the third kills the offer for good (docs/decisions.md "Users, offers, the token and nonce endpoints")', async () => {
    const { offer, token, store, tenant } = await setup();
    const o = await offer({ transactionCodeConfiguration: { inputMode: 'numeric', length: 6 } });
    const wrong = o.transactionCode === '000000' ? '111111' : '000000';
    expect(await refusal(token({ 'pre-authorized_code': o.code, tx_code: wrong }))).toMatchObject({
      oauthError: 'invalid_grant',
      message: 'The transaction code is wrong (2 attempts left)',
    });
    expect(await refusal(token({ 'pre-authorized_code': o.code, tx_code: wrong }))).toMatchObject({
      oauthError: 'invalid_grant',
      message: 'The transaction code is wrong (1 attempt left)',
    });
    expect(await refusal(token({ 'pre-authorized_code': o.code, tx_code: wrong }))).toMatchObject({
      oauthError: 'invalid_grant',
      message: expect.stringContaining('no longer valid'),
    });
    expect(await refusal(token({ 'pre-authorized_code': o.code, tx_code: o.transactionCode }))).toMatchObject({
      oauthError: 'invalid_grant',
      message: 'Too many wrong transaction codes: the offer is no longer valid',
    });
    expect(await store.offers.get(tenant.id, o.id)).toMatchObject({ status: 'locked', failedTxAttempts: 3 });
  });

  it('checks the transaction code against its keyed digest, and still against the bare SHA-256 an offer made before kept (issue 26 point 5)', async () => {
    const { offer, token, store, tenant, digests, admin, offers, mdoc } = await setup();
    const keyed = await offer({ transactionCodeConfiguration: { inputMode: 'numeric', length: 6 } });
    expect((await store.offers.get(tenant.id, keyed.id))?.txCode?.digest).toMatch(/^k1\./);
    await expect(token({ 'pre-authorized_code': keyed.code, tx_code: keyed.transactionCode })).resolves.toBeDefined();
    // An offer as an earlier release stored it: the code's unsalted SHA-256, no prefix.
    const created = await offers.createPreAuthorizedOffer(admin, { credentials: [mdoc.id], claims: { familyName: 'Lovelace' } });
    const legacy = await store.offers.get(tenant.id, created.id);
    const code = JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'];
    await store.offers.markDeleted(tenant.id, created.id, 'pre-authorized');
    await store.offers.insert({
      ...(legacy as NonNullable<typeof legacy>),
      id: crypto.randomUUID(),
      codeDigest: digests.sha256(`${code}-legacy`),
      txCode: { digest: digests.sha256('042117'), inputMode: 'numeric', length: 6 },
    });
    const wrong = await refusal(token({ 'pre-authorized_code': `${code}-legacy`, tx_code: '042118' }));
    expect(wrong).toMatchObject({ message: 'The transaction code is wrong (2 attempts left)' });
    await expect(token({ 'pre-authorized_code': `${code}-legacy`, tx_code: '042117' })).resolves.toBeDefined();
  });

  it('refuses an expired, deleted, unknown or another tenant’s code with invalid_grant', async () => {
    const { offer, token, clock, offers, admin, other } = await setup();
    const expiring = await offer({ expiresIn: { seconds: 30 } });
    const deleted = await offer();
    const foreign = await offer();
    await offers.deletePreAuthorizedOffer(admin, deleted.id);
    clock.advance(30_000);
    expect(await refusal(token({ 'pre-authorized_code': expiring.code }))).toMatchObject({
      oauthError: 'invalid_grant',
      message: 'The pre-authorized code has expired',
    });
    expect(await refusal(token({ 'pre-authorized_code': deleted.code }))).toMatchObject({
      oauthError: 'invalid_grant',
      message: 'The pre-authorized code is not valid',
    });
    expect(await refusal(token({ 'pre-authorized_code': 'x'.repeat(43) }))).toMatchObject({ oauthError: 'invalid_grant' });
    expect(await refusal(token({ 'pre-authorized_code': 'x'.repeat(5000) }))).toMatchObject({ oauthError: 'invalid_grant' });
    expect(await refusal(token({ 'pre-authorized_code': foreign.code }, contextFor(other, null)))).toMatchObject({ oauthError: 'invalid_grant' });
  });

  it('refuses a code Vellum cannot have made without asking the store (redeeming is a write)', async () => {
    const { token, store } = await setup();
    const redeem = vi.spyOn(store.offers, 'redeem');
    const find = vi.spyOn(store.offers, 'findByCodeDigest');
    for (const code of ['x'.repeat(201), 'short', 'has spaces in it, and commas', 'base64+with/padding==AAAAAAAAAAAA', 'ümlaut-ümlaut-ümlaut']) {
      expect(await refusal(token({ 'pre-authorized_code': code })), code).toMatchObject({
        oauthError: 'invalid_grant',
        message: 'The pre-authorized code is not valid',
      });
    }
    expect(redeem).not.toHaveBeenCalled();
    expect(find).not.toHaveBeenCalled();
    // A well-formed code that names no offer is asked about, and refused the same way.
    expect(await refusal(token({ 'pre-authorized_code': 'x'.repeat(43) }))).toMatchObject({
      oauthError: 'invalid_grant',
      message: 'The pre-authorized code is not valid',
    });
    expect(redeem).toHaveBeenCalledTimes(1);
  });

  it('refuses the code of a user deleted since, and of an offer whose configurations are all gone', async () => {
    const { offer, token, users, admin, configurations, mdoc } = await setup();
    const o = await offer();
    await users.delete(admin, o.userId);
    expect(await refusal(token({ 'pre-authorized_code': o.code }))).toMatchObject({ oauthError: 'invalid_grant' });
    const p = await offer();
    await configurations.delete(admin, 'mso_mdoc', mdoc.id);
    expect(await refusal(token({ 'pre-authorized_code': p.code }))).toMatchObject({
      oauthError: 'invalid_grant',
      message: 'The credentials offered are no longer issued',
    });
  });

  it('answers malformed requests with invalid_request and other grants with unsupported_grant_type', async () => {
    const { tokenEndpoint, wallet } = await setup();
    const call = (form: Record<string, unknown>) => refusal(tokenEndpoint.token(wallet, form));
    expect(await call({})).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_request', message: 'grant_type is required' });
    expect(await call({ grant_type: ['a', 'b'] })).toMatchObject({ oauthError: 'invalid_request' });
    expect(await call({ grant_type: 'authorization_code', code: 'x' })).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_client' });
    expect(await call({ grant_type: 'client_credentials' })).toMatchObject({ oauthError: 'unsupported_grant_type' });
    expect(await call({ grant_type: PRE_AUTHORIZED_CODE_GRANT })).toMatchObject({ oauthError: 'invalid_request', message: 'pre-authorized_code is required' });
    expect(await call({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': 42 })).toMatchObject({ oauthError: 'invalid_request' });
    expect(await call({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': 'abc', tx_code: {} })).toMatchObject({ oauthError: 'invalid_request' });
  });

  it('records OPENID_TOKEN events with the codes and the token masked', async () => {
    const { offer, token, store, tenant, analytics } = await setup();
    await store.tenants.setLoggingLevel(tenant.id, 3);
    const ctx = contextFor({ ...tenant, loggingLevel: 3 } satisfies Tenant, null);
    const o = await offer({ transactionCodeConfiguration: { inputMode: 'numeric' } });
    const response = await token({ 'pre-authorized_code': o.code, tx_code: o.transactionCode }, ctx);
    await expect(token({ 'pre-authorized_code': o.code, tx_code: o.transactionCode }, ctx)).rejects.toBeDefined();
    const events = (
      await analytics.listEvents(contextFor(tenant, 'auditor'), { types: 'OPENID_TOKEN_START,OPENID_TOKEN_SUCCESS,OPENID_TOKEN_FAIL' })
    ).data.reverse();
    expect(events.map((e) => [e.type, e.category])).toEqual([
      ['OPENID_TOKEN_START', 'openid'],
      ['OPENID_TOKEN_SUCCESS', 'openid'],
      ['OPENID_TOKEN_START', 'openid'],
      ['OPENID_TOKEN_FAIL', 'openid'],
    ]);
    expect(events[1]?.data).toMatchObject({
      grantType: PRE_AUTHORIZED_CODE_GRANT,
      offerId: o.id,
      payload: { request: { 'pre-authorized_code': '***', tx_code: '***' }, response: { access_token: '***', scope: response.scope } },
    });
    expect(events[3]?.data).toMatchObject({ errorCode: 'invalid_grant' });
    const text = JSON.stringify(events);
    for (const secret of [o.code, response.access_token, `"${o.transactionCode}"`]) expect(text).not.toContain(secret);
  });
});

describe('the nonce endpoint (OpenID4VCI 1.0 §7; docs/decisions.md "Users, offers, the token and nonce endpoints")', () => {
  it('issues nonces bound to the tenant that live 5 minutes, and writes no nonce to the store', async () => {
    const { nonces, nonceCodec, store, wallet, tenant, other, clock } = await setup();
    const markUsed = vi.spyOn(store.nonces, 'markUsed');
    const { c_nonce } = await nonces.issue(wallet);
    expect(c_nonce).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(nonceCodec.open(tenant.id, c_nonce)).toEqual({ expiresAt: new Date(clock.now().getTime() + NONCE_TTL_SECONDS * 1000) });
    expect(nonceCodec.open(other.id, c_nonce)).toBeUndefined();
    expect((await nonces.issue(wallet)).c_nonce).not.toBe(c_nonce);
    expect(markUsed).not.toHaveBeenCalled();
    // Nothing was recorded: the first use of the nonce is still to come.
    expect(await store.nonces.markUsed({ tenantId: tenant.id, nonce: c_nonce, expiresAt: clock.now().toISOString() })).toBe(true);
  });

  it('the retention job forgets records of used nonces once they expired a minute ago (docs/retention.md)', async () => {
    const { nonces, nonceCodec, store, wallet, tenant, clock } = await setup();
    const used = (await nonces.issue(wallet)).c_nonce;
    const record = { tenantId: tenant.id, nonce: used, expiresAt: (nonceCodec.open(tenant.id, used) as { expiresAt: Date }).expiresAt.toISOString() };
    expect(await store.nonces.markUsed(record)).toBe(true);
    const retention = createRetentionJob({ store, clock, holder: 'test' });
    // Expired 30 s ago: kept, in case the purging server's clock runs ahead of the checking one's.
    clock.advance(NONCE_TTL_SECONDS * 1000 + 30_000);
    await retention.run();
    expect(await store.nonces.markUsed(record)).toBe(false);
    // A run a minute later forgets it.
    clock.advance(60_000);
    await retention.run();
    expect(await store.nonces.markUsed(record)).toBe(true);
  });

  it('records OPENID_NONCE events without the nonce', async () => {
    const { nonces, store, tenant, analytics } = await setup();
    await store.tenants.setLoggingLevel(tenant.id, 3);
    const { c_nonce } = await nonces.issue(contextFor({ ...tenant, loggingLevel: 3 }, null));
    const events = (await analytics.listEvents(contextFor(tenant, 'auditor'), { categories: 'openid' })).data;
    expect(events.map((e) => e.type).sort()).toEqual(['OPENID_NONCE_START', 'OPENID_NONCE_SUCCESS']);
    expect(JSON.stringify(events)).not.toContain(c_nonce);
  });
});
