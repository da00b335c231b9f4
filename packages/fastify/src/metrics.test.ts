import { randomUUID } from 'node:crypto';
import { PRE_AUTHORIZED_GRANT, RETENTION_KINDS } from '@vellum/core';
import { proofJwt, walletKey } from '@vellum/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../test/app.ts';
import { createMetrics, metricsPlugin, UNMATCHED_ROUTE, type VellumMetrics, vellumPlugin } from './index.ts';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Reads the samples of the Prometheus text exposition format 0.0.4 (comments and blank lines skipped). */
function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none. */
function valueOf(text: string, name: string, labels: Record<string, string> = {}): number {
  const found = samples(text).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

const MDL = 'org.iso.18013.5.1.mDL';

// STYLE 14: the plugin counts the same way standalone and mounted under a prefix inside another app.
describe.each([
  ['standalone', ''],
  ['prefixed', '/issuance'],
] as const)('the metrics plugin in front of the Vellum plugin (%s; docs/metrics.md)', (_mount, prefix) => {
  let t: TestApp;
  let app: FastifyInstance;
  let metrics: VellumMetrics;
  let host: string;
  let admin: string;
  let configurationId: string;

  beforeAll(async () => {
    t = await buildTestApp('standalone');
    metrics = createMetrics({ processMetrics: false });
    // A host of its own: the metrics plugin first, then Vellum (here under `prefix`) and a host route.
    app = Fastify();
    await app.register(metricsPlugin, { metrics });
    app.get('/host-route', async () => ({ host: true }));
    await app.register(vellumPlugin, { services: t.services, ...(prefix ? { prefix } : {}) });
    await app.ready();
    const tenant = await t.createTenant('metrics');
    host = tenant.host;
    const token = await app.inject({
      method: 'POST',
      url: `${prefix}/oauth/token`,
      payload: { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret, audience: `https://${host}` },
    });
    expect(token.statusCode, token.body).toBe(200);
    admin = token.json().access_token;
    const iaca = await call('POST', '/v2/credentials/mobile/iacas', { country: 'US' });
    expect((await call('PUT', `/v2/credentials/mobile/iacas/${iaca.json().id}`, { active: true })).statusCode).toBe(200);
    const configuration = await call('POST', '/v2/credentials/mobile/configurations', {
      type: MDL,
      expiresIn: { days: 365 },
      claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
    });
    expect(configuration.statusCode, configuration.body).toBe(201);
    configurationId = configuration.json().id;
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) =>
    app.inject({ method, url: `${prefix}${path}`, headers: { host, authorization: `Bearer ${admin}` }, ...(payload ? { payload } : {}) });
  const wallet = (path: string, options: { form?: Record<string, string>; json?: object; authorization?: string } = {}) =>
    app.inject({
      method: 'POST',
      url: `${prefix}${path}`,
      headers: {
        host,
        ...(options.authorization ? { authorization: options.authorization } : {}),
        ...(options.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(options.form ? { payload: new URLSearchParams(options.form).toString() } : options.json ? { payload: options.json } : {}),
    });

  it('labels requests with the route pattern, never the raw URL, and observes each one’s duration', async () => {
    const before = await metrics.render();
    const route = `${prefix}/v1/users/:id`;
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) expect((await call('GET', `/v1/users/${id}`)).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/host-route' })).statusCode).toBe(200);
    const after = await metrics.render();
    expect(
      valueOf(after, 'vellum_http_requests_total', { method: 'GET', route, status: '404' }) -
        valueOf(before, 'vellum_http_requests_total', { method: 'GET', route, status: '404' }),
    ).toBe(3);
    expect(
      valueOf(after, 'vellum_http_request_duration_seconds_count', { method: 'GET', route }) -
        valueOf(before, 'vellum_http_request_duration_seconds_count', { method: 'GET', route }),
    ).toBe(3);
    // Every observation falls in the +Inf bucket; none of the raw ids became a label.
    expect(valueOf(after, 'vellum_http_request_duration_seconds_bucket', { method: 'GET', route, le: '+Inf' })).toBe(
      valueOf(after, 'vellum_http_request_duration_seconds_count', { method: 'GET', route }),
    );
    for (const id of ids) expect(after).not.toContain(id);
    // A host route registered after the plugin is counted too.
    expect(valueOf(after, 'vellum_http_requests_total', { method: 'GET', route: '/host-route', status: '200' })).toBe(1);
  });

  it('counts requests no route matched under one label', async () => {
    const before = valueOf(await metrics.render(), 'vellum_http_requests_total', { method: 'GET', route: UNMATCHED_ROUTE, status: '404' });
    expect((await app.inject({ method: 'GET', url: `${prefix}/no/such/path/${Math.random()}`, headers: { host } })).statusCode).toBe(404);
    const text = await metrics.render();
    expect(valueOf(text, 'vellum_http_requests_total', { method: 'GET', route: UNMATCHED_ROUTE, status: '404' })).toBe(before + 1);
    expect(text).not.toContain('/no/such/path');
  });

  it('counts token endpoint refusals by their OAuth error (RFC 6749 §5.2), and not its successes', async () => {
    const route = `${prefix}/v1/oauth/token`;
    const errors = (text: string, error: string) => valueOf(text, 'vellum_oauth_errors_total', { route, error });
    const before = await metrics.render();
    const refused = [
      await wallet('/v1/oauth/token', { form: { grant_type: 'client_credentials' } }),
      await wallet('/v1/oauth/token', { form: { grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': 'not-a-code' } }),
      await wallet('/v1/oauth/token', { form: { grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': 'still-not-a-code' } }),
      await wallet('/v1/oauth/token', { form: { grant_type: PRE_AUTHORIZED_GRANT } }),
    ];
    expect(refused.map((r) => r.json().error)).toEqual(['unsupported_grant_type', 'invalid_grant', 'invalid_grant', 'invalid_request']);
    await redeem();
    const after = await metrics.render();
    expect(errors(after, 'unsupported_grant_type') - errors(before, 'unsupported_grant_type')).toBe(1);
    expect(errors(after, 'invalid_grant') - errors(before, 'invalid_grant')).toBe(2);
    expect(errors(after, 'invalid_request') - errors(before, 'invalid_request')).toBe(1);
    // The redeemed code answered 200: counted as a request, not as an error.
    expect(
      valueOf(after, 'vellum_http_requests_total', { method: 'POST', route, status: '200' }) -
        valueOf(before, 'vellum_http_requests_total', { method: 'POST', route, status: '200' }),
    ).toBe(1);
    expect(
      samples(after)
        .filter((s) => s.name === 'vellum_oauth_errors_total' && s.labels.route === route)
        .reduce((n, s) => n + s.value, 0),
    ).toBe(
      samples(before)
        .filter((s) => s.name === 'vellum_oauth_errors_total' && s.labels.route === route)
        .reduce((n, s) => n + s.value, 0) + 4,
    );
  });

  it('counts proof and token failures at the credential and notification endpoints (OpenID4VCI 1.0 §8.3.1.2, §11.3)', async () => {
    const credential = `${prefix}/v1/openid/credential`;
    const notification = `${prefix}/v1/openid/notification`;
    const before = await metrics.render();
    const authorization = await redeem();
    const audience = `https://${host}${prefix}`;
    // A proof over a nonce this issuer never gave.
    const badNonce = await wallet('/v1/openid/credential', {
      authorization,
      json: { credential_configuration_id: configurationId, proofs: { jwt: [proofJwt(walletKey(), { audience, nonce: 'made-up' })] } },
    });
    expect(badNonce.json().error).toBe('invalid_nonce');
    const noToken = await wallet('/v1/openid/credential', { json: { credential_configuration_id: configurationId } });
    expect(noToken.json().error).toBe('invalid_token');
    const notify = await wallet('/v1/openid/notification', { json: { notification_id: 'x', event: 'credential_accepted' } });
    expect(notify.json().error).toBe('invalid_token');
    const after = await metrics.render();
    const delta = (route: string, error: string) =>
      valueOf(after, 'vellum_oauth_errors_total', { route, error }) - valueOf(before, 'vellum_oauth_errors_total', { route, error });
    expect(delta(credential, 'invalid_nonce')).toBe(1);
    expect(delta(credential, 'invalid_token')).toBe(1);
    expect(delta(notification, 'invalid_token')).toBe(1);
  });

  it('counts no OAuth error for refusals of the admin API, whose body has none', async () => {
    const before = samples(await metrics.render()).filter((s) => s.name === 'vellum_oauth_errors_total');
    expect((await call('POST', '/v1/users', { claims: 'not an object' })).statusCode).toBe(400);
    expect(samples(await metrics.render()).filter((s) => s.name === 'vellum_oauth_errors_total')).toEqual(before);
  });

  /** A pre-authorized offer redeemed at the token endpoint; the wallet's Authorization header. */
  async function redeem(): Promise<string> {
    const offer = await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [configurationId], claims: { familyName: 'Turner' } });
    expect(offer.statusCode, offer.body).toBe(200);
    const grant = JSON.parse(new URL(offer.json().uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_GRANT];
    const token = await wallet('/v1/oauth/token', { form: { grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': grant['pre-authorized_code'] } });
    expect(token.statusCode, token.body).toBe(200);
    return `Bearer ${token.json().access_token}`;
  }
});

describe('the recorders the host calls (docs/metrics.md)', () => {
  it('count issued credentials by format and webhook deliveries by outcome', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.credentialIssued('mso_mdoc');
    metrics.credentialIssued('mso_mdoc');
    metrics.credentialIssued('dc+sd-jwt');
    metrics.webhookDeliveries('succeeded', 3);
    metrics.webhookDeliveries('retry', 1);
    metrics.webhookDeliveries('failed', 0);
    const text = await metrics.render();
    expect(valueOf(text, 'vellum_credentials_issued_total', { format: 'mso_mdoc' })).toBe(2);
    expect(valueOf(text, 'vellum_credentials_issued_total', { format: 'dc+sd-jwt' })).toBe(1);
    expect(valueOf(text, 'vellum_webhook_deliveries_total', { outcome: 'succeeded' })).toBe(3);
    expect(valueOf(text, 'vellum_webhook_deliveries_total', { outcome: 'retry' })).toBe(1);
    expect(samples(text).some((s) => s.name === 'vellum_webhook_deliveries_total' && s.labels.outcome === 'failed')).toBe(false);
  });

  it('count rows the retention job purged by kind, every kind shown from the first scrape (docs/retention.md)', async () => {
    const metrics = createMetrics({ processMetrics: false });
    expect(valueOf(await metrics.render(), 'vellum_retention_purged_total', { kind: 'analytic_events' })).toBe(0);
    metrics.retentionPurged('nonces', 500);
    metrics.retentionPurged('nonces', 12);
    metrics.retentionPurged('offers', 0);
    const text = await metrics.render();
    expect(valueOf(text, 'vellum_retention_purged_total', { kind: 'nonces' })).toBe(512);
    expect(valueOf(text, 'vellum_retention_purged_total', { kind: 'offers' })).toBe(0);
    for (const kind of RETENTION_KINDS)
      expect(
        samples(text).some((s) => s.name === 'vellum_retention_purged_total' && s.labels.kind === kind),
        kind,
      ).toBe(true);
  });

  it('observe store operations into a histogram with one series per operation', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const consume = metrics.storeOperation('offers.consumePreAuthorizedCode');
    consume(0.0004);
    consume(0.003);
    metrics.storeOperation('transaction')(2);
    const text = await metrics.render();
    const op = { operation: 'offers.consumePreAuthorizedCode' };
    expect(valueOf(text, 'vellum_store_operation_duration_seconds_count', op)).toBe(2);
    expect(valueOf(text, 'vellum_store_operation_duration_seconds_bucket', { ...op, le: '0.0005' })).toBe(1);
    expect(valueOf(text, 'vellum_store_operation_duration_seconds_bucket', { ...op, le: '0.005' })).toBe(2);
    expect(valueOf(text, 'vellum_store_operation_duration_seconds_sum', { operation: 'transaction' })).toBe(2);
  });

  it('read the event queue, its losses and the deliveries in flight at each scrape, counting losses as they grow', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const queue = { depth: 7, droppedQueueFull: 2, droppedUnwritable: 0 };
    let inFlight = 5;
    metrics.watchEventQueue({ pending: () => queue.depth, losses: () => queue });
    metrics.watchWebhookDeliveriesInFlight(() => inFlight);
    let text = await metrics.render();
    expect(valueOf(text, 'vellum_event_queue_depth')).toBe(7);
    expect(valueOf(text, 'vellum_analytic_events_lost_total', { reason: 'queue_full' })).toBe(2);
    expect(valueOf(text, 'vellum_webhook_deliveries_in_flight')).toBe(5);
    Object.assign(queue, { depth: 0, droppedQueueFull: 5, droppedUnwritable: 1 });
    inFlight = 0;
    text = await metrics.render();
    expect(valueOf(text, 'vellum_event_queue_depth')).toBe(0);
    expect(valueOf(text, 'vellum_analytic_events_lost_total', { reason: 'queue_full' })).toBe(5);
    expect(valueOf(text, 'vellum_analytic_events_lost_total', { reason: 'unwritable' })).toBe(1);
    expect(valueOf(text, 'vellum_webhook_deliveries_in_flight')).toBe(0);
  });

  it('asks the store for the pending deliveries at each scrape, and shows NaN, not the last count, when it cannot answer', async () => {
    const metrics = createMetrics({ processMetrics: false });
    expect(valueOf(await metrics.render(), 'vellum_webhook_deliveries_pending')).toBe(0);
    let answer: () => Promise<number> = async () => 4;
    let asked = 0;
    metrics.watchWebhookDeliveriesPending(() => {
      asked += 1;
      return answer();
    });
    expect(valueOf(await metrics.render(), 'vellum_webhook_deliveries_pending')).toBe(4);
    answer = async () => {
      throw new Error('the database is down');
    };
    const text = await metrics.render();
    expect(valueOf(text, 'vellum_webhook_deliveries_pending')).toBeNaN();
    expect(text).toContain('vellum_webhook_deliveries_in_flight');
    answer = async () => 0;
    expect(valueOf(await metrics.render(), 'vellum_webhook_deliveries_pending')).toBe(0);
    expect(asked).toBe(3);
  });

  it('keeps labels few: an error that is not an OAuth error code is counted as other', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.oauthError('/v1/oauth/token', 'Not An OAuth Code <script>');
    metrics.oauthError('/v1/oauth/token', 'invalid_grant');
    const text = await metrics.render();
    expect(valueOf(text, 'vellum_oauth_errors_total', { route: '/v1/oauth/token', error: 'other' })).toBe(1);
    expect(valueOf(text, 'vellum_oauth_errors_total', { route: '/v1/oauth/token', error: 'invalid_grant' })).toBe(1);
    expect(text).not.toContain('script');
  });

  it('exports Node’s process metrics unless told not to, in the Prometheus text format', async () => {
    const withProcess = createMetrics();
    const text = await withProcess.render();
    expect(withProcess.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(text).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(text).toContain('# TYPE vellum_http_requests_total counter');
    expect(text).toContain('# TYPE vellum_http_request_duration_seconds histogram');
    expect(await createMetrics({ processMetrics: false }).render()).not.toContain('process_cpu');
  });
});
