import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { ErrorBodySchema, NoContent } from '../schemas/common.ts';
import { ProviderBody, ProviderListQuery, ProviderParams, ProviderResponse, ProvidersPage } from '../schemas/authentication.ts';
import type { VellumServices } from '../services.ts';

const tags = ['Authentication providers'];

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema };
const config = { permission: 'issuance-setup' } as const;

/**
 * docs/authentication.md: the tenant's one OpenID Connect provider. Under a prefix, the redirect URL it shows
 * carries the prefix. Static paths, so they win over `/v1/users/:id`.
 */
export const authenticationProviderRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const providers = services.authenticationProviders;
  const basePath = app.prefix;

  app.post(
    '/v1/users/authentication-providers',
    { config, schema: { tags, summary: 'Create the OpenID Connect provider', body: ProviderBody, response: { 201: ProviderResponse, ...errors } } },
    async (request, reply) => reply.code(201).send(await providers.create(requestContext(request), request.body, basePath)),
  );

  app.get(
    '/v1/users/authentication-providers',
    { config, schema: { tags, summary: 'List authentication providers', querystring: ProviderListQuery, response: { 200: ProvidersPage, ...errors } } },
    async (request) => providers.list(requestContext(request), request.query, basePath),
  );

  app.get(
    '/v1/users/authentication-providers/:id',
    { config, schema: { tags, summary: 'Get an authentication provider', params: ProviderParams, response: { 200: ProviderResponse, ...errors } } },
    async (request) => providers.get(requestContext(request), request.params.id, basePath),
  );

  app.put(
    '/v1/users/authentication-providers/:id',
    {
      config,
      schema: {
        tags,
        summary: 'Replace an authentication provider',
        params: ProviderParams,
        body: ProviderBody,
        response: { 200: ProviderResponse, ...errors },
      },
    },
    async (request) => providers.update(requestContext(request), request.params.id, request.body, basePath),
  );

  app.delete(
    '/v1/users/authentication-providers/:id',
    { config, schema: { tags, summary: 'Delete an authentication provider', params: ProviderParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await providers.delete(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );
};
