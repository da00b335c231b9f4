import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { ErrorBodySchema } from '../schemas/common.ts';
import {
  AuthorizationCodeOfferBody,
  OfferParams,
  OfferReferenceParams,
  OfferUriResponse,
  PreAuthorizedOfferBody,
  PreAuthorizedOfferResponse,
} from '../schemas/offers.ts';
import type { VellumServices } from '../services.ts';
import { CredentialOffer, documentedResponses } from '../schemas/documented.ts';
import { adminErrorsWithoutConflict, resourceRoutes } from './resource.ts';

const tags = ['Offers'];

const errors = { ...adminErrorsWithoutConflict, 413: ErrorBodySchema };
const config = { permission: 'offers' } as const;

/** docs/limits.md: pre-authorized offers take at most 500 KB. */
export const PRE_AUTHORIZED_OFFER_BODY_LIMIT = 500 * 1024;

/**
 * Credential offers (docs/authorization-code.md, docs/decisions.md "Users, offers, the token and nonce endpoints") and the public by-reference offer (docs/decisions.md "Users, offers, the token and nonce endpoints").
 * Under a prefix, the issuer identifier (and so every offer URI) carries it.
 */
export const offerRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const offers = services.offers;
  const basePath = app.prefix;

  app.post(
    '/v1/openid/offers',
    {
      config,
      schema: { tags, summary: 'Create an Authorization Code offer', body: AuthorizationCodeOfferBody, response: { 200: OfferUriResponse, ...errors } },
    },
    async (request) => offers.createAuthorizationCodeOffer(requestContext(request), request.body, basePath),
  );

  app.post(
    '/v1/openid/offers/pre-authorized',
    {
      config,
      bodyLimit: PRE_AUTHORIZED_OFFER_BODY_LIMIT,
      schema: { tags, summary: 'Create a Pre-authorized Code offer', body: PreAuthorizedOfferBody, response: { 200: PreAuthorizedOfferResponse, ...errors } },
    },
    async (request) => offers.createPreAuthorizedOffer(requestContext(request), request.body, basePath),
  );

  resourceRoutes(app, {
    path: '/v1/openid/offers/pre-authorized',
    params: OfferParams,
    tags,
    config,
    errors,
    delete: { summary: 'Delete a Pre-authorized Code offer', run: (ctx, id) => offers.deletePreAuthorizedOffer(ctx, id) },
  });

  // Wallets fetch offers anonymously: logged at warn only, readable from browser-based wallets, and
  // never cached, since the offer carries a code.
  app.get(
    '/v1/openid/offers/:id',
    {
      logLevel: 'warn',
      schema: {
        tags,
        summary: 'Get an offer by reference (wallets)',
        documentOnly: { responses: { 200: documentedResponses.json('The credential offer (never cached: it may carry a code).', CredentialOffer) } },
        params: OfferReferenceParams,
      },
    },
    async (request, reply) => {
      const offer = await offers.offerByReference(requestContext(request), request.params.id);
      return reply.header('cache-control', 'no-store').header('access-control-allow-origin', '*').send(offer);
    },
  );
};
