import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { ErrorBodySchema } from '../schemas/common.ts';
import { OpenIdConfigurationBody, OpenIdConfigurationResponse } from '../schemas/authentication.ts';
import type { VellumServices } from '../services.ts';

const tags = ['OpenID settings'];

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 503: ErrorBodySchema };
const config = { permission: 'issuance-setup' } as const;

/** docs/authentication.md: the tenant's OpenID settings, the interaction hook and its secret. */
export const openIdConfigurationRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const settings = services.openIdSettings;

  // The answer carries the hook's secret: never cached.
  app.get(
    '/v1/openid/configuration',
    { config, schema: { tags, summary: 'Get the OpenID settings', response: { 200: OpenIdConfigurationResponse, ...errors } } },
    async (request, reply) => reply.header('cache-control', 'no-store').send(await settings.get(requestContext(request))),
  );

  app.put(
    '/v1/openid/configuration',
    {
      config,
      schema: { tags, summary: 'Update the OpenID settings', body: OpenIdConfigurationBody, response: { 200: OpenIdConfigurationResponse, ...errors } },
    },
    async (request, reply) => reply.header('cache-control', 'no-store').send(await settings.update(requestContext(request), request.body)),
  );
};
