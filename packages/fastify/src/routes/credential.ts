import type { WalletRequest } from '@vellum/core';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { requestContext } from '../context.ts';
import { proofHeader, sendDpopNonce } from '../proof-headers.ts';
import type { VellumServices } from '../services.ts';

// Wallet-facing: errors carry the OAuth fields and no-store (API.md §3). The wallet access token is
// the core's to check, before it reads the body.
const oauth = { errorStyle: 'oauth' } as const;
const BODY_LIMIT = 1024 * 1024;

/** The plain values the core takes: headers as sent, the body as text. */
function walletRequest(request: FastifyRequest, basePath: string): WalletRequest {
  return {
    authorization: request.headers.authorization,
    dpop: proofHeader(request, 'dpop'),
    contentType: request.headers['content-type'],
    body: typeof request.body === 'string' ? request.body : undefined,
    basePath,
  };
}

/**
 * The credential endpoint and its notification endpoint (specification 4.6; OpenID4VCI 1.0 §8, §11;
 * API.md §9). Bodies stay text here: JSON, or a JWE (`application/jwt`) the core decrypts.
 */
export const credentialRoutes: FastifyPluginAsync<{ services: VellumServices }> = async (app, { services }) => {
  const basePath = app.prefix;
  // This plugin's own parsers (encapsulated): the body reaches the core unparsed, so the token is
  // checked first and a malformed body is an OAuth error, not a generic one.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'application/jwt'], { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));

  app.post('/v1/openid/credential', { config: oauth }, async (request, reply) => {
    const ctx = requestContext(request);
    const response = await services.credentialEndpoint.issue(ctx, walletRequest(request, basePath));
    sendDpopNonce(reply, services.dpop.freshNonce(ctx));
    return reply.headers(response.headers).header('cache-control', 'no-store').type(response.contentType).send(response.body);
  });

  app.post('/v1/openid/notification', { config: oauth }, async (request, reply) => {
    const ctx = requestContext(request);
    await services.credentialEndpoint.notify(ctx, walletRequest(request, basePath));
    sendDpopNonce(reply, services.dpop.freshNonce(ctx));
    return reply.code(204).header('cache-control', 'no-store').send();
  });
};
