import { beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, useTestApp } from '../test/app.ts';

// Hardening item 8 (docs/limits.md, Admin clients): `/v1/admin-clients` rotates and revokes admin
// clients; what a rotation or revocation retires is refused at once, and admin logins are events.
describe.each(['standalone', 'prefixed'] as const)('admin clients over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  let acme: Awaited<ReturnType<TestApp['createTenant']>>;
  let admin: string;
  const url = (path: string) => `${t.prefix}${path}`;
  const as = (token: string) => ({ authorization: `Bearer ${token}`, host: acme.host });

  beforeAll(async () => {
    acme = await t.createTenant('acme');
    await t.createTenant('other');
    admin = await t.token('acme');
  });

  const login = (clientId: string, clientSecret: string, host = acme.host) =>
    t.app.inject({
      method: 'POST',
      url: url('/oauth/token'),
      headers: { 'user-agent': 'h5-test' },
      payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: `https://${host}` },
    });
  const tokenOf = async (clientId: string, clientSecret: string, host = acme.host) => {
    const res = await login(clientId, clientSecret, host);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().access_token as string;
  };
  const create = async (role: string) => {
    const res = await t.app.inject({ method: 'POST', url: url('/v1/admin-clients'), headers: as(admin), payload: { role, name: `${role} client` } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { clientId: string; clientSecret: string; role: string };
  };

  it('creates a client and shows its secret once; the list never shows a secret', async () => {
    const created = await create('issuer');
    expect(created).toMatchObject({ role: 'issuer', name: 'issuer client', clientSecret: expect.any(String) });
    const list = await t.app.inject({ method: 'GET', url: url('/v1/admin-clients'), headers: as(admin) });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((c: { clientId: string }) => c.clientId)).toContain(created.clientId);
    expect(list.body).not.toContain(created.clientSecret);
    expect(list.body).not.toMatch(/secret|hash/i);
  });

  it('rotates a secret: the new one works, the old one and tokens issued before it get 401 at once', async () => {
    const client = await create('issuer');
    const before = await tokenOf(client.clientId, client.clientSecret);
    expect((await t.app.inject({ method: 'GET', url: url('/v1/webhooks'), headers: as(before) })).statusCode).toBe(200);

    const rotated = await t.app.inject({ method: 'POST', url: url(`/v1/admin-clients/${client.clientId}/rotate-secret`), headers: as(admin) });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const { clientSecret } = rotated.json();
    expect(clientSecret).not.toBe(client.clientSecret);

    expect((await t.app.inject({ method: 'GET', url: url('/v1/webhooks'), headers: as(before) })).statusCode).toBe(401);
    const old = await login(client.clientId, client.clientSecret);
    expect(old.statusCode).toBe(401);
    expect(old.json()).toMatchObject({ error: 'access_denied' });
    const after = await tokenOf(client.clientId, clientSecret);
    expect((await t.app.inject({ method: 'GET', url: url('/v1/webhooks'), headers: as(after) })).statusCode).toBe(200);
  });

  it('revokes a client: a token issued before the revocation gets 401 at once, and no new token is issued', async () => {
    const client = await create('admin');
    const token = await tokenOf(client.clientId, client.clientSecret);
    // Used once, so the signer has it in its cache of verified tokens.
    expect((await t.app.inject({ method: 'GET', url: url('/v1/admin-clients'), headers: as(token) })).statusCode).toBe(200);

    const revoked = await t.app.inject({ method: 'POST', url: url(`/v1/admin-clients/${client.clientId}/revoke`), headers: as(admin) });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json()).toMatchObject({ clientId: client.clientId, revokedAt: expect.any(String) });

    const refused = await t.app.inject({ method: 'GET', url: url('/v1/admin-clients'), headers: as(token) });
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toBe('Unauthorized');
    expect((await login(client.clientId, client.clientSecret)).statusCode).toBe(401);
    const rotate = await t.app.inject({ method: 'POST', url: url(`/v1/admin-clients/${client.clientId}/rotate-secret`), headers: as(admin) });
    expect(rotate.statusCode).toBe(409);
  });

  it('refuses to revoke the tenant’s last admin client with 409 (no lock-out)', async () => {
    const fresh = await t.createTenant(`solo${mount}`);
    const token = await tokenOf(fresh.clientId, fresh.clientSecret, fresh.host);
    const res = await t.app.inject({
      method: 'POST',
      url: url(`/v1/admin-clients/${fresh.clientId}/revoke`),
      headers: { authorization: `Bearer ${token}`, host: fresh.host },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'Conflict' });
  });

  it('answers other roles with 403, unknown or foreign clients with 404, bad bodies with 400', async () => {
    const issuer = await t.token('acme', 'issuer');
    expect((await t.app.inject({ method: 'GET', url: url('/v1/admin-clients'), headers: as(issuer) })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: url(`/v1/admin-clients/${acme.clientId}/revoke`), headers: as(issuer) })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: url('/v1/admin-clients/nobody/revoke'), headers: as(admin) })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'POST', url: url('/v1/admin-clients/nobody/rotate-secret'), headers: as(admin) })).statusCode).toBe(404);
    const bad = await t.app.inject({ method: 'POST', url: url('/v1/admin-clients'), headers: as(admin), payload: { role: 'root' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'BadRequest', details: [{ param: 'role' }] });
    expect((await t.app.inject({ method: 'POST', url: url('/v1/admin-clients'), headers: as(admin), payload: { role: 'issuer', extra: 1 } })).statusCode).toBe(
      400,
    );
    expect((await t.app.inject({ method: 'GET', url: url('/v1/admin-clients'), headers: { host: acme.host } })).statusCode).toBe(401);
  });

  it('records ADMIN_TOKEN_* and ADMIN_CLIENT_* events with the client id and never a secret', async () => {
    const level = await t.app.inject({ method: 'PUT', url: url('/v1/config/analytics'), headers: as(admin), payload: { loggingLevel: 3 } });
    expect(level.statusCode).toBe(200);
    const client = await create('auditor');
    await tokenOf(client.clientId, client.clientSecret);
    expect((await login(client.clientId, 'not-the-secret')).statusCode).toBe(401);
    const rotated = (await t.app.inject({ method: 'POST', url: url(`/v1/admin-clients/${client.clientId}/rotate-secret`), headers: as(admin) })).json();
    const res = await t.app.inject({ method: 'GET', url: url('/v1/events?categories=admin-token,admin-client&limit=1000'), headers: as(admin) });
    expect(res.statusCode).toBe(200);
    const events = res.json().data as Array<{ type: string; clientId?: string; userAgent?: string; data?: Record<string, unknown> }>;
    const mine = events.filter((e) => e.clientId === client.clientId);
    expect(mine.map((e) => e.type)).toEqual(['ADMIN_TOKEN_FAIL', 'ADMIN_TOKEN_START', 'ADMIN_TOKEN_SUCCESS', 'ADMIN_TOKEN_START']);
    expect(mine[0]).toMatchObject({ userAgent: 'h5-test', data: { errorCode: 'access_denied', reason: 'invalid_secret' } });
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['ADMIN_CLIENT_CREATE_SUCCESS', 'ADMIN_CLIENT_ROTATE_SECRET_SUCCESS']));
    for (const secret of [client.clientSecret, rotated.clientSecret, 'not-the-secret']) expect(res.body).not.toContain(secret);
  });
});
