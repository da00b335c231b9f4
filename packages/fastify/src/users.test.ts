import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('users over HTTP (docs/decisions.md "Users, offers, the token and nonce endpoints") (%s)', (mount) => {
  const t = useTestApp(mount);
  const tenant = freshTenants(t, 'u');

  it('creates (201), lists, gets, replaces, searches and deletes (204)', async () => {
    const { call } = await tenant();
    const created = await call('POST', '/v1/users', { claims: { email: 'ada@example.com', age: 36, address: { city: 'London' } } });
    expect(created.statusCode, created.body).toBe(201);
    const ada = created.json();
    expect(ada).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      claims: { email: 'ada@example.com', age: 36, address: { city: 'London' } },
      createdAt: expect.any(String),
      updatedAt: ada.createdAt,
    });
    const bare = await call('POST', '/v1/users');
    expect(bare.statusCode, bare.body).toBe(201);
    expect(bare.json().claims).toEqual({});

    const listed = await call('GET', '/v1/users?limit=1');
    expect(listed.json()).toEqual({ data: [ada], nextCursor: expect.any(String) });
    expect((await call('GET', `/v1/users?cursor=${listed.json().nextCursor}`)).json().data).toEqual([bare.json()]);
    expect((await call('GET', `/v1/users/${ada.id}`)).json()).toEqual(ada);

    const search = await call('POST', '/v1/users/search', { claims: { address: { city: 'London' }, age: 36 } });
    expect(search.statusCode, search.body).toBe(200);
    expect(search.json()).toEqual({ data: [ada] });
    expect((await call('POST', '/v1/users/search', { claims: { age: 36 }, limit: 1 })).json()).toEqual({ data: [ada], nextCursor: expect.any(String) });
    expect((await call('POST', '/v1/users/search', { claims: { age: '36' } })).json()).toEqual({ data: [] });
    expect((await call('POST', '/v1/users/search', { authenticationProvider: { subjectId: 'nobody' } })).json()).toEqual({ data: [] });

    const replaced = await call('PUT', `/v1/users/${ada.id}`, { claims: { email: 'ada@lovelace.example' } });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json()).toMatchObject({ id: ada.id, claims: { email: 'ada@lovelace.example' } });

    const deleted = await call('DELETE', `/v1/users/${ada.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await call('GET', `/v1/users/${ada.id}`)).statusCode).toBe(404);
  });

  it('answers bad input with 400 details, unknown ids with 404, and keeps tenants apart', async () => {
    const { call } = await tenant();
    const other = await tenant();
    const u = (await call('POST', '/v1/users', { claims: { a: 1 } })).json();
    expect((await other.call('GET', `/v1/users/${u.id}`)).statusCode).toBe(404);
    expect((await call('GET', `/v1/users/${crypto.randomUUID()}`)).json()).toMatchObject({ code: 'NotFound' });
    expect((await call('PUT', `/v1/users/${crypto.randomUUID()}`, {})).statusCode).toBe(404);
    expect((await call('GET', '/v1/users/nope')).json()).toMatchObject({ code: 'BadRequest', details: [{ param: 'id', location: 'params', value: 'nope' }] });
    expect((await call('POST', '/v1/users', { claims: 'x' })).json()).toMatchObject({ code: 'BadRequest', details: [{ param: 'claims', location: 'body' }] });
    expect((await call('POST', '/v1/users', { claim: {} })).json()).toMatchObject({ details: [{ param: 'claim', msg: 'Unknown field' }] });
    expect((await call('POST', '/v1/users/search', { cursor: 'zz' })).json()).toMatchObject({ details: [{ param: 'cursor', location: 'body' }] });
    expect((await call('GET', '/v1/users?limit=0')).statusCode).toBe(400);
  });

  it('lets admin, issuer and managed-issuer in; refuses other roles (403) and anonymous callers (401)', async () => {
    const { call } = await tenant();
    for (const role of ['admin', 'issuer', 'managed-issuer'] as const) expect((await call('GET', '/v1/users', undefined, role)).statusCode, role).toBe(200);
    for (const role of ['verifier', 'auditor'] as const) expect((await call('POST', '/v1/users', {}, role)).json(), role).toMatchObject({ code: 'Forbidden' });
    const anonymous = await call('POST', '/v1/users', {}, null);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.body).toBe('Unauthorized');
  });
});
