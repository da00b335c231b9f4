// Presentation sessions (docs/verification.md "Presentation sessions"; OpenID4VP 1.0 §5, §8) over
// the memory store, with fakes of the parts built beside them (verifier applications: Contract A;
// DCQL: Contract B), the format verifiers and the JWE port. The real ones meet in tools/interop.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contextFor } from '../../../test/harness.ts';
import { createMemoryStore, fakeClock, fakeDigests, fakeIds, fakeSecretBox } from '../../../test/kit.ts';
import { refusal } from '../../../test/refusal.ts';
import { createEventRecorder } from '../../events/recorder.ts';
import type { DomainEvent, DomainEventSink } from '../../shared/ports.ts';
import type { Tenant } from '../../tenancy/model.ts';
import type { FormatVerifier, VerifyOptions } from '../model.ts';
import type { PresentationCrypto, SessionApplication, SessionDcql } from './ports.ts';
import { createPresentationSessionService, SELF_ISSUED_AUDIENCE } from './service.ts';
import { encodeCbor, openId4VpSessionTranscript } from './transcript.ts';

const APP_ID = '0195f0c0-0000-7000-8000-000000000001';
const QUERY = {
  credentials: [
    { id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: ['urn:eudi:pid:1'] }, claims: [{ path: ['given_name'] }] },
    { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: 'org.iso.18013.5.1.mDL' } },
  ],
};
const sha256 = (b: Uint8Array) => new Uint8Array(createHash('sha256').update(b).digest());
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const decodeJwt = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;

/** A stand-in JWE: `fake.<kid>.<payload>`; it "decrypts" only with the private key made for that kid. */
function fakeCrypto(): PresentationCrypto {
  let n = 0;
  return {
    sha256,
    async generateKey() {
      n += 1;
      return {
        publicJwk: { kty: 'EC', crv: 'P-256', x: `x${n}`, y: `y${n}`, kid: `k${n}`, use: 'enc', alg: 'ECDH-ES' },
        privateJwk: JSON.stringify({ d: `k${n}` }),
      };
    },
    async decrypt(jwe, privateJwk, encValues) {
      const [tag, kid, payload] = jwe.split('.');
      if (tag !== 'fake' || !encValues.includes('A128GCM')) return { reason: 'Not a compact JWE' };
      if ((JSON.parse(privateJwk) as { d: string }).d !== kid) return { reason: 'It does not decrypt with this session’s key' };
      return { payload: JSON.parse(Buffer.from(payload as string, 'base64url').toString()) as Record<string, unknown> };
    },
  };
}

/** Contract B stand-in: every credential query answered by a verified presentation satisfies the query. */
const fakeDcql: SessionDcql = {
  problems: (q) => (Array.isArray(q.credentials) ? [] : [{ path: 'credentials', message: 'Required' }]),
  evaluate(query, presented) {
    const ids = (query.credentials as { id: string }[]).map((c) => c.id);
    const credentials = Object.fromEntries(
      Object.entries(presented).map(([id, rs]) => [id, { satisfied: rs.every((r) => r.verified), claims: rs.map((r) => r.claims), failures: [] as string[] }]),
    );
    const missing = ids.filter((id) => !presented[id]);
    return {
      satisfied: missing.length === 0 && Object.values(credentials).every((c) => c.satisfied),
      credentials,
      failures: missing.map((id) => `credential ${id} not presented`),
    };
  },
};

async function setup(app: Partial<SessionApplication> = {}) {
  const store = createMemoryStore();
  const clock = fakeClock('2026-05-01T12:00:00.000Z');
  const ids = fakeIds();
  const events = createEventRecorder({ events: store.events, clock, ids });
  const published: DomainEvent[] = [];
  const domainEvents: DomainEventSink = { publish: async (_tx, e) => void published.push(e) };
  const calls: { format: string; presentation: string; options: VerifyOptions }[] = [];
  const verifier =
    (format: 'dc+sd-jwt' | 'mso_mdoc'): FormatVerifier =>
    async (presentation, options) => {
      calls.push({ format, presentation, options });
      const ok = presentation.startsWith('good');
      return {
        verified: ok,
        format,
        issuer: { kind: 'x509', id: 'issuer-1', trusted: ok },
        claims: ok ? { given_name: 'Erika' } : {},
        checks: ok ? [{ check: 'signature', ok: true }] : [{ check: 'nonce', ok: false, reason: 'The nonce is not the expected one' }],
      };
    };
  const signed: Record<string, unknown>[] = [];
  const application: SessionApplication = {
    id: APP_ID,
    responseModes: ['direct_post', 'direct_post.jwt'],
    redirectUris: ['https://rp.example/done'],
    display: { name: 'Shop' },
    ...app,
  };
  const service = createPresentationSessionService({
    store,
    clock,
    ids,
    digests: fakeDigests(),
    secrets: fakeSecretBox(),
    events,
    domainEvents,
    crypto: fakeCrypto(),
    applications: {
      async signerFor(_tenant, applicationId) {
        if (applicationId !== APP_ID) throw Object.assign(new Error('x'), { name: 'DomainError' });
        return {
          application,
          signer: {
            clientId: 'x509_hash:abc',
            sign: async (claims) => {
              signed.push(claims);
              return `${b64({ alg: 'ES256', typ: 'oauth-authz-req+jwt' })}.${b64(claims)}.sig`;
            },
          },
        };
      },
    },
    dcql: fakeDcql,
    trustedIssuers: { anchorsFor: async () => [] },
    verifiers: { 'dc+sd-jwt': verifier('dc+sd-jwt'), mso_mdoc: verifier('mso_mdoc') },
  });
  const tenant: Tenant = { id: 'tenant-acme', subdomain: 'acme', region: 'eu01', name: 'acme', loggingLevel: 2, createdAt: clock.now().toISOString() };
  await store.tenants.insert(tenant);
  const ctx = contextFor(tenant);
  const wallet = contextFor(tenant, null);
  return { store, clock, service, ctx, wallet, published, calls, signed, events, tenant };
}

/** What a wallet posts for direct_post.jwt: the fake JWE to the session's key. */
const encrypted = (kid: string, payload: Record<string, unknown>) => ({ response: `fake.${kid}.${b64(payload)}` });

describe('presentation sessions (OpenID4VP 1.0)', () => {
  it('creates a session whose openid4vp:// URI names the client_id and the request_uri with request_uri_method=post (§5.10)', async () => {
    const { service, ctx } = await setup();
    const s = await service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY, expiresIn: 120 });
    expect(s).toMatchObject({ state: 'pending', responseMode: 'direct_post.jwt', clientId: 'x509_hash:abc', expiresAt: '2026-05-01T12:02:00.000Z' });
    const uri = new URL(s.authorizationRequestUri);
    expect(uri.protocol).toBe('openid4vp:');
    expect(Object.fromEntries(uri.searchParams)).toEqual({ client_id: 'x509_hash:abc', request_uri: s.requestUri, request_uri_method: 'post' });
    expect(s.requestUri).toBe(`https://acme.eu01.vellum.test/v1/openid/presentations/${s.id}/request`);
    expect(await service.get(ctx, s.id)).toMatchObject({ id: s.id, state: 'pending' });
  });

  it('refuses a bad body naming each field: the DCQL problems, a response mode or redirect the application does not allow', async () => {
    const { service, ctx } = await setup({ responseModes: ['direct_post.jwt'] });
    const bad = await refusal(service.create(ctx, { applicationId: APP_ID, dcqlQuery: {}, expiresIn: 5 }));
    expect(bad.details?.map((d) => d.param)).toEqual(['dcqlQuery.credentials', 'expiresIn']);
    const modes = await refusal(
      service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY, responseMode: 'direct_post', redirectUri: 'https://evil.example/' }),
    );
    expect(modes.details?.map((d) => [d.param, d.msg])).toEqual([
      ['responseMode', 'The application allows direct_post.jwt'],
      ['redirectUri', 'Not one of the application’s redirect URIs'],
    ]);
    expect((await refusal(service.create(contextFor(ctx.tenant, 'issuer'), { applicationId: APP_ID, dcqlQuery: QUERY }))).code).toBe('Forbidden');
  });

  it('the request object: response_type vp_token, response_uri, fresh nonce and state, dcql_query, client_metadata with the ephemeral key, aud, and wallet_nonce when posted (§5, §5.10, §8.3)', async () => {
    const { service, ctx, wallet } = await setup();
    const a = await service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY });
    const b = await service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY });
    const jwt = await service.requestObject(wallet, a.id, { wallet_nonce: 'wn-1', wallet_metadata: '{"vp_formats_supported":{}}' });
    const claims = decodeJwt(jwt);
    expect(claims).toMatchObject({
      aud: SELF_ISSUED_AUDIENCE,
      response_type: 'vp_token',
      client_id: 'x509_hash:abc',
      response_uri: `https://acme.eu01.vellum.test/v1/openid/presentations/${a.id}/response`,
      response_mode: 'direct_post.jwt',
      state: a.oauthState,
      dcql_query: QUERY,
      wallet_nonce: 'wn-1',
      iat: Date.parse('2026-05-01T12:00:00.000Z') / 1000,
      exp: Date.parse(a.expiresAt) / 1000,
      client_metadata: {
        client_name: 'Shop',
        encrypted_response_enc_values_supported: ['A128GCM', 'A256GCM'],
        jwks: { keys: [{ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES' }] },
      },
    });
    const other = decodeJwt(await service.requestObject(wallet, b.id, undefined));
    expect(other).not.toHaveProperty('wallet_nonce');
    expect(other.nonce).not.toBe(claims.nonce);
    expect(other.state).not.toBe(claims.state);
    expect((other.client_metadata as { jwks: { keys: { kid: string }[] } }).jwks.keys[0]?.kid).not.toBe(
      (claims.client_metadata as { jwks: { keys: { kid: string }[] } }).jwks.keys[0]?.kid,
    );
    expect(await refusal(service.requestObject(wallet, a.id, { wallet_metadata: 'not json' }))).toMatchObject({
      code: 'BadRequest',
      oauthError: 'invalid_request',
    });
  });

  it('verifies an encrypted response: each presentation with the nonce, the client_id as audience, and for mDocs the OpenID4VP handover transcript; stores the result; fires PresentationVerified; redirects same-device with a response code', async () => {
    const { service, ctx, wallet, published, calls, signed, store } = await setup();
    const s = await service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY, redirectUri: 'https://rp.example/done' });
    await service.requestObject(wallet, s.id, undefined);
    const request = signed[0] as {
      nonce: string;
      response_uri: string;
      client_metadata: { jwks: { keys: { kid: string; kty: string; crv: string; x: string; y: string }[] } };
    };
    const key = request.client_metadata.jwks.keys[0] as { kid: string; kty: string; crv: string; x: string; y: string };
    const answer = await service.respond(wallet, s.id, encrypted(key.kid, { state: s.oauthState, vp_token: { pid: ['good-sd-jwt'], mdl: ['good-mdoc'] } }));
    const code = new URL((answer.redirect_uri as string).replace('#', '?')).searchParams.get('response_code') as string;
    expect(answer.redirect_uri).toBe(`https://rp.example/done#response_code=${code}`);

    expect(calls.map((c) => [c.format, c.options.nonce, c.options.audience])).toEqual([
      ['dc+sd-jwt', request.nonce, 'x509_hash:abc'],
      ['mso_mdoc', request.nonce, 'x509_hash:abc'],
    ]);
    expect(calls[0]?.options.sessionTranscript).toBeUndefined();
    const thumbprint = sha256(new TextEncoder().encode(`{"crv":"P-256","kty":"EC","x":"${key.x}","y":"${key.y}"}`));
    const info = encodeCbor(['x509_hash:abc', request.nonce, thumbprint, request.response_uri]);
    expect(Buffer.from(calls[1]?.options.sessionTranscript as Uint8Array)).toEqual(Buffer.from(encodeCbor([null, null, ['OpenID4VPHandover', sha256(info)]])));

    const read = await service.get(ctx, s.id, { responseCode: code });
    expect(read.state).toBe('verified');
    expect(read.result).toMatchObject({
      verified: true,
      failures: [],
      credentials: {
        pid: { satisfied: true, claims: [{ given_name: 'Erika' }], presentations: [{ verified: true, issuer: { trusted: true }, failedChecks: [] }] },
        mdl: { satisfied: true },
      },
    });
    expect((await refusal(service.get(ctx, s.id, { responseCode: 'wrong' }))).details?.[0]?.param).toBe('responseCode');
    expect(published.map((e) => [e.type, 'sessionId' in e.payload && e.payload.sessionId])).toEqual([['PresentationVerified', s.id]]);
    // The key is gone with the session's end.
    expect(await store.presentationSessions.get(ctx.tenant.id, s.id)).not.toHaveProperty('sealedKey');
  });

  it('a replayed response is refused with invalid_request and changes nothing (single use)', async () => {
    const { service, ctx, wallet, published, signed } = await setup();
    const s = await service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY, responseMode: 'direct_post' });
    await service.requestObject(wallet, s.id, undefined);
    const form = { state: s.oauthState, vp_token: JSON.stringify({ pid: ['good-1'], mdl: ['good-2'] }) };
    expect(await service.respond(wallet, s.id, form)).toEqual({});
    const before = await service.get(ctx, s.id);
    expect(await refusal(service.respond(wallet, s.id, form))).toMatchObject({
      code: 'BadRequest',
      oauthError: 'invalid_request',
      message: 'The presentation session has been answered already',
    });
    expect(await service.get(ctx, s.id)).toEqual(before);
    expect(published).toHaveLength(1);
    expect(signed[0]).not.toHaveProperty('client_metadata.jwks');
  });

  it('racing responses: one is stored, the other refused', async () => {
    const { service, ctx, wallet, published } = await setup();
    const s = await service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY, responseMode: 'direct_post' });
    const form = (p: string) => ({ state: s.oauthState, vp_token: JSON.stringify({ pid: [p], mdl: ['good-2'] }) });
    const results = await Promise.allSettled([service.respond(wallet, s.id, form('good-a')), service.respond(wallet, s.id, form('bad-b'))]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(published).toHaveLength(1);
  });

  it('a failed presentation ends the session failed, with every failed check and the DCQL failures; PresentationFailed fires', async () => {
    const { service, ctx, wallet, published } = await setup();
    const s = await service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY, responseMode: 'direct_post' });
    await service.respond(wallet, s.id, { state: s.oauthState, vp_token: JSON.stringify({ pid: ['bad-nonce'], extra: ['good'] }) });
    const read = await service.get(ctx, s.id);
    expect(read.state).toBe('failed');
    expect(read.result).toMatchObject({
      verified: false,
      failures: ['vp_token answers extra, which the query does not ask for', 'credential mdl not presented'],
      credentials: {
        pid: {
          satisfied: false,
          presentations: [{ verified: false, failedChecks: [{ check: 'nonce', ok: false, reason: 'The nonce is not the expected one' }] }],
        },
      },
    });
    expect(published.map((e) => e.type)).toEqual(['PresentationFailed']);
  });

  it('the wallet’s error response (§8.5) ends the session failed with its reason', async () => {
    const { service, ctx, wallet } = await setup();
    const s = await service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY, responseMode: 'direct_post' });
    await service.respond(wallet, s.id, { state: s.oauthState, error: 'access_denied', error_description: 'The user declined' });
    expect((await service.get(ctx, s.id)).result?.failures).toEqual(['The wallet answered access_denied: The user declined']);
  });

  it('refuses without consuming: a wrong state, a malformed vp_token, a plain response to a direct_post.jwt session, a JWE to another key', async () => {
    const { service, ctx, wallet } = await setup();
    const s = await service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY });
    const t = await service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY });
    const keyOf = async (id: string) =>
      (decodeJwt(await service.requestObject(wallet, id, undefined)).client_metadata as { jwks: { keys: { kid: string }[] } }).jwks.keys[0]?.kid as string;
    const kid = await keyOf(s.id);
    const otherKid = await keyOf(t.id);
    for (const form of [
      encrypted(kid, { state: 'wrong', vp_token: { pid: ['good'] } }),
      encrypted(kid, { state: s.oauthState, vp_token: ['not', 'an', 'object'] }),
      encrypted(kid, { state: s.oauthState, vp_token: { pid: [] } }),
      { state: s.oauthState, vp_token: JSON.stringify({ pid: ['good'] }) },
      encrypted(otherKid, { state: s.oauthState, vp_token: { pid: ['good'] } }),
      { response: 'garbage' },
    ]) {
      expect(await refusal(service.respond(wallet, s.id, form))).toMatchObject({ code: 'BadRequest', oauthError: 'invalid_request' });
    }
    expect((await service.get(ctx, s.id)).state).toBe('pending');
  });

  it('a response after the session expired is refused, and the session reads expired', async () => {
    const { service, ctx, wallet, clock, published } = await setup();
    const s = await service.create(ctx, { applicationId: APP_ID, dcqlQuery: QUERY, responseMode: 'direct_post', expiresIn: 30 });
    clock.advance(30_000);
    expect(await refusal(service.respond(wallet, s.id, { state: s.oauthState, vp_token: JSON.stringify({ pid: ['good'] }) }))).toMatchObject({
      message: 'The presentation session has expired',
      oauthError: 'invalid_request',
    });
    expect(await refusal(service.requestObject(wallet, s.id, undefined))).toMatchObject({ message: 'The presentation session has expired' });
    expect((await service.get(ctx, s.id)).state).toBe('expired');
    expect(published).toEqual([]);
  });

  it('an unknown or malformed session id is a 404 for the wallet and names the param for the admin', async () => {
    const { service, ctx, wallet } = await setup();
    expect(await refusal(service.respond(wallet, 'nope', {}))).toMatchObject({ code: 'NotFound', oauthError: 'invalid_request' });
    expect(await refusal(service.requestObject(wallet, '0195f0c0-0000-7000-8000-0000000000ff', undefined))).toMatchObject({ code: 'NotFound' });
    expect((await refusal(service.get(ctx, 'nope'))).details?.[0]).toMatchObject({ param: 'id', location: 'params' });
  });

  it('the handover transcript is CBOR [null, null, ["OpenID4VPHandover", SHA-256(CBOR([client_id, nonce, null, response_uri]))]] for direct_post', () => {
    const t = openId4VpSessionTranscript({ clientId: 'c', nonce: 'n', responseUri: 'r' }, sha256);
    // 0x83 array(3), f6 f6 null null, 0x82 array(2), 0x71 text(17) "OpenID4VPHandover", 0x58 0x20 bytes(32).
    expect(Buffer.from(t.subarray(0, 6)).toString('hex')).toBe('83f6f682714f');
    expect(Buffer.from(t.subarray(22, 24)).toString('hex')).toBe('5820');
    expect(Buffer.from(t.subarray(24))).toEqual(Buffer.from(sha256(Uint8Array.from([0x84, 0x61, 0x63, 0x61, 0x6e, 0xf6, 0x61, 0x72]))));
  });
});
