import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { ErrorBodySchema, NoContent } from '../schemas/common.ts';
import { CreateDidBody, CreatedDidResponse, DidListQuery, DidParams, DidResponse, DidsPage } from '../schemas/dids.ts';
import type { VellumServices } from '../services.ts';

const tags = ['DIDs'];

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema };
const config = { permission: 'dids' } as const;

/** docs/decisions.md "DIDs": the tenant's DIDs. The DID in the path arrives URL-decoded by the router. */
export const didRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const dids = services.dids;

  app.post(
    '/v1/dids',
    { config, schema: { tags, summary: 'Create a DID', body: CreateDidBody, response: { 201: CreatedDidResponse, ...errors } } },
    async (request, reply) => {
      return reply.code(201).send(await dids.create(requestContext(request), request.body));
    },
  );

  app.get('/v1/dids', { config, schema: { tags, summary: 'List DIDs', querystring: DidListQuery, response: { 200: DidsPage, ...errors } } }, async (request) =>
    dids.list(requestContext(request), request.query),
  );

  app.get('/v1/dids/:did', { config, schema: { tags, summary: 'Get a DID', params: DidParams, response: { 200: DidResponse, ...errors } } }, async (request) =>
    dids.get(requestContext(request), request.params.did),
  );

  app.delete(
    '/v1/dids/:did',
    { config, schema: { tags, summary: 'Delete a DID', params: DidParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await dids.delete(requestContext(request), request.params.did);
      return reply.code(204).send();
    },
  );
};
