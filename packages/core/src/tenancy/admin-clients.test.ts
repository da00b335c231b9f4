import { describe, expect, it } from 'vitest';
import { recordedEvents } from '../../test/events.ts';
import { contextFor, harness, PLATFORM } from '../../test/harness.ts';

// Hardening item 8 (docs/limits.md, Admin clients): admin clients can be rotated and revoked, a
// revoked or rotated-away credential stops working at once, and admin logins are recorded.
async function setup() {
  const h = harness();
  const acme = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  const other = await h.tenants.createTenant({ subdomain: 'other', region: 'us01' });
  const audience = `https://acme.eu01.${PLATFORM}`;
  const caller = { requestId: 'req-token', ip: '192.0.2.9', userAgent: 'test-agent' };
  const login = (clientId: string, secret: string, aud = audience) =>
    h.auth.issueToken({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret, audience: aud }, caller);
  const events = (types?: string[]) => recordedEvents(h, acme.tenant.id, types ? { types } : {});
  return { ...h, acme, other, audience, login, events };
}

describe('admin client secret rotation (hardening item 8)', () => {
  it('shows a new secret once; the old secret and tokens issued before the rotation stop working at once', async () => {
    const h = await setup();
    const issuer = await h.tenants.createClient({ subdomain: 'acme', role: 'issuer' });
    const before = (await h.login(issuer.client.clientId, issuer.clientSecret)).response.access_token;
    expect(await h.auth.authenticate(h.acme.tenant, `Bearer ${before}`)).toMatchObject({ clientId: issuer.client.clientId });

    const rotated = await h.adminClients.rotateSecret(contextFor(h.acme.tenant), issuer.client.clientId);
    expect(rotated.clientSecret).not.toBe(issuer.clientSecret);
    expect(rotated.client).toMatchObject({ clientId: issuer.client.clientId, rotatedAt: expect.any(String) });
    expect(rotated.client).not.toHaveProperty('secretHash');

    expect(await h.auth.authenticate(h.acme.tenant, `Bearer ${before}`)).toBeUndefined();
    await expect(h.login(issuer.client.clientId, issuer.clientSecret)).rejects.toMatchObject({ code: 'Unauthorized', oauthError: 'access_denied' });
    const after = (await h.login(issuer.client.clientId, rotated.clientSecret)).response.access_token;
    expect(await h.auth.authenticate(h.acme.tenant, `Bearer ${after}`)).toMatchObject({ clientId: issuer.client.clientId, role: 'issuer' });
  });

  it('works from the operator command too, and refuses another tenant’s client with 404', async () => {
    const h = await setup();
    const rotated = await h.tenants.rotateClientSecret({ subdomain: 'acme', clientId: h.acme.client.clientId });
    await expect(h.login(h.acme.client.clientId, h.acme.clientSecret)).rejects.toMatchObject({ code: 'Unauthorized' });
    await expect(h.login(h.acme.client.clientId, rotated.clientSecret)).resolves.toBeDefined();
    await expect(h.adminClients.rotateSecret(contextFor(h.acme.tenant), h.other.client.clientId)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(h.tenants.rotateClientSecret({ subdomain: 'other', clientId: h.acme.client.clientId })).rejects.toMatchObject({ code: 'NotFound' });
  });
});

describe('admin client revocation (hardening item 8)', () => {
  it('refuses the revoked client’s tokens at once and gives it no new ones', async () => {
    const h = await setup();
    const issuer = await h.tenants.createClient({ subdomain: 'acme', role: 'issuer' });
    const token = (await h.login(issuer.client.clientId, issuer.clientSecret)).response.access_token;
    const revoked = await h.adminClients.revoke(contextFor(h.acme.tenant), issuer.client.clientId);
    expect(revoked).toMatchObject({ clientId: issuer.client.clientId, revokedAt: expect.any(String) });
    expect(await h.auth.authenticate(h.acme.tenant, `Bearer ${token}`)).toBeUndefined();
    await expect(h.login(issuer.client.clientId, issuer.clientSecret)).rejects.toMatchObject({ code: 'Unauthorized', oauthError: 'access_denied' });
    // Revoking again changes nothing; a revoked client's secret cannot be rotated back to life.
    expect(await h.adminClients.revoke(contextFor(h.acme.tenant), issuer.client.clientId)).toEqual(revoked);
    await expect(h.adminClients.rotateSecret(contextFor(h.acme.tenant), issuer.client.clientId)).rejects.toMatchObject({ code: 'Conflict' });
  });

  it('never revokes the tenant’s last admin client (no lock-out), nor another tenant’s client', async () => {
    const h = await setup();
    await expect(h.adminClients.revoke(contextFor(h.acme.tenant), h.acme.client.clientId)).rejects.toMatchObject({ code: 'Conflict' });
    await expect(h.tenants.revokeClient({ subdomain: 'acme', clientId: h.acme.client.clientId })).rejects.toMatchObject({ code: 'Conflict' });
    await expect(h.adminClients.revoke(contextFor(h.acme.tenant), h.other.client.clientId)).rejects.toMatchObject({ code: 'NotFound' });
    const second = await h.tenants.createClient({ subdomain: 'acme', role: 'admin' });
    await expect(h.tenants.revokeClient({ subdomain: 'acme', clientId: h.acme.client.clientId })).resolves.toMatchObject({ revokedAt: expect.any(String) });
    await expect(h.adminClients.revoke(contextFor(h.acme.tenant), second.client.clientId)).rejects.toMatchObject({ code: 'Conflict' });
  });

  it('lets only admins manage clients, and lists them without secrets', async () => {
    const h = await setup();
    for (const role of ['issuer', 'auditor', 'managed-issuer'] as const) {
      await expect(h.adminClients.list(contextFor(h.acme.tenant, role), {})).rejects.toMatchObject({ code: 'Forbidden' });
      await expect(h.adminClients.revoke(contextFor(h.acme.tenant, role), h.acme.client.clientId)).rejects.toMatchObject({ code: 'Forbidden' });
    }
    const created = await h.adminClients.create(contextFor(h.acme.tenant), { role: 'auditor', name: 'Audit' });
    expect(created.client).toMatchObject({ role: 'auditor', name: 'Audit', tenantId: h.acme.tenant.id });
    await expect(h.adminClients.create(contextFor(h.acme.tenant), { role: 'root' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'role' }],
    });
    const page = await h.adminClients.list(contextFor(h.acme.tenant), {});
    expect(page.data.map((c) => c.clientId)).toEqual([h.acme.client.clientId, created.client.clientId]);
    expect(JSON.stringify(page)).not.toContain(created.clientSecret);
    expect(JSON.stringify(page)).not.toMatch(/hash/i);
  });

  it('records create, rotate and revoke events without the secret, even at logging level 3', async () => {
    const h = await setup();
    await h.store.tenants.setLoggingLevel(h.acme.tenant.id, 3);
    const tenant = { ...h.acme.tenant, loggingLevel: 3 as const };
    const created = await h.adminClients.create(contextFor(tenant), { role: 'issuer' });
    const rotated = await h.adminClients.rotateSecret(contextFor(tenant), created.client.clientId);
    await h.adminClients.revoke(contextFor(tenant), created.client.clientId);
    const events = await h.events();
    expect(events.map((e) => e.type).reverse()).toEqual([
      'ADMIN_CLIENT_CREATE_START',
      'ADMIN_CLIENT_CREATE_SUCCESS',
      'ADMIN_CLIENT_ROTATE_SECRET_START',
      'ADMIN_CLIENT_ROTATE_SECRET_SUCCESS',
      'ADMIN_CLIENT_REVOKE_START',
      'ADMIN_CLIENT_REVOKE_SUCCESS',
    ]);
    expect(events.every((e) => e.category === 'admin-client')).toBe(true);
    expect(events[0]?.data).toMatchObject({ adminClientId: created.client.clientId });
    const text = JSON.stringify(events);
    expect(text).not.toContain(created.clientSecret);
    expect(text).not.toContain(rotated.clientSecret);
  });
});

describe('ADMIN_TOKEN events (hardening item 8)', () => {
  it('records each admin login on the audience’s tenant with the client id, and a failure with its reason, never the secret', async () => {
    const h = await setup();
    await h.store.tenants.setLoggingLevel(h.acme.tenant.id, 2);
    await h.login(h.acme.client.clientId, h.acme.clientSecret);
    await expect(h.login(h.acme.client.clientId, 'wrong-secret-value')).rejects.toMatchObject({ code: 'Unauthorized' });
    const events = (await h.events()).reverse();
    expect(events.map((e) => e.type)).toEqual(['ADMIN_TOKEN_START', 'ADMIN_TOKEN_SUCCESS', 'ADMIN_TOKEN_START', 'ADMIN_TOKEN_FAIL']);
    for (const e of events) {
      expect(e).toMatchObject({
        category: 'admin-token',
        clientId: h.acme.client.clientId,
        tenantId: h.acme.tenant.id,
        requestIp: '192.0.2.9',
        userAgent: 'test-agent',
      });
    }
    expect(events[1]?.data).toEqual({ role: 'admin' });
    expect(events[3]?.data).toEqual({ errorCode: 'access_denied', reason: 'invalid_secret' });
    const text = JSON.stringify(events);
    expect(text).not.toContain(h.acme.clientSecret);
    expect(text).not.toContain('wrong-secret-value');
  });

  it('records a revoked client’s attempt as client_revoked', async () => {
    const h = await setup();
    await h.store.tenants.setLoggingLevel(h.acme.tenant.id, 2);
    const issuer = await h.tenants.createClient({ subdomain: 'acme', role: 'issuer' });
    await h.tenants.revokeClient({ subdomain: 'acme', clientId: issuer.client.clientId });
    await expect(h.login(issuer.client.clientId, issuer.clientSecret)).rejects.toMatchObject({ code: 'Unauthorized' });
    const [fail] = await h.events(['ADMIN_TOKEN_FAIL']);
    expect(fail).toMatchObject({ clientId: issuer.client.clientId, data: { errorCode: 'access_denied', reason: 'client_revoked' } });
  });

  it('names no client of another tenant, and records nothing when the audience names no tenant', async () => {
    const h = await setup();
    await h.store.tenants.setLoggingLevel(h.acme.tenant.id, 2);
    await expect(h.login(h.other.client.clientId, h.other.clientSecret)).rejects.toMatchObject({ code: 'Unauthorized' });
    const [fail] = await h.events(['ADMIN_TOKEN_FAIL']);
    expect(fail).not.toHaveProperty('clientId');
    expect(fail?.data).toEqual({ errorCode: 'access_denied', reason: 'unknown_client' });
    const before = (await h.events()).length;
    await expect(h.login(h.acme.client.clientId, h.acme.clientSecret, `https://nobody.eu01.${PLATFORM}`)).rejects.toMatchObject({ code: 'Unauthorized' });
    await expect(h.login(h.acme.client.clientId, h.acme.clientSecret, 'not a url')).rejects.toMatchObject({ code: 'Unauthorized' });
    expect(await h.events()).toHaveLength(before);
  });
});
