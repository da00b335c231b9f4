// Issue 17, end to end: `vellum serve` with VELLUM_METRICS_PORT (SQLite, and PostgreSQL when
// VELLUM_TEST_DATABASE_URL names one). A wallet runs the Pre-authorized Code flow by hand and makes
// refused requests; two webhooks receive the issuance (one answers 200, one 503); then /metrics is
// scraped from its own port and its counters must have moved by exactly what was done. The scrape is
// read as the Prometheus text format (0.0.4) by the small reader below, not by prom-client.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localhostCertificate, type LocalhostCertificate, proofJwt, startWebhookReceiver, walletKey, type WebhookReceiver } from '@vellum/testing';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../test/backends.ts';
import { freePort, http, type RunningServer, serverEnv } from '../test/process.ts';
import { activeIaca, adminAuthorization, startWithTenant } from '../test/tenant.ts';

const PLATFORM = 'vellum.test';
const HOST = `acme.eu01.${PLATFORM}`;
const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments skipped); label values unescaped. */
function samples(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    if (line === '' || line.startsWith('#')) return [];
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    return [{ name: m[1] as string, labels, value: Number(m[3]) }];
  });
}

/** The sum of the samples named `name` whose labels include `labels` (0 when none). */
const total = (all: Sample[], name: string, labels: Record<string, string> = {}) =>
  all.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const backends: Array<[string, () => Backend, boolean]> = [
  ['SQLite', () => sqliteBackend({ masterKey: true }), false],
  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  ['PostgreSQL', () => postgresBackend('vellum_metrics'), !pgAdminUrl],
];

describe.each(backends)('GET /metrics on VELLUM_METRICS_PORT after a real flow on %s (issue 17, docs/metrics.md)', (_name, makeBackend, skip) => {
  let backend: Backend;
  let server: RunningServer;
  let metricsPort: number;
  let tls: LocalhostCertificate;
  let receiver: WebhookReceiver;
  let admin: Record<string, string>;
  let configurationId: string;
  let metadata: Record<string, any>;

  const api = (method: string, path: string, body?: unknown) =>
    http(server.port, method, path, { host: HOST, headers: admin, ...(body === undefined ? {} : { body }) });
  const form = (fields: Record<string, string>) =>
    http(server.port, 'POST', '/v1/oauth/token', {
      host: HOST,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      raw: new URLSearchParams(fields).toString(),
    });
  const scrape = async () => {
    const res = await http(metricsPort, 'GET', '/metrics');
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return samples(res.text);
  };

  beforeAll(async () => {
    if (skip) return;
    backend = makeBackend();
    tls = localhostCertificate();
    receiver = await startWebhookReceiver(tls);
    receiver.answer = (request) => (request.path === '/down' ? 503 : 200);
    metricsPort = await freePort();
    const env = serverEnv({
      ...(await backend.env()),
      VELLUM_PORT: String(await freePort()),
      VELLUM_METRICS_PORT: String(metricsPort),
      VELLUM_PLATFORM_DOMAIN: PLATFORM,
      VELLUM_DEFAULT_TENANT: '',
      VELLUM_OUTBOUND_ALLOW_PRIVATE: 'true',
      VELLUM_OUTBOUND_CA_FILE: tls.certFile,
      VELLUM_WEBHOOK_POLL_INTERVAL_MS: '50',
    });
    const started = await startWithTenant(env);
    server = started.server;
    admin = await adminAuthorization(server, HOST, started.creds);
    await activeIaca(api);
    const configuration = await api('POST', '/v2/credentials/mobile/configurations', {
      type: DOC_TYPE,
      expiresIn: { days: 365 },
      claimMappings: { [NS]: { family_name: { mapFrom: 'claims.familyName', required: true } } },
    });
    expect(configuration.status, configuration.text).toBe(201);
    configurationId = configuration.json().id;
    for (const path of ['/ok', '/down'])
      expect((await api('POST', '/v1/webhooks', { events: ['OpenIdCredentialIssued'], url: receiver.url(path) })).status).toBe(201);
    metadata = (await http(server.port, 'GET', '/.well-known/openid-credential-issuer', { host: HOST })).json();
  });

  afterAll(async () => {
    if (skip) return;
    await server?.stop();
    await receiver?.close();
    tls?.dispose();
    await backend?.cleanup();
  });

  it.skipIf(skip)(
    'counts the flow: requests by route and status, OAuth refusals by error, the credential by format, deliveries by outcome, store calls',
    async () => {
      const before = await scrape();

      // Refusals at the token endpoint: two unknown codes, one unsupported grant.
      expect((await form({ grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': 'no-such-code' })).json().error).toBe('invalid_grant');
      expect((await form({ grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': 'nor-this-one' })).json().error).toBe('invalid_grant');
      expect((await form({ grant_type: 'password' })).json().error).toBe('unsupported_grant_type');

      // The flow: offer → token → nonce → a proof over a made-up nonce (refused) → credential.
      const offer = await api('POST', '/v1/openid/offers/pre-authorized', { credentials: [configurationId], claims: { familyName: 'Turner' } });
      expect(offer.status, offer.text).toBe(200);
      const grant = JSON.parse(new URL(offer.json().uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_GRANT];
      const token = await form({ grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': grant['pre-authorized_code'] });
      expect(token.status, token.text).toBe(200);
      const authorization = `Bearer ${token.json().access_token}`;
      const key = walletKey();
      const credentialRequest = (nonce: string) =>
        http(server.port, 'POST', '/v1/openid/credential', {
          host: HOST,
          headers: { authorization },
          body: { credential_configuration_id: configurationId, proofs: { jwt: [proofJwt(key, { audience: metadata.credential_issuer, nonce })] } },
        });
      const refused = await credentialRequest('not-a-nonce-we-gave');
      expect(refused.json().error).toBe('invalid_nonce');
      const nonce = await http(server.port, 'POST', '/v1/openid/nonce', { host: HOST });
      expect(nonce.status).toBe(200);
      const issued = await credentialRequest(nonce.json().c_nonce);
      expect(issued.status, issued.text).toBe(200);

      // Both receivers are called; the outcomes are recorded just after.
      await receiver.waitFor(2);
      const after = await until('both delivery outcomes', async () => {
        const s = await scrape();
        return total(s, 'vellum_webhook_deliveries_total', { outcome: 'succeeded' }) >= 1 &&
          total(s, 'vellum_webhook_deliveries_total', { outcome: 'retry' }) >= 1
          ? s
          : undefined;
      });
      const delta = (name: string, labels: Record<string, string> = {}) => total(after, name, labels) - total(before, name, labels);

      const tokenRoute = '/v1/oauth/token';
      expect(delta('vellum_http_requests_total', { method: 'POST', route: tokenRoute, status: '400' })).toBe(3);
      expect(delta('vellum_http_requests_total', { method: 'POST', route: tokenRoute, status: '200' })).toBe(1);
      expect(delta('vellum_http_request_duration_seconds_count', { method: 'POST', route: tokenRoute })).toBe(4);
      expect(delta('vellum_http_requests_total', { method: 'POST', route: '/v1/openid/credential', status: '200' })).toBe(1);
      expect(delta('vellum_http_requests_total', { method: 'POST', route: '/v1/openid/credential', status: '400' })).toBe(1);
      expect(delta('vellum_http_requests_total', { method: 'POST', route: '/v1/openid/nonce', status: '200' })).toBe(1);
      // Routes are patterns: the admin API's webhook and IACA paths carry no ids.
      expect(after.some((s) => s.name === 'vellum_http_requests_total' && s.labels.route === '/v2/credentials/mobile/iacas/:id')).toBe(true);
      expect(after.some((s) => s.name === 'vellum_http_requests_total' && /[0-9a-f]{8}-[0-9a-f]{4}-/.test(s.labels.route ?? ''))).toBe(false);

      expect(delta('vellum_oauth_errors_total', { route: tokenRoute, error: 'invalid_grant' })).toBe(2);
      expect(delta('vellum_oauth_errors_total', { route: tokenRoute, error: 'unsupported_grant_type' })).toBe(1);
      expect(delta('vellum_oauth_errors_total', { route: '/v1/openid/credential', error: 'invalid_nonce' })).toBe(1);
      expect(delta('vellum_oauth_errors_total')).toBe(4);

      expect(delta('vellum_credentials_issued_total', { format: 'mso_mdoc' })).toBe(1);
      expect(delta('vellum_webhook_deliveries_total', { outcome: 'succeeded' })).toBe(1);
      expect(delta('vellum_webhook_deliveries_total', { outcome: 'retry' })).toBe(1);
      expect(delta('vellum_webhook_deliveries_total', { outcome: 'failed' })).toBe(0);
      // The outbox's depth, counted in the database: nothing before the issuance; after it, the
      // delivery the 503 receiver refused waits for its retry (10 s away), pending.
      expect(before.filter((s) => s.name === 'vellum_webhook_deliveries_pending').map((s) => s.value)).toEqual([0]);
      expect(after.filter((s) => s.name === 'vellum_webhook_deliveries_pending').map((s) => s.value)).toEqual([1]);

      // The issuance ran at least one transaction, and the redeeming of the code went to the store.
      expect(delta('vellum_store_operation_duration_seconds_count', { operation: 'transaction' })).toBeGreaterThan(0);
      expect(after.filter((s) => s.name === 'vellum_store_operation_duration_seconds_count' && s.labels.operation !== 'transaction').length).toBeGreaterThan(0);
      // The gauges and Node's own metrics are there.
      expect(after.some((s) => s.name === 'vellum_event_queue_depth')).toBe(true);
      expect(after.some((s) => s.name === 'vellum_webhook_deliveries_in_flight')).toBe(true);
      expect(total(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    },
  );

  it.skipIf(skip)('serves nothing else on the metrics port, and the API port does not serve /metrics', async () => {
    expect((await http(metricsPort, 'GET', '/')).status).toBe(404);
    const post = await http(metricsPort, 'POST', '/metrics');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    const head = await http(metricsPort, 'HEAD', '/metrics');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    for (const host of [HOST, `localhost:${server.port}`]) {
      const res = await http(server.port, 'GET', '/metrics', { host });
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('vellum_http_requests_total');
    }
  });
});

describe.skipIf(process.platform !== 'linux')('GET /metrics with VELLUM_WORKERS=2: the primary serves the workers’ sum (docs/metrics.md)', () => {
  const backend = sqliteBackend({ masterKey: true });
  let apiPort: number;
  let metricsPort: number;
  let proc: ReturnType<typeof spawn>;
  let out = '';
  let dataDir: string;

  beforeAll(async () => {
    apiPort = await freePort();
    metricsPort = await freePort();
    const backendEnv = await backend.env();
    dataDir = backendEnv.VELLUM_DATA_DIR as string;
    const env = serverEnv({
      ...backendEnv,
      VELLUM_PORT: String(apiPort),
      VELLUM_METRICS_PORT: String(metricsPort),
      VELLUM_WORKERS: '2',
      // The retention job's first run comes a tenth of this after start, then one a second (docs/retention.md).
      VELLUM_RETENTION_INTERVAL_MS: '1000',
    });
    // `vellum serve` itself: the primary forks the workers and serves their metrics.
    proc = spawn(process.execPath, [new URL('./main.ts', import.meta.url).pathname, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout?.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    await until('two workers listening', async () => ((out.match(/Server listening at/g) ?? []).length >= 2 ? true : undefined), 30_000).catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${out}`);
      },
    );
  });

  afterAll(async () => {
    if (proc && proc.exitCode === null) {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      await exited;
    }
    await backend.cleanup();
  });

  it('sums the requests every worker answered, whichever worker each went to', async () => {
    const count = (all: Sample[]) => total(all, 'vellum_http_requests_total', { method: 'GET', route: '/health', status: '200' });
    const before = count(samples((await http(metricsPort, 'GET', '/metrics')).text));
    // Each on a connection of its own: the primary hands connections to the workers in turn.
    for (let i = 0; i < 10; i++) expect((await http(apiPort, 'GET', '/health', { headers: { connection: 'close' } })).status).toBe(200);
    const res = await http(metricsPort, 'GET', '/metrics');
    expect(res.status).toBe(200);
    const after = samples(res.text);
    expect(count(after) - before).toBe(10);
    // Both workers answered some of them (round-robin), and their process metrics are summed too.
    const pids = new Set(out.split('\n').flatMap((l) => (l.includes('"url":"/health"') ? [JSON.parse(l).pid as number] : [])));
    expect(pids.size).toBe(2);
    expect(total(after, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('reports the webhook backlog once, not once per worker: both read the same database', async () => {
    // A backlog written straight into the database the workers share: three deliveries pending, due
    // long after this test, so that no worker claims them. (Node's own SQLite driver, foreign keys off:
    // the rows need no tenant or webhook to be counted.)
    const db = new DatabaseSync(join(dataDir, 'vellum.db'), { enableForeignKeyConstraints: false, timeout: 5000 });
    try {
      const insert = db.prepare(
        `INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_id, event_type, occurred_at, payload, status, attempts, retries_left, next_attempt_at, created_at, updated_at)
         VALUES (?, 't', 'w', ?, 'OpenIdCredentialIssued', ?, '{}', 'pending', '[]', 3, '2100-01-01T00:00:00.000Z', ?, ?)`,
      );
      const now = new Date().toISOString();
      for (let i = 0; i < 3; i++) insert.run(randomUUID(), randomUUID(), now, now, now);
    } finally {
      db.close();
    }
    const pending = samples((await http(metricsPort, 'GET', '/metrics')).text).filter((s) => s.name === 'vellum_webhook_deliveries_pending');
    // prom-client sums a gauge across workers unless told otherwise: the sum would say 6.
    expect(pending.map((s) => s.value)).toEqual([3]);
  });

  it('runs the retention job: expired rows in the shared database are deleted, each counted once by kind (docs/retention.md)', async () => {
    const rows = 1200; // more than two batches of 500
    const db = new DatabaseSync(join(dataDir, 'vellum.db'), { enableForeignKeyConstraints: false, timeout: 5000 });
    try {
      const insert = db.prepare(`INSERT INTO nonces (tenant_id, nonce, expires_at) VALUES ('t', ?, '2020-01-01T00:00:00.000Z')`);
      db.exec('BEGIN');
      for (let i = 0; i < rows; i++) insert.run(`e2e-${i}`);
      db.exec('COMMIT');
    } finally {
      db.close();
    }
    const purged = async () => total(samples((await http(metricsPort, 'GET', '/metrics')).text), 'vellum_retention_purged_total', { kind: 'nonces' });
    await until('the expired nonces purged', async () => ((await purged()) >= rows ? true : undefined), 30_000);
    // The workers' counts are summed: a row purged twice would show here.
    expect(await purged()).toBe(rows);
    const check = new DatabaseSync(join(dataDir, 'vellum.db'), { readOnly: true, timeout: 5000 });
    try {
      expect(check.prepare(`SELECT count(*) AS n FROM nonces WHERE nonce LIKE 'e2e-%'`).get()).toEqual({ n: 0 });
    } finally {
      check.close();
    }
    expect(out).toContain('"msg":"retention run"');
  });
});
