// Prometheus metrics (docs/metrics.md). This package owns the prom-client dependency: the core never
// sees it, and the host (apps/server) records what happens outside HTTP — issued credentials, webhook
// deliveries, store calls — through the narrow recorders below, from decorators around the core's ports.
import type { FastifyPluginCallback, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RETENTION_KINDS, type RetentionKind } from '@vellum/core';
import { answeredOAuthError } from './errors.ts';

/** What a webhook delivery attempt ended as: delivered, due again after its backoff, or given up on. */
export type WebhookDeliveryOutcome = 'succeeded' | 'retry' | 'failed';

/** One registry of Vellum's metrics, and the recorders that move them. Make one per process. */
export interface VellumMetrics {
  /** The Content-Type of `render()`'s text (Prometheus text format 0.0.4). */
  readonly contentType: string;
  /** The current values in Prometheus text format. */
  render(): Promise<string>;
  /** Counts one credential issued in `format` (`mso_mdoc`, `dc+sd-jwt`, ...). */
  credentialIssued(format: string): void;
  /** Counts `count` recorded webhook delivery attempts that ended as `outcome`. */
  webhookDeliveries(outcome: WebhookDeliveryOutcome, count: number): void;
  /** Counts `count` rows of `kind` the retention job deleted (docs/retention.md). */
  retentionPurged(kind: RetentionKind, count: number): void;
  /**
   * A recorder of the duration of one store operation (`offers.consumePreAuthorizedCode`,
   * `transaction`): made once per operation, so that a call costs one observation.
   */
  storeOperation(operation: string): (seconds: number) => void;
  /** Reads the number of analytic events waiting to be written, and the events lost so far, at each scrape. */
  watchEventQueue(source: { pending(): number; losses(): { droppedQueueFull: number; droppedUnwritable: number } }): void;
  /** Reads the number of webhook deliveries this process has claimed and not yet recorded, at each scrape. */
  watchWebhookDeliveriesInFlight(count: () => number): void;
  /**
   * Asks for the number of pending webhook deliveries in the store (every server's, every tenant's)
   * at each scrape. A count that fails shows as NaN for that scrape; the other metrics are served.
   */
  watchWebhookDeliveriesPending(count: () => Promise<number>): void;
  /** Counts one answered HTTP request (the metrics plugin calls it). */
  httpRequest(route: RouteMetrics, method: string, status: number, seconds: number): void;
  /** Counts one OAuth error answered at `route` (the metrics plugin calls it). */
  oauthError(route: string, error: string): void;
  /**
   * In a cluster worker: answers the primary's requests for this process's metrics (the primary
   * sums them, see `createClusterMetrics`). prom-client keeps one such registry per process.
   */
  shareWithClusterPrimary(): void;
}

/** Per-route state: the route pattern and the label children already made for it. */
export interface RouteMetrics {
  readonly route: string;
  readonly children: Map<string, { count: () => void; observe: (seconds: number) => void }>;
}

export interface CreateMetricsOptions {
  /** Also export Node's process metrics (`process_*`, `nodejs_*`: CPU, memory, event loop lag, GC). Default true. */
  processMetrics?: boolean;
}

/** Seconds: from a cached metadata read (about a millisecond) to a slow request. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds: a store call is a query or a transaction, most well under 10 ms. */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** An OAuth error code as RFC 6749 writes them; anything else is counted as `other`, so labels stay few. */
const OAUTH_ERROR = /^[a-z_]{1,64}$/;
const MAX_FORMAT_LENGTH = 64;

/** Builds the registry and every metric of docs/metrics.md. */
export function createMetrics(options: CreateMetricsOptions = {}): VellumMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const requests = new Counter({
    name: 'vellum_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const durations = new Histogram({
    name: 'vellum_http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its answer, by method and route pattern.',
    labelNames: ['method', 'route'] as const,
    buckets: HTTP_BUCKETS,
    registers,
  });
  const oauthErrors = new Counter({
    name: 'vellum_oauth_errors_total',
    help: 'Refusals carrying an OAuth error (token, nonce, credential, notification, PAR, admin token endpoints), by route pattern and error.',
    labelNames: ['route', 'error'] as const,
    registers,
  });
  const issued = new Counter({ name: 'vellum_credentials_issued_total', help: 'Credentials issued, by format.', labelNames: ['format'] as const, registers });
  const deliveries = new Counter({
    name: 'vellum_webhook_deliveries_total',
    help: 'Webhook delivery attempts recorded by this process, by outcome.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const purged = new Counter({
    name: 'vellum_retention_purged_total',
    help: 'Rows past their life the retention job deleted, by kind (docs/retention.md).',
    labelNames: ['kind'] as const,
    registers,
  });
  // Every kind shows from the first scrape, at 0 until the job deletes one.
  for (const kind of RETENTION_KINDS) purged.inc({ kind }, 0);
  const store = new Histogram({
    name: 'vellum_store_operation_duration_seconds',
    help: 'Time of store operations (a repository method outside a transaction, or a whole transaction), by operation.',
    labelNames: ['operation'] as const,
    buckets: STORE_BUCKETS,
    registers,
  });

  let eventQueue: Parameters<VellumMetrics['watchEventQueue']>[0] | undefined;
  let inFlight: (() => number) | undefined;
  let pending: (() => Promise<number>) | undefined;
  new Gauge({
    name: 'vellum_event_queue_depth',
    help: 'Analytic events waiting in memory to be written to the store.',
    registers,
    collect() {
      this.set(eventQueue?.pending() ?? 0);
    },
  });
  // The recorder keeps running totals; the counter takes the difference at each scrape.
  const counted = { queue_full: 0, unwritable: 0 };
  new Counter({
    name: 'vellum_analytic_events_lost_total',
    help: 'Analytic events dropped: the queue was full, or the store refused them for too long.',
    labelNames: ['reason'] as const,
    registers,
    collect() {
      const losses = eventQueue?.losses() ?? { droppedQueueFull: 0, droppedUnwritable: 0 };
      this.inc({ reason: 'queue_full' }, losses.droppedQueueFull - counted.queue_full);
      this.inc({ reason: 'unwritable' }, losses.droppedUnwritable - counted.unwritable);
      counted.queue_full = losses.droppedQueueFull;
      counted.unwritable = losses.droppedUnwritable;
    },
  });
  new Gauge({
    name: 'vellum_webhook_deliveries_in_flight',
    help: 'Webhook deliveries this process has claimed from the outbox and not yet recorded.',
    registers,
    collect() {
      this.set(inFlight?.() ?? 0);
    },
  });
  new Gauge({
    name: 'vellum_webhook_deliveries_pending',
    help: 'Webhook deliveries pending in the store, of every server and tenant (read from the store at each scrape).',
    registers,
    // Every cluster worker reads the same database: the primary reports one count, not their sum.
    aggregator: 'max',
    async collect() {
      if (!pending) return this.set(0);
      try {
        this.set(await pending());
      } catch {
        // The store did not answer: no number rather than a stale one, and the rest of the scrape still served.
        this.set(Number.NaN);
      }
    },
  });

  const issuedByFormat = new Map<string, () => void>();
  const errorsByKey = new Map<string, () => void>();

  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    credentialIssued(format) {
      let inc = issuedByFormat.get(format);
      if (!inc) {
        const child = issued.labels(format.slice(0, MAX_FORMAT_LENGTH));
        inc = () => child.inc();
        issuedByFormat.set(format, inc);
      }
      inc();
    },
    webhookDeliveries(outcome, count) {
      if (count > 0) deliveries.inc({ outcome }, count);
    },
    retentionPurged(kind, count) {
      if (count > 0) purged.inc({ kind }, count);
    },
    storeOperation(operation) {
      const child = store.labels(operation);
      return (seconds) => child.observe(seconds);
    },
    watchEventQueue(source) {
      eventQueue = source;
    },
    watchWebhookDeliveriesInFlight(count) {
      inFlight = count;
    },
    watchWebhookDeliveriesPending(count) {
      pending = count;
    },
    httpRequest(route, method, status, seconds) {
      const key = `${method} ${status}`;
      let child = route.children.get(key);
      if (!child) {
        const counter = requests.labels(method, route.route, String(status));
        const histogram = durations.labels(method, route.route);
        child = { count: () => counter.inc(), observe: (s) => histogram.observe(s) };
        route.children.set(key, child);
      }
      child.count();
      child.observe(seconds);
    },
    oauthError(route, error) {
      const label = OAUTH_ERROR.test(error) ? error : 'other';
      const key = `${route} ${label}`;
      let inc = errorsByKey.get(key);
      if (!inc) {
        const child = oauthErrors.labels(route, label);
        inc = () => child.inc();
        errorsByKey.set(key, inc);
      }
      inc();
    },
    shareWithClusterPrimary() {
      AggregatorRegistry.setRegistries([registry]);
      // Constructing one installs the worker's message listener (once per process).
      new AggregatorRegistry();
    },
  };
}

/** Where a route's metrics state is kept in its config (set by the plugin's onRoute hook). */
const ROUTE_METRICS = Symbol('vellum.routeMetrics');

/** The label of requests no route matched (the not-found handler). */
export const UNMATCHED_ROUTE = '(unmatched)';

export interface MetricsPluginOptions {
  metrics: VellumMetrics;
}

/**
 * Counts the requests of every route registered after it (register it before `vellumPlugin`): one
 * counter increment and one histogram observation per answer, labelled by the route pattern, never
 * the raw URL. A refusal in the OAuth style (`config.errorStyle: 'oauth'`) also counts its `error`,
 * as the error handler noted it (errors.ts `answeredOAuthError`): nothing re-reads the answer.
 */
export const metricsPlugin = fp<MetricsPluginOptions>(
  ((app, { metrics }, done) => {
    const unmatched: RouteMetrics = { route: UNMATCHED_ROUTE, children: new Map() };

    app.addHook('onRoute', (route: RouteOptions) => {
      const state: RouteMetrics = { route: route.url, children: new Map() };
      // A fresh config object: routes may share theirs (one constant for several routes).
      route.config = { ...route.config, [ROUTE_METRICS]: state } as RouteOptions['config'];
    });

    app.addHook('onResponse', (request, reply, next) => {
      const state = (request.routeOptions.config as unknown as Record<symbol, RouteMetrics | undefined>)[ROUTE_METRICS] ?? unmatched;
      metrics.httpRequest(state, request.method, reply.statusCode, reply.elapsedTime / 1000);
      // Written by sendError on the routes whose errors take the OAuth style (errors.ts).
      const error = answeredOAuthError(reply);
      if (error !== undefined) metrics.oauthError(state.route, error);
      next();
    });
    done();
  }) as FastifyPluginCallback<MetricsPluginOptions>,
  { name: 'vellum-metrics', fastify: '5.x' },
);

/** In a cluster primary: every live worker's metrics, summed (histograms bucket by bucket). */
export function createClusterMetrics(): Pick<VellumMetrics, 'contentType' | 'render'> {
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, render: () => aggregator.clusterMetrics() };
}
