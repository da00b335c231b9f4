import { Type } from '@sinclair/typebox';
import type { WalletRequest } from '@vellum/core';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { requestContext } from '../context.ts';
import { proofHeader, sendDpopNonce } from '../proof-headers.ts';
import type { VellumServices } from '../services.ts';
import { type DocumentOnly, WALLET_TOKEN_SECURITY } from '../openapi.ts';
import { OAuthErrorBodySchema } from '../schemas/common.ts';
import {
  CredentialRequest,
  CredentialResponse,
  DeferredCredentialRequest,
  DeferredPending,
  DpopHeader,
  DpopNonceHeader,
  NotificationRequest,
} from '../schemas/documented.ts';

const tags = ['Credential issuance'];

// Wallet-facing: errors carry the OAuth fields and no-store (docs/errors.md). The wallet access token is
// the core's to check, before it reads the body.
const oauth = { errorStyle: 'oauth' } as const;
const BODY_LIMIT = 1024 * 1024;

// The document's view of these routes: their bodies reach the core unparsed, so no schema validates them.
const walletErrors = {
  400: {
    description: 'A refused request (OpenID4VCI §8.3.1: invalid_credential_request, invalid_proof, invalid_nonce…).',
    content: { 'application/json': OAuthErrorBodySchema },
  },
  401: { description: 'No valid access token (RFC 6750 §3: invalid_token), with a challenge.', content: { 'application/json': OAuthErrorBodySchema } },
};
/** OpenID4VCI 1.0 §8.3 and §9.2: held for review, the answer is 202 with a transaction_id until the credentials are ready. */
const deferredAnswer = {
  description: 'Not issued yet (OpenID4VCI §8.3): poll the deferred credential endpoint with transaction_id, no more often than every interval seconds.',
  content: { 'application/json': DeferredPending, 'application/jwt': Type.String({ description: 'The same, as a JWE.' }) },
  headers: DpopNonceHeader,
};
const credentialDocument: DocumentOnly = {
  body: { 'application/json': CredentialRequest, 'application/jwt': Type.String({ description: 'The credential request as a JWE (OpenID4VCI §10).' }) },
  headers: DpopHeader,
  responses: {
    200: {
      description: 'The credential; `application/jwt` when the request asked for an encrypted response.',
      content: { 'application/json': CredentialResponse, 'application/jwt': Type.String({ description: 'The credential response as a JWE.' }) },
      headers: DpopNonceHeader,
    },
    ...walletErrors,
  },
};
const deferredDocument: DocumentOnly = {
  body: { 'application/json': DeferredCredentialRequest, 'application/jwt': Type.String({ description: 'The deferred credential request as a JWE.' }) },
  headers: DpopHeader,
  responses: {
    200: {
      description: 'The credentials, once an admin approved; `application/jwt` when the request asked for an encrypted response.',
      content: { 'application/json': CredentialResponse, 'application/jwt': Type.String({ description: 'The response as a JWE.' }) },
      headers: DpopNonceHeader,
    },
    202: deferredAnswer,
    400: {
      description: 'invalid_transaction_id (unknown, expired, collected, or another grant’s), credential_request_denied, invalid_credential_request…',
      content: { 'application/json': OAuthErrorBodySchema },
    },
    401: walletErrors[401],
  },
};
const notificationDocument: DocumentOnly = {
  body: { 'application/json': NotificationRequest },
  headers: DpopHeader,
  responses: { 204: { description: 'The event is recorded.' }, ...walletErrors },
};

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
 * The credential endpoint and its notification endpoint (OpenID4VCI 1.0 §8, §11;
 * docs/decisions.md "The credential endpoint"). Bodies stay text here: JSON, or a JWE (`application/jwt`) the core decrypts.
 */
export const credentialRoutes: FastifyPluginAsync<{ services: VellumServices }> = async (app, { services }) => {
  const basePath = app.prefix;
  // This plugin's own parsers (encapsulated): the body reaches the core unparsed, so the token is
  // checked first and a malformed body is an OAuth error, not a generic one.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'application/jwt'], { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));

  app.post(
    '/v1/openid/credential',
    { schema: { tags, summary: 'Credential endpoint (OpenID4VCI §8)', security: WALLET_TOKEN_SECURITY, documentOnly: credentialDocument }, config: oauth },
    async (request, reply) => {
      const ctx = requestContext(request);
      const response = await services.credentialEndpoint.issue(ctx, walletRequest(request, basePath));
      sendDpopNonce(reply, services.dpop.freshNonce(ctx));
      return reply
        .code(response.status ?? 200)
        .headers(response.headers)
        .header('cache-control', 'no-store')
        .type(response.contentType)
        .send(response.body);
    },
  );

  app.post(
    '/v1/openid/deferred_credential',
    {
      schema: { tags, summary: 'Deferred credential endpoint (OpenID4VCI §9)', security: WALLET_TOKEN_SECURITY, documentOnly: deferredDocument },
      config: oauth,
    },
    async (request, reply) => {
      const ctx = requestContext(request);
      const response = await services.deferredCredentialEndpoint.collect(ctx, walletRequest(request, basePath));
      sendDpopNonce(reply, services.dpop.freshNonce(ctx));
      return reply.code(response.status).header('cache-control', 'no-store').type(response.contentType).send(response.body);
    },
  );

  app.post(
    '/v1/openid/notification',
    { schema: { tags, summary: 'Notification endpoint (OpenID4VCI §11)', security: WALLET_TOKEN_SECURITY, documentOnly: notificationDocument }, config: oauth },
    async (request, reply) => {
      const ctx = requestContext(request);
      await services.credentialEndpoint.notify(ctx, walletRequest(request, basePath));
      sendDpopNonce(reply, services.dpop.freshNonce(ctx));
      return reply.code(204).header('cache-control', 'no-store').send();
    },
  );
};
