import { beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, useTestApp } from '../test/app.ts';

// docs/decisions.md "Issuer display and unbound credentials (issue 29)": GET and PUT
// /v1/config/issuer-display, and the display in the issuer metadata (OpenID4VCI 1.0 §12.2.4).
describe.each(['standalone', 'prefixed'] as const)('the issuer display over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  let acme: Awaited<ReturnType<TestApp['createTenant']>>;
  let other: Awaited<ReturnType<TestApp['createTenant']>>;
  let admin: string;
  const url = (path: string) => `${t.prefix}${path}`;
  const as = (token: string, host = acme.host) => ({ authorization: `Bearer ${token}`, host });
  const display = [
    { name: 'Acme Bank', locale: 'en', logo: { uri: 'https://acme.example/logo.png', alt_text: 'The Acme logo' } },
    { name: 'Banque Acmé', locale: 'fr-CA' },
  ];
  const metadata = async (host: string) => (await t.app.inject({ method: 'GET', url: url('/.well-known/openid-credential-issuer'), headers: { host } })).json();

  beforeAll(async () => {
    acme = await t.createTenant('acme');
    other = await t.createTenant('other');
    admin = await t.token('acme');
  });

  it('replaces the display, reads it back and publishes it in the issuer metadata of that tenant only; an empty list removes it', async () => {
    expect((await t.app.inject({ method: 'GET', url: url('/v1/config/issuer-display'), headers: as(admin) })).json()).toEqual({ display: [] });
    expect(await metadata(acme.host)).not.toHaveProperty('display');
    const put = await t.app.inject({ method: 'PUT', url: url('/v1/config/issuer-display'), headers: as(admin), payload: { display } });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual({ display });
    expect((await t.app.inject({ method: 'GET', url: url('/v1/config/issuer-display'), headers: as(admin) })).json()).toEqual({ display });
    expect((await metadata(acme.host)).display).toEqual(display);
    expect(await metadata(other.host)).not.toHaveProperty('display');
    const removed = await t.app.inject({ method: 'PUT', url: url('/v1/config/issuer-display'), headers: as(admin), payload: { display: [] } });
    expect(removed.json()).toEqual({ display: [] });
    expect(await metadata(acme.host)).not.toHaveProperty('display');
  });

  it('answers a bad body with 400 and one detail per problem, and leaves the display as it was', async () => {
    await t.app.inject({ method: 'PUT', url: url('/v1/config/issuer-display'), headers: as(admin), payload: { display } });
    const shape = await t.app.inject({
      method: 'PUT',
      url: url('/v1/config/issuer-display'),
      headers: as(admin),
      payload: { display: [{ name: '', locale: 'english please' }], extra: true },
    });
    expect(shape.statusCode).toBe(400);
    expect(shape.json()).toMatchObject({
      code: 'BadRequest',
      message: 'Validation Error',
      details: expect.arrayContaining([
        expect.objectContaining({ param: 'display.0.name', location: 'body' }),
        expect.objectContaining({ param: 'display.0.locale', msg: 'A language tag such as en or fr-CA' }),
        expect.objectContaining({ param: 'extra', msg: 'Unknown field' }),
      ]),
    });
    const values = await t.app.inject({
      method: 'PUT',
      url: url('/v1/config/issuer-display'),
      headers: as(admin),
      payload: {
        display: [
          { name: 'A', locale: 'en', logo: { uri: 'data:image/png;base64,AAAA' } },
          { name: 'B', locale: 'en' },
        ],
      },
    });
    expect(values.statusCode).toBe(400);
    expect(values.json().details).toEqual([
      { value: 'data:image/png;base64,AAAA', msg: 'An https URL', param: 'display.0.logo.uri', location: 'body' },
      { value: 'en', msg: 'Another entry has this locale', param: 'display.1.locale', location: 'body' },
    ]);
    expect((await metadata(acme.host)).display).toEqual(display);
  });

  it('lets a managed issuer read but not replace it, refuses a verifier, and asks for a token', async () => {
    const managed = await t.token('acme', 'managed-issuer');
    const verifier = await t.token('acme', 'verifier');
    expect((await t.app.inject({ method: 'GET', url: url('/v1/config/issuer-display'), headers: as(managed) })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'PUT', url: url('/v1/config/issuer-display'), headers: as(managed), payload: { display } })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: url('/v1/config/issuer-display'), headers: as(verifier) })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: url('/v1/config/issuer-display'), headers: { host: acme.host } })).statusCode).toBe(401);
  });
});
