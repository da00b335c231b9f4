import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { handleClientError, handleFrameworkError, vellumPlugin } from '@vellum/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.ts';
import type { Runtime } from './runtime.ts';

/** Specification 8: request headers are limited to 16 KB. */
export const MAX_HEADER_BYTES = 16 * 1024;

/** Builds the Fastify app around a runtime, without listening (STYLE 15). */
export async function buildApp(runtime: Runtime, config: ServerConfig, logger: Logger): Promise<FastifyInstance> {
  const https = config.tlsCertFile && config.tlsKeyFile
    ? { https: { cert: readFileSync(config.tlsCertFile), key: readFileSync(config.tlsKeyFile), maxHeaderSize: MAX_HEADER_BYTES } }
    : { http: { maxHeaderSize: MAX_HEADER_BYTES } };
  const app = Fastify({
    ...https,
    loggerInstance: logger,
    genReqId: () => randomUUID(),
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
    routerOptions: { maxParamLength: 500 },
    clientErrorHandler: handleClientError,
    // A URL that does not decode gets the error body too, not Fastify's own answer.
    frameworkErrors: handleFrameworkError,
    // One log line per request, written when it is answered (below), instead of Fastify's two.
    disableRequestLogging: true,
  } as Parameters<typeof Fastify>[0]) as unknown as FastifyInstance;

  // The request and its outcome in one line: half the logging cost of Fastify's incoming/completed
  // pair on every wallet request. Routes with `logLevel: 'warn'` (the public hot documents) skip it.
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    done();
  });
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/ready', async (_request, reply) => {
    try {
      await runtime.store.ping();
      return { status: 'ready' };
    } catch (err) {
      logger.warn({ err }, 'storage is not reachable');
      return reply.code(503).send({ code: 'ServiceUnavailable', message: 'Storage is not reachable' });
    }
  });
  await app.register(vellumPlugin, { services: runtime.vellum });
  return app;
}
