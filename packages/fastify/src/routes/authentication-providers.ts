import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ProviderBody, ProviderListQuery, ProviderParams, ProviderResponse, ProvidersPage } from '../schemas/authentication.ts';
import type { VellumServices } from '../services.ts';
import { resourceRoutes } from './resource.ts';

/**
 * docs/authentication.md: the tenant's one OpenID Connect provider. Under a prefix, the redirect URL it shows
 * carries the prefix. Static paths, so they win over `/v1/users/:id`.
 */
export const authenticationProviderRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const providers = services.authenticationProviders;
  const basePath = app.prefix;

  resourceRoutes(app, {
    path: '/v1/users/authentication-providers',
    params: ProviderParams,
    tags: ['Authentication providers'],
    config: { permission: 'issuance-setup' },
    create: {
      summary: 'Create the OpenID Connect provider',
      body: ProviderBody,
      response: ProviderResponse,
      run: (ctx, body) => providers.create(ctx, body, basePath),
    },
    list: {
      summary: 'List authentication providers',
      querystring: ProviderListQuery,
      response: ProvidersPage,
      run: (ctx, query) => providers.list(ctx, query, basePath),
    },
    get: { summary: 'Get an authentication provider', response: ProviderResponse, run: (ctx, id) => providers.get(ctx, id, basePath) },
    replace: {
      summary: 'Replace an authentication provider',
      body: ProviderBody,
      response: ProviderResponse,
      run: (ctx, id, body) => providers.update(ctx, id, body, basePath),
    },
    delete: { summary: 'Delete an authentication provider', run: (ctx, id) => providers.delete(ctx, id) },
  });
};
