import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DomainError } from '@vellum/core';
import {
  applySecurityHeaders,
  handleClientError,
  handleFrameworkError,
  metricsPlugin,
  readBodyBeforeEarlyAnswer,
  sendError,
  vellumPlugin,
} from '@vellum/fastify';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.ts';
import { landing, landingHtml, wantsJson } from './landing.ts';
import { serveMetrics } from './metrics.ts';
import type { Runtime } from './runtime.ts';

/** docs/limits.md: request headers are limited to 16 KB. */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * What Node's parser itself takes before it refuses a request at the connection. Past 16 KB and up
 * to this, the request reaches Fastify and is refused there (below), where its method is known: a
 * HEAD gets its 431 without content (RFC 9110 §9.3.2). Past this, the connection-level answer has
 * only the last chunk read to go on, and may not see the method.
 */
export const PARSER_HEADER_BYTES = 256 * 1024;

/** The bytes of the request line and header block as they came (what the 16 KB limit counts). */
function headerBytes(raw: { method?: string; url?: string; rawHeaders: string[] }): number {
  let n = (raw.method?.length ?? 0) + (raw.url?.length ?? 0) + 12;
  for (const field of raw.rawHeaders) n += field.length + 2;
  return n;
}

function refuseLongHeaders(reply: FastifyReply): void {
  void sendError(reply.header('connection', 'close'), new DomainError('RequestHeaderFieldsTooLarge', 'Request headers exceed 16 KB'), 'api');
}

const ERROR_BODY = { $ref: '#/components/schemas/ErrorBody' };
const HEADERS_TOO_LARGE = {
  description: 'The request headers exceed 16 KB, refused before any route runs.',
  content: { 'application/json': { schema: ERROR_BODY } },
};

/** The host's own routes in the plugin's OpenAPI document (docs/api-reference.md). */
const HEALTH_PATHS = {
  '/health': {
    get: {
      operationId: 'getHealth',
      summary: 'Liveness',
      description: 'Answers while the process serves requests; it checks nothing else.',
      tags: ['Operations'],
      security: [],
      responses: {
        200: {
          description: 'The process is up.',
          content: { 'application/json': { schema: { type: 'object', properties: { status: { const: 'ok' } }, required: ['status'] } } },
        },
        431: HEADERS_TOO_LARGE,
      },
    },
  },
  '/ready': {
    get: {
      operationId: 'getReadiness',
      summary: 'Readiness',
      description: 'Answers 200 when the storage answers, 503 when it does not: take the server out of rotation then.',
      tags: ['Operations'],
      security: [],
      responses: {
        200: {
          description: 'The storage is reachable.',
          content: { 'application/json': { schema: { type: 'object', properties: { status: { const: 'ready' } }, required: ['status'] } } },
        },
        431: HEADERS_TOO_LARGE,
        503: { description: 'The storage is not reachable.', content: { 'application/json': { schema: ERROR_BODY } } },
      },
    },
  },
};

/** Builds the Fastify app around a runtime, without listening (STYLE 15). */
export async function buildApp(runtime: Runtime, config: ServerConfig, logger: Logger): Promise<FastifyInstance> {
  // A client that sends its headers or body too slowly is answered 408 and disconnected, so it cannot
  // hold a connection (or a shutdown) for long. Node checks these every `connectionsCheckingInterval`
  // (30 s unless told): a quarter of the headers timeout, at most 1 s, keeps them close to exact.
  const server = {
    maxHeaderSize: PARSER_HEADER_BYTES,
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: config.headersTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(config.headersTimeoutMs / 4))),
  };
  const https =
    config.tlsCertFile && config.tlsKeyFile
      ? { https: { cert: readFileSync(config.tlsCertFile), key: readFileSync(config.tlsKeyFile), ...server } }
      : { http: server };
  const app = Fastify({
    ...https,
    loggerInstance: logger,
    genReqId: () => randomUUID(),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Fastify sets these on the server after creating it (its defaults: no request timeout, 72 s keep-alive).
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    routerOptions: { maxParamLength: 500 },
    clientErrorHandler: handleClientError,
    // A URL that does not decode gets the error body too, not Fastify's own answer; headers over
    // 16 KB are the first thing wrong with a request, so they are named first here as well.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
      headerBytes(request.raw) > MAX_HEADER_BYTES ? refuseLongHeaders(reply) : handleFrameworkError(error, request, reply),
    // One log line per request, written when it is answered (below), instead of Fastify's two.
    disableRequestLogging: true,
  } as Parameters<typeof Fastify>[0]) as unknown as FastifyInstance;

  // First, so that its hooks see every route after it (docs/metrics.md); only when metrics are on.
  if (runtime.metrics) {
    await app.register(metricsPlugin, { metrics: runtime.metrics });
    serveMetrics(app, runtime.metrics, config, logger);
  }

  // The request and its outcome in one line: half the logging cost of Fastify's incoming/completed
  // pair on every wallet request. Routes with `logLevel: 'warn'` (the public hot documents) skip it.
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });
  // docs/decisions.md "HTTP": an answer ready before its request's body has all arrived waits for the
  // rest of it, so that the connection's next request starts a read of its own (handleClientError).
  app.addHook('onSend', readBodyBeforeEarlyAnswer);
  // docs/decisions.md "HTTP": headers over 16 KB are refused with 431 and the error body, before any route runs.
  app.addHook('onRequest', (request, reply, done) => {
    if (headerBytes(request.raw) <= MAX_HEADER_BYTES) return done();
    refuseLongHeaders(reply);
  });
  // The plugin's answers carry the security headers already; these are the host's own (/health, /ready),
  // in a context of their own so that the plugin's answers do not pay for the hook twice.
  await app.register(async (host) => {
    host.addHook('onSend', (request, reply, payload, done) => {
      applySecurityHeaders(request, reply);
      done(null, payload);
    });
    host.get('/health', async () => ({ status: 'ok' }));
    // A tenant's host answers `/` with where to go next (landing.ts); a host that names no tenant, 404.
    host.get('/', async (request, reply) => {
      const resolved = await runtime.vellum.addressing.resolveHost(request.host);
      if (!resolved) return sendError(reply, new DomainError('NotFound', 'No tenant is served at this host'), 'api');
      const input = { tenantName: resolved.tenant.name, credentialIssuer: resolved.origin };
      reply.header('cache-control', 'no-cache').header('vary', 'accept');
      return wantsJson(request.headers.accept) ? landing(input) : reply.type('text/html; charset=utf-8').send(landingHtml(input));
    });
    host.get('/ready', async (_request, reply) => {
      try {
        await runtime.store.ping();
        return { status: 'ready' };
      } catch (err) {
        logger.warn({ err }, 'storage is not reachable');
        return reply.code(503).send({ code: 'ServiceUnavailable', message: 'Storage is not reachable' });
      }
    });
  });
  await app.register(vellumPlugin, { services: runtime.vellum, hostPaths: HEALTH_PATHS });
  return app;
}

/**
 * Stops taking requests and lets those in flight finish, for at most `deadlineMs`; then closes the
 * connections still open (a slow request, a half-sent body), so that a shutdown never waits longer.
 */
export async function closeWithDeadline(app: FastifyInstance, deadlineMs: number, logger: Logger): Promise<void> {
  const timer = setTimeout(() => {
    logger.warn({ deadlineMs }, 'shutdown deadline passed: closing the connections still open');
    app.server.closeAllConnections();
  }, deadlineMs);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
}
