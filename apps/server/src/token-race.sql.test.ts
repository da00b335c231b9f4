// Two servers sharing one database (PostgreSQL, and SQLite from two connections): racing token
// requests for one pre-authorized code get exactly one access token (OpenID4VCI 1.0 §6; docs/decisions.md "Users, offers, the token and nonce endpoints":
// "a code is single-use"), and racing wrong transaction codes lock the offer after exactly three.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../test/backends.ts';
import { createMdlConfiguration, type InProcessServers, serversOnOneDatabase, tenantAdmin } from '../test/in-process.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

const backends: Array<[string, () => Backend, boolean]> = [
  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  ['postgres', () => postgresBackend('vellum_race'), pgAdminUrl === undefined],
  ['sqlite', () => sqliteBackend(), false],
];

describe.each(backends)('two servers on one %s database', (_name, make, skip) => {
  const host = 'race.eu01.vellum.test';
  let backend: Backend;
  let servers: InProcessServers;
  const apps: FastifyInstance[] = [];
  let auth = '';
  let configurationId = '';

  beforeAll(async () => {
    if (skip) return;
    backend = make();
    servers = await serversOnOneDatabase(backend, 2);
    apps.push(...servers.apps);
    const admin = await tenantAdmin(servers, 'race');
    auth = admin.authorization;
    configurationId = await createMdlConfiguration(apps[1] as FastifyInstance, admin);
  });

  afterAll(async () => {
    if (skip) return;
    await servers.close();
    await backend.cleanup();
  });

  async function offer(extra: Record<string, unknown> = {}) {
    const res = await (apps[0] as FastifyInstance).inject({
      method: 'POST',
      url: '/v1/openid/offers/pre-authorized',
      headers: { host, authorization: auth },
      payload: { credentials: [configurationId], ...extra },
    });
    expect(res.statusCode, res.body).toBe(200);
    const created = res.json() as { uri: string; transactionCode?: string };
    const code = JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string).grants[GRANT]['pre-authorized_code'] as string;
    return { code, transactionCode: created.transactionCode };
  }

  const redeem = (i: number, fields: Record<string, string>) =>
    (apps[i % 2] as FastifyInstance).inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: GRANT, ...fields }).toString(),
    });

  it.skipIf(skip)('racing token requests for one code, spread over both servers, get exactly one token', async () => {
    for (let round = 0; round < 10; round++) {
      const { code, transactionCode } = await offer(round % 2 ? { transactionCodeConfiguration: { inputMode: 'numeric' } } : {});
      const fields = { 'pre-authorized_code': code, ...(transactionCode ? { tx_code: transactionCode } : {}) };
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => redeem(i, fields)));
      expect(
        answers.filter((a) => a.statusCode === 200),
        `round ${round}`,
      ).toHaveLength(1);
      for (const a of answers.filter((x) => x.statusCode !== 200)) expect(a.json()).toMatchObject({ error: 'invalid_grant' });
    }
  });

  it.skipIf(skip)('offers for an existing user succeed while the other server writes (claims persisted, none lost)', async () => {
    const [a, b] = apps as [FastifyInstance, FastifyInstance];
    const user = await a.inject({ method: 'POST', url: '/v1/users', headers: { host, authorization: auth }, payload: { claims: {} } });
    const userId = user.json().id as string;
    const offers = Array.from({ length: 12 }, (_, i) =>
      a.inject({
        method: 'POST',
        url: '/v1/openid/offers/pre-authorized',
        headers: { host, authorization: auth },
        payload: { credentials: [configurationId], userId, claims: { [`c${i}`]: i }, claimsToPersist: [`c${i}`] },
      }),
    );
    const writes = Array.from({ length: 12 }, () =>
      b.inject({ method: 'POST', url: '/v1/users', headers: { host, authorization: auth }, payload: { claims: { x: 1 } } }),
    );
    const answers = await Promise.all([...offers, ...writes]);
    for (const r of answers) expect(r.statusCode, r.body).toBeLessThan(300);
    const after = await b.inject({ method: 'GET', url: `/v1/users/${userId}`, headers: { host, authorization: auth } });
    expect(Object.keys(after.json().claims).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `c${i}`).sort());
  });

  it.skipIf(skip)('racing wrong transaction codes on both servers lock the offer after exactly three', async () => {
    const { code, transactionCode } = await offer({ transactionCodeConfiguration: { inputMode: 'text', length: 8 } });
    const wrong = transactionCode === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA';
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => redeem(i, { 'pre-authorized_code': code, tx_code: wrong })));
    const descriptions = answers.map((a) => a.json().error_description as string);
    expect(descriptions.filter((d) => d.startsWith('The transaction code is wrong'))).toHaveLength(3);
    const right = await redeem(0, { 'pre-authorized_code': code, tx_code: transactionCode as string });
    expect(right.statusCode).toBe(400);
    expect(right.json()).toMatchObject({ error: 'invalid_grant', error_description: 'Too many wrong transaction codes: the offer is no longer valid' });
  });
});
