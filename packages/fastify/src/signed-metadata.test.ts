import { X509Certificate } from 'node:crypto';
import { decodeProtectedHeader, importJWK, importX509, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

const TYP = 'openidvci-issuer-metadata+jwt';
const pemOf = (der: string) => `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)?.join('\n')}\n-----END CERTIFICATE-----\n`;

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('signed issuer metadata and JWT VC Issuer Metadata over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 'sm');
  const get = (host: string, path: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `${t.prefix}${path}`, headers: { host, ...headers } });

  describe('a tenant without an issuer CA', () => {
    it('answers application/jwt with the JSON, byte for byte, which OpenID4VCI 1.0 §12.2.2 requires of every issuer; Vary: Accept', async () => {
      const { host } = await tenant();
      const plain = await get(host, '/.well-known/openid-credential-issuer');
      expect(plain.headers.vary).toBe('accept');
      for (const accept of ['application/jwt', 'application/jwt, application/json;q=0.5', '*/*', 'application/json']) {
        const res = await get(host, '/.well-known/openid-credential-issuer', { accept });
        expect(res.statusCode, accept).toBe(200);
        expect(res.headers['content-type'], accept).toBe('application/json; charset=utf-8');
        expect(res.headers.vary, accept).toBe('accept');
        expect(res.headers.etag, accept).toBe(plain.headers.etag);
        expect(res.body, accept).toBe(plain.body);
      }
    });

    it('has no JWT VC Issuer Metadata: 404 with the error body, its SD-JWT VCs naming a DID as issuer', async () => {
      const { host } = await tenant();
      const res = await get(host, '/.well-known/jwt-vc-issuer');
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NotFound', message: expect.stringContaining('no issuer certificate authority') });
    });
  });

  describe('a tenant with an active managed issuer CA', () => {
    async function withCa() {
      const created = await tenant();
      const ca = await created.call('POST', '/v2/credentials/issuer-cas', { country: 'US', commonName: 'Acme Issuer CA' });
      expect(ca.statusCode, ca.body).toBe(201);
      expect((await created.call('PUT', `/v2/credentials/issuer-cas/${ca.json().id}`, { active: true })).statusCode).toBe(200);
      return { ...created, caPem: ca.json().certificatePem as string, issuer: `https://${created.host}${t.prefix}` };
    }

    it('answers application/jwt with the metadata signed under the CA (OpenID4VCI 1.0 §12.2.3), verified by jose against the chain', async () => {
      const { host, caPem, issuer } = await withCa();
      const json = await get(host, '/.well-known/openid-credential-issuer');
      const res = await get(host, '/.well-known/openid-credential-issuer', { accept: 'application/jwt' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/jwt');
      expect(res.headers.vary).toBe('accept');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      const header = decodeProtectedHeader(res.body);
      expect(header).toMatchObject({ alg: 'ES256', typ: TYP });
      // HAIP 1.0 §4.3: the leaf in x5c, the trust anchor left out; the leaf issued and signed by the CA, naming the issuer.
      const x5c = header.x5c as string[];
      expect(x5c).toHaveLength(1);
      const leaf = new X509Certificate(pemOf(x5c[0] as string));
      const anchor = new X509Certificate(caPem);
      expect(leaf.checkIssued(anchor)).toBe(true);
      expect(leaf.verify(anchor.publicKey)).toBe(true);
      expect(leaf.fingerprint256).not.toBe(anchor.fingerprint256);
      expect(leaf.subjectAltName).toContain(`URI:${issuer}`);
      const { payload } = await jwtVerify(res.body, await importX509(leaf.toString(), 'ES256'), { typ: TYP, subject: issuer });
      expect(payload.iss).toBe(issuer);
      expect((payload.exp as number) - (payload.iat as number)).toBe(86_400);
      const { iss: _iss, sub: _sub, iat: _iat, exp: _exp, ...claims } = payload;
      expect(claims).toEqual(json.json());
      // The JSON form is untouched by the CA.
      expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(json.body).not.toContain('"sub"');
    });

    it('serves the same JWT again with its ETag, a 304 on If-None-Match, and JWT VC Issuer Metadata with the signing key', async () => {
      const { host, issuer } = await withCa();
      const first = await get(host, '/.well-known/openid-credential-issuer', { accept: 'application/jwt' });
      const again = await get(host, '/.well-known/openid-credential-issuer', { accept: 'application/json;q=0.5, application/jwt' });
      expect(again.body).toBe(first.body);
      expect(again.headers.etag).toBe(first.headers.etag);
      const etag = first.headers.etag as string;
      expect((await get(host, '/.well-known/openid-credential-issuer', { accept: 'application/jwt', 'if-none-match': etag })).statusCode).toBe(304);
      // The JSON's tag does not match the JWT's, nor the other way round.
      const json = await get(host, '/.well-known/openid-credential-issuer');
      expect(json.headers.etag).not.toBe(etag);
      expect((await get(host, '/.well-known/openid-credential-issuer', { 'if-none-match': etag })).statusCode).toBe(200);

      const res = await get(host, '/.well-known/jwt-vc-issuer');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = res.json() as { issuer: string; jwks: { keys: Array<Record<string, unknown>> } };
      expect(body.issuer).toBe(issuer);
      const x5c = decodeProtectedHeader(first.body).x5c;
      expect(body.jwks.keys).toEqual([expect.objectContaining({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', x5c })]);
      const { x5c: _chain, ...jwk } = body.jwks.keys[0] as Record<string, unknown>;
      await jwtVerify(first.body, await importJWK(jwk as Parameters<typeof importJWK>[0], 'ES256'), { typ: TYP, subject: issuer });
    });
  });
});
