import { createPublicKey, verify } from 'node:crypto';
import { PRE_AUTHORIZED_CODE_GRANT } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { freshTenants, type Method, useTestApp } from '../test/app.ts';

const mdlBody = {
  type: 'org.iso.18013.5.1.mDL',
  expiresIn: { days: 365 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
};
const FORM = 'application/x-www-form-urlencoded';

const offerIn = (uri: string) => JSON.parse(new URL(uri).searchParams.get('credential_offer') as string) as Record<string, any>;
const codeIn = (uri: string) => offerIn(uri).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'] as string;

/** Checks an ES256 JWT against a public JWK with node:crypto, and returns its header and payload. */
function verifyJwt(jwt: string, jwk: Record<string, unknown>) {
  const [h, p, s] = jwt.split('.') as [string, string, string];
  const key = createPublicKey({ key: jwk as never, format: 'jwk' });
  const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  return { ok, header: JSON.parse(Buffer.from(h, 'base64url').toString()), payload: JSON.parse(Buffer.from(p, 'base64url').toString()) };
}

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('offers, the token and nonce endpoints over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 'o');

  /** A tenant with an mDoc and an ldp_vc configuration, an admin caller and a wallet. */
  async function issuer() {
    const created = await tenant();
    const { call } = created;
    const wallet = (method: Method, path: string, body?: string, contentType = FORM, host = created.host) =>
      t.app.inject({
        method,
        url: `${t.prefix}${path}`,
        headers: { host, ...(body === undefined ? {} : { 'content-type': contentType }) },
        ...(body === undefined ? {} : { payload: body }),
      });
    const token = (fields: Record<string, string>) =>
      wallet('POST', '/v1/oauth/token', new URLSearchParams({ grant_type: PRE_AUTHORIZED_CODE_GRANT, ...fields }).toString());
    const mdoc = (await call('POST', '/v2/credentials/mobile/configurations', mdlBody)).json() as { id: string };
    const ldp = (
      await call('POST', '/v2/credentials/web-semantic/configurations', {
        type: 'Degree',
        expiresIn: { years: 1 },
        issuer: { name: 'U' },
        claimMappings: { name: { mapFrom: 'claims.name' } },
      })
    ).json() as { id: string };
    const offer = async (body: Record<string, unknown> = {}) => {
      const res = await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id], claims: { familyName: 'Lovelace' }, ...body });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { id: string; userId: string; uri: string; expiresAt: string; transactionCode?: string };
    };
    return { ...created, call, wallet, token, mdoc, ldp, offer, issuerId: `https://${created.host}${t.prefix}` };
  }

  /** Expects the OAuth error body of docs/errors.md, never cached. */
  function expectOAuthError(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown; body: string }, status: number, error: string) {
    expect(res.statusCode, res.body).toBe(status);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual({
      code: expect.any(String),
      message: expect.any(String),
      error,
      error_description: expect.any(String),
      ...(status === 400 && error === 'invalid_request' && (res.json() as { details?: unknown }).details ? { details: expect.any(Array) } : {}),
    });
  }

  describe('POST /v1/openid/offers/pre-authorized (docs/decisions.md "Users, offers, the token and nonce endpoints")', () => {
    it('answers { id, userId, uri, expiresAt, transactionCode } with the issuer, ids and grant in the URI', async () => {
      const { offer, mdoc, issuerId } = await issuer();
      const created = await offer({ transactionCodeConfiguration: { inputMode: 'numeric', length: 4 }, expiresIn: { minutes: 2 } });
      expect(created).toEqual({
        id: expect.any(String),
        userId: expect.any(String),
        uri: expect.stringMatching(/^openid-credential-offer:\/\/\?credential_offer=/),
        expiresAt: expect.any(String),
        transactionCode: expect.stringMatching(/^\d{4}$/),
      });
      expect(Date.parse(created.expiresAt) - Date.now()).toBeGreaterThan(100_000);
      expect(offerIn(created.uri)).toEqual({
        credential_issuer: issuerId,
        credential_configuration_ids: [mdoc.id],
        credentials: [mdoc.id],
        grants: { [PRE_AUTHORIZED_CODE_GRANT]: { 'pre-authorized_code': expect.any(String), tx_code: { length: 4, input_mode: 'numeric' } } },
      });
    });

    it('refuses other formats and unknown ids by name, unknown users, and unknown fields (400)', async () => {
      const { call, mdoc, ldp } = await issuer();
      const missing = crypto.randomUUID();
      const mixed = await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id, ldp.id, missing] });
      expect(mixed.statusCode).toBe(400);
      expect(mixed.json()).toMatchObject({
        code: 'BadRequest',
        details: [
          { param: 'credentials.1', value: ldp.id, location: 'body' },
          { param: 'credentials.2', value: missing },
        ],
      });
      expect((await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id], userId: crypto.randomUUID() })).json()).toMatchObject({
        details: [{ param: 'userId' }],
      });
      expect(
        (
          await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id], transactionCodeConfiguration: { inputMode: 'emoji', length: 9 } })
        ).json(),
      ).toMatchObject({
        details: [{ param: 'transactionCodeConfiguration.inputMode' }, { param: 'transactionCodeConfiguration.length' }],
      });
      expect((await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id], expiresIn: { hours: 1 } })).json()).toMatchObject({
        details: [{ param: 'expiresIn', msg: 'Whole numbers of minutes and seconds, such as { "minutes": 5 }' }],
      });
      expect((await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id], pin: 1 })).json()).toMatchObject({
        details: [{ param: 'pin', msg: 'Unknown field' }],
      });
      expect((await call('POST', '/v1/openid/offers/pre-authorized', {})).json()).toMatchObject({
        details: [{ param: 'credentials', msg: 'A non-empty list of credential configuration ids' }],
      });
    });

    it('takes bodies up to 500 KB and answers 413 PayloadTooLarge past it', async () => {
      const { call, mdoc } = await issuer();
      const big = await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id], claims: { blob: 'x'.repeat(450 * 1024) } });
      expect(big.statusCode, big.body.slice(0, 200)).toBe(200);
      const tooBig = await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id], claims: { blob: 'x'.repeat(501 * 1024) } });
      expect(tooBig.statusCode).toBe(413);
      expect(tooBig.json()).toMatchObject({ code: 'PayloadTooLarge' });
    });

    it('by reference: GET /v1/openid/offers/{id} serves the offer publicly until it is used (then 404)', async () => {
      const { offer, wallet, token, mdoc, issuerId } = await issuer();
      const created = await offer({ byReference: true });
      const url = new URL(created.uri).searchParams.get('credential_offer_uri') as string;
      expect(url.startsWith(`${issuerId}/v1/openid/offers/`)).toBe(true);
      const path = url.slice(issuerId.length);
      const fetched = await wallet('GET', path);
      expect(fetched.statusCode, fetched.body).toBe(200);
      expect(fetched.headers['cache-control']).toBe('no-store');
      expect(fetched.headers['access-control-allow-origin']).toBe('*');
      const body = fetched.json();
      expect(body).toMatchObject({ credential_issuer: issuerId, credential_configuration_ids: [mdoc.id], credentials: [mdoc.id] });
      expect((await token({ 'pre-authorized_code': body.grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code'] })).statusCode).toBe(200);
      expect((await wallet('GET', path)).json()).toMatchObject({ code: 'NotFound' });
      expect((await wallet('GET', '/v1/openid/offers/not-an-offer')).statusCode).toBe(404);
    });

    it('DELETE /v1/openid/offers/pre-authorized/{id}: 204, then 404; a malformed id is 400', async () => {
      const { offer, call, token } = await issuer();
      const created = await offer();
      const deleted = await call('DELETE', `/v1/openid/offers/pre-authorized/${created.id}`);
      expect(deleted.statusCode).toBe(204);
      expect(deleted.body).toBe('');
      expect((await call('DELETE', `/v1/openid/offers/pre-authorized/${created.id}`)).json()).toMatchObject({ code: 'NotFound' });
      expect((await call('DELETE', '/v1/openid/offers/pre-authorized/nope')).json()).toMatchObject({
        code: 'BadRequest',
        details: [{ param: 'id', location: 'params' }],
      });
      expectOAuthError(await token({ 'pre-authorized_code': codeIn(created.uri) }), 400, 'invalid_grant');
    });

    it('needs the offers permission', async () => {
      const { call, mdoc } = await issuer();
      for (const role of ['issuer', 'managed-issuer'] as const)
        expect((await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id] }, role)).statusCode, role).toBe(200);
      expect((await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id] }, 'verifier')).statusCode).toBe(403);
      expect((await call('POST', '/v1/openid/offers', { credentials: [mdoc.id] }, 'auditor')).statusCode).toBe(403);
      expect((await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id] }, null)).statusCode).toBe(401);
    });
  });

  describe('POST /v1/openid/offers (docs/authorization-code.md)', () => {
    it('answers { uri } with issuer_state and request parameters, by value or by reference', async () => {
      const { call, mdoc, ldp, issuerId, wallet } = await issuer();
      const res = await call('POST', '/v1/openid/offers', { credentials: [ldp.id, mdoc.id], request_parameters: { login_hint: 'ada' } });
      expect(res.statusCode, res.body).toBe(200);
      expect(offerIn(res.json().uri)).toEqual({
        credential_issuer: issuerId,
        credential_configuration_ids: [ldp.id, mdoc.id],
        credentials: [ldp.id, mdoc.id],
        grants: { authorization_code: { issuer_state: expect.any(String) } },
        request_parameters: { login_hint: 'ada' },
      });
      const byRef = (await call('POST', '/v1/openid/offers', { credentials: [mdoc.id], byReference: true })).json();
      const url = new URL(byRef.uri).searchParams.get('credential_offer_uri') as string;
      expect((await wallet('GET', url.slice(issuerId.length))).json()).toMatchObject({
        grants: { authorization_code: { issuer_state: url.split('/').pop() } },
      });
      const missing = crypto.randomUUID();
      expect((await call('POST', '/v1/openid/offers', { credentials: [missing] })).json()).toMatchObject({
        code: 'BadRequest',
        details: [{ param: 'credentials.0', value: missing }],
      });
    });
  });

  describe('POST /v1/oauth/token (OpenID4VCI 1.0 §6, §6.2)', () => {
    it('redeems a code (form-encoded, anonymous) for a Bearer JWT signed with the key published at /.well-known/jwks.json', async () => {
      const { offer, token, wallet, mdoc, issuerId } = await issuer();
      const created = await offer({ transactionCodeConfiguration: { inputMode: 'numeric' } });
      const res = await token({ 'pre-authorized_code': codeIn(created.uri), tx_code: created.transactionCode as string, client_id: 'any-wallet' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const body = res.json();
      expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 600, scope: 'mso_mdoc:org.iso.18013.5.1.mDL' });
      const jwks = await wallet('GET', '/.well-known/jwks.json');
      expect(jwks.statusCode).toBe(200);
      expect(jwks.headers['access-control-allow-origin']).toBe('*');
      const key = jwks.json().keys[0];
      const { ok, header, payload } = verifyJwt(body.access_token, key);
      expect(ok).toBe(true);
      expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: key.kid });
      expect(payload).toMatchObject({ iss: issuerId, aud: issuerId, sub: created.userId, oid: created.id, cfg: [mdoc.id], scope: body.scope });
      expect(payload.exp - payload.iat).toBe(600);
    });

    it('takes JSON too, and ignores unknown fields', async () => {
      const { offer, wallet } = await issuer();
      const created = await offer();
      const res = await wallet(
        'POST',
        '/v1/oauth/token',
        JSON.stringify({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': codeIn(created.uri), extra: { a: 1 } }),
        'application/json',
      );
      expect(res.statusCode, res.body).toBe(200);
    });

    it('gives exactly one token to racing requests for one code', async () => {
      const { offer, token } = await issuer();
      const code = codeIn((await offer()).uri);
      const results = await Promise.all(Array.from({ length: 8 }, () => token({ 'pre-authorized_code': code })));
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
      for (const r of results.filter((x) => x.statusCode !== 200)) expectOAuthError(r, 400, 'invalid_grant');
    });

    it('answers every failure with a 400 OAuth error body: used, wrong and locked, missing and unexpected tx_code, unknown, deleted', async () => {
      const { offer, token, call } = await issuer();
      const used = await offer();
      await token({ 'pre-authorized_code': codeIn(used.uri) });
      expectOAuthError(await token({ 'pre-authorized_code': codeIn(used.uri) }), 400, 'invalid_grant');

      const guarded = await offer({ transactionCodeConfiguration: { inputMode: 'text', length: 8 } });
      const code = codeIn(guarded.uri);
      expectOAuthError(await token({ 'pre-authorized_code': code }), 400, 'invalid_request');
      for (let i = 0; i < 3; i++) expectOAuthError(await token({ 'pre-authorized_code': code, tx_code: 'WRONG000' }), 400, 'invalid_grant');
      const locked = await token({ 'pre-authorized_code': code, tx_code: guarded.transactionCode as string });
      expectOAuthError(locked, 400, 'invalid_grant');
      expect(locked.json().error_description).toMatch(/no longer valid/);

      expectOAuthError(await token({ 'pre-authorized_code': codeIn((await offer()).uri), tx_code: '1234' }), 400, 'invalid_request');
      expectOAuthError(await token({ 'pre-authorized_code': 'unknown-code-unknown-code-unknown-code-xx' }), 400, 'invalid_grant');
      const deleted = await offer();
      await call('DELETE', `/v1/openid/offers/pre-authorized/${deleted.id}`);
      expectOAuthError(await token({ 'pre-authorized_code': codeIn(deleted.uri) }), 400, 'invalid_grant');
    });

    it('refuses an expired code with invalid_grant', async () => {
      const { offer, token } = await issuer();
      const created = await offer({ expiresIn: { seconds: 1 } });
      await new Promise((r) => setTimeout(r, 1100));
      const res = await token({ 'pre-authorized_code': codeIn(created.uri) });
      expectOAuthError(res, 400, 'invalid_grant');
      expect(res.json().error_description).toBe('The pre-authorized code has expired');
    });

    it('answers malformed requests with invalid_request or unsupported_grant_type, never a 5xx', async () => {
      const { wallet, host } = await issuer();
      const post = (body: string, type = FORM, h = host) => wallet('POST', '/v1/oauth/token', body, type, h);
      expectOAuthError(await post(''), 400, 'invalid_request');
      expectOAuthError(await post('pre-authorized_code=abc'), 400, 'invalid_request');
      expectOAuthError(await post('grant_type=authorization_code&code=x'), 401, 'invalid_client');
      expectOAuthError(await post('grant_type=password'), 400, 'unsupported_grant_type');
      expectOAuthError(await post(`grant_type=${encodeURIComponent(PRE_AUTHORIZED_CODE_GRANT)}`), 400, 'invalid_request');
      expectOAuthError(await post(`grant_type=a&grant_type=b`), 400, 'invalid_request');
      expectOAuthError(await post('{"grant_type":', 'application/json'), 400, 'invalid_request');
      expectOAuthError(await post('[1,2]', 'application/json'), 400, 'invalid_request');
      expectOAuthError(await post('grant_type=x', 'text/plain'), 400, 'invalid_request');
      const unsupported = await post('grant_type=x', 'image/png');
      expect(unsupported.statusCode).toBe(415);
      expect(unsupported.json()).toMatchObject({ code: 'UnsupportedMediaType', error: 'invalid_request' });
      const nowhere = await post('grant_type=x', FORM, 'nobody.eu01.vellum.test');
      expect(nowhere.statusCode).toBe(404);
      expect(nowhere.json()).toMatchObject({ code: 'NotFound', error: 'invalid_request' });
    });
  });

  describe('POST /v1/openid/nonce', () => {
    it('answers { c_nonce } with no-store, whatever the body', async () => {
      const { wallet } = await issuer();
      const first = await wallet('POST', '/v1/openid/nonce');
      expect(first.statusCode, first.body).toBe(200);
      expect(first.headers['cache-control']).toBe('no-store');
      expect(first.json()).toEqual({ c_nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/) });
      const second = await wallet('POST', '/v1/openid/nonce', '{"anything":1}', 'application/json');
      expect(second.statusCode).toBe(200);
      expect(second.json().c_nonce).not.toBe(first.json().c_nonce);
      const nowhere = await wallet('POST', '/v1/openid/nonce', undefined, FORM, 'nobody.eu01.vellum.test');
      expect(nowhere.statusCode).toBe(404);
      expect(nowhere.json()).toMatchObject({ error: 'invalid_request' });
    });
  });

  describe('metadata', () => {
    it('advertises the token endpoint, the Pre-authorized Code grant (anonymous access) and the JWKS', async () => {
      const { wallet, issuerId } = await issuer();
      const issuerMetadata = (await wallet('GET', '/.well-known/openid-credential-issuer')).json();
      expect(issuerMetadata).toMatchObject({
        token_endpoint: `${issuerId}/v1/oauth/token`,
        jwks_uri: `${issuerId}/.well-known/jwks.json`,
        grant_types_supported: expect.arrayContaining([PRE_AUTHORIZED_CODE_GRANT]),
      });
      const as = (await wallet('GET', '/.well-known/oauth-authorization-server')).json();
      expect(as).toMatchObject({
        issuer: issuerId,
        token_endpoint: `${issuerId}/v1/oauth/token`,
        jwks_uri: `${issuerId}/.well-known/jwks.json`,
        'pre-authorized_grant_anonymous_access_supported': true,
      });
    });
  });
});
