import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { ClaimSourceBody, ClaimSourceListQuery, ClaimSourceParams, ClaimSourceResponse, ClaimSourcesPage } from '../schemas/claim-sources.ts';
import { ErrorBodySchema, NoContent } from '../schemas/common.ts';
import type { VellumServices } from '../services.ts';

const tags = ['Claim sources'];

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema };
const config = { permission: 'issuance-setup' } as const;

/** docs/authentication.md: the issuer's APIs Vellum asks for a user's claims at issuance. */
export const claimSourceRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const sources = services.claimSources;

  app.post(
    '/v1/claim-sources',
    { config, schema: { tags, summary: 'Create a claim source', body: ClaimSourceBody, response: { 201: ClaimSourceResponse, ...errors } } },
    async (request, reply) => reply.code(201).send(await sources.create(requestContext(request), request.body)),
  );

  app.get(
    '/v1/claim-sources',
    { config, schema: { tags, summary: 'List claim sources', querystring: ClaimSourceListQuery, response: { 200: ClaimSourcesPage, ...errors } } },
    async (request) => sources.list(requestContext(request), request.query),
  );

  app.get(
    '/v1/claim-sources/:id',
    { config, schema: { tags, summary: 'Get a claim source', params: ClaimSourceParams, response: { 200: ClaimSourceResponse, ...errors } } },
    async (request) => sources.get(requestContext(request), request.params.id),
  );

  app.put(
    '/v1/claim-sources/:id',
    {
      config,
      schema: { tags, summary: 'Replace a claim source', params: ClaimSourceParams, body: ClaimSourceBody, response: { 200: ClaimSourceResponse, ...errors } },
    },
    async (request) => sources.update(requestContext(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/claim-sources/:id',
    { config, schema: { tags, summary: 'Delete a claim source', params: ClaimSourceParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await sources.delete(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );
};
