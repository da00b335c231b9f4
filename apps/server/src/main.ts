#!/usr/bin/env node
// The `vellum` command: serve | migrate | tenants create|list | clients create|list|rotate-secret|revoke.
import cluster from 'node:cluster';
import { parseArgs } from 'node:util';
import { DomainError, parsePageQuery } from '@vellum/core';
import { buildApp, closeWithDeadline } from './app.ts';
import { superviseWorkers } from './cluster.ts';
import { ConfigError, loadConfig, type ServerConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { openRuntime, tenantCredentials, type Runtime } from './runtime.ts';
import { startWebhookLoop } from './webhook-worker.ts';

const USAGE = `usage: vellum <command>
  serve                                               run the server
  migrate                                             bring the database schema up to date
  tenants create --subdomain S --region R [--name N]  create a tenant and its admin client
  tenants list                                        list tenants
  clients create --tenant S --role ROLE [--name N]    add an admin client to a tenant
  clients list --tenant S                             list a tenant's admin clients
  clients rotate-secret --tenant S --client ID        give a client a new secret (printed once); the old one stops working
  clients revoke --tenant S --client ID               revoke a client: no more tokens, and its tokens are refused`;

/** After the shutdown deadline, how long the rest of a shutdown (webhooks, events, storage) may take. */
const SHUTDOWN_GRACE_MS = 5000;

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

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
  const logger = createLogger(config.logLevel);
  const runtime = await openRuntime(config, logger);
  try {
    await ensureDefaultTenant(runtime, config);
  } finally {
    await runtime.close();
  }
  // Workers get their own shutdown deadline first; the primary kills those still running a little later.
  const supervisor = superviseWorkers({ cluster, workers: config.workers, logger, shutdownTimeoutMs: config.shutdownTimeoutMs + 2 * SHUTDOWN_GRACE_MS });
  process.on('SIGTERM', () => supervisor.stop('SIGTERM'));
  process.on('SIGINT', () => supervisor.stop('SIGINT'));
  const code = await supervisor.done;
  logger.info({ code }, 'every worker has stopped');
  return code;
}

/** Runs the app, the event flusher and the webhook delivery loop here, and stops them in order on SIGTERM. */
async function serveInThisProcess(config: ServerConfig, { worker }: { worker: boolean }): Promise<void> {
  const logger = createLogger(config.logLevel);
  // A worker's primary has migrated the database and created the demo tenant already.
  const runtime = await openRuntime(config, logger, { migrate: !worker });
  if (!worker) await ensureDefaultTenant(runtime, config);
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

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, deadlineMs: config.shutdownTimeoutMs }, 'shutting down');
    clearInterval(flusher);
    // Should flushing events or closing storage hang past the deadline, the process still ends.
    setTimeout(() => {
      logger.error('shutdown did not finish in time: exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS).unref();
    await closeWithDeadline(app, config.shutdownTimeoutMs, logger); // stop taking requests; those in flight get until the deadline
    await webhooks.stop(); // then let the delivery round in flight record its attempts
    await runtime.close(); // then flush analytic events and close storage
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
}

/** On a database without the single-tenant mode's tenant, creates it and prints its credentials once. */
async function ensureDefaultTenant(runtime: Runtime, config: ServerConfig): Promise<void> {
  if (!config.defaultTenant || (await runtime.vellum.tenants.findTenant(config.defaultTenant))) return;
  const created = await runtime.vellum.tenants.createTenant({ subdomain: config.defaultTenant, region: 'eu01', name: 'Demo tenant' });
  process.stdout.write('Created the demo tenant. Its admin credentials are shown only this once:\n');
  print(await tenantCredentials(runtime, config, created));
}

async function withRuntime<T>(config: ServerConfig, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const runtime = await openRuntime(config, createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr as never));
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

function options(args: string[], names: string[]): Record<string, string | undefined> {
  const { values } = parseArgs({ args, options: Object.fromEntries(names.map((n) => [n, { type: 'string' }])), strict: true });
  return values as Record<string, string | undefined>;
}

function required(values: Record<string, string | undefined>, name: string): string {
  const v = values[name];
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}

class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  const config = loadConfig();
  switch (`${command ?? ''} ${command === 'serve' || command === 'migrate' ? '' : (sub ?? '')}`.trim()) {
    case 'serve':
      return serve(config); // a server keeps running (-1); a cluster primary returns its exit code
    case 'migrate':
      await withRuntime(config, async () => undefined);
      process.stdout.write('The database schema is up to date.\n');
      return 0;
    case 'tenants create': {
      const o = options(rest, ['subdomain', 'region', 'name']);
      const input = { subdomain: required(o, 'subdomain'), region: required(o, 'region'), ...(o.name ? { name: o.name } : {}) };
      await withRuntime(config, async (rt) => print(await tenantCredentials(rt, config, await rt.vellum.tenants.createTenant(input))));
      return 0;
    }
    case 'tenants list':
      await withRuntime(config, async (rt) => print(await rt.vellum.tenants.listTenants(parsePageQuery({ limit: 1000 }))));
      return 0;
    case 'clients create': {
      const o = options(rest, ['tenant', 'role', 'name']);
      const input = { subdomain: required(o, 'tenant'), role: required(o, 'role'), ...(o.name ? { name: o.name } : {}) };
      await withRuntime(config, async (rt) => {
        const created = await rt.vellum.tenants.createClient(input);
        print({ ...created.client, clientSecret: created.clientSecret });
      });
      return 0;
    }
    case 'clients list': {
      const o = options(rest, ['tenant']);
      await withRuntime(config, async (rt) => print(await rt.vellum.tenants.listClients(required(o, 'tenant'), parsePageQuery({ limit: 1000 }))));
      return 0;
    }
    case 'clients rotate-secret': {
      const o = options(rest, ['tenant', 'client']);
      const input = { subdomain: required(o, 'tenant'), clientId: required(o, 'client') };
      await withRuntime(config, async (rt) => {
        const rotated = await rt.vellum.tenants.rotateClientSecret(input);
        print({ ...rotated.client, clientSecret: rotated.clientSecret });
      });
      return 0;
    }
    case 'clients revoke': {
      const o = options(rest, ['tenant', 'client']);
      const input = { subdomain: required(o, 'tenant'), clientId: required(o, 'client') };
      await withRuntime(config, async (rt) => print(await rt.vellum.tenants.revokeClient(input)));
      return 0;
    }
    default:
      process.stderr.write(`${USAGE}\n`);
      return 2;
  }
}

function explain(error: unknown): string {
  if (error instanceof ConfigError || error instanceof UsageError) return error.message;
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
