import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ClaimSourceBody, ClaimSourceListQuery, ClaimSourceParams, ClaimSourceResponse, ClaimSourcesPage } from '../schemas/claim-sources.ts';
import type { VellumServices } from '../services.ts';
import { resourceRoutes } from './resource.ts';

/** docs/authentication.md: the issuer's APIs Vellum asks for a user's claims at issuance. */
export const claimSourceRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const sources = services.claimSources;

  resourceRoutes(app, {
    path: '/v1/claim-sources',
    params: ClaimSourceParams,
    tags: ['Claim sources'],
    config: { permission: 'issuance-setup' },
    create: { summary: 'Create a claim source', body: ClaimSourceBody, response: ClaimSourceResponse, run: (ctx, body) => sources.create(ctx, body) },
    list: { summary: 'List claim sources', querystring: ClaimSourceListQuery, response: ClaimSourcesPage, run: (ctx, query) => sources.list(ctx, query) },
    get: { summary: 'Get a claim source', response: ClaimSourceResponse, run: (ctx, id) => sources.get(ctx, id) },
    replace: {
      summary: 'Replace a claim source',
      body: ClaimSourceBody,
      response: ClaimSourceResponse,
      run: (ctx, id, body) => sources.update(ctx, id, body),
    },
    delete: { summary: 'Delete a claim source', run: (ctx, id) => sources.delete(ctx, id) },
  });
};
