import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CreatedClient } from '@vellum/core';
import {
  AdminClientBody,
  AdminClientListQuery,
  AdminClientParams,
  AdminClientResponse,
  AdminClientsPage,
  AdminClientWithSecretResponse,
} from '../schemas/admin-clients.ts';
import type { VellumServices } from '../services.ts';
import { resourceRoutes } from './resource.ts';

/** The one answer that carries a secret: flat, like `vellum clients create` prints it. */
const withSecret = (created: CreatedClient) => ({ ...created.client, clientSecret: created.clientSecret });

/** The tenant's admin clients, for its admins (docs/limits.md, Admin clients). */
export const adminClientRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const clients = services.adminClients;

  resourceRoutes(app, {
    path: '/v1/admin-clients',
    params: AdminClientParams,
    tags: ['Admin clients'],
    config: { permission: 'admin-clients' },
    create: {
      summary: 'Create an admin client',
      body: AdminClientBody,
      response: AdminClientWithSecretResponse,
      noStore: true,
      run: async (ctx, body) => withSecret(await clients.create(ctx, body)),
    },
    list: { summary: 'List admin clients', querystring: AdminClientListQuery, response: AdminClientsPage, run: (ctx, query) => clients.list(ctx, query) },
    actions: {
      'rotate-secret': {
        summary: 'Rotate an admin client’s secret',
        response: AdminClientWithSecretResponse,
        noStore: true,
        run: async (ctx, id) => withSecret(await clients.rotateSecret(ctx, id)),
      },
      revoke: { summary: 'Revoke an admin client', response: AdminClientResponse, run: (ctx, id) => clients.revoke(ctx, id) },
    },
  });
};
