import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUb3Jn\n-----END CERTIFICATE-----\n';

// docs/wallet-clients.md `/v1/openid/clients`; STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('wallet clients over HTTP (docs/wallet-clients.md) (%s)', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 'wc');

  it('creates a public client (201) with a client id Vellum makes; reads, lists, replaces and deletes (204) it', async () => {
    const { call } = await tenant();
    const created = await call('POST', '/v1/openid/clients', {
      clientName: 'Wallet',
      redirectUris: ['https://wallet.example.com/cb', 'com.example.wallet:/cb'],
    });
    expect(created.statusCode, created.body).toBe(201);
    const client = created.json();
    expect(client).toEqual({
      clientId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      clientName: 'Wallet',
      redirectUris: ['https://wallet.example.com/cb', 'com.example.wallet:/cb'],
      grantTypes: ['authorization_code'],
      tokenEndpointAuthMethod: 'none',
      createdAt: expect.any(String),
      updatedAt: client.createdAt,
    });
    const second = (
      await call('POST', '/v1/openid/clients', {
        clientId: 'second',
        clientName: 'Second',
        redirectUris: ['http://127.0.0.1:7000/cb'],
        dpop: { required: true },
      })
    ).json();

    expect((await call('GET', `/v1/openid/clients/${client.clientId}`)).json()).toEqual(client);
    const page = await call('GET', '/v1/openid/clients?limit=1');
    expect(page.statusCode).toBe(200);
    expect(page.json()).toEqual({ data: [client], nextCursor: expect.any(String) });
    expect((await call('GET', `/v1/openid/clients?cursor=${page.json().nextCursor}`)).json().data).toEqual([second]);

    const replaced = await call('PUT', `/v1/openid/clients/${client.clientId}`, {
      clientName: 'Renamed',
      redirectUris: ['https://wallet.example.com/other'],
      grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:pre-authorized_code'],
      clientAttestation: { rootCertificates: [PEM], dpopRequired: true },
      credentialResponseEncryption: { required: true },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json()).toMatchObject({
      clientId: client.clientId,
      clientName: 'Renamed',
      grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:pre-authorized_code'],
      clientAttestation: { rootCertificates: [PEM], dpopRequired: true },
      credentialResponseEncryption: { required: true },
      createdAt: client.createdAt,
    });
    expect(replaced.json()).not.toHaveProperty('clientSecret');

    const deleted = await call('DELETE', `/v1/openid/clients/${client.clientId}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await call('GET', `/v1/openid/clients/${client.clientId}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/v1/openid/clients/${client.clientId}`)).statusCode).toBe(404);
  });

  it('shows a confidential client’s secret once: in the create, rotate and public-to-confidential answers, never in reads, lists or events', async () => {
    const { call } = await tenant();
    expect((await call('PUT', '/v1/config/analytics', { loggingLevel: 3 })).statusCode).toBe(200);
    const created = await call('POST', '/v1/openid/clients', {
      clientId: 'conf',
      clientName: 'Conf',
      redirectUris: ['https://c.example/cb'],
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const first = created.json().clientSecret as string;
    expect(first).toMatch(/^[A-Za-z0-9_-]{43,}$/);

    const rotated = await call('POST', '/v1/openid/clients/conf/rotate-secret');
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const second = rotated.json().clientSecret as string;
    expect(second).not.toBe(first);

    // Confidential to confidential keeps the secret and shows none.
    const kept = await call('PUT', '/v1/openid/clients/conf', {
      clientName: 'Conf',
      redirectUris: ['https://c.example/cb'],
      tokenEndpointAuthMethod: 'client_secret_post',
    });
    expect(kept.statusCode, kept.body).toBe(200);
    expect(kept.json()).not.toHaveProperty('clientSecret');

    await call('POST', '/v1/openid/clients', { clientId: 'pub', clientName: 'Pub', redirectUris: ['https://p.example/cb'] });
    const promoted = await call('PUT', '/v1/openid/clients/pub', {
      clientName: 'Pub',
      redirectUris: ['https://p.example/cb'],
      tokenEndpointAuthMethod: 'client_secret_post',
    });
    expect(promoted.statusCode, promoted.body).toBe(200);
    const third = promoted.json().clientSecret as string;
    expect(third).toMatch(/^[A-Za-z0-9_-]{43,}$/);

    const reads = [
      await call('GET', '/v1/openid/clients/conf'),
      await call('GET', '/v1/openid/clients/pub'),
      await call('GET', '/v1/openid/clients'),
      await call('GET', '/v1/events?categories=openid&limit=1000'),
    ];
    for (const res of reads) {
      expect(res.statusCode).toBe(200);
      for (const secret of [first, second, third]) expect(res.body).not.toContain(secret);
      expect(res.body).not.toMatch(/"clientSecret":"[^*]|secretHash|scrypt\$/);
    }
    const types = (reads[3]?.json().data as Array<{ type: string }>).map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'OPENID_CLIENT_CREATE_SUCCESS',
        'OPENID_CLIENT_ROTATE_SECRET_SUCCESS',
        'OPENID_CLIENT_UPDATE_SUCCESS',
        'OPENID_CLIENT_RETRIEVE_SUCCESS',
        'OPENID_CLIENT_LIST_SUCCESS',
      ]),
    );
  });

  it('answers bad bodies with 400 and a detail per problem field', async () => {
    const { call } = await tenant();
    const res = await call('POST', '/v1/openid/clients', {
      clientId: 'with space',
      clientName: 'W',
      redirectUris: ['http://wallet.example.com/cb', 'https://w.example/cb#x', 'myapp:/cb'],
      grantTypes: ['implicit'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      clientAttestation: { rootCertificates: ['not a certificate'] },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'BadRequest', message: 'Validation Error' });
    expect((res.json().details as Array<{ param: string; location: string }>).map((d) => d.param).sort()).toEqual(
      [
        'clientAttestation.rootCertificates.0',
        'clientId',
        'grantTypes.0',
        'redirectUris.0',
        'redirectUris.1',
        'redirectUris.2',
        'tokenEndpointAuthMethod',
      ].sort(),
    );
    const missing = await call('POST', '/v1/openid/clients', { clientName: 'W' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'BadRequest', details: [{ param: 'redirectUris', location: 'body' }] });
    expect((await call('POST', '/v1/openid/clients', { clientName: 'W', redirectUris: ['https://w.example/cb'], clientSecret: 'mine' })).json()).toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'clientSecret', msg: 'Unknown field' }],
    });
    const tooMany = await call('POST', '/v1/openid/clients', { clientName: 'W', redirectUris: Array.from({ length: 21 }, (_, i) => `https://w.example/${i}`) });
    expect(tooMany.statusCode).toBe(400);
    const tooLong = await call('POST', '/v1/openid/clients', { clientName: 'W', redirectUris: [`https://w.example/${'a'.repeat(2001)}`] });
    expect(tooLong.statusCode).toBe(400);
    expect((await call('POST', '/v1/openid/clients', { clientName: 'W', redirectUris: [] })).statusCode).toBe(400);
    expect((await call('POST', '/v1/openid/clients', [1, 2])).statusCode).toBe(400);
    expect((await call('GET', '/v1/openid/clients/bad%20id')).json()).toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'clientId', location: 'params' }],
    });
    expect((await call('GET', '/v1/openid/clients?limit=0')).statusCode).toBe(400);
    expect((await call('GET', '/v1/openid/clients?cursor=nonsense')).statusCode).toBe(400);
    // The client id in the path never changes.
    await call('POST', '/v1/openid/clients', { clientId: 'fixed', clientName: 'F', redirectUris: ['https://f.example/cb'] });
    expect(
      (await call('PUT', '/v1/openid/clients/fixed', { clientId: 'other', clientName: 'F', redirectUris: ['https://f.example/cb'] })).json(),
    ).toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'clientId' }],
    });
  });

  it('answers unknown clients with 404, a taken client id with 409, and rotating a public client’s secret with 409', async () => {
    const { call } = await tenant();
    expect((await call('GET', '/v1/openid/clients/nobody')).json()).toMatchObject({ code: 'NotFound' });
    expect((await call('PUT', '/v1/openid/clients/nobody', { clientName: 'W', redirectUris: ['https://w.example/cb'] })).statusCode).toBe(404);
    expect((await call('POST', '/v1/openid/clients/nobody/rotate-secret')).statusCode).toBe(404);
    const body = { clientId: 'dup', clientName: 'W', redirectUris: ['https://w.example/cb'] };
    expect((await call('POST', '/v1/openid/clients', body)).statusCode).toBe(201);
    const again = await call('POST', '/v1/openid/clients', body);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'Conflict', details: [{ param: 'clientId', value: 'dup' }] });
    expect((await call('POST', '/v1/openid/clients/dup/rotate-secret')).json()).toMatchObject({ code: 'Conflict' });
  });

  it('needs issuance-setup: 403 for roles without it, 401 without a token', async () => {
    const { call } = await tenant();
    for (const role of ['auditor', 'verifier', 'dts-consumer'] as const) {
      expect((await call('GET', '/v1/openid/clients', undefined, role)).statusCode, role).toBe(403);
      expect((await call('POST', '/v1/openid/clients', { clientName: 'W', redirectUris: ['https://w.example/cb'] }, role)).statusCode, role).toBe(403);
    }
    expect((await call('GET', '/v1/openid/clients', undefined, null)).statusCode).toBe(401);
    for (const role of ['issuer', 'managed-issuer'] as const) expect((await call('GET', '/v1/openid/clients', undefined, role)).statusCode, role).toBe(200);
  });

  it('keeps tenants apart: another tenant neither sees nor changes a client, and may use the same client id', async () => {
    const a = await tenant();
    const b = await tenant();
    const body = { clientId: 'shared-id', clientName: 'A', redirectUris: ['https://a.example/cb'], tokenEndpointAuthMethod: 'client_secret_post' };
    expect((await a.call('POST', '/v1/openid/clients', body)).statusCode).toBe(201);
    expect((await b.call('GET', '/v1/openid/clients/shared-id')).statusCode).toBe(404);
    expect((await b.call('PUT', '/v1/openid/clients/shared-id', { clientName: 'B', redirectUris: ['https://b.example/cb'] })).statusCode).toBe(404);
    expect((await b.call('POST', '/v1/openid/clients/shared-id/rotate-secret')).statusCode).toBe(404);
    expect((await b.call('DELETE', '/v1/openid/clients/shared-id')).statusCode).toBe(404);
    expect((await b.call('GET', '/v1/openid/clients')).json()).toEqual({ data: [] });
    expect((await b.call('POST', '/v1/openid/clients', { ...body, clientName: 'B' })).statusCode).toBe(201);
    expect((await a.call('GET', '/v1/openid/clients/shared-id')).json()).toMatchObject({ clientName: 'A' });
  });
});
