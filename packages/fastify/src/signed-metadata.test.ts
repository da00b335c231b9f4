import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

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
});
