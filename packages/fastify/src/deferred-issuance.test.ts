import { PRE_AUTHORIZED_GRANT } from '@vellum/core';
import { proofJwt, readFakeMdoc, walletKey } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

const MDL = 'org.iso.18013.5.1.mDL';
const mdlBody = {
  type: MDL,
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
  deferred: { intervalSeconds: 3 },
};

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('deferred issuance over HTTP (%s; docs/deferred-issuance.md)', (mount) => {
  const t = useTestApp(mount);
  const fresh = freshTenants(t, `deferred-${mount}-`);

  /** A tenant with an active IACA and a reviewed mDL configuration; a wallet that redeems an offer and asks for it. */
  async function issuer() {
    const tenant = await fresh();
    const { call, host } = tenant;
    const iaca = (await call('POST', '/v2/credentials/mobile/iacas', { country: 'US' })).json() as { id: string };
    expect((await call('PUT', `/v2/credentials/mobile/iacas/${iaca.id}`, { active: true })).statusCode).toBe(200);
    const created = await call('POST', '/v2/credentials/mobile/configurations', mdlBody);
    expect(created.statusCode, created.body).toBe(201);
    const configuration = created.json() as { id: string; deferred: unknown };
    const audience = `https://${host}${t.prefix}`;
    const wallet = (path: string, options: { authorization?: string; body?: string; contentType?: string } = {}) =>
      t.app.inject({
        method: options.body === undefined && path.startsWith('/.well-known') ? 'GET' : 'POST',
        url: `${t.prefix}${path}`,
        headers: {
          host,
          ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
          ...(options.contentType === undefined ? {} : { 'content-type': options.contentType }),
        },
        ...(options.body === undefined ? {} : { payload: options.body }),
      });

    /** An offer redeemed and its credential asked for: the 202's transaction_id and the access token. */
    async function held() {
      const offer = (await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [configuration.id], claims: { familyName: 'Turner' } })).json() as {
        uri: string;
      };
      const json = JSON.parse(new URL(offer.uri).searchParams.get('credential_offer') as string) as { grants: Record<string, Record<string, string>> };
      const code = json.grants[PRE_AUTHORIZED_GRANT]?.['pre-authorized_code'] as string;
      const token = await wallet('/v1/oauth/token', {
        contentType: 'application/x-www-form-urlencoded',
        body: new URLSearchParams({ grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': code }).toString(),
      });
      expect(token.statusCode, token.body).toBe(200);
      const authorization = `Bearer ${(token.json() as { access_token: string }).access_token}`;
      const nonce = ((await wallet('/v1/openid/nonce')).json() as { c_nonce: string }).c_nonce;
      const key = walletKey();
      const res = await wallet('/v1/openid/credential', {
        authorization,
        contentType: 'application/json',
        body: JSON.stringify({ credential_configuration_id: configuration.id, proofs: { jwt: [proofJwt(key, { audience, nonce })] } }),
      });
      return { res, authorization, key, transactionId: (res.json() as { transaction_id: string }).transaction_id };
    }
    const poll = (authorization: string, body: unknown) =>
      wallet('/v1/openid/deferred_credential', {
        authorization,
        contentType: 'application/json',
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    return { ...tenant, configuration, wallet, held, poll };
  }

  it('202 at the credential endpoint, 202 while pending, 200 with the mDoc once approved, then invalid_transaction_id', async () => {
    const s = await issuer();
    expect(s.configuration.deferred).toEqual({ intervalSeconds: 3, expiresIn: { days: 30 } });
    const metadata = (await s.wallet('/.well-known/openid-credential-issuer')).json() as Record<string, unknown>;
    expect(metadata.deferred_credential_endpoint).toBe(`https://${s.host}${t.prefix}/v1/openid/deferred_credential`);

    const { res, authorization, key, transactionId } = await s.held();
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({ transaction_id: transactionId, interval: 3 });

    const pending = await s.poll(authorization, { transaction_id: transactionId });
    expect(pending.statusCode, pending.body).toBe(202);
    expect(pending.json()).toEqual({ transaction_id: transactionId, interval: 3 });

    const list = await s.call('GET', '/v2/credentials/deferred?status=pending');
    expect(list.statusCode, list.body).toBe(200);
    const [item] = (list.json() as { data: Array<{ id: string; status: string }> }).data;
    expect(item).toMatchObject({ status: 'pending', expired: false, intervalSeconds: 3, credentialConfigurationId: s.configuration.id });
    const one = await s.call('GET', `/v2/credentials/deferred/${item!.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.headers['cache-control']).toBe('no-store');
    expect(one.json()).toMatchObject({ id: item!.id, claims: { familyName: 'Turner' } });
    expect(one.body).not.toContain(transactionId);

    const approved = await s.call('POST', `/v2/credentials/deferred/${item!.id}/approve`);
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'approved' });
    expect((await s.call('POST', `/v2/credentials/deferred/${item!.id}/deny`, {})).statusCode).toBe(409);

    const collected = await s.poll(authorization, { transaction_id: transactionId });
    expect(collected.statusCode, collected.body).toBe(200);
    const body = collected.json() as { credentials: Array<{ credential: string }>; notification_id: string };
    expect(readFakeMdoc(body.credentials[0]!.credential).deviceKey).toEqual(key.publicJwk);
    expect(typeof body.notification_id).toBe('string');
    const again = await s.poll(authorization, { transaction_id: transactionId });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ error: 'invalid_transaction_id' });
  });

  it('credential_request_denied after a denial with a reason the wallet is not told', async () => {
    const s = await issuer();
    const { authorization, transactionId } = await s.held();
    const [item] = ((await s.call('GET', '/v2/credentials/deferred')).json() as { data: Array<{ id: string }> }).data;
    const denied = await s.call('POST', `/v2/credentials/deferred/${item!.id}/deny`, { reason: 'Licence suspended' });
    expect(denied.statusCode, denied.body).toBe(200);
    expect(denied.json()).toMatchObject({ status: 'denied', reason: 'Licence suspended' });
    const refused = await s.poll(authorization, { transaction_id: transactionId });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ error: 'credential_request_denied' });
    expect(refused.body).not.toContain('Licence');
  });

  it('validates: no token is 401, a bad body 400 with the OAuth error, bad ids 400, unknown ids 404, bad status filters 400', async () => {
    const s = await issuer();
    const noToken = await s.poll('Bearer nope', { transaction_id: 'x' });
    expect(noToken.statusCode).toBe(401);
    // Wallet-facing, so browsers' wallets may call it (docs/limits.md, CORS).
    expect(noToken.headers['access-control-allow-origin']).toBe('*');
    expect(noToken.json()).toMatchObject({ error: 'invalid_token' });
    const { authorization } = await s.held();
    for (const body of ['not json', { transaction_id: 7 }, []]) {
      const res = await s.poll(authorization, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_credential_request' });
    }
    expect((await s.call('GET', '/v2/credentials/deferred/not-a-uuid')).statusCode).toBe(400);
    expect((await s.call('GET', `/v2/credentials/deferred/${crypto.randomUUID()}`)).statusCode).toBe(404);
    expect((await s.call('POST', `/v2/credentials/deferred/${crypto.randomUUID()}/approve`)).statusCode).toBe(404);
    // The reason is optional, and so is the body.
    expect((await s.call('POST', `/v2/credentials/deferred/${crypto.randomUUID()}/deny`)).statusCode).toBe(404);
    expect((await s.call('GET', '/v2/credentials/deferred?status=maybe')).statusCode).toBe(400);
    expect((await s.call('GET', '/v2/credentials/deferred?limit=0')).statusCode).toBe(400);
    const badReason = await s.call('POST', `/v2/credentials/deferred/${crypto.randomUUID()}/deny`, { reason: '', extra: 1 });
    expect(badReason.statusCode).toBe(400);
  });

  it('is for the roles that manage issued credentials: admin, issuer and managed-issuer; others 403, no token 401', async () => {
    const s = await issuer();
    await s.held();
    for (const role of ['issuer', 'managed-issuer'] as const)
      expect((await s.call('GET', '/v2/credentials/deferred', undefined, role)).statusCode, role).toBe(200);
    const [item] = ((await s.call('GET', '/v2/credentials/deferred')).json() as { data: Array<{ id: string }> }).data;
    for (const role of ['verifier', 'auditor', 'dts-provider'] as const) {
      expect((await s.call('GET', '/v2/credentials/deferred', undefined, role)).statusCode, role).toBe(403);
      expect((await s.call('POST', `/v2/credentials/deferred/${item!.id}/approve`, undefined, role)).statusCode, role).toBe(403);
    }
    expect((await s.call('GET', '/v2/credentials/deferred', undefined, null)).statusCode).toBe(401);
    // Another tenant does not see it.
    const other = await fresh();
    expect((await other.call('GET', `/v2/credentials/deferred/${item!.id}`)).statusCode).toBe(404);
  });
});
