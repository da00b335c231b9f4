import { AUTHENTICATION_PROVIDER as PROVIDER, AUTHENTICATION_PROVIDER_VIEW } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { expectIssuanceSetupCollection, freshTenants, useTestApp } from '../test/app.ts';

const HOOK = 'https://issuer.example.com/kyc';

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('the authentication provider and the interaction hook over HTTP (docs/authentication.md) (%s)', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 'ap');

  it('creates (201), lists, gets, replaces and deletes (204) the provider; a second one is 409', async () => {
    const { call, host } = await tenant();
    const created = await call('POST', '/v1/users/authentication-providers', {
      ...PROVIDER,
      scope: 'email',
      forwardedRequestParameters: ['login_hint'],
      claimsToPersist: ['email'],
    });
    expect(created.statusCode, created.body).toBe(201);
    const provider = created.json();
    expect(provider).toEqual({
      ...AUTHENTICATION_PROVIDER_VIEW,
      scope: 'openid email',
      forwardedRequestParameters: ['login_hint'],
      claimsToPersist: ['email'],
      redirectUrl: `https://${host}${t.prefix}/v1/oauth/authentication/callback`,
      createdAt: expect.any(String),
      updatedAt: provider.createdAt,
    });
    expect(created.body).not.toContain('provider-secret');

    const second = await call('POST', '/v1/users/authentication-providers', PROVIDER);
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ code: 'Conflict', message: expect.stringContaining('already has an authentication provider') });

    const listed = await call('GET', '/v1/users/authentication-providers');
    expect(listed.json()).toEqual({ data: [provider] });
    const full = await call('GET', '/v1/users/authentication-providers?limit=1');
    expect(full.json()).toEqual({ data: [provider], nextCursor: expect.any(String) });
    expect((await call('GET', `/v1/users/authentication-providers?cursor=${full.json().nextCursor}`)).json()).toEqual({ data: [] });
    expect((await call('GET', `/v1/users/authentication-providers/${provider.id}`)).json()).toEqual(provider);

    // PUT replaces: fields left out go back to their defaults; the secret left out is kept.
    const put = await call('PUT', `/v1/users/authentication-providers/${provider.id}`, {
      url: 'https://login.example.com/',
      clientId: 'vellum-2',
      tokenEndpointAuthMethod: 'client_secret_post',
      staticRequestParameters: { prompt: 'login' },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual({
      ...provider,
      url: 'https://login.example.com/',
      clientId: 'vellum-2',
      scope: 'openid profile email',
      tokenEndpointAuthMethod: 'client_secret_post',
      staticRequestParameters: { prompt: 'login' },
      forwardedRequestParameters: [],
      claimsToPersist: [],
      updatedAt: expect.any(String),
    });

    expect((await call('DELETE', `/v1/users/authentication-providers/${provider.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/v1/users/authentication-providers/${provider.id}`)).statusCode).toBe(404);
    expect((await call('PUT', `/v1/users/authentication-providers/${provider.id}`, PROVIDER)).statusCode).toBe(404);
    expect((await call('DELETE', `/v1/users/authentication-providers/${provider.id}`)).statusCode).toBe(404);
    expect((await call('GET', '/v1/users/authentication-providers')).json()).toEqual({ data: [] });
    // The users routes beside it still answer.
    expect((await call('GET', '/v1/users')).statusCode).toBe(200);
  });

  it.each([
    ['http URL', { ...PROVIDER, url: 'http://login.example.com' }, [{ param: 'url', msg: 'Must use https' }]],
    ['IP literal', { ...PROVIDER, url: 'https://203.0.113.9/realms/x' }, [{ param: 'url', msg: 'Must not be an IP address' }]],
    ['query', { ...PROVIDER, url: 'https://login.example.com/?x=1' }, [{ param: 'url', msg: 'Must not contain query parameters' }]],
    ['missing secret on create', { url: PROVIDER.url, clientId: 'vellum' }, [{ param: 'clientSecret' }]],
    ['missing client id', { url: PROVIDER.url, clientSecret: 'x' }, [{ param: 'clientId' }]],
    ['unknown auth method', { ...PROVIDER, tokenEndpointAuthMethod: 'none' }, [{ param: 'tokenEndpointAuthMethod' }]],
    ['reserved static parameter', { ...PROVIDER, staticRequestParameters: { state: 'x' } }, [{ param: 'staticRequestParameters.state' }]],
    [
      'too many forwarded parameters',
      { ...PROVIDER, forwardedRequestParameters: Array.from({ length: 21 }, (_, i) => `p${i}`) },
      [{ param: 'forwardedRequestParameters' }],
    ],
    ['too many claims to persist', { ...PROVIDER, claimsToPersist: Array.from({ length: 51 }, (_, i) => `c${i}`) }, [{ param: 'claimsToPersist' }]],
    ['unknown field', { ...PROVIDER, issuer: 'x' }, [{ param: 'issuer', msg: 'Unknown field' }]],
  ])('refuses a %s with 400 and details', async (_name, payload, details) => {
    const { call } = await tenant();
    const res = await call('POST', '/v1/users/authentication-providers', payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'BadRequest',
      message: 'Validation Error',
      details: details.map((d) => expect.objectContaining({ ...d, location: 'body' })),
    });
  });

  it('does not echo a client secret that fails validation', async () => {
    const { call } = await tenant();
    const res = await call('POST', '/v1/users/authentication-providers', { ...PROVIDER, clientSecret: `long-secret-${'x'.repeat(1000)}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ details: [{ param: 'clientSecret', location: 'body' }] });
    expect(res.body).not.toContain('long-secret-');
  });

  it('needs the issuance-setup permission, and keeps tenants apart', async () => {
    const a = await tenant();
    const b = await tenant();
    const provider = (await a.call('POST', '/v1/users/authentication-providers', PROVIDER)).json();
    await expectIssuanceSetupCollection(a, b, '/v1/users/authentication-providers', provider.id, [['GET', '/v1/openid/configuration']]);
    expect((await b.call('POST', '/v1/users/authentication-providers', PROVIDER)).statusCode).toBe(201);
  });

  it('serves the interaction hook with its secret, kept across PUTs, and {} when none', async () => {
    const a = await tenant();
    const b = await tenant();
    const empty = await a.call('GET', '/v1/openid/configuration');
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({});

    const put = await a.call('PUT', '/v1/openid/configuration', { interactionHook: { url: HOOK, claims: ['email'] } });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.headers['cache-control']).toBe('no-store');
    const { interactionHook } = put.json();
    expect(interactionHook).toEqual({ url: HOOK, claims: ['email'], sessionTimeoutInSec: 600, disabled: false, secret: expect.stringMatching(/^[\w-]{43,}$/) });
    expect((await a.call('GET', '/v1/openid/configuration')).json()).toEqual({ interactionHook });

    const again = await a.call('PUT', '/v1/openid/configuration', { interactionHook: { url: HOOK, sessionTimeoutInSec: 3600, disabled: true } });
    expect(again.json()).toEqual({ interactionHook: { url: HOOK, claims: [], sessionTimeoutInSec: 3600, disabled: true, secret: interactionHook.secret } });
    expect((await b.call('GET', '/v1/openid/configuration')).json()).toEqual({});

    const removed = await a.call('PUT', '/v1/openid/configuration', {});
    expect(removed.json()).toEqual({});
    expect((await a.call('GET', '/v1/openid/configuration')).json()).toEqual({});
  });

  it.each([
    ['http URL', { interactionHook: { url: 'http://issuer.example.com/kyc' } }, 'interactionHook.url'],
    ['query', { interactionHook: { url: `${HOOK}?step=1` } }, 'interactionHook.url'],
    ['timeout under 60 s', { interactionHook: { url: HOOK, sessionTimeoutInSec: 10 } }, 'interactionHook.sessionTimeoutInSec'],
    ['timeout over 1 h', { interactionHook: { url: HOOK, sessionTimeoutInSec: 7200 } }, 'interactionHook.sessionTimeoutInSec'],
    ['a secret of its own', { interactionHook: { url: HOOK, secret: 'mine' } }, 'interactionHook.secret'],
    ['missing url', { interactionHook: { claims: [] } }, 'interactionHook.url'],
  ])('refuses an interaction hook with a %s (400)', async (_name, payload, param) => {
    const { call } = await tenant();
    const res = await call('PUT', '/v1/openid/configuration', payload);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'BadRequest', details: expect.arrayContaining([expect.objectContaining({ param, location: 'body' })]) });
    expect(res.body).not.toContain('mine');
  });

  it('records the events, and never a secret, at logging level 3', async () => {
    const { call } = await tenant();
    expect((await call('PUT', '/v1/config/analytics', { loggingLevel: 3 })).statusCode).toBe(200);
    const provider = (await call('POST', '/v1/users/authentication-providers', PROVIDER)).json();
    await call('GET', '/v1/users/authentication-providers');
    await call('GET', `/v1/users/authentication-providers/${provider.id}`);
    await call('PUT', `/v1/users/authentication-providers/${provider.id}`, { ...PROVIDER, clientSecret: 'provider-secret-2' });
    await call('DELETE', `/v1/users/authentication-providers/${provider.id}`);
    const hook = (await call('PUT', '/v1/openid/configuration', { interactionHook: { url: HOOK } })).json().interactionHook;
    await call('GET', '/v1/openid/configuration');

    const events = await call('GET', '/v1/events?limit=1000');
    expect(events.statusCode).toBe(200);
    const types = events.json().data.map((e: { type: string }) => e.type);
    for (const op of ['CREATE', 'LIST', 'RETRIEVE', 'UPDATE', 'DELETE']) expect(types).toContain(`USER_AUTHENTICATION_PROVIDER_${op}_SUCCESS`);
    for (const op of ['RETRIEVE', 'UPDATE']) expect(types).toContain(`OPENID_CONFIGURATION_${op}_SUCCESS`);
    expect(events.body).toContain(PROVIDER.url);
    expect(events.body).toContain(HOOK);
    expect(events.body).not.toContain('provider-secret');
    expect(events.body).not.toContain(hook.secret);
  });
});
