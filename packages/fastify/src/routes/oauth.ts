import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { sendDpopNonce, walletProofHeaders } from '../proof-headers.ts';
import { ErrorBodySchema } from '../schemas/common.ts';
import { JwksResponse, NonceResponse, WalletTokenBody, WalletTokenResponse } from '../schemas/oauth.ts';
import type { VellumServices } from '../services.ts';
import { WALLET_CLIENT_SECURITY } from '../openapi.ts';
import { WalletProofHeaders } from '../schemas/documented.ts';

/** The wallet's OAuth endpoints, here and in authorization.ts: one tag, the same config and failures. */
export const walletOAuth = {
  tags: ['Wallet authorization'],
  // Wallet-facing: errors carry the OAuth fields and no-store (docs/errors.md); no token needed.
  config: { errorStyle: 'oauth' } as const,
  errors: { 400: ErrorBodySchema, 401: ErrorBodySchema, 404: ErrorBodySchema, 413: ErrorBodySchema, 415: ErrorBodySchema },
};

/**
 * A wallet client's request at the token and PAR endpoints: how it authenticates (RFC 6749 §2.3.1)
 * and the proof headers it may send (docs/dpop-and-attestation.md).
 */
export const walletClientRequest = { security: WALLET_CLIENT_SECURITY, documentOnly: { headers: WalletProofHeaders } };

const { tags, config: oauth, errors } = walletOAuth;
// RFC 6749 §4.1.3: form-encoded; JSON is taken too.
const FORM_OR_JSON = ['application/x-www-form-urlencoded', 'application/json'];

/**
 * The wallet's side of the Pre-authorized Code flow: the token endpoint (OpenID4VCI 1.0 §6), the
 * nonce endpoint (OpenID4VCI 1.0 §7) and the public keys of the access tokens (`jwks_uri`).
 */
export const oauthRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const basePath = app.prefix;

  // Form-encoded as RFC 6749 says; JSON is taken too, as at the admin token endpoint.
  app.post(
    '/v1/oauth/token',
    {
      config: oauth,
      schema: {
        tags,
        summary: 'Token endpoint (Pre-authorized and Authorization Code grants)',
        consumes: FORM_OR_JSON,
        ...walletClientRequest,
        body: WalletTokenBody,
        response: { 200: WalletTokenResponse, ...errors },
      },
    },
    async (request, reply) => {
      const ctx = requestContext(request);
      const response = await services.tokenEndpoint.token(ctx, request.body ?? {}, basePath, request.headers.authorization, walletProofHeaders(request));
      sendDpopNonce(reply, services.dpop.freshNonce(ctx));
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(response);
    },
  );

  // The body, if any, is ignored: a nonce request carries nothing.
  app.post(
    '/v1/openid/nonce',
    { config: oauth, schema: { tags, summary: 'Nonce endpoint (OpenID4VCI §7)', response: { 200: NonceResponse, ...errors } } },
    async (request, reply) => {
      const ctx = requestContext(request);
      const response = await services.nonces.issue(ctx);
      // A wallet may fetch its first DPoP nonce here, with its c_nonce (RFC 9449 §8).
      sendDpopNonce(reply, services.dpop.freshNonce(ctx));
      return reply.header('cache-control', 'no-store').send(response);
    },
  );

  // Public like the metadata that points at it: logged at warn, readable from browser-based wallets.
  app.get(
    '/.well-known/jwks.json',
    { logLevel: 'warn', schema: { tags, summary: 'Public keys of the wallet access tokens', response: { 200: JwksResponse } } },
    async (request, reply) => {
      const jwks = await services.walletTokens.jwks(requestContext(request).tenant.id);
      return reply.header('cache-control', 'public, max-age=300').header('access-control-allow-origin', '*').send(jwks);
    },
  );
};
