// Issue 27, point 3: a cost that does not creep. One OpenID4VCI Pre-authorized Code flow, as the
// flow benchmarks run it (the peer kit's flow-load.mjs, tools/bench/src/kit-servers.ts), may run at
// most BUDGET's statements and transactions on the database, step by step. The server is the one
// `vellum serve` builds (runtime.ts, app.ts) on a SQLite file, and on a fresh PostgreSQL database
// when VELLUM_TEST_DATABASE_URL is set; the store counts what it runs (`statementCounter`), so the
// measure is a count, never a time. Each database runs twice: with the read cache warm (the steady
// state of a busy server) and with it off (every read reaches the database, so a read added on a
// cached path is seen too). The figures and what each statement is: docs/performance.md, "The
// flow's store budget (issue 27)". A change that adds a statement lowers something else or raises
// the budget here, with its reason there, in the same commit.
import { randomBytes } from 'node:crypto';
import { createStatementCounter, type StatementCounter, type StatementCounts } from '@vellum/storage-sql';
import { proofJwt, walletKey } from '@vellum/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../test/backends.ts';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { openRuntime, type Runtime, tenantCredentials } from './runtime.ts';

const STEPS = ['offer', 'token', 'nonce', 'credential', 'events'] as const;
type Step = (typeof STEPS)[number];
interface Cost {
  statements: number;
  transactions: number;
}
type Setup = 'sqlite' | 'sqlite, no read cache' | 'postgres' | 'postgres, no read cache';

/**
 * The budget of one steady-state flow, per step; `events` is the flush of the flow's analytic events
 * (one flow alone in the batch: a busy server writes many flows' events in one statement).
 * Transactions are the store's own (store.transaction and those a repository opens), not SQLite's
 * commits, which group commit shares between transactions. Set to what the flow runs today.
 */
const BUDGET: Record<Setup, Record<Step, Cost>> = {
  sqlite: {
    offer: { statements: 2, transactions: 1 },
    token: { statements: 1, transactions: 1 },
    nonce: { statements: 0, transactions: 0 },
    credential: { statements: 5, transactions: 1 },
    events: { statements: 1, transactions: 0 },
  },
  'sqlite, no read cache': {
    offer: { statements: 7, transactions: 1 },
    token: { statements: 5, transactions: 1 },
    nonce: { statements: 2, transactions: 0 },
    credential: { statements: 9, transactions: 1 },
    events: { statements: 1, transactions: 0 },
  },
  // The code's redemption is one statement; PostgreSQL commits it on its own, SQLite runs it as a
  // transaction so that group commit takes it in (offer-repositories.ts, `redeem`).
  postgres: {
    offer: { statements: 2, transactions: 1 },
    token: { statements: 1, transactions: 0 },
    nonce: { statements: 0, transactions: 0 },
    credential: { statements: 5, transactions: 1 },
    events: { statements: 1, transactions: 0 },
  },
  'postgres, no read cache': {
    offer: { statements: 7, transactions: 1 },
    token: { statements: 5, transactions: 0 },
    nonce: { statements: 2, transactions: 0 },
    credential: { statements: 9, transactions: 1 },
    events: { statements: 1, transactions: 0 },
  },
};

/** Analytic events one flow records (START and SUCCESS of each of its four requests), written by the flush. */
const EVENT_ROWS_PER_FLOW = 8;

const GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const PUBLIC_URL = 'http://127.0.0.1:8080';
const HOST = '127.0.0.1:8080';
/** Flows before counting (caches fill, the document signer and other first-time rows are made), and flows counted. */
const WARM_UP_FLOWS = 2;
const COUNTED_FLOWS = 3;

const setups: Array<[Setup, () => Backend, boolean, boolean]> = [
  ['sqlite', () => sqliteBackend(), true, false],
  ['sqlite, no read cache', () => sqliteBackend(), false, false],
  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  ['postgres', () => postgresBackend('vellum_budget'), true, pgAdminUrl === undefined],
  ['postgres, no read cache', () => postgresBackend('vellum_budget'), false, pgAdminUrl === undefined],
];

/** One step's counts, and how many analytic events it queued (the flush: how many it wrote, as a negative). */
interface Measured extends StatementCounts {
  events: number;
}

describe.each(setups)('the store budget of one Pre-authorized Code flow on %s (issue 27; docs/performance.md)', (setup, make, readCache, skip) => {
  let backend: Backend;
  let runtime: Runtime;
  let app: FastifyInstance;
  let counter: StatementCounter;
  let admin = '';
  let configurationId = '';
  let flows = 0;
  const wallet = walletKey('P-256');

  beforeAll(async () => {
    if (skip) return;
    backend = make();
    // The benchmark's server (kit-servers.ts): the default tenant on the public URL, and every
    // setting at its default but the read cache's. It keeps its rows for a minute (the longest it
    // may), far longer than the test needs, so that no row expires between the warm-up and the
    // counted flows however slow the machine; or it is off.
    const config = loadConfig({
      ...(await backend.env()),
      VELLUM_MASTER_KEY: randomBytes(32).toString('base64'),
      VELLUM_PUBLIC_URL: PUBLIC_URL,
      VELLUM_DEFAULT_TENANT: 'bench',
      VELLUM_LOG_LEVEL: 'silent',
      VELLUM_READ_CACHE_TTL_MS: readCache ? '60000' : '0',
    });
    const logger = createLogger('silent');
    counter = createStatementCounter({ keepSql: true });
    runtime = await openRuntime(config, logger, { statementCounter: counter });
    app = await buildApp(runtime, config, logger);
    // As `vellum serve` does on a fresh database (main.ts, ensureDefaultTenant), then the kit's setup.
    const created = await runtime.vellum.tenants.createTenant({ subdomain: 'bench', region: 'eu01', name: 'Demo tenant' });
    const creds = await tenantCredentials(runtime, config, created);
    const token = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { host: HOST },
      payload: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, audience: creds.audience },
    });
    expect(token.statusCode, token.body).toBe(200);
    admin = `Bearer ${token.json().access_token}`;
    const iaca = await adminCall('POST', '/v2/credentials/mobile/iacas', { country: 'US' });
    expect(iaca.statusCode, iaca.body).toBe(201);
    expect((await adminCall('PUT', `/v2/credentials/mobile/iacas/${iaca.json().id}`, { active: true })).statusCode).toBe(200);
    const configuration = await adminCall('POST', '/v2/credentials/mobile/configurations', {
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 365 },
      claimMappings: {
        'org.iso.18013.5.1': {
          family_name: { mapFrom: 'claims.family_name', required: true },
          given_name: { mapFrom: 'claims.given_name' },
          birth_date: { mapFrom: 'claims.birth_date', type: 'date' },
          document_number: { mapFrom: 'claims.document_number' },
          issuing_country: { defaultValue: 'US' },
        },
      },
    });
    expect(configuration.statusCode, configuration.body).toBe(201);
    configurationId = configuration.json().id as string;
  });

  afterAll(async () => {
    if (skip) return;
    await app?.close();
    await runtime?.close();
    await backend.cleanup();
  });

  const adminCall = (method: 'POST' | 'PUT', url: string, payload: Record<string, unknown>) =>
    app.inject({ method, url, headers: { host: HOST, authorization: admin }, payload });

  /** Runs `work`, then what the store ran for it and the analytic events it queued. */
  async function measured<T>(work: () => Promise<T>): Promise<[T, Measured]> {
    const pendingBefore = runtime.vellum.recorder.pending();
    const result = await work();
    return [result, { ...counter.take(), events: runtime.vellum.recorder.pending() - pendingBefore }];
  }

  /** One whole flow, as the kit's driver runs it; what each step ran. Fails on any answer but success. */
  async function flow(): Promise<Record<Step, Measured>> {
    // Nothing of earlier work (setup, an earlier flow) is counted in this one: its events written, its counts dropped.
    await runtime.vellum.recorder.flush();
    counter.take();
    flows += 1;
    const [offer, offerCost] = await measured(() =>
      adminCall('POST', '/v1/openid/offers/pre-authorized', {
        credentials: [configurationId],
        claims: { family_name: 'Okafor', given_name: 'Ada', birth_date: '1991-07-14', document_number: String(flows) },
      }),
    );
    expect(offer.statusCode, offer.body).toBe(200);
    const credentialOffer = JSON.parse(new URL(offer.json().uri as string).searchParams.get('credential_offer') as string);
    const issuer = credentialOffer.credential_issuer as string;
    expect(issuer).toBe(PUBLIC_URL);
    const [token, tokenCost] = await measured(() =>
      app.inject({
        method: 'POST',
        url: '/v1/oauth/token',
        headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: GRANT, 'pre-authorized_code': credentialOffer.grants[GRANT]['pre-authorized_code'] }).toString(),
      }),
    );
    expect(token.statusCode, token.body).toBe(200);
    const [nonce, nonceCost] = await measured(() => app.inject({ method: 'POST', url: '/v1/openid/nonce', headers: { host: HOST } }));
    expect(nonce.statusCode, nonce.body).toBe(200);
    const [credential, credentialCost] = await measured(() =>
      app.inject({
        method: 'POST',
        url: '/v1/openid/credential',
        headers: { host: HOST, authorization: `Bearer ${token.json().access_token}` },
        payload: {
          credential_configuration_id: configurationId,
          proofs: { jwt: [proofJwt(wallet, { audience: issuer, nonce: nonce.json().c_nonce })] },
        },
      }),
    );
    expect(credential.statusCode, credential.body).toBe(200);
    // An mDoc, as base64url of its CBOR IssuerSigned, and the notification id of the issued credential.
    expect(credential.json()).toMatchObject({
      credentials: [{ credential: expect.stringMatching(/^[A-Za-z0-9_-]{500,}$/) }],
      notification_id: expect.any(String),
    });
    const [, eventsCost] = await measured(() => runtime.vellum.recorder.flush());
    expect(runtime.vellum.recorder.pending()).toBe(0);
    return { offer: offerCost, token: tokenCost, nonce: nonceCost, credential: credentialCost, events: eventsCost };
  }

  it.skipIf(skip)('runs at most the budget of statements and transactions, step by step, the same for every flow', async () => {
    for (let i = 0; i < WARM_UP_FLOWS; i++) await flow();
    const counted: Record<Step, Measured>[] = [];
    for (let i = 0; i < COUNTED_FLOWS; i++) counted.push(await flow());
    const [first] = counted as [Record<Step, Measured>];
    report(setup, first);

    // Steady state: every counted flow runs the very same statements.
    for (const other of counted.slice(1)) for (const step of STEPS) expect(other[step], `${step} differs between flows`).toEqual(first[step]);

    const budget = BUDGET[setup];
    for (const step of STEPS) {
      const m = first[step];
      const list = `${step} ran:\n  ${m.sql.join('\n  ')}`;
      expect(m.statements, list).toBeLessThanOrEqual(budget[step].statements);
      expect(m.transactions, list).toBeLessThanOrEqual(budget[step].transactions);
      // A transaction the flow began and did not commit would be an error the answers hid.
      expect(m.rollbacks, list).toBe(0);
      // Each transaction commits once on PostgreSQL; SQLite's group commit may end several in one commit.
      if (setup.startsWith('postgres')) expect(m.commits).toBe(m.transactions);
      else expect(m.commits).toBeLessThanOrEqual(m.transactions);
    }
    // The counts are real: the flow reads and writes, and its credential is committed in a transaction.
    const total = STEPS.reduce((sum, step) => sum + first[step].statements, 0);
    expect(total).toBeGreaterThan(0);
    expect(first.credential.statements).toBeGreaterThan(0);
    expect(first.credential.transactions).toBeGreaterThan(0);
    expect(first.credential.commits).toBeGreaterThan(0);
    expect(first.credential.sql.some((s) => /^insert into "issued_credentials"/.test(s))).toBe(true);
    // The requests queued the flow's analytic events, and the flush wrote them all in one statement.
    expect(first.offer.events + first.token.events + first.nonce.events + first.credential.events).toBe(EVENT_ROWS_PER_FLOW);
    expect(first.events.events).toBe(-EVENT_ROWS_PER_FLOW);
    expect(first.events.sql).toEqual([expect.stringMatching(/^insert into "analytic_events"/)]);
  });
});

/** The counts of one flow, per step, and the statements each ran, for docs/performance.md. */
function report(setup: Setup, flow: Record<Step, Measured>): void {
  const lines = [`Store budget of one Pre-authorized flow on ${setup} (statements / transactions / commits):`];
  for (const step of STEPS) {
    const m = flow[step];
    const under = m.statements < BUDGET[setup][step].statements || m.transactions < BUDGET[setup][step].transactions ? '  (under budget: lower it)' : '';
    const events = m.events < 0 ? `wrote ${-m.events} events` : `${m.events} events queued`;
    lines.push(`  ${step.padEnd(10)} ${m.statements} / ${m.transactions} / ${m.commits}; ${events}${under}`);
    for (const sql of m.sql) lines.push(`      ${sql.length > 160 ? `${sql.slice(0, 157)}...` : sql}`);
  }
  const sum = (key: 'statements' | 'transactions' | 'commits') => STEPS.reduce((n, step) => n + flow[step][key], 0);
  lines.push(`  ${'flow'.padEnd(10)} ${sum('statements')} / ${sum('transactions')} / ${sum('commits')}`);
  console.log(lines.join('\n'));
}
