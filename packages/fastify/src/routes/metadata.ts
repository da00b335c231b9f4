import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { TYPE_METADATA_PATH, TYPE_NAME } from '@vellum/core';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { prefersJwt } from '../accept.ts';
import { requestContext } from '../context.ts';
import { ErrorBodySchema } from '../schemas/common.ts';
import type { VellumServices } from '../services.ts';
import {
  AuthorizationServerMetadata,
  documentedResponses,
  IssuerMetadata,
  JwtVcIssuerMetadata,
  SdJwtTypeMetadata,
  SignedIssuerMetadata,
} from '../schemas/documented.ts';

const tags = ['Metadata'];

// Wallets read these anonymously and often: requests are logged at warn only (failures still are).
const options = { logLevel: 'warn' } as const;

interface Rendered {
  body: string;
  etag: string;
}

/**
 * Sends public metadata (JSON unless `type` says otherwise) that caches may keep but must
 * revalidate (`no-cache`), with a strong ETag so an unchanged document costs a 304: a
 * configuration change shows at once.
 */
function sendMetadata(request: FastifyRequest, reply: FastifyReply, { body, etag }: Rendered, type = 'application/json; charset=utf-8'): FastifyReply {
  reply.header('cache-control', 'no-cache').header('etag', etag).header('access-control-allow-origin', '*');
  const match = request.headers['if-none-match'];
  if (typeof match === 'string' && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')) {
    return reply.code(304).send();
  }
  return reply.type(type).send(body);
}

/**
 * Public issuer metadata (OpenID4VCI 1.0 §12.2.2, signed per §12.2.3 on request), JWT VC Issuer
 * Metadata (SD-JWT VC) and authorization server metadata (RFC 8414), per tenant and per origin the
 * request came on (no token; the tenant comes from the Host header).
 */
export const metadataRoutes: FastifyPluginAsync<{ services: VellumServices }> = async (app, { services }) => {
  // Under a prefix, the issuer identifier and its URLs carry it.
  const basePath = app.prefix;
  // The core hands back the same document while nothing changed: keep its JSON and ETag by identity.
  const rendered = new WeakMap<object, Rendered>();
  const renderBody = (key: object, body: string): Rendered => {
    let r = rendered.get(key);
    if (r === undefined) {
      r = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
      rendered.set(key, r);
    }
    return r;
  };
  const render = (document: object): Rendered => rendered.get(document) ?? renderBody(document, JSON.stringify(document));
  app.get(
    '/.well-known/openid-credential-issuer',
    {
      ...options,
      schema: {
        tags,
        summary: 'Credential issuer metadata (OpenID4VCI §12.2)',
        description:
          'JSON, or with `Accept: application/jwt` a JWT signed under the tenant’s issuer CA (`x5c`, OpenID4VCI 1.0 §12.2.3); a tenant without one answers with the JSON.',
        documentOnly: {
          responses: {
            200: {
              description: 'The metadata; `Content-Type` says which form.',
              content: { 'application/json': IssuerMetadata, 'application/jwt': SignedIssuerMetadata },
            },
            304: documentedResponses.notModified,
          },
        },
      },
    },
    async (request, reply) => {
      const ctx = requestContext(request);
      // The answer depends on Accept: shared caches must keep the two forms apart.
      reply.header('vary', 'accept');
      if (prefersJwt(request.headers.accept)) {
        const signed = await services.issuerMetadata.signedIssuerMetadata(ctx, basePath);
        if (signed) return sendMetadata(request, reply, renderBody(signed, signed.jwt), 'application/jwt');
      }
      return sendMetadata(request, reply, render(await services.issuerMetadata.issuerMetadata(ctx, basePath)));
    },
  );
  app.get(
    '/.well-known/jwt-vc-issuer',
    {
      ...options,
      schema: {
        tags,
        summary: 'JWT VC Issuer Metadata (SD-JWT VC)',
        description:
          'The issuer identifier and the keys of the tenant’s valid credential signing certificates, for verifiers that resolve an SD-JWT VC’s https `iss` this way; 404 for a tenant without an issuer CA.',
        documentOnly: {
          responses: {
            200: documentedResponses.json('The metadata.', JwtVcIssuerMetadata),
            304: documentedResponses.notModified,
            404: documentedResponses.json('The tenant has no issuer CA, or no valid credential signing certificate names this issuer.', ErrorBodySchema),
          },
        },
      },
    },
    async (request, reply) => sendMetadata(request, reply, render(await services.issuerMetadata.jwtVcIssuerMetadata(requestContext(request), basePath))),
  );
  app.get(
    `${TYPE_METADATA_PATH}:name`,
    {
      ...options,
      schema: {
        tags,
        summary: 'SD-JWT VC Type Metadata',
        description:
          'The type metadata a dc+sd-jwt configuration publishes for its vct, `{credential_issuer}/types/{name}`: the exact bytes whose SHA-256 its credentials carry as `vct#integrity`.',
        params: Type.Object({ name: Type.String({ pattern: TYPE_NAME.source }) }),
        documentOnly: {
          responses: {
            200: documentedResponses.json('The type metadata.', SdJwtTypeMetadata),
            304: documentedResponses.notModified,
            404: documentedResponses.json('No configuration of this issuer publishes type metadata for this vct.', ErrorBodySchema),
          },
        },
      },
    },
    async (request, reply) => {
      const { name } = request.params as { name: string };
      const published = await services.issuerMetadata.typeMetadata(requestContext(request), basePath, name);
      // The integrity is a digest of the body already: its first 32 characters are a strong ETag.
      return sendMetadata(request, reply, { body: published.body, etag: `"${published.integrity.slice(7, 39)}"` });
    },
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
