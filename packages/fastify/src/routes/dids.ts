import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CreateDidBody, CreatedDidResponse, DidListQuery, DidParams, DidResponse, DidsPage } from '../schemas/dids.ts';
import type { VellumServices } from '../services.ts';
import { resourceRoutes } from './resource.ts';

/** docs/decisions.md "DIDs": the tenant's DIDs. The DID in the path arrives URL-decoded by the router. */
export const didRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const dids = services.dids;

  resourceRoutes(app, {
    path: '/v1/dids',
    params: DidParams,
    tags: ['DIDs'],
    config: { permission: 'dids' },
    create: { summary: 'Create a DID', body: CreateDidBody, response: CreatedDidResponse, run: (ctx, body) => dids.create(ctx, body) },
    list: { summary: 'List DIDs', querystring: DidListQuery, response: DidsPage, run: (ctx, query) => dids.list(ctx, query) },
    get: { summary: 'Get a DID', response: DidResponse, run: (ctx, did) => dids.get(ctx, did) },
    delete: { summary: 'Delete a DID', run: (ctx, did) => dids.delete(ctx, did) },
  });
};
