// A body nested 5,000 deep, sent by a wallet to a tenant at logging level 3, must not stop the
// analytic events of every other tenant (docs/decisions.md "Analytic events"; docs/limits.md "Analytic events"): its event is
// stored cut short, the others are written and readable, the queue does not grow and the log does
// not fill. On the real stores: SQLite, and PostgreSQL when VELLUM_TEST_DATABASE_URL is set.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../test/backends.ts';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { openRuntime, type Runtime } from './runtime.ts';

const DEPTH = 5000;
const deepJson = `{"grant_type":"urn:ietf:params:oauth:grant-type:pre-authorized_code","visible":"kept","a":${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}}`;

const backends: Array<[string, () => Backend, boolean]> = [
  ['postgres', () => postgresBackend('vellum_events'), pgAdminUrl === undefined],
  ['sqlite', () => sqliteBackend(), false],
];

describe.each(backends)('analytic events on %s: one deep body never blocks the others', (_name, make, skip) => {
  let backend: Backend;
  let runtime: Runtime;
  let app: FastifyInstance;
  const lines: string[] = [];
  const hosts = { loud: 'loud.eu01.vellum.test', quiet: 'quiet.eu01.vellum.test' };
  const auth: Record<string, string> = {};
  const tenantIds: Record<string, string> = {};

  beforeAll(async () => {
    if (skip) return;
    backend = make();
    const env = {
      ...(await backend.env()),
      VELLUM_MASTER_KEY: randomBytes(32).toString('base64'),
      VELLUM_PLATFORM_DOMAIN: 'vellum.test',
      VELLUM_DEFAULT_TENANT: '',
    };
    const config = loadConfig(env);
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger('info', sink);
    runtime = await openRuntime(config, logger);
    app = await buildApp(runtime, config, logger);
    for (const [name, host] of Object.entries(hosts)) {
      tenantIds[name] = (await runtime.vellum.tenants.createTenant({ subdomain: name, region: 'eu01' })).tenant.id;
      for (const role of ['admin', 'auditor'] as const) {
        const c = await runtime.vellum.tenants.createClient({ subdomain: name, role });
        const token = await app.inject({
          method: 'POST',
          url: '/oauth/token',
          payload: { grant_type: 'client_credentials', client_id: c.client.clientId, client_secret: c.clientSecret, audience: `https://${host}` },
        });
        expect(token.statusCode, token.body).toBe(200);
        auth[`${name}:${role}`] = `Bearer ${token.json().access_token}`;
      }
    }
  });

  afterAll(async () => {
    if (skip) return;
    await app.close();
    await runtime.close();
    await backend.cleanup();
  });

  it.skipIf(skip)('stores the deep event cut short, and another tenant’s event is written and readable through GET /v1/events', async () => {
    const level = await app.inject({
      method: 'PUT',
      url: '/v1/config/analytics',
      headers: { host: hosts.loud, authorization: auth['loud:admin'] as string },
      payload: { loggingLevel: 3 },
    });
    expect(level.statusCode, level.body).toBe(200);

    // Through HTTP, whatever the edge answers (the body limit may refuse it before the endpoint)…
    await app.inject({ method: 'POST', url: '/v1/oauth/token', headers: { host: hosts.loud, 'content-type': 'application/json' }, payload: deepJson });
    // …and straight into the recorder, as the token endpoint records a body it was given.
    const tenant = await runtime.store.tenants.findById(tenantIds.loud as string);
    expect(tenant?.loggingLevel).toBe(3);
    if (!tenant) return;
    runtime.vellum.recorder.record({ tenant, origin: `https://${hosts.loud}`, requestId: 'deep-request', ip: '192.0.2.7' }, 'OPENID_TOKEN', 'START', {
      payload: { request: JSON.parse(deepJson) },
    });

    const ordinary = await app.inject({
      method: 'GET',
      url: '/v1/config/analytics',
      headers: { host: hosts.quiet, authorization: auth['quiet:admin'] as string },
    });
    expect(ordinary.statusCode, ordinary.body).toBe(200);
    for (let i = 0; i < 3; i++) await runtime.vellum.recorder.flush();
    expect(runtime.vellum.recorder.pending()).toBe(0);

    const quietEvents = await app.inject({
      method: 'GET',
      url: '/v1/events?types=CONFIG_ANALYTICS_RETRIEVE_SUCCESS',
      headers: { host: hosts.quiet, authorization: auth['quiet:auditor'] as string },
    });
    expect(quietEvents.statusCode, quietEvents.body).toBe(200);
    expect(quietEvents.json().data).toHaveLength(1);

    const loudEvents = await app.inject({
      method: 'GET',
      url: '/v1/events?types=OPENID_TOKEN_START',
      headers: { host: hosts.loud, authorization: auth['loud:auditor'] as string },
    });
    expect(loudEvents.statusCode, loudEvents.body).toBe(200);
    const deep = (loudEvents.json().data as Array<{ requestId: string; data?: { payload?: { request?: Record<string, unknown> } } }>).find(
      (e) => e.requestId === 'deep-request',
    );
    expect(deep?.data?.payload?.request).toMatchObject({ visible: 'kept' });
    expect(JSON.stringify(deep)).toContain('[truncated]');
    expect(runtime.vellum.recorder.losses()).toMatchObject({ droppedQueueFull: 0, droppedUnwritable: 0 });

    // Nothing failed to write, so nothing was logged about it (it used to be one error per flush).
    expect(lines.filter((l) => l.includes('could not write analytic events'))).toEqual([]);
  });
});
