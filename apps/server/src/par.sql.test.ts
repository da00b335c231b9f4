// Pushed authorization requests (RFC 9126) on two servers sharing one database, PostgreSQL and
// SQLite (Vellum issue 26, docs/limits.md "Pushed authorization requests"): the limit per wallet
// client and source IP is one count across both servers, and a `request_uri` is spent by its first
// use at the authorization endpoint, on whichever server, even when that attempt fails.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../test/backends.ts';
import { createMdlConfiguration, type InProcessServers, serversOnOneDatabase, tenantAdmin } from '../test/in-process.ts';

const REDIRECT = 'https://wallet.example/cb';
const LIMIT = 6;
const SPENT = 'The request_uri is unknown, used, expired or pushed by another client';

const backends: Array<[string, () => Backend, boolean]> = [
  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  ['postgres', () => postgresBackend('vellum_par'), pgAdminUrl === undefined],
  ['sqlite', () => sqliteBackend(), false],
];

describe.each(backends)('pushed authorization requests on two servers sharing one %s database', (_name, make, skip) => {
  const host = 'par.eu01.vellum.test';
  let backend: Backend;
  let servers: InProcessServers;
  const apps: FastifyInstance[] = [];
  const clients: string[] = [];

  beforeAll(async () => {
    if (skip) return;
    backend = make();
    servers = await serversOnOneDatabase(backend, 2, { VELLUM_RATE_LIMIT_PAR_PER_CLIENT_IP: String(LIMIT) });
    apps.push(...servers.apps);
    const a = apps[0] as FastifyInstance;
    const admin = await tenantAdmin(servers, 'par');
    await createMdlConfiguration(a, admin);
    // Two public wallet clients. The tenant has no authentication provider: an authorization that gets
    // past the request_uri ends at the wallet's redirect URI with server_error, after spending it.
    for (const clientName of ['Wallet A', 'Wallet B']) {
      const created = await a.inject({
        method: 'POST',
        url: '/v1/openid/clients',
        headers: admin,
        payload: { clientName, redirectUris: [REDIRECT], tokenEndpointAuthMethod: 'none' },
      });
      expect(created.statusCode, created.body).toBe(201);
      clients.push(created.json().clientId as string);
    }
  });

  afterAll(async () => {
    if (skip) return;
    await servers.close();
    await backend.cleanup();
  });

  const par = (server: number, ip: string, clientId = clients[0] as string) =>
    (apps[server % 2] as FastifyInstance).inject({
      method: 'POST',
      url: '/v1/oauth/par',
      remoteAddress: ip,
      headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: REDIRECT,
        scope: 'mso_mdoc:org.iso.18013.5.1.mDL',
        state: 'wallet-state',
        code_challenge_method: 'S256',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      }).toString(),
    });

  const pushed = async (ip: string): Promise<string> => {
    const res = await par(0, ip);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().request_uri as string;
  };

  const authorize = (server: number, requestUri: string, clientId = clients[0] as string) =>
    (apps[server % 2] as FastifyInstance).inject({
      method: 'GET',
      url: `/v1/oauth/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri })}`,
      headers: { host },
    });

  it.skipIf(skip)(
    'the limit per wallet client and IP counts on both servers alike: past it 429 with Retry-After, other addresses and clients unaffected',
    async () => {
      const ip = '198.51.100.50';
      // Spread over both servers, and concurrent: exactly LIMIT pass.
      const answers = await Promise.all(Array.from({ length: LIMIT + 4 }, (_, i) => par(i, ip)));
      expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(LIMIT);
      for (const refused of answers.filter((r) => r.statusCode !== 201)) {
        expect(refused.statusCode, refused.body).toBe(429);
        const retryAfter = Number(refused.headers['retry-after']);
        expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 300, String(refused.headers['retry-after'])).toBe(true);
        expect(refused.json()).toMatchObject({ code: 'TooManyRequests', error: 'invalid_request' });
      }
      expect((await par(1, '198.51.100.51')).statusCode).toBe(201);
      expect((await par(0, ip, clients[1])).statusCode).toBe(201);
    },
  );

  it.skipIf(skip)('a request_uri is spent by its first use, on either server, even when that attempt fails', async () => {
    const ip = '198.51.100.60';
    // Its first use names another registered client: refused, and spent.
    const stolen = await pushed(ip);
    const wrong = await authorize(0, stolen, clients[1]);
    expect(wrong.statusCode, wrong.body).toBe(400);
    const afterWrong = await authorize(1, stolen);
    expect(afterWrong.statusCode, afterWrong.body).toBe(400);
    expect(afterWrong.json()).toMatchObject({ error: 'invalid_request', error_description: SPENT });

    // Its first use gets past the request_uri and fails later (no sign-in provider): spent too.
    const failing = await pushed(ip);
    const first = await authorize(1, failing);
    expect(first.statusCode, first.body).toBe(303);
    expect(new URL(first.headers.location as string).searchParams.get('error')).toBe('server_error');
    const second = await authorize(0, failing);
    expect(second.statusCode, second.body).toBe(400);
    expect(second.json()).toMatchObject({ error: 'invalid_request', error_description: SPENT });
  });

  it.skipIf(skip)('of racing uses of one request_uri across both servers, exactly one gets past it', async () => {
    for (let round = 0; round < 3; round++) {
      const requestUri = await pushed(`198.51.100.${70 + round}`);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => authorize(i, requestUri)));
      expect(
        answers.filter((r) => r.statusCode === 303),
        `round ${round}`,
      ).toHaveLength(1);
      for (const lost of answers.filter((r) => r.statusCode !== 303)) expect(lost.json()).toMatchObject({ error: 'invalid_request', error_description: SPENT });
    }
  });
});
