import { describe, expect, it } from 'vitest';
import { contextFor, harness, PLATFORM } from '../../test/harness.ts';
import { decodePermissions, encodePermissions, PERMISSIONS, ROLE_PERMISSIONS, ROLES } from './permissions.ts';
import { createAddressing, hostName } from './addressing.ts';
import { createTenantAdmin } from './tenants.ts';

describe('compact permissions (docs/decisions.md "Tenancy and admin authentication")', () => {
  it.each(ROLES)('round-trips the permissions of %s in a few bytes', (role) => {
    const claim = encodePermissions(ROLE_PERMISSIONS[role]);
    expect(claim.length).toBeLessThanOrEqual(4);
    expect([...decodePermissions(claim)].sort()).toEqual([...ROLE_PERMISSIONS[role]].sort());
  });

  it('grants nothing for an unreadable claim', () => {
    for (const claim of [undefined, 42, '!!', '']) expect(decodePermissions(claim).size).toBe(0);
  });

  it('follows the role matrix of docs/decisions.md "Tenancy and admin authentication"', () => {
    expect(ROLE_PERMISSIONS.admin).toEqual(PERMISSIONS);
    expect(ROLE_PERMISSIONS['managed-issuer']).not.toContain('iacas:create');
    expect(ROLE_PERMISSIONS['managed-issuer']).not.toContain('configurations:write');
    expect(ROLE_PERMISSIONS.auditor).toEqual(['events:read']);
    expect(ROLE_PERMISSIONS.verifier).not.toContain('webhooks');
  });
});

describe('operator use cases', () => {
  it('creates a tenant with an admin client whose secret is only kept hashed', async () => {
    const h = harness();
    const created = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01', name: 'Acme' });
    expect(created.client).toMatchObject({ role: 'admin', tenantId: created.tenant.id });
    expect(created.client).not.toHaveProperty('secretHash');
    const stored = await h.store.clients.findByClientId(created.client.clientId);
    expect(stored?.secretHash).toBe(`fake$${created.clientSecret}`);
  });

  it('refuses bad subdomains and regions with every problem listed', async () => {
    const h = harness();
    await expect(h.tenants.createTenant({ subdomain: 'Bad_Name', region: 'mars01' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'subdomain' }, { param: 'region' }],
    });
    await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    await expect(h.tenants.createTenant({ subdomain: 'acme', region: 'us01' })).rejects.toMatchObject({ code: 'Conflict' });
  });

  it('adds clients with a valid role only', async () => {
    const h = harness();
    await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    await expect(h.tenants.createClient({ subdomain: 'acme', role: 'root' })).rejects.toMatchObject({ code: 'BadRequest' });
    await expect(h.tenants.createClient({ subdomain: 'nobody', role: 'issuer' })).rejects.toMatchObject({ code: 'NotFound' });
    const issuer = await h.tenants.createClient({ subdomain: 'acme', role: 'issuer' });
    const page = await h.tenants.listClients('acme', { limit: 10 });
    expect(page.data.map((c) => c.role)).toEqual(['admin', 'issuer']);
    expect(page.data[1]?.clientId).toBe(issuer.client.clientId);
  });

  it('never gives a client id that a command line would read as an option (a leading -)', async () => {
    const h = harness();
    // Client ids (16-byte tokens) that begin with '-' every other draw: the id is drawn again until it does not.
    let n = 0;
    const ids = {
      uuid: () => crypto.randomUUID(),
      token: (bytes?: number) => (bytes !== 16 ? 'a-secret' : (n += 1) % 2 === 1 ? '-starts-with-a-dash' : `plain${n}`),
      bytes: (k: number) => new Uint8Array(k),
    };
    const admin = createTenantAdmin({ store: h.store, clock: h.clock, ids, hasher: { hash: async (v: string) => `h:${v}`, verify: async () => false } });
    await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    for (let i = 0; i < 4; i += 1) expect((await admin.createClient({ subdomain: 'acme', role: 'issuer' })).client.clientId).not.toMatch(/^-/);
  });
});

describe('tenant addressing (docs/decisions.md "Tenancy and admin authentication")', () => {
  it('finds tenants by subdomain and region, and only there', async () => {
    const h = harness();
    const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    expect(await h.addressing.resolveHost(`ACME.eu01.${PLATFORM}:8443`)).toEqual({ tenant, origin: `https://acme.eu01.${PLATFORM}` });
    expect(await h.addressing.resolveHost(`acme.us01.${PLATFORM}`)).toBeUndefined();
    expect(await h.addressing.resolveHost(`x.acme.eu01.${PLATFORM}`)).toBeUndefined();
    // Under the platform domain an unknown tenant never falls back to the default one.
    await h.tenants.createTenant({ subdomain: 'demo', region: 'eu01' });
    expect(await h.addressing.resolveHost(`nobody.eu01.${PLATFORM}`)).toBeUndefined();
  });

  it('serves hosts that name no tenant from the default tenant in single-tenant mode', async () => {
    const h = harness();
    expect(await h.addressing.resolveHost('localhost:3000')).toBeUndefined();
    const { tenant } = await h.tenants.createTenant({ subdomain: 'demo', region: 'eu01' });
    expect(await h.addressing.resolveHost('localhost:3000')).toEqual({ tenant, origin: 'http://localhost:3000' });
    expect(await h.addressing.originsOf(tenant)).toEqual([`https://demo.eu01.${PLATFORM}`, 'http://localhost:3000']);
  });

  it('gives tenants under a localhost platform domain origins a browser here opens: the public URL’s scheme and port (RFC 6761 §6.3; issue 28)', async () => {
    const { store, tenants } = harness();
    const addressing = createAddressing(store, { platformDomain: 'vellum.localhost', publicUrl: 'http://localhost:3000' });
    const { tenant } = await tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    expect(await addressing.publicOrigin(tenant)).toBe('http://acme.eu01.vellum.localhost:3000');
    expect(await addressing.resolveHost('acme.eu01.vellum.localhost:3000')).toEqual({ tenant, origin: 'http://acme.eu01.vellum.localhost:3000' });
    expect(await addressing.originsOf(tenant)).toEqual(['http://acme.eu01.vellum.localhost:3000']);
    // Any other platform domain keeps https on the default port, whatever the public URL.
    const production = createAddressing(store, { platformDomain: 'vellum.example', publicUrl: 'http://localhost:3000' });
    expect(await production.publicOrigin(tenant)).toBe('https://acme.eu01.vellum.example');
    // A public URL on https and its default port gives https without a port.
    const tls = createAddressing(store, { platformDomain: 'localhost', publicUrl: 'https://localhost' });
    expect(await tls.resolveHost('acme.eu01.localhost')).toEqual({ tenant, origin: 'https://acme.eu01.localhost' });
  });

  it('normalises Host values', () => {
    expect(hostName('Example.COM.:443')).toBe('example.com');
    expect(hostName('[::1]:3000')).toBe('[::1]');
  });
});

describe('admin authentication (docs/decisions.md "Tenancy and admin authentication")', () => {
  async function setup() {
    const h = harness();
    const acme = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    const other = await h.tenants.createTenant({ subdomain: 'other', region: 'us01' });
    const audience = `https://acme.eu01.${PLATFORM}`;
    return { ...h, acme, other, audience };
  }

  it('issues a tenant-bound token for the right client, secret and audience', async () => {
    const { auth, acme, audience } = await setup();
    const { tenant, response } = await auth.issueToken({
      grant_type: 'client_credentials',
      client_id: acme.client.clientId,
      client_secret: acme.clientSecret,
      audience,
    });
    expect(tenant.id).toBe(acme.tenant.id);
    expect(response).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    const requestor = await auth.authenticate(acme.tenant, `Bearer ${response.access_token}`);
    expect(requestor).toMatchObject({ clientId: acme.client.clientId, role: 'admin' });
    expect(requestor?.permissions.has('custom-domain')).toBe(true);
  });

  it.each([
    ['a wrong secret', { client_secret: 'nope' }],
    ['an unknown client', { client_id: 'nobody' }],
    ['another tenant’s audience', { audience: `https://other.us01.${PLATFORM}` }],
    ['a missing audience', { audience: undefined }],
  ])('refuses %s with 401 access_denied', async (_name, change) => {
    const { auth, acme, audience } = await setup();
    const request = { grant_type: 'client_credentials', client_id: acme.client.clientId, client_secret: acme.clientSecret, audience, ...change };
    await expect(auth.issueToken(request)).rejects.toMatchObject({ code: 'Unauthorized', oauthError: 'access_denied' });
  });

  it('refuses other grant types', async () => {
    const { auth } = await setup();
    await expect(auth.issueToken({ grant_type: 'password' })).rejects.toMatchObject({ code: 'BadRequest', oauthError: 'unsupported_grant_type' });
  });

  it('never accepts a token of tenant A on tenant B, nor an expired or malformed one', async () => {
    const { auth, acme, other, audience, clock } = await setup();
    const { response } = await auth.issueToken({
      grant_type: 'client_credentials',
      client_id: acme.client.clientId,
      client_secret: acme.clientSecret,
      audience,
    });
    expect(await auth.authenticate(other.tenant, `Bearer ${response.access_token}`)).toBeUndefined();
    expect(await auth.authenticate(acme.tenant, `Basic ${response.access_token}`)).toBeUndefined();
    expect(await auth.authenticate(acme.tenant, undefined)).toBeUndefined();
    expect(await auth.authenticate(acme.tenant, 'Bearer not-a-token')).toBeUndefined();
    clock.advance(3601_000);
    expect(await auth.authenticate(acme.tenant, `Bearer ${response.access_token}`)).toBeUndefined();
  });

  it('limits the token to its role (auditors read events only)', async () => {
    const { auth, tenants, acme, audience, analytics, domains } = await setup();
    const auditor = await tenants.createClient({ subdomain: 'acme', role: 'auditor' });
    const { response } = await auth.issueToken({
      grant_type: 'client_credentials',
      client_id: auditor.client.clientId,
      client_secret: auditor.clientSecret,
      audience,
    });
    const requestor = await auth.authenticate(acme.tenant, `Bearer ${response.access_token}`);
    const ctx = { ...contextFor(acme.tenant, null), ...(requestor ? { requestor } : {}) };
    await expect(analytics.listEvents(ctx, {})).resolves.toBeDefined();
    await expect(domains.get(ctx)).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(analytics.updateSettings(ctx, { loggingLevel: 3 })).rejects.toMatchObject({ code: 'Forbidden' });
  });
});
