import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  WalletClientBody,
  WalletClientListQuery,
  WalletClientParams,
  WalletClientResponse,
  WalletClientRotatedResponse,
  WalletClientsPage,
  WalletClientWithSecretResponse,
} from '../schemas/wallet-clients.ts';
import type { VellumServices } from '../services.ts';
import { resourceRoutes } from './resource.ts';

/** docs/wallet-clients.md: the tenant's wallet (OAuth) clients; a secret Vellum makes is in one answer only (docs/wallet-clients.md). */
export const walletClientRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const clients = services.walletClients;

  resourceRoutes(app, {
    path: '/v1/openid/clients',
    params: WalletClientParams,
    tags: ['Wallet clients'],
    config: { permission: 'issuance-setup' },
    create: {
      summary: 'Create a wallet client',
      body: WalletClientBody,
      response: WalletClientWithSecretResponse,
      noStore: true,
      run: (ctx, body) => clients.create(ctx, body),
    },
    list: { summary: 'List wallet clients', querystring: WalletClientListQuery, response: WalletClientsPage, run: (ctx, query) => clients.list(ctx, query) },
    get: { summary: 'Get a wallet client', response: WalletClientResponse, run: (ctx, id) => clients.get(ctx, id) },
    replace: {
      summary: 'Replace a wallet client',
      body: WalletClientBody,
      response: WalletClientWithSecretResponse,
      noStore: true,
      run: (ctx, id, body) => clients.update(ctx, id, body),
    },
    delete: { summary: 'Delete a wallet client', run: (ctx, id) => clients.delete(ctx, id) },
    actions: {
      'rotate-secret': {
        summary: 'Rotate a wallet client’s secret',
        response: WalletClientRotatedResponse,
        noStore: true,
        run: (ctx, id) => clients.rotateSecret(ctx, id),
      },
    },
  });
};
