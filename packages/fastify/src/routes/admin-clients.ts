import type { Static } from '@sinclair/typebox';
import type { CreatedClient } from '@vellum/core';
import {
  AdminClientBody,
  AdminClientListQuery,
  AdminClientParams,
  AdminClientResponse,
  AdminClientsPage,
  AdminClientWithSecretResponse,
} from '../schemas/admin-clients.ts';
import { resourcePlugin } from './resource.ts';

/** The one answer that carries a secret: flat, like `vellum clients create` prints it. */
const withSecret = (created: CreatedClient) => ({ ...created.client, clientSecret: created.clientSecret });

/** The tenant's admin clients, for its admins (docs/limits.md, Admin clients). */
export const adminClientRoutes = resourcePlugin(({ adminClients: clients }) => ({
  path: '/v1/admin-clients',
  params: AdminClientParams,
  tags: ['Admin clients'],
  config: { permission: 'admin-clients' },
  service: clients,
  create: {
    summary: 'Create an admin client',
    body: AdminClientBody,
    response: AdminClientWithSecretResponse,
    noStore: true,
    run: async (ctx, body: Static<typeof AdminClientBody>) => withSecret(await clients.create(ctx, body)),
  },
  list: { summary: 'List admin clients', querystring: AdminClientListQuery, response: AdminClientsPage },
  actions: {
    'rotate-secret': {
      summary: 'Rotate an admin client’s secret',
      response: AdminClientWithSecretResponse,
      noStore: true,
      run: async (ctx, id) => withSecret(await clients.rotateSecret(ctx, id)),
    },
    revoke: { summary: 'Revoke an admin client', response: AdminClientResponse, run: (ctx, id) => clients.revoke(ctx, id) },
  },
}));
