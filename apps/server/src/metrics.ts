// The server's side of the Prometheus metrics (docs/metrics.md): decorators around the core's ports
// that count what happens outside HTTP, and the separate listener that serves GET /metrics. Nothing
// here reaches into the core: it sees only the ports the core already declares.
import cluster from 'node:cluster';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryOutcome, DomainEventSink, Store } from '@vellum/core';
import { createClusterMetrics, type VellumMetrics, type WebhookDeliveryOutcome } from '@vellum/fastify';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.ts';

/** The path the metrics listener answers. */
export const METRICS_PATH = '/metrics';

/** Issuance's domain events pass through to `sink`; each issued credential is counted by its format. */
export function countIssuedCredentials(sink: DomainEventSink, metrics: VellumMetrics): DomainEventSink {
  return {
    async publish(tx, event) {
      await sink.publish(tx, event);
      // Counted once the event is in the transaction; a transaction that fails after this (rare) is still counted.
      if (event.type === 'OpenIdCredentialIssued') metrics.credentialIssued(event.payload.format);
    },
  };
}

/**
 * The store with every repository method and every transaction timed. A decorator rather than
 * Kysely's log hook: it needs no change to @vellum/storage-sql and no Kysely here, it works on any
 * Store adapter, and its labels are the port's operations (`offers.consumePreAuthorizedCode`), a
 * short fixed list, where a query log would label by SQL text. Queries inside a transaction count
 * in the transaction's time. Wrap the store itself, under the read cache, so that cache hits are not
 * counted as store calls.
 */
export function timeStore(store: Store, metrics: VellumMetrics): Store {
  const timed: Record<string, unknown> = { ...store };
  for (const [name, repository] of Object.entries(store)) {
    if (repository === null || typeof repository !== 'object') continue;
    const wrapped: Record<string, unknown> = { ...(repository as Record<string, unknown>) };
    for (const [method, fn] of Object.entries(repository as Record<string, unknown>)) {
      if (typeof fn !== 'function') continue;
      const observe = metrics.storeOperation(`${name}.${method}`);
      wrapped[method] = async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await (fn as (...a: unknown[]) => Promise<unknown>).apply(repository, args);
        } finally {
          observe((performance.now() - started) / 1000);
        }
      };
    }
    timed[name] = wrapped;
  }
  const observeTransaction = metrics.storeOperation('transaction');
  timed.transaction = async <T>(work: Parameters<Store['transaction']>[0]): Promise<T> => {
    const started = performance.now();
    try {
      return (await store.transaction(work)) as T;
    } finally {
      observeTransaction((performance.now() - started) / 1000);
    }
  };
  return timed as unknown as Store;
}

const OUTCOME_OF: Record<DeliveryOutcome['status'], WebhookDeliveryOutcome> = { succeeded: 'succeeded', pending: 'retry', failed: 'failed' };

/**
 * The store the webhook delivery worker uses, counting what it records: each attempt's outcome
 * (delivered, due again after its backoff, failed for good) and how many deliveries it holds
 * between claiming and recording them. At each scrape it also asks the store how many deliveries
 * are pending (`countPending`, one indexed count), the outbox's depth across servers.
 */
export function countWebhookDeliveries(store: Store, metrics: VellumMetrics): Store {
  const deliveries = store.webhookDeliveries;
  let inFlight = 0;
  metrics.watchWebhookDeliveriesInFlight(() => inFlight);
  metrics.watchWebhookDeliveriesPending(() => deliveries.countPending());
  return {
    ...store,
    webhookDeliveries: {
      ...deliveries,
      async claimDue(claim) {
        const claimed = await deliveries.claimDue(claim);
        inFlight += claimed.length;
        return claimed;
      },
      async recordAttempts(outcomes) {
        try {
          const recorded = await deliveries.recordAttempts(outcomes);
          // Only what was recorded: an outcome whose lease another worker took over is that worker's.
          const ids = new Set(recorded);
          const counts: Record<WebhookDeliveryOutcome, number> = { succeeded: 0, retry: 0, failed: 0 };
          for (const outcome of outcomes) if (ids.has(outcome.id)) counts[OUTCOME_OF[outcome.status]] += 1;
          for (const [outcome, count] of Object.entries(counts)) metrics.webhookDeliveries(outcome as WebhookDeliveryOutcome, count);
          return recorded;
        } finally {
          inFlight = Math.max(0, inFlight - outcomes.length);
        }
      },
    },
  };
}

/** A running metrics listener. */
export interface MetricsListener {
  /** The port it listens on (the configured one, or the one the OS gave for port 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (and HEAD) on its own port, apart from the API: a plain node:http server, so
 * scrapes pass through none of the API's hooks, logs or limits, and the API's port never answers
 * /metrics. Anything else is 404; another method on /metrics is 405.
 */
export async function startMetricsListener(
  source: Pick<VellumMetrics, 'contentType' | 'render'>,
  options: { port: number; host: string; logger: Logger },
): Promise<MetricsListener> {
  const { logger } = options;
  const answer = (res: ServerResponse, status: number, type: string, body: string, head: boolean, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', ...headers });
    res.end(head ? undefined : body);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const head = req.method === 'HEAD';
    if ((req.url ?? '').split('?')[0] !== METRICS_PATH) return answer(res, 404, 'text/plain; charset=utf-8', 'Not found: metrics are at /metrics\n', head);
    if (req.method !== 'GET' && !head) return answer(res, 405, 'text/plain; charset=utf-8', 'Method not allowed\n', false, { allow: 'GET, HEAD' });
    source.render().then(
      (text) => answer(res, 200, source.contentType, text, head),
      (err: unknown) => {
        logger.error({ err }, 'could not collect metrics');
        answer(res, 503, 'text/plain; charset=utf-8', 'Metrics are not available right now\n', head);
      },
    );
  });
  // A scraper answers quickly; a slow or idle client is not kept.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ host: options.host, port, path: METRICS_PATH }, 'metrics listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Serves the app's metrics as docs/metrics.md says: in a single server, its own listener on
 * VELLUM_METRICS_PORT, opened when the app is ready and closed with it; in a cluster worker, nothing
 * is opened here: the worker hands its metrics to the primary, which serves them summed
 * (startClusterMetricsListener).
 */
export function serveMetrics(app: FastifyInstance, metrics: VellumMetrics, config: ServerConfig, logger: Logger): void {
  if (config.metricsPort === undefined) return;
  if (cluster.isWorker) {
    metrics.shareWithClusterPrimary();
    return;
  }
  const port = config.metricsPort;
  let listener: MetricsListener | undefined;
  app.addHook('onReady', async () => {
    listener = await startMetricsListener(metrics, { port, host: config.metricsHost, logger });
  });
  app.addHook('onClose', async () => {
    await listener?.close();
  });
}

/**
 * In the primary of `vellum serve` with VELLUM_WORKERS above 1: serves every worker's metrics,
 * summed, on VELLUM_METRICS_PORT. Returns undefined when metrics are off.
 */
export async function startClusterMetricsListener(config: ServerConfig, logger: Logger): Promise<MetricsListener | undefined> {
  if (config.metricsPort === undefined) return undefined;
  return startMetricsListener(createClusterMetrics(), { port: config.metricsPort, host: config.metricsHost, logger });
}
