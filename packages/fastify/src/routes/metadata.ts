import { createHash } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { requestContext } from '../context.ts';
import type { VellumServices } from '../services.ts';
import { AuthorizationServerMetadata, documentedResponses, IssuerMetadata } from '../schemas/documented.ts';

const tags = ['Metadata'];

// Wallets read these anonymously and often: requests are logged at warn only (failures still are).
const options = { logLevel: 'warn' } as const;

interface Rendered {
  body: string;
  etag: string;
}

/**
 * Sends public metadata as JSON that caches may keep but must revalidate (`no-cache`), with a
 * strong ETag so an unchanged document costs a 304: a configuration change shows at once.
 */
function sendMetadata(request: FastifyRequest, reply: FastifyReply, { body, etag }: Rendered): FastifyReply {
  reply.header('cache-control', 'no-cache').header('etag', etag).header('access-control-allow-origin', '*');
  const match = request.headers['if-none-match'];
  if (typeof match === 'string' && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
    return reply.code(304).send();
  }
  return reply.type('application/json; charset=utf-8').send(body);
}

/**
 * Public issuer metadata (OpenID4VCI 1.0 §12.2.2) and authorization server metadata (RFC 8414), per
 * tenant and per origin the request came on (no token; the tenant comes from the Host header).
 */
export const metadataRoutes: FastifyPluginAsync<{ services: VellumServices }> = async (app, { services }) => {
  // Under a prefix, the issuer identifier and its URLs carry it.
  const basePath = app.prefix;
  // The core hands back the same document while nothing changed: keep its JSON and ETag by identity.
  const rendered = new WeakMap<object, Rendered>();
  const render = (document: object): Rendered => {
    let r = rendered.get(document);
    if (r === undefined) {
      const body = JSON.stringify(document);
      r = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
      rendered.set(document, r);
    }
    return r;
  };
  app.get(
    '/.well-known/openid-credential-issuer',
    {
      ...options,
      schema: {
        tags,
        summary: 'Credential issuer metadata (OpenID4VCI §12.2)',
        documentOnly: { responses: { 200: documentedResponses.json('The metadata.', IssuerMetadata), 304: documentedResponses.notModified } },
      },
    },
    async (request, reply) => sendMetadata(request, reply, render(await services.issuerMetadata.issuerMetadata(requestContext(request), basePath))),
  );
  app.get(
    '/.well-known/oauth-authorization-server',
    {
      ...options,
      schema: {
        tags,
        summary: 'Authorization server metadata (RFC 8414)',
        documentOnly: { responses: { 200: documentedResponses.json('The metadata.', AuthorizationServerMetadata), 304: documentedResponses.notModified } },
      },
    },
    async (request, reply) =>
      sendMetadata(request, reply, render(await services.issuerMetadata.authorizationServerMetadata(requestContext(request), basePath))),
  );
};
