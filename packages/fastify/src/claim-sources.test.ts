import {
  API_KEY_CLAIM_SOURCE as API_KEY_SOURCE,
  API_KEY_CLAIM_SOURCE_VIEW,
  OAUTH_CLAIM_SOURCE as OAUTH_SOURCE,
  OAUTH_CLAIM_SOURCE_AUTHORIZATION_VIEW,
} from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { expectIssuanceSetupCollection, freshTenants, useTestApp } from '../test/app.ts';

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('claim sources over HTTP (docs/authentication.md) (%s)', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 'cs');

  it('creates (201), lists in pages, gets, replaces and deletes (204), never showing a secret', async () => {
    const { call } = await tenant();
    const created = await call('POST', '/v1/claim-sources', API_KEY_SOURCE);
    expect(created.statusCode, created.body).toBe(201);
    const crm = created.json();
    expect(crm).toEqual({ ...API_KEY_CLAIM_SOURCE_VIEW, createdAt: expect.any(String), updatedAt: crm.createdAt });
    const hrRes = await call('POST', '/v1/claim-sources', OAUTH_SOURCE);
    expect(hrRes.statusCode, hrRes.body).toBe(201);
    const hr = hrRes.json();
    expect(hr.authorization).toEqual(OAUTH_CLAIM_SOURCE_AUTHORIZATION_VIEW);
    expect(created.body + hrRes.body).not.toMatch(/secret-1/);

    const first = await call('GET', '/v1/claim-sources?limit=1');
    expect(first.json()).toEqual({ data: [crm], nextCursor: expect.any(String) });
    const rest = await call('GET', `/v1/claim-sources?limit=1&cursor=${first.json().nextCursor}`);
    expect(rest.json().data).toEqual([hr]);
    expect((await call('GET', `/v1/claim-sources?cursor=${rest.json().nextCursor}`)).json()).toEqual({ data: [] });
    expect((await call('GET', `/v1/claim-sources/${hr.id}`)).json()).toEqual(hr);
    expect((await call('GET', '/v1/claim-sources?cursor=bad')).statusCode).toBe(400);

    // The secret may be left out on PUT when the type stays; the answer shows the authorization as sent.
    const authorization = {
      type: 'oauth-client-credentials',
      tokenEndpoint: 'https://auth.example.com/oauth/token',
      clientId: 'vellum-2',
      tokenEndpointAuthMethod: 'client_secret_post',
    };
    const put = await call('PUT', `/v1/claim-sources/${hr.id}`, { ...OAUTH_SOURCE, name: 'HR 2', authorization });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual({ ...hr, name: 'HR 2', authorization, updatedAt: expect.any(String) });
    // A new type needs its secret.
    const switched = await call('PUT', `/v1/claim-sources/${hr.id}`, { ...OAUTH_SOURCE, authorization: { type: 'api-key' } });
    expect(switched.statusCode).toBe(400);
    expect(switched.json()).toMatchObject({ details: [expect.objectContaining({ param: 'authorization.value' })] });

    expect((await call('DELETE', `/v1/claim-sources/${crm.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/v1/claim-sources/${crm.id}`)).statusCode).toBe(404);
    expect((await call('PUT', `/v1/claim-sources/${crm.id}`, API_KEY_SOURCE)).statusCode).toBe(404);
    expect((await call('DELETE', `/v1/claim-sources/${crm.id}`)).statusCode).toBe(404);
  });

  it.each([
    ['http URL', { ...API_KEY_SOURCE, url: 'http://crm.example.com/claims' }, [{ param: 'url', msg: 'Must use https' }]],
    ['IP literal URL', { ...API_KEY_SOURCE, url: 'https://[2001:db8::1]/claims' }, [{ param: 'url', msg: 'Must not be an IP address' }]],
    ['URL with a query', { ...API_KEY_SOURCE, url: 'https://crm.example.com/claims?key=1' }, [{ param: 'url', msg: 'Must not contain query parameters' }]],
    ['URL with a fragment', { ...API_KEY_SOURCE, url: 'https://crm.example.com/claims#x' }, [{ param: 'url', msg: 'Must not contain a fragment' }]],
    ['PUT method', { ...API_KEY_SOURCE, requestMethod: 'PUT' }, [{ param: 'requestMethod' }]],
    ['bad mapFrom path', { ...API_KEY_SOURCE, requestParameters: { email: { mapFrom: 'user.email' } } }, [{ param: 'requestParameters.email.mapFrom' }]],
    ['parameter with neither mapFrom nor defaultValue', { ...API_KEY_SOURCE, requestParameters: { email: {} } }, [{ param: 'requestParameters.email' }]],
    ['unknown authorization type', { ...API_KEY_SOURCE, authorization: { type: 'mtls' } }, [{ param: 'authorization' }]],
    [
      'API key with a client id',
      { ...API_KEY_SOURCE, authorization: { type: 'api-key', value: 'k', clientId: 'x' } },
      [{ param: 'authorization.clientId', msg: 'Unknown field' }],
    ],
    [
      'OAuth without a token endpoint',
      { ...OAUTH_SOURCE, authorization: { ...OAUTH_SOURCE.authorization, tokenEndpoint: undefined } },
      [{ param: 'authorization.tokenEndpoint' }],
    ],
    [
      'OAuth token endpoint with a query',
      { ...OAUTH_SOURCE, authorization: { ...OAUTH_SOURCE.authorization, tokenEndpoint: 'https://auth.example.com/token?x=1' } },
      [{ param: 'authorization.tokenEndpoint' }],
    ],
    ['missing name', { ...API_KEY_SOURCE, name: undefined }, [{ param: 'name' }]],
    ['unknown field', { ...API_KEY_SOURCE, headers: { a: 'b' } }, [{ param: 'headers', msg: 'Unknown field' }]],
  ])('refuses a %s with 400 and details', async (_name, payload, details) => {
    const { call } = await tenant();
    for (const res of [
      await call('POST', '/v1/claim-sources', payload),
      await call('PUT', '/v1/claim-sources/00000000-0000-4000-8000-000000000001', payload),
    ]) {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'BadRequest',
        details: expect.arrayContaining(details.map((d) => expect.objectContaining({ ...d, location: 'body' }))),
      });
      expect(res.body).not.toContain('secret-1');
    }
  });

  it('requires the key or secret on create; a PUT may leave it out', async () => {
    const { call } = await tenant();
    const res = await call('POST', '/v1/claim-sources', { ...API_KEY_SOURCE, authorization: { type: 'api-key' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ details: [expect.objectContaining({ param: 'authorization.value', location: 'body' })] });
    // The body is valid for a replace: only the missing source answers.
    expect(
      (await call('PUT', '/v1/claim-sources/00000000-0000-4000-8000-000000000001', { ...API_KEY_SOURCE, authorization: { type: 'api-key' } })).statusCode,
    ).toBe(404);
  });

  it('refuses to delete a source a credential configuration names (409), until the configuration lets go', async () => {
    const { call } = await tenant();
    const source = (await call('POST', '/v1/claim-sources', API_KEY_SOURCE)).json();
    const configuration = await call('POST', '/v2/credentials/sd-jwt/configurations', {
      type: 'https://example.com/Member',
      expiresIn: { days: 30 },
      claimMappings: { email: { mapFrom: 'claims.email' } },
      claimSourceId: source.id,
    });
    expect(configuration.statusCode, configuration.body).toBe(201);
    const refused = await call('DELETE', `/v1/claim-sources/${source.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'Conflict', message: expect.stringContaining(configuration.json().id) });
    expect((await call('GET', `/v1/claim-sources/${source.id}`)).statusCode).toBe(200);
    expect((await call('DELETE', `/v2/credentials/sd-jwt/configurations/${configuration.json().id}`)).statusCode).toBe(204);
    expect((await call('DELETE', `/v1/claim-sources/${source.id}`)).statusCode).toBe(204);
  });

  it('needs the issuance-setup permission, and keeps tenants apart', async () => {
    const a = await tenant();
    const b = await tenant();
    const source = (await a.call('POST', '/v1/claim-sources', API_KEY_SOURCE)).json();
    await expectIssuanceSetupCollection(a, b, '/v1/claim-sources', source.id, [['POST', '/v1/claim-sources', API_KEY_SOURCE]]);
    expect((await b.call('PUT', `/v1/claim-sources/${source.id}`, API_KEY_SOURCE)).statusCode).toBe(404);
  });

  it('records CLAIM_SOURCE_* events, and never a key or secret, at logging level 3', async () => {
    const { call } = await tenant();
    expect((await call('PUT', '/v1/config/analytics', { loggingLevel: 3 })).statusCode).toBe(200);
    const crm = (await call('POST', '/v1/claim-sources', API_KEY_SOURCE)).json();
    const hr = (await call('POST', '/v1/claim-sources', OAUTH_SOURCE)).json();
    await call('GET', '/v1/claim-sources');
    await call('GET', `/v1/claim-sources/${hr.id}`);
    await call('PUT', `/v1/claim-sources/${crm.id}`, { ...API_KEY_SOURCE, authorization: { type: 'api-key', value: 'api-key-secret-2' } });
    await call('DELETE', `/v1/claim-sources/${crm.id}`);
    await call('POST', '/v1/claim-sources', { ...OAUTH_SOURCE, url: 'http://hr.example.com' });

    const events = await call('GET', '/v1/events?categories=claim-source&limit=1000');
    expect(events.statusCode).toBe(200);
    const types = events.json().data.map((e: { type: string }) => e.type);
    for (const op of ['CREATE', 'LIST', 'RETRIEVE', 'UPDATE', 'DELETE']) expect(types).toContain(`CLAIM_SOURCE_${op}_SUCCESS`);
    expect(types).toContain('CLAIM_SOURCE_CREATE_FAIL');
    expect(events.body).toContain('https://hr.example.com/people');
    expect(events.body).not.toMatch(/secret-[12]/);
  });
});
