import type { Static } from '@sinclair/typebox';
import { ProviderBody, ProviderListQuery, ProviderParams, ProviderResponse, ProvidersPage } from '../schemas/authentication.ts';
import { resourcePlugin } from './resource.ts';

/**
 * docs/authentication.md: the tenant's one OpenID Connect provider. Under a prefix, the redirect URL it shows
 * carries the prefix. Static paths, so they win over `/v1/users/:id`.
 */
export const authenticationProviderRoutes = resourcePlugin(({ authenticationProviders: providers }, { prefix: basePath }) => ({
  path: '/v1/users/authentication-providers',
  params: ProviderParams,
  tags: ['Authentication providers'],
  config: { permission: 'issuance-setup' },
  service: providers,
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
    run: (ctx, query: Static<typeof ProviderListQuery>) => providers.list(ctx, query, basePath),
  },
  get: { summary: 'Get an authentication provider', response: ProviderResponse, run: (ctx, id) => providers.get(ctx, id, basePath) },
  replace: {
    summary: 'Replace an authentication provider',
    body: ProviderBody,
    response: ProviderResponse,
    run: (ctx, id, body) => providers.update(ctx, id, body, basePath),
  },
  delete: { summary: 'Delete an authentication provider' },
}));
