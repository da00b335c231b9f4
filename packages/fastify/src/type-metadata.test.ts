import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

// docs/decisions.md "SD-JWT VC type metadata (issue 29)": GET {credential_issuer}/types/{name}.
// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('SD-JWT VC Type Metadata over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 'tm');
  const get = (host: string, path: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `${t.prefix}${path}`, headers: { host, ...headers } });

  async function withType() {
    const created = await tenant();
    const vct = `https://${created.host}${t.prefix}/types/pid`;
    const configuration = await created.call('POST', '/v2/credentials/sd-jwt/configurations', {
      type: vct,
      expiresIn: { days: 30 },
      claimMappings: { given_name: { mapFrom: 'claims.givenName', required: true } },
      typeMetadata: { name: 'Person', display: [{ locale: 'en', name: 'Identity' }], claims: [{ path: ['given_name'], sd: 'always' }] },
    });
    expect(configuration.statusCode, configuration.body).toBe(201);
    // The configuration shows what it publishes.
    expect(configuration.json().typeMetadata).toEqual({
      name: 'Person',
      display: [{ locale: 'en', name: 'Identity' }],
      claims: [{ path: ['given_name'], sd: 'always' }],
    });
    return { ...created, vct };
  }

  it('serves the document at the vct: public JSON, no-cache with an ETag from its digest, 304 when unchanged', async () => {
    const { host, vct } = await withType();
    const res = await get(host, '/types/pid');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.json()).toEqual({ vct, name: 'Person', display: [{ locale: 'en', name: 'Identity' }], claims: [{ path: ['given_name'], sd: 'always' }] });
    const digest = createHash('sha256').update(res.rawPayload).digest('base64');
    expect(res.headers.etag).toBe(`"${digest.slice(0, 32)}"`);
    expect((await get(host, '/types/pid', { 'if-none-match': res.headers.etag as string })).statusCode).toBe(304);
  });

  it('is 404 for a name no configuration publishes, and 400 for a name that is not one', async () => {
    const { host } = await withType();
    const missing = await get(host, '/types/other');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'NotFound' });
    expect((await get(host, '/types/a%20b')).statusCode).toBe(400);
  });

  it('refuses, at configuration time, type metadata for a vct Vellum does not serve', async () => {
    const { call } = await tenant();
    const res = await call('POST', '/v2/credentials/sd-jwt/configurations', {
      type: 'https://credentials.example.com/pid',
      expiresIn: { days: 30 },
      claimMappings: { given_name: { mapFrom: 'claims.givenName', required: true } },
      typeMetadata: { name: 'Person' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual(expect.arrayContaining([expect.objectContaining({ param: 'type' })]));
  });
});
