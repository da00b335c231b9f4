import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createHttpClient, createInflater } from '@vellum/node';
import { localhostCertificate, makeTestWalletProvider, signTestJwt, statusListLst, testJwkPair, trustedListXml } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectIssuanceSetupCollection, freshTenants, useTestApp } from '../test/app.ts';

// docs/dpop-and-attestation.md "Trusted wallet providers" `/v1/openid/wallet-providers`; STYLE 14: runs standalone
// and mounted under a prefix inside another app.
const PATH = '/v1/openid/wallet-providers';
const provider = makeTestWalletProvider('Route');
const P256 = testJwkPair('key-1');

describe.each(['standalone', 'prefixed'] as const)('trusted wallet providers over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 'wp');

  it('creates (201) a provider trusted for both purposes by default; reads, lists, replaces and deletes (204) it', async () => {
    const { call } = await tenant();
    const created = await call('POST', PATH, { name: 'Wallet Co', x509: [provider.rootPem] });
    expect(created.statusCode, created.body).toBe(201);
    const p = created.json();
    expect(p).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Wallet Co',
      trustedFor: ['walletAttestations', 'keyAttestations'],
      x509: [provider.rootPem],
      createdAt: expect.any(String),
      updatedAt: p.createdAt,
    });
    const second = (await call('POST', PATH, { name: 'Keys', trustedFor: ['keyAttestations'], jwks: { keys: [P256.jwk] } })).json();
    expect(second).toMatchObject({ trustedFor: ['keyAttestations'], jwks: { keys: [P256.jwk] } });
    expect((await call('GET', `${PATH}/${p.id}`)).json()).toEqual(p);
    const page = await call('GET', `${PATH}?limit=1`);
    expect(page.json()).toEqual({ data: [p], nextCursor: expect.any(String) });
    expect((await call('GET', `${PATH}?cursor=${page.json().nextCursor}`)).json().data).toEqual([second]);

    const replaced = await call('PUT', `${PATH}/${p.id}`, {
      name: 'Listed',
      trustedFor: ['walletAttestations'],
      trustedListUrl: 'https://tl.example.com/list.xml',
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toEqual({
      id: p.id,
      name: 'Listed',
      trustedFor: ['walletAttestations'],
      trustedListUrl: 'https://tl.example.com/list.xml',
      createdAt: p.createdAt,
      updatedAt: expect.any(String),
    });
    const deleted = await call('DELETE', `${PATH}/${p.id}`);
    expect(deleted.statusCode).toBe(204);
    expect((await call('GET', `${PATH}/${p.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `${PATH}/${p.id}`)).statusCode).toBe(404);
    expect((await call('PUT', `${PATH}/${p.id}`, { name: 'x', x509: [provider.rootPem] })).statusCode).toBe(404);
  });

  it('answers 400 with the error body naming each problem: a leaf certificate, two kinds of anchor, a private key, an http URL, a bad body', async () => {
    const { call } = await tenant();
    const leaf = await call('POST', PATH, { name: 'n', x509: [provider.rootPem, provider.signerPem] });
    expect(leaf.statusCode).toBe(400);
    expect(leaf.json()).toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'x509.1', msg: 'Not a CA certificate (BasicConstraints cA is not true)', location: 'body' }],
    });
    const both = await call('POST', PATH, { name: 'n', x509: [provider.rootPem], jwks: { keys: [P256.jwk] } });
    expect(both.json()).toMatchObject({ details: [{ param: 'jwks', msg: 'Give one of x509, jwks, not both' }] });
    const secret = await call('POST', PATH, { name: 'n', jwks: { keys: [{ ...P256.jwk, d: 'A'.repeat(43) }] } });
    expect(secret.statusCode).toBe(400);
    expect(secret.json()).toMatchObject({ details: [expect.objectContaining({ param: 'jwks.keys.0.d', msg: 'Unknown field' })] });
    const http = await call('POST', PATH, { name: 'n', trustedListUrl: 'http://tl.example.com/list.xml' });
    expect(http.json()).toMatchObject({ details: [{ param: 'trustedListUrl', msg: 'Must use https' }] });
    const none = await call('POST', PATH, { trustedFor: [] });
    expect(none.statusCode).toBe(400);
    expect(none.json().details.map((d: { param: string }) => d.param)).toEqual(expect.arrayContaining(['name', 'trustedFor']));
    const array = await call('POST', PATH, [{ name: 'n' }]);
    expect(array.statusCode).toBe(400);
    expect(array.json()).toMatchObject({ code: 'BadRequest', details: [expect.objectContaining({ location: 'body' })] });
    expect((await call('GET', PATH)).json()).toEqual({ data: [] });
  });

  it('refuses a 21st provider with 409 and the error body naming the limit', async () => {
    const { call } = await tenant();
    for (let i = 0; i < 20; i++) expect((await call('POST', PATH, { name: `p${i}`, jwks: { keys: [P256.jwk] } })).statusCode).toBe(201);
    const over = await call('POST', PATH, { name: 'p20', jwks: { keys: [P256.jwk] } });
    expect(over.statusCode).toBe(409);
    expect(over.json()).toMatchObject({ code: 'Conflict', message: 'A tenant holds at most 20 wallet providers; delete one first' });
  });

  it('is an issuance-setup collection: roles, tenants, ids', async () => {
    const a = await tenant();
    const b = await tenant();
    const p = (await a.call('POST', PATH, { name: 'p', x509: [provider.rootPem] })).json();
    await expectIssuanceSetupCollection(a, b, PATH, p.id, [
      ['POST', PATH, { name: 'p', x509: [provider.rootPem] }],
      ['DELETE', `${PATH}/${p.id}`],
    ]);
  });
});

// A trusted list and a status list served by a real HTTPS server on loopback, fetched through the
// guarded client, the attestations signed with openssl-made certificates and checked by the real
// JWT verifier (@vellum/crypto).
describe('trusted wallet providers on loopback: a trusted list and a Token Status List over HTTPS', () => {
  const tls = localhostCertificate();
  const listed = makeTestWalletProvider('Listed');
  const stranger = makeTestWalletProvider('Stranger');
  const t = useTestApp('standalone', { http: createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem }), inflater: createInflater() });
  const tenant = freshTenants(t, 'wpl');
  let server: Server;
  let origin = '';
  const hits = new Map<string, number>();
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
      hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
      if (req.url === '/tl.xml') {
        res.writeHead(200, { 'content-type': 'application/vnd.etsi.tsl+xml', 'cache-control': 'max-age=3600' });
        return res.end(trustedListXml([{ pem: listed.rootPem }, { pem: stranger.rootPem, status: 'withdrawn' }]));
      }
      if (req.url === '/status/1') {
        // Entry 5 revoked, the rest valid; signed by the listed provider's signer.
        const statuses = Array.from({ length: 16 }, (_, i) => (i === 5 ? 1 : 0));
        const token = signTestJwt(
          { alg: 'ES256', typ: 'statuslist+jwt', x5c: listed.x5c },
          { sub: `${origin}/status/1`, iat: now(), exp: now() + 3600, ttl: 300, status_list: { bits: 1, lst: statusListLst(statuses) } },
          listed.signingKey,
        );
        res.writeHead(200, { 'content-type': 'application/statuslist+jwt' });
        return res.end(token);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    tls.dispose();
  });

  const attestation = (signer: typeof listed, idx: number) =>
    signTestJwt(
      { alg: 'ES256', typ: 'oauth-client-attestation+jwt', x5c: signer.x5c },
      { sub: 'wallet', exp: now() + 600, cnf: { jwk: P256.jwk }, status: { status_list: { idx, uri: `${origin}/status/1` } } },
      signer.signingKey,
    );
  const options = () => ({ purpose: 'walletAttestation' as const, algorithms: ['ES256', 'EdDSA'], at: new Date() });

  it('a wallet attestation under a listed CA is trusted, a revoked one and one under a withdrawn CA are not, and a removed provider trusts nothing', async () => {
    const { call, tenantId } = await tenant();
    const created = await call('POST', PATH, { name: 'EU list', trustedFor: ['walletAttestations'], trustedListUrl: `${origin}/tl.xml` });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    const trust = t.walletProviderTrust;
    expect(await trust.any(tenantId, 'walletAttestation')).toBe(true);
    expect(await trust.any(tenantId, 'keyAttestation')).toBe(false);

    const good = await trust.verify(tenantId, attestation(listed, 0), options());
    expect(good).toMatchObject({ ok: true, providerId: id, payload: { sub: 'wallet' } });
    expect(await trust.verify(tenantId, attestation(listed, 5), options())).toEqual({ ok: false, reason: 'The wallet provider has revoked this attestation' });
    expect(await trust.verify(tenantId, attestation(stranger, 0), options())).toMatchObject({ ok: false });
    // Both lists were read once, then served from the cache.
    expect(hits.get('/tl.xml')).toBe(1);
    expect(hits.get('/status/1')).toBe(1);

    expect((await call('DELETE', `${PATH}/${id}`)).statusCode).toBe(204);
    expect(await trust.verify(tenantId, attestation(listed, 0), options())).toEqual({
      ok: false,
      reason: 'The tenant trusts no wallet provider for wallet attestations',
    });
  });

  it('a key attestation signed with a key of a provider’s JWKS (kid) is trusted; with another key it is not', async () => {
    const { call, tenantId } = await tenant();
    const id = (await call('POST', PATH, { name: 'Keys', trustedFor: ['keyAttestations'], jwks: { keys: [P256.jwk] } })).json().id as string;
    const other = testJwkPair('key-1');
    const payload = { iat: now(), exp: now() + 600, attested_keys: [P256.jwk] };
    const header = { alg: 'ES256', typ: 'key-attestation+jwt', kid: 'key-1' };
    const verify = (jwt: string) => t.walletProviderTrust.verify(tenantId, jwt, { ...options(), purpose: 'keyAttestation' });
    expect(await verify(signTestJwt(header, payload, P256.privateKey))).toMatchObject({ ok: true, providerId: id });
    expect(await verify(signTestJwt(header, payload, other.privateKey))).toMatchObject({ ok: false });
    expect(await t.walletProviderTrust.verify(tenantId, signTestJwt(header, payload, P256.privateKey), options())).toMatchObject({ ok: false });
  });
});
