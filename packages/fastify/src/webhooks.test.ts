import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('webhooks over HTTP (%s; docs/decisions.md "Webhooks")', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 'w');
  const url = (path: string) => `${t.prefix}${path}`;
  const HOOK = 'https://hooks.example.com/vellum';

  it('creates (201), reads, lists in pages, replaces and deletes (204) a webhook', async () => {
    const { call } = await tenant();
    const created = await call('POST', '/v1/webhooks', { events: ['OpenIdCredentialIssued'], url: 'https://HOOKS.example.com/vellum' });
    expect(created.statusCode).toBe(201);
    const hook = created.json();
    expect(hook).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), events: ['OpenIdCredentialIssued'], url: HOOK, disabled: false });
    expect((await call('GET', `/v1/webhooks/${hook.id}`)).json()).toEqual(hook);
    const second = (await call('POST', '/v1/webhooks', { events: ['OpenIdCredentialIssuedSummary'], url: HOOK, disabled: true })).json();
    const first = (await call('GET', '/v1/webhooks?limit=1')).json();
    expect(first.data).toEqual([hook]);
    const rest = (await call('GET', `/v1/webhooks?limit=1&cursor=${first.nextCursor}`)).json();
    expect(rest.data).toEqual([second]);
    expect((await call('GET', `/v1/webhooks?cursor=${rest.nextCursor}`)).json()).toEqual({ data: [] });

    const put = await call('PUT', `/v1/webhooks/${hook.id}`, {
      events: ['OpenIdCredentialIssued', 'OidcIssuerCredentialIssued'],
      url: 'https://other.example.com/x',
      disabled: true,
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({
      id: hook.id,
      events: ['OpenIdCredentialIssued', 'OidcIssuerCredentialIssued'],
      url: 'https://other.example.com/x',
      disabled: true,
    });
    expect((await call('DELETE', `/v1/webhooks/${hook.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/v1/webhooks/${hook.id}`)).statusCode).toBe(404);
    expect((await call('PUT', `/v1/webhooks/${hook.id}`, { events: ['OpenIdCredentialIssued'], url: HOOK })).statusCode).toBe(404);
    expect((await call('DELETE', `/v1/webhooks/${hook.id}`)).statusCode).toBe(404);
    expect((await call('GET', `/v1/webhooks/${hook.id}/deliveries`)).statusCode).toBe(404);
  });

  it.each([
    ['http URL', { events: ['OpenIdCredentialIssued'], url: 'http://hooks.example.com/x' }, [{ param: 'url', msg: 'Must use https' }]],
    ['IPv4 literal', { events: ['OpenIdCredentialIssued'], url: 'https://203.0.113.9/x' }, [{ param: 'url', msg: 'Must not be an IP address' }]],
    ['IPv6 literal', { events: ['OpenIdCredentialIssued'], url: 'https://[2001:db8::1]/x' }, [{ param: 'url', msg: 'Must not be an IP address' }]],
    [
      'query',
      { events: ['OpenIdCredentialIssued'], url: 'https://hooks.example.com/x?secret=1' },
      [{ param: 'url', msg: 'Must not contain query parameters' }],
    ],
    ['fragment', { events: ['OpenIdCredentialIssued'], url: 'https://hooks.example.com/x#f' }, [{ param: 'url', msg: 'Must not contain a fragment' }]],
    ['invalid URL', { events: ['OpenIdCredentialIssued'], url: 'not a url' }, [{ param: 'url', msg: 'Not a valid URL' }]],
    ['unknown event', { events: ['OpenIdCredentialIssued', 'CredentialRevoked'], url: HOOK }, [{ param: 'events.1', value: 'CredentialRevoked' }]],
    ['empty event list', { events: [], url: HOOK }, [{ param: 'events' }]],
    ['missing url', { events: ['OpenIdCredentialIssued'] }, [{ param: 'url' }]],
    ['unknown field', { events: ['OpenIdCredentialIssued'], url: HOOK, secret: 'x' }, [{ param: 'secret' }]],
  ])('refuses a %s with 400 and details', async (_name, payload, details) => {
    const { call } = await tenant();
    for (const res of [await call('POST', '/v1/webhooks', payload), await call('PUT', '/v1/webhooks/00000000-0000-4000-8000-000000000001', payload)]) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'BadRequest', details: details.map((d) => expect.objectContaining({ ...d, location: 'body' })) });
    }
  });

  it('keeps tenants apart and checks the path id', async () => {
    const a = await tenant();
    const b = await tenant();
    const hook = (await a.call('POST', '/v1/webhooks', { events: ['OpenIdCredentialIssued'], url: HOOK })).json();
    expect((await b.call('GET', `/v1/webhooks/${hook.id}`)).statusCode).toBe(404);
    expect((await b.call('DELETE', `/v1/webhooks/${hook.id}`)).statusCode).toBe(404);
    expect((await b.call('GET', '/v1/webhooks')).json()).toEqual({ data: [] });
    const bad = await a.call('GET', '/v1/webhooks/not-a-uuid');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ details: [{ param: 'id', location: 'params' }] });
  });

  it('needs a token with the webhooks permission', async () => {
    const verifier = await tenant('verifier');
    expect((await verifier.call('GET', '/v1/webhooks')).statusCode).toBe(403);
    const anonymous = await t.app.inject({ method: 'GET', url: url('/v1/webhooks'), headers: { host: verifier.host } });
    expect(anonymous.statusCode).toBe(401);
    for (const role of ['issuer', 'managed-issuer'] as const) expect((await (await tenant(role)).call('GET', '/v1/webhooks')).statusCode).toBe(200);
  });

  it('serves the JWKS publicly per tenant, and rotates the key on request', async () => {
    const a = await tenant();
    const b = await tenant();
    await a.call('POST', '/v1/webhooks', { events: ['OpenIdCredentialIssued'], url: HOOK });
    const jwks = await t.app.inject({ method: 'GET', url: url('/v1/webhooks/jwks'), headers: { host: a.host } });
    expect(jwks.statusCode).toBe(200);
    expect(jwks.headers['cache-control']).toBe('public, max-age=60');
    const keys = jwks.json().keys;
    expect(keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[\w-]{43}$/), kid: expect.any(String), alg: 'EdDSA', use: 'sig' }]);
    const other = (await t.app.inject({ method: 'GET', url: url('/v1/webhooks/jwks'), headers: { host: b.host } })).json().keys;
    expect(other[0].kid).not.toBe(keys[0].kid);

    expect((await t.app.inject({ method: 'POST', url: url('/v1/webhooks/jwks/rotate'), headers: { host: a.host } })).statusCode).toBe(401);
    const rotated = await a.call('POST', '/v1/webhooks/jwks/rotate');
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json()).toMatchObject({ retiredKid: keys[0].kid, activeKid: expect.any(String) });
    // No pending delivery signs with the old key, so only the new one is published.
    const after = (await t.app.inject({ method: 'GET', url: url('/v1/webhooks/jwks'), headers: { host: a.host } })).json().keys;
    expect(after.map((k: { kid: string }) => k.kid)).toEqual([rotated.json().activeKid]);
  });

  it('shows an empty delivery log, refuses to retry an unknown delivery, and records WEBHOOK_* events', async () => {
    const { call } = await tenant();
    const hook = (await call('POST', '/v1/webhooks', { events: ['OpenIdCredentialIssued'], url: HOOK })).json();
    expect((await call('GET', `/v1/webhooks/${hook.id}/deliveries`)).json()).toEqual({ data: [] });
    const retry = await call('POST', `/v1/webhooks/${hook.id}/deliveries/00000000-0000-4000-8000-000000000009/retry`);
    expect(retry.statusCode).toBe(404);
    await call('GET', `/v1/webhooks/${hook.id}`);
    await call('PUT', `/v1/webhooks/${hook.id}`, { events: ['OpenIdCredentialIssued'], url: HOOK, disabled: true });
    const events = (await call('GET', '/v1/events?categories=webhook&limit=1000')).json().data.map((e: { type: string }) => e.type);
    for (const type of [
      'WEBHOOK_CREATE_SUCCESS',
      'WEBHOOK_RETRIEVE_SUCCESS',
      'WEBHOOK_UPDATE_SUCCESS',
      'WEBHOOK_DELIVERY_LIST_SUCCESS',
      'WEBHOOK_DELIVERY_RETRY_FAIL',
    ])
      expect(events).toContain(type);
  });
});
