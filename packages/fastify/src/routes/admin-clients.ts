import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CreatedClient } from '@vellum/core';
import { requestContext } from '../context.ts';
import {
  AdminClientBody,
  AdminClientListQuery,
  AdminClientParams,
  AdminClientResponse,
  AdminClientsPage,
  AdminClientWithSecretResponse,
} from '../schemas/admin-clients.ts';
import { ErrorBodySchema } from '../schemas/common.ts';
import type { VellumServices } from '../services.ts';

const tags = ['Admin clients'];

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema };
const config = { permission: 'admin-clients' } as const;
/** The one answer that carries a secret: flat, like `vellum clients create` prints it. */
const withSecret = (created: CreatedClient) => ({ ...created.client, clientSecret: created.clientSecret });

/** The tenant's admin clients, for its admins (docs/limits.md, Admin clients). */
export const adminClientRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const clients = services.adminClients;

  app.get(
    '/v1/admin-clients',
    { config, schema: { tags, summary: 'List admin clients', querystring: AdminClientListQuery, response: { 200: AdminClientsPage, ...errors } } },
    async (request) => clients.list(requestContext(request), request.query),
  );

  app.post(
    '/v1/admin-clients',
    { config, schema: { tags, summary: 'Create an admin client', body: AdminClientBody, response: { 201: AdminClientWithSecretResponse, ...errors } } },
    async (request, reply) => {
      const created = await clients.create(requestContext(request), request.body);
      return reply.code(201).header('cache-control', 'no-store').send(withSecret(created));
    },
  );

  app.post(
    '/v1/admin-clients/:clientId/rotate-secret',
    {
      config,
      schema: { tags, summary: 'Rotate an admin client’s secret', params: AdminClientParams, response: { 200: AdminClientWithSecretResponse, ...errors } },
    },
    async (request, reply) => {
      const rotated = await clients.rotateSecret(requestContext(request), request.params.clientId);
      return reply.header('cache-control', 'no-store').send(withSecret(rotated));
    },
  );

  app.post(
    '/v1/admin-clients/:clientId/revoke',
    { config, schema: { tags, summary: 'Revoke an admin client', params: AdminClientParams, response: { 200: AdminClientResponse, ...errors } } },
    async (request) => clients.revoke(requestContext(request), request.params.clientId),
  );
};
