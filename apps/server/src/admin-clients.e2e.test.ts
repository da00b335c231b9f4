import { startDnsServer, type DnsTestServer } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../test/backends.ts';
import { cli, freePort, http, type RunningServer, serverEnv } from '../test/process.ts';
import { startWithTenant } from '../test/tenant.ts';

const PLATFORM = 'vellum.test';
const TTL_MS = 500;
const settle = () => new Promise((resolve) => setTimeout(resolve, TTL_MS + 100));

const backends: Array<[string, () => Backend, boolean]> = [
  ['sqlite', () => sqliteBackend(), false],
  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  ['postgres', () => postgresBackend('vellum_h5'), !pgAdminUrl],
];

// Hardening item 8 (docs/limits.md, Admin clients): `vellum clients rotate-secret | revoke` run in
// another process than the server, whose tokens they retire are refused once the server's read
// cache lets the row go (VELLUM_READ_CACHE_TTL_MS, set to 500 ms here), and never later.
describe.each(backends)('vellum clients rotate-secret and revoke, against a running server on %s', (_name, makeBackend, skip) => {
  let backend: Backend;
  let dns: DnsTestServer;
  let server: RunningServer;
  let env: Record<string, string>;
  let creds: { audience: string; clientId: string; clientSecret: string };
  const host = `acme.eu01.${PLATFORM}`;

  beforeAll(async () => {
    if (skip) return;
    backend = makeBackend();
    dns = await startDnsServer({});
    env = serverEnv({
      ...(await backend.env()),
      VELLUM_PORT: String(await freePort()),
      VELLUM_PLATFORM_DOMAIN: PLATFORM,
      VELLUM_DEFAULT_TENANT: '',
      VELLUM_DNS_SERVERS: dns.address,
      VELLUM_READ_CACHE_TTL_MS: String(TTL_MS),
    });
    ({ server, creds } = await startWithTenant(env));
  });

  afterAll(async () => {
    if (skip) return;
    await server?.stop();
    await dns?.close();
    await backend?.cleanup();
  });

  const login = (clientId: string, clientSecret: string) =>
    http(server.port, 'POST', '/oauth/token', {
      host,
      body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: creds.audience },
    });
  const webhooks = (token: string) => http(server.port, 'GET', '/v1/webhooks', { host, headers: { authorization: `Bearer ${token}` } });

  it.skipIf(skip)('revokes a client from the command line: its token is refused by the running server within the read cache TTL', async () => {
    const issuer = JSON.parse(cli(['clients', 'create', '--tenant', 'acme', '--role', 'issuer'], env).stdout);
    const token = (await login(issuer.clientId, issuer.clientSecret)).json().access_token;
    expect((await webhooks(token)).status).toBe(200);

    const revoked = cli(['clients', 'revoke', '--tenant', 'acme', '--client', issuer.clientId], env);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ clientId: issuer.clientId, revokedAt: expect.any(String) });
    expect(revoked.stdout).not.toMatch(/secret/i);

    await settle();
    expect((await webhooks(token)).status).toBe(401);
    expect((await login(issuer.clientId, issuer.clientSecret)).status).toBe(401);
  });

  it.skipIf(skip)('rotates a secret from the command line: the new one works, the old one and its token do not', async () => {
    const before = (await login(creds.clientId, creds.clientSecret)).json().access_token;
    expect((await webhooks(before)).status).toBe(200);

    const rotated = cli(['clients', 'rotate-secret', '--tenant', 'acme', '--client', creds.clientId], env);
    expect(rotated.status, rotated.stderr).toBe(0);
    const { clientSecret } = JSON.parse(rotated.stdout);
    expect(clientSecret).toEqual(expect.any(String));
    expect(clientSecret).not.toBe(creds.clientSecret);

    await settle();
    expect((await webhooks(before)).status).toBe(401);
    expect((await login(creds.clientId, creds.clientSecret)).status).toBe(401);
    const after = await login(creds.clientId, clientSecret);
    expect(after.status).toBe(200);
    expect((await webhooks(after.json().access_token)).status).toBe(200);
  });

  it.skipIf(skip)('refuses to revoke the tenant’s last admin client, and names a missing --client', () => {
    const last = cli(['clients', 'revoke', '--tenant', 'acme', '--client', creds.clientId], env);
    expect(last.status).toBe(1);
    expect(last.stderr).toMatch(/last admin client/);
    const missing = cli(['clients', 'revoke', '--tenant', 'acme'], env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('--client');
  });

  it.skipIf(skip)(
    'rotates the admin-token key from the command line: the running server goes on accepting the tokens it signed (issue 32, point 4)',
    async () => {
      // A client of its own: the tests above rotated and revoked others.
      const client = JSON.parse(cli(['clients', 'create', '--tenant', 'acme', '--role', 'issuer'], env).stdout);
      const answer = await login(client.clientId, client.clientSecret);
      expect(answer.status, answer.text).toBe(200);
      const token = answer.json().access_token as string;
      const kid = JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString()).kid as string;
      const short = cli(['keys', 'rotate-admin-token', '--overlap', '60'], env);
      expect(short.status).toBe(1);
      expect(short.stderr).toContain('The overlap must be at least 3900 seconds');
      const rotated = cli(['keys', 'rotate-admin-token', '--overlap', '7200'], env);
      expect(rotated.status, rotated.stderr).toBe(0);
      const printed = JSON.parse(rotated.stdout);
      expect(printed).toMatchObject({ role: 'admin-token', active: [expect.any(String)], retired: [{ id: kid, until: expect.any(String) }] });
      expect(printed.active[0]).not.toBe(kid);
      // The old key verifies its tokens through the overlap, here and on every server.
      await settle();
      expect((await webhooks(token)).status).toBe(200);
      const fresh = (await login(client.clientId, client.clientSecret)).json().access_token as string;
      expect((await webhooks(fresh)).status).toBe(200);
      const again = cli(['keys', 'rotate-admin-token'], env);
      expect(again.status).toBe(1);
      expect(again.stderr).toContain('overlaps until');
    },
  );
});
