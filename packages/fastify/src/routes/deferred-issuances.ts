import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import {
  DeferredIssuance,
  DeferredIssuanceListQuery,
  DeferredIssuancePage,
  DeferredIssuanceParams,
  DenyDeferredIssuanceBody,
} from '../schemas/deferred-issuances.ts';
import type { VellumServices } from '../services.ts';
import { adminErrors, adminErrorsWithoutConflict } from './resource.ts';

const tags = ['Issued credentials'];
const config = { permission: 'credentials' } as const;

/** docs/deferred-issuance.md: credential requests held for review, and the admin's approval or denial. */
export const deferredIssuanceRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  app.get(
    '/v2/credentials/deferred',
    {
      config,
      schema: {
        tags,
        summary: 'List deferred issuances',
        querystring: DeferredIssuanceListQuery,
        response: { 200: DeferredIssuancePage, ...adminErrorsWithoutConflict },
      },
    },
    async (request) => services.deferredIssuances.list(requestContext(request), request.query),
  );

  app.get(
    '/v2/credentials/deferred/:id',
    {
      config,
      schema: { tags, summary: 'Get a deferred issuance', params: DeferredIssuanceParams, response: { 200: DeferredIssuance, ...adminErrorsWithoutConflict } },
    },
    async (request, reply) => {
      const view = await services.deferredIssuances.get(requestContext(request), request.params.id);
      // It may carry the user's claims.
      reply.header('cache-control', 'no-store');
      return view;
    },
  );

  app.post(
    '/v2/credentials/deferred/:id/approve',
    {
      config,
      schema: {
        tags,
        summary: 'Approve a deferred issuance',
        description: 'The wallet’s next poll of the deferred credential endpoint gets the credentials. 409 unless pending and unexpired.',
        params: DeferredIssuanceParams,
        response: { 200: DeferredIssuance, ...adminErrors },
      },
    },
    async (request) => services.deferredIssuances.approve(requestContext(request), request.params.id),
  );

  app.post(
    '/v2/credentials/deferred/:id/deny',
    {
      config,
      // The body is optional: none is a denial without a reason, validated as `{}`.
      preValidation: async (request) => {
        if (request.body === undefined || request.body === null) request.body = {};
      },
      schema: {
        tags,
        summary: 'Deny a deferred issuance',
        description: 'The wallet gets credential_request_denied; the claims held for it are erased. 409 unless pending and unexpired.',
        params: DeferredIssuanceParams,
        body: DenyDeferredIssuanceBody,
        response: { 200: DeferredIssuance, ...adminErrors },
      },
    },
    async (request) => services.deferredIssuances.deny(requestContext(request), request.params.id, request.body ?? undefined),
  );
};
