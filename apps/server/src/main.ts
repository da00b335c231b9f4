#!/usr/bin/env node
// The `vellum` command: serve | migrate | tenants create|list | clients create|list|rotate-secret|revoke |
// keys rotate|rotate-admin-token|wrapping|rewrap|recover.
// Its commands, options and help live in cli.ts; the progress lines it writes to stderr in cli-progress.ts.
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { DomainError, PERMISSIONS, parsePageQuery, SIGNING_KEY_ROLES, type SigningKeyRole } from '@vellum/core';
import type { OpeningStep, Runtime } from './runtime.ts';
import { nextSteps, parseInvocation, type CommandName } from './cli.ts';
import { createProgress, describeOpeningStep, listeningUrl, type Progress } from './cli-progress.ts';
import { superviseWorkers } from './cluster.ts';
import { ConfigError, loadConfig, type ServerConfig } from './config.ts';
import { chooseLogFormat, createLogger } from './logger.ts';

// The server's modules (Fastify, the database drivers, the crypto adapters) load only when a command
// runs: help and usage errors answer at once, and do not depend on them.
const runtimeModule = () => import('./runtime.ts');

/** After the shutdown deadline, how long the rest of a shutdown (webhooks, events, storage) may take. */
const SHUTDOWN_GRACE_MS = 5000;

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** The server's log on stdout: readable lines on a terminal, JSON otherwise (VELLUM_LOG_FORMAT). */
const serverLogger = (config: ServerConfig) =>
  createLogger(config.logLevel, undefined, { format: chooseLogFormat(config.logFormat, process.stdout.isTTY), colorize: process.stdout.isTTY });

/** Progress lines go to stderr: stdout carries only what scripts read (JSON, the demo credentials, logs). */
const progressOf = (config: ServerConfig): Progress => createProgress(config, (text) => process.stderr.write(text));

/** Says each slow step of opening a runtime as openRuntime begins it: the migrations, a first development key. */
const announcing = (config: ServerConfig, progress: Progress) => (opening: OpeningStep) => progress.step(describeOpeningStep(config, opening));

/**
 * `vellum serve`. With one worker (the default) this process is the server. With more, it is the
 * cluster primary: it does what must happen once (migrations, the demo tenant whose credentials are
 * printed once, the development master key), then forks the workers, which share the listening
 * socket. Resolves with an exit code for the primary; the server itself never returns.
 */
async function serve(config: ServerConfig): Promise<number> {
  if (cluster.isWorker) {
    await serveInThisProcess(config, { worker: true });
    return -1;
  }
  if (config.workers <= 1) {
    await serveInThisProcess(config, { worker: false });
    return -1;
  }
  const logger = serverLogger(config);
  const progress = progressOf(config);
  const { openRuntime } = await runtimeModule();
  const runtime = await openRuntime(config, logger, { onStep: announcing(config, progress) });
  try {
    await ensureDefaultTenant(runtime, config, progress);
  } finally {
    await runtime.close();
  }
  progress.step(`starting ${config.workers} workers…`);
  // Once every worker has listened (replacements later do too, and say nothing here).
  const listening = new Set<number>();
  cluster.on('listening', (worker, address) => {
    if (listening.size >= config.workers) return;
    listening.add(worker.id);
    if (listening.size === config.workers)
      progress.step(`ready at ${listeningUrl(address, Boolean(config.tlsCertFile), config.host)} (${config.workers} workers)`);
  });
  // VELLUM_METRICS_PORT: the primary serves every worker's metrics, summed (docs/metrics.md); a taken
  // port fails here, before any worker is forked.
  const metrics = config.metricsPort === undefined ? undefined : await (await import('./metrics.ts')).startClusterMetricsListener(config, logger);
  // Workers get their own shutdown deadline first; the primary kills those still running a little later.
  const supervisor = superviseWorkers({ cluster, workers: config.workers, logger, shutdownTimeoutMs: config.shutdownTimeoutMs + 2 * SHUTDOWN_GRACE_MS });
  const stop = (signal: string) => {
    progress.step(`stopping the workers (${signal})…`);
    supervisor.stop(signal);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  const code = await supervisor.done;
  await metrics?.close();
  logger.info({ code }, 'every worker has stopped');
  progress.step(code === 0 ? 'stopped' : `stopped (exit code ${code})`);
  return code;
}

/** Runs the app, the event flusher and the webhook delivery loop here, and stops them in order on SIGTERM. */
async function serveInThisProcess(config: ServerConfig, { worker }: { worker: boolean }): Promise<void> {
  const logger = serverLogger(config);
  // A worker's primary has migrated the database, created the demo tenant and says what happens.
  const progress: Progress = worker ? { step: () => {} } : progressOf(config);
  const [{ openRuntime }, { buildApp, closeWithDeadline }, { startWebhookLoop }, { startRetentionLoop }] = await Promise.all([
    runtimeModule(),
    import('./app.ts'),
    import('./webhook-worker.ts'),
    import('./retention-loop.ts'),
  ]);
  // A worker's primary has warned about a development master key already.
  const runtime = await openRuntime(config, logger, { migrate: !worker, warnDevelopmentKey: !worker, onStep: announcing(config, progress) });
  if (!worker) await ensureDefaultTenant(runtime, config, progress);
  const app = await buildApp(runtime, config, logger);
  const flusher = setInterval(() => void runtime.vellum.recorder.flush(), config.eventFlushIntervalMs);
  flusher.unref();
  // Every worker runs one: claims are leased (and SKIP LOCKED on PostgreSQL), so none is sent twice at once.
  const webhooks = startWebhookLoop({
    worker: runtime.webhookDelivery,
    signingKeys: runtime.vellum.webhookSigningKeys,
    logger,
    pollIntervalMs: config.webhookPollIntervalMs,
  });
  // Every worker runs one too: the job's lease lets one process purge at a time (docs/retention.md).
  const retention = config.retentionIntervalMs > 0 ? startRetentionLoop({ job: runtime.retention, logger, intervalMs: config.retentionIntervalMs }) : undefined;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    progress.step(`stopping (${signal}; requests in flight have up to ${config.shutdownTimeoutMs} ms)…`);
    logger.info({ signal, deadlineMs: config.shutdownTimeoutMs }, 'shutting down');
    clearInterval(flusher);
    // Should flushing events or closing storage hang past the deadline, the process still ends.
    setTimeout(() => {
      logger.error('shutdown did not finish in time: exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS).unref();
    await closeWithDeadline(app, config.shutdownTimeoutMs, logger); // stop taking requests; those in flight get until the deadline
    await webhooks.stop(); // then let the delivery round in flight record its attempts
    await retention?.stop(); // and the retention batch in flight commit
    await runtime.close(); // then flush analytic events and close storage
    progress.step('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  const address = await app.listen({ port: config.port, host: config.host });
  progress.step(`ready at ${address} (public URL ${config.publicUrl})`);
}

/** On a database without the single-tenant mode's tenant, creates it and prints its credentials once. */
async function ensureDefaultTenant(runtime: Runtime, config: ServerConfig, progress: Progress): Promise<void> {
  if (!config.defaultTenant || (await runtime.vellum.tenants.findTenant(config.defaultTenant))) return;
  // Before the credentials, never between their header and their JSON: tests read both off one stream.
  progress.step(`creating the demo tenant "${config.defaultTenant}" (first start)…`);
  const { tenantCredentials } = await runtimeModule();
  const created = await runtime.vellum.tenants.createTenant({ subdomain: config.defaultTenant, region: 'eu01', name: 'Demo tenant' });
  process.stdout.write('Created the demo tenant. Its admin credentials are shown only this once:\n');
  const credentials = await tenantCredentials(runtime, config, created);
  print(credentials);
  process.stdout.write(`\n${nextSteps(credentials)}`);
}

/** Opens a migrated runtime for one command, says `doing` once it is open, runs `work` and closes it. */
async function withRuntime<T>(config: ServerConfig, doing: string | undefined, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const progress = progressOf(config);
  const { openRuntime } = await runtimeModule();
  const output = { format: chooseLogFormat(config.logFormat, process.stderr.isTTY), colorize: process.stderr.isTTY };
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr as never, output);
  // The server warns about a development master key; a command an operator types does not repeat it each time.
  const runtime = await openRuntime(config, logger, { warnDevelopmentKey: false, onStep: announcing(config, progress) });
  try {
    if (doing) progress.step(doing);
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

/** Options as cli.ts read them: every required one is present. */
type Options = Record<string, string | undefined>;
const given = (o: Options, name: string): string => o[name] as string;

/** `--batch N`: a whole number from 1 to 10000 (default 100). */
function batchOf(o: Options): number {
  const raw = o.batch;
  if (raw === undefined) return 100;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 10_000) throw new ConfigError(`--batch must be a whole number from 1 to 10000; got "${raw}"`);
  return n;
}

interface PassReport {
  failed: unknown[];
  more: boolean;
}

/**
 * Runs `pass` until it finds nothing more to do, or a pass does nothing at all (what is left failed);
 * adds up the counts it reports, and keeps the failures of the last pass.
 */
async function untilDone<R extends PassReport>(pass: () => Promise<R>, count: (report: R) => number): Promise<{ done: number; failed: R['failed'] }> {
  let done = 0;
  for (;;) {
    const report = await pass();
    done += count(report);
    if (!report.more || count(report) === 0) return { done, failed: report.failed };
  }
}

/** Prints a key upkeep's result; a failure makes the command exit 1, after the JSON that names it. */
function printUpkeep(result: Record<string, unknown> & { failed: unknown[] }): void {
  print(result);
  if (result.failed.length > 0) throw new Error(`${result.failed.length} could not be done; see "failed" above`);
}

/** What each command does; cli.ts has already checked its options against its help. */
const COMMAND_RUNNERS: Record<Exclude<CommandName, 'serve'>, (config: ServerConfig, o: Options) => Promise<void>> = {
  async migrate(config) {
    await withRuntime(config, undefined, async () => undefined);
    process.stdout.write('The database schema is up to date.\n');
  },
  async 'tenants create'(config, o) {
    const input = { subdomain: given(o, 'subdomain'), region: given(o, 'region'), ...(o.name ? { name: o.name } : {}) };
    const { tenantCredentials } = await runtimeModule();
    await withRuntime(config, `creating the tenant "${input.subdomain}" in ${input.region} and its admin client…`, async (rt) =>
      print(await tenantCredentials(rt, config, await rt.vellum.tenants.createTenant(input))),
    );
  },
  async 'tenants list'(config) {
    await withRuntime(config, undefined, async (rt) => print(await rt.vellum.tenants.listTenants(parsePageQuery({ limit: 1000 }))));
  },
  async 'clients create'(config, o) {
    const input = { subdomain: given(o, 'tenant'), role: given(o, 'role'), ...(o.name ? { name: o.name } : {}) };
    await withRuntime(config, `creating an admin client (${input.role}) for the tenant "${input.subdomain}"…`, async (rt) => {
      const created = await rt.vellum.tenants.createClient(input);
      print({ ...created.client, clientSecret: created.clientSecret });
    });
  },
  async 'clients list'(config, o) {
    await withRuntime(config, undefined, async (rt) => print(await rt.vellum.tenants.listClients(given(o, 'tenant'), parsePageQuery({ limit: 1000 }))));
  },
  async 'clients rotate-secret'(config, o) {
    const input = { subdomain: given(o, 'tenant'), clientId: given(o, 'client') };
    await withRuntime(config, `rotating the secret of ${input.clientId} (tenant "${input.subdomain}")…`, async (rt) => {
      const rotated = await rt.vellum.tenants.rotateClientSecret(input);
      print({ ...rotated.client, clientSecret: rotated.clientSecret });
    });
  },
  async 'clients revoke'(config, o) {
    const input = { subdomain: given(o, 'tenant'), clientId: given(o, 'client') };
    await withRuntime(config, `revoking ${input.clientId} (tenant "${input.subdomain}")…`, async (rt) => print(await rt.vellum.tenants.revokeClient(input)));
  },
  async 'keys rotate'(config, o) {
    const role = given(o, 'role');
    if (!(SIGNING_KEY_ROLES as readonly string[]).includes(role)) throw new ConfigError(`--role must be one of ${SIGNING_KEY_ROLES.join(', ')}; got "${role}"`);
    const overlap = o.overlap;
    if (overlap !== undefined && ((role !== 'access-token' && role !== 'dids') || !/^\d+$/.test(overlap))) {
      throw new ConfigError('--overlap is a whole number of seconds, for --role access-token or dids only');
    }
    if ((role === 'dids') !== (o.did !== undefined)) throw new ConfigError('--did names the did:web to rotate, with --role dids and only then');
    if ((role === 'verifier-applications') !== (o.app !== undefined)) {
      throw new ConfigError('--app names the verifier application to rotate, with --role verifier-applications and only then');
    }
    const input = {
      ...(o.did !== undefined ? { did: o.did } : {}),
      ...(o.app !== undefined ? { applicationId: o.app } : {}),
      ...(overlap !== undefined ? { overlapSeconds: Number(overlap) } : {}),
    };
    await withRuntime(config, `rotating the ${role} key of the tenant "${given(o, 'tenant')}"…`, async (rt) => {
      const tenant = await rt.store.tenants.findBySubdomain(given(o, 'tenant'));
      if (!tenant) throw new ConfigError(`No tenant has the subdomain "${given(o, 'tenant')}" (see \`tenants list\`)`);
      // The operator at the command line acts with every permission, and is recorded as the client `vellum-cli`.
      const ctx = {
        tenant,
        origin: await rt.vellum.addressing.publicOrigin(tenant),
        requestor: { clientId: 'vellum-cli', role: 'admin' as const, permissions: new Set(PERMISSIONS) },
        requestId: randomUUID(),
        ip: '127.0.0.1',
      };
      print(await rt.vellum.signingKeys.rotate(ctx, role as SigningKeyRole, Object.keys(input).length > 0 ? input : undefined));
    });
  },
  async 'keys rotate-admin-token'(config, o) {
    const overlap = o.overlap;
    if (overlap !== undefined && !/^\d+$/.test(overlap)) throw new ConfigError('--overlap is a whole number of seconds');
    await withRuntime(config, 'rotating the platform’s admin-token key…', async (rt) =>
      print(await rt.rotateAdminTokenKey(overlap === undefined ? undefined : Number(overlap))),
    );
  },
  async 'keys wrapping'(config) {
    await withRuntime(config, undefined, async (rt) => print(await rt.keyWrapping.status()));
  },
  async 'keys rewrap'(config, o) {
    const batch = batchOf(o);
    await withRuntime(config, 're-wrapping data keys…', async (rt) => {
      const rewrapped = await untilDone(
        () => rt.keyWrapping.rewrap(batch),
        (r) => r.rewrapped,
      );
      const resealed =
        config.keyWrapping === 'off'
          ? { done: 0, failed: [] }
          : await untilDone(
              () => rt.keyWrapping.reseal(batch),
              (r) => r.resealed,
            );
      printUpkeep({
        ...(await rt.keyWrapping.status()),
        rewrapped: rewrapped.done,
        resealed: resealed.done,
        failed: [...rewrapped.failed, ...resealed.failed],
      });
    });
  },
  async 'keys recover'(config, o) {
    const batch = batchOf(o);
    let pem: string;
    try {
      pem = readFileSync(given(o, 'recovery-key'), 'utf8');
    } catch {
      throw new ConfigError(`--recovery-key: cannot read ${given(o, 'recovery-key')}`);
    }
    await withRuntime(config, 'recovering data keys from their recovery copies…', async (rt) => {
      const recovered = await untilDone(
        () => rt.keyWrapping.recover(pem, batch),
        (r) => r.rewrapped,
      );
      printUpkeep({ ...(await rt.keyWrapping.status()), recovered: recovered.done, failed: recovered.failed });
    });
  },
};

/** This package's version, from its package.json (beside src/ and dist/ alike). */
function serverVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export async function main(argv: string[]): Promise<number> {
  const invocation = parseInvocation(argv);
  if (invocation.kind === 'version') {
    process.stdout.write(`vellum ${serverVersion()}\n`);
    return 0;
  }
  if (invocation.kind === 'help') {
    process.stdout.write(`${invocation.text}\n`);
    return 0;
  }
  if (invocation.kind === 'usage-error') {
    process.stderr.write(`vellum: ${invocation.message}\n\n${invocation.text}\n`);
    return invocation.exitCode;
  }
  // Help and usage errors above need no configuration; a command does, and a bad setting stops it here.
  const config = loadConfig();
  if (invocation.command === 'serve') return serve(config); // a server keeps running (-1); a cluster primary returns its exit code
  await COMMAND_RUNNERS[invocation.command](config, invocation.options);
  return 0;
}

function explain(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  if (error instanceof DomainError) {
    const details = error.details?.map((d) => `  ${d.param}: ${d.msg}`).join('\n');
    return details ? `${error.message}\n${details}` : error.message;
  }
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`vellum: ${explain(error)}\n`);
    process.exit(1);
  },
);
