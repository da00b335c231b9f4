import { describe, expect, it } from 'vitest';
import { contextFor, harness, PLATFORM } from '../../test/harness.ts';
import { normaliseDomain } from './rules.ts';

describe('custom domain rules (docs/decisions.md "Custom domains")', () => {
  it.each([
    ['Example.COM.', 'example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['  a-b.c.example.org ', 'a-b.c.example.org'],
  ])('normalises %s to %s', (input, expected) => {
    expect(normaliseDomain(input, PLATFORM)).toEqual({ domain: expected });
  });

  it.each([
    ['', 'A domain name is required'],
    ['https://example.com', 'Must be a bare host name, not a URL'],
    ['example.com/path', 'Must be a bare host name, not a URL'],
    ['192.168.1.10', 'Must not be an IP address'],
    ['[::1]', 'Must be a bare host name, not a URL'],
    ['localhost', 'Must have at least two labels, such as example.com'],
    ['-bad.example', 'Not a valid domain name'],
    ['exa_mple.com', 'Not a valid domain name'],
    [`${'a'.repeat(64)}.com`, 'Not a valid domain name'],
    [`acme.eu01.${PLATFORM}`, 'Must not be under the platform domain'],
    [PLATFORM, 'Must not be under the platform domain'],
  ])('refuses %j', (input, problem) => {
    expect(normaliseDomain(input, PLATFORM)).toEqual({ problem });
  });
});

async function setup(role: Parameters<typeof contextFor>[1] = 'admin') {
  const h = harness();
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  return { ...h, tenant, ctx: contextFor(tenant, role) };
}

describe('custom domain life cycle (docs/decisions.md "Custom domains")', () => {
  it('creates an unverified domain with a token, then verifies it from a TXT record', async () => {
    const { domains, dns, ctx } = await setup();
    const created = await domains.create(ctx, { domain: 'Issuer.Example.com', name: 'Acme', logoUrl: 'https://issuer.example.com/logo.png' });
    expect(created).toEqual({
      domain: 'issuer.example.com',
      name: 'Acme',
      logoUrl: 'https://issuer.example.com/logo.png',
      verificationToken: expect.stringMatching(/^vellum-domain-verification=/),
      isVerified: false,
    });
    dns.records['issuer.example.com'] = ['unrelated', created.verificationToken];
    await domains.verify(ctx);
    expect(await domains.get(ctx)).toMatchObject({ isVerified: true, verifiedAt: '2026-05-01T12:00:00.000Z' });
  });

  it('refuses verification without the token, and when DNS fails, with 400', async () => {
    const { domains, dns, ctx } = await setup();
    await domains.create(ctx, { domain: 'issuer.example.com' });
    await expect(domains.verify(ctx)).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'domain' }] });
    dns.records['issuer.example.com'] = ['wrong'];
    await expect(domains.verify(ctx)).rejects.toMatchObject({ code: 'BadRequest' });
    dns.records['issuer.example.com'] = new Error('the DNS server did not answer');
    await expect(domains.verify(ctx)).rejects.toMatchObject({ code: 'BadRequest', message: expect.stringContaining('did not answer') });
    expect((await domains.get(ctx)).isVerified).toBe(false);
  });

  it('allows one custom domain per tenant (409 on a second)', async () => {
    const { domains, ctx } = await setup();
    await domains.create(ctx, { domain: 'one.example.com' });
    await expect(domains.create(ctx, { domain: 'two.example.com' })).rejects.toMatchObject({ code: 'Conflict' });
  });

  it('answers 404 for get, update, delete and verify without a domain', async () => {
    const { domains, ctx } = await setup();
    for (const call of [domains.get(ctx), domains.update(ctx, { domain: 'x.example.com' }), domains.delete(ctx), domains.verify(ctx)]) {
      await expect(call).rejects.toMatchObject({ code: 'NotFound' });
    }
  });

  it('keeps verification on an update of name and logo, and drops it when the domain changes', async () => {
    const { domains, dns, ctx } = await setup();
    const created = await domains.create(ctx, { domain: 'issuer.example.com' });
    dns.records['issuer.example.com'] = [created.verificationToken];
    await domains.verify(ctx);
    const renamed = await domains.update(ctx, { domain: 'issuer.example.com', name: 'New name' });
    expect(renamed).toMatchObject({ isVerified: true, name: 'New name', verificationToken: created.verificationToken });
    const moved = await domains.update(ctx, { domain: 'other.example.com' });
    expect(moved.isVerified).toBe(false);
    expect(moved.verifiedAt).toBeUndefined();
    expect(moved.verificationToken).not.toBe(created.verificationToken);
  });

  it('reports every invalid field at once', async () => {
    const { domains, ctx } = await setup();
    await expect(domains.create(ctx, { domain: '10.0.0.1', logoUrl: 'http://insecure.example/logo.png', name: '' })).rejects.toMatchObject({
      code: 'BadRequest',
      message: 'Validation Error',
      details: [
        { param: 'domain', msg: 'Must not be an IP address', value: '10.0.0.1', location: 'body' },
        { param: 'logoUrl', msg: 'Must use https', location: 'body' },
        { param: 'name', location: 'body' },
      ],
    });
  });

  it('lets only one tenant hold a verified name (409 for the second)', async () => {
    const h = harness();
    const a = contextFor((await h.tenants.createTenant({ subdomain: 'a', region: 'eu01' })).tenant);
    const b = contextFor((await h.tenants.createTenant({ subdomain: 'b', region: 'us01' })).tenant);
    const da = await h.domains.create(a, { domain: 'shared.example.com' });
    const db = await h.domains.create(b, { domain: 'shared.example.com' });
    h.dns.records['shared.example.com'] = [da.verificationToken, db.verificationToken];
    await h.domains.verify(a);
    await expect(h.domains.verify(b)).rejects.toMatchObject({ code: 'Conflict' });
    await expect(h.domains.create(b, { domain: 'shared.example.com' })).rejects.toMatchObject({ code: 'Conflict' });
  });

  it('makes a verified domain the tenant’s public origin, and forgets it on delete', async () => {
    const { domains, dns, ctx, addressing, tenant } = await setup();
    const created = await domains.create(ctx, { domain: 'issuer.example.com' });
    expect(await addressing.resolveHost('issuer.example.com')).toBeUndefined();
    dns.records['issuer.example.com'] = [created.verificationToken];
    await domains.verify(ctx);
    expect(await addressing.publicOrigin(tenant)).toBe('https://issuer.example.com');
    expect(await addressing.resolveHost('Issuer.Example.com:443')).toMatchObject({ tenant: { id: tenant.id }, origin: 'https://issuer.example.com' });
    await domains.delete(ctx);
    expect(await addressing.resolveHost('issuer.example.com')).toBeUndefined();
    expect(await addressing.publicOrigin(tenant)).toBe(`https://acme.eu01.${PLATFORM}`);
  });

  it('requires a token (401) and a role that may manage domains (403)', async () => {
    const anonymous = await setup(null);
    await expect(anonymous.domains.get(anonymous.ctx)).rejects.toMatchObject({ code: 'Unauthorized' });
    const auditor = await setup('auditor');
    await expect(auditor.domains.create(auditor.ctx, { domain: 'x.example.com' })).rejects.toMatchObject({ code: 'Forbidden' });
    for (const role of ['admin', 'issuer', 'verifier', 'dts-provider', 'managed-issuer'] as const) {
      const s = await setup(role);
      await expect(s.domains.create(s.ctx, { domain: `${role}.example.com` })).resolves.toMatchObject({ isVerified: false });
    }
  });

  it('records START then SUCCESS or FAIL for every operation (docs/decisions.md "Analytic events")', async () => {
    const { domains, ctx, analytics, tenant } = await setup();
    await domains.create(ctx, { domain: 'issuer.example.com' });
    await expect(domains.verify(ctx)).rejects.toBeDefined();
    const page = await analytics.listEvents(contextFor(tenant, 'auditor'), { categories: 'custom-domain' });
    expect(page.data.map((e) => e.type).reverse()).toEqual([
      'CONFIG_CUSTOM_DOMAIN_CREATE_START',
      'CONFIG_CUSTOM_DOMAIN_CREATE_SUCCESS',
      'CONFIG_CUSTOM_DOMAIN_VERIFY_START',
      'CONFIG_CUSTOM_DOMAIN_VERIFY_FAIL',
    ]);
    const fail = page.data[0];
    expect(fail).toMatchObject({ requestIp: '192.0.2.1', clientId: 'client-admin', data: { errorCode: 'BadRequest' } });
  });
});
