import {
  WalletClientBody,
  WalletClientListQuery,
  WalletClientParams,
  WalletClientResponse,
  WalletClientRotatedResponse,
  WalletClientsPage,
  WalletClientWithSecretResponse,
} from '../schemas/wallet-clients.ts';
import { resourcePlugin } from './resource.ts';

/** docs/wallet-clients.md: the tenant's wallet (OAuth) clients; a secret Vellum makes is in one answer only (docs/wallet-clients.md). */
export const walletClientRoutes = resourcePlugin(({ walletClients: clients }) => ({
  path: '/v1/openid/clients',
  params: WalletClientParams,
  tags: ['Wallet clients'],
  config: { permission: 'issuance-setup' },
  service: clients,
  create: { summary: 'Create a wallet client', body: WalletClientBody, response: WalletClientWithSecretResponse, noStore: true },
  list: { summary: 'List wallet clients', querystring: WalletClientListQuery, response: WalletClientsPage },
  get: { summary: 'Get a wallet client', response: WalletClientResponse },
  replace: { summary: 'Replace a wallet client', body: WalletClientBody, response: WalletClientWithSecretResponse, noStore: true },
  delete: { summary: 'Delete a wallet client' },
  actions: {
    'rotate-secret': {
      summary: 'Rotate a wallet client’s secret',
      response: WalletClientRotatedResponse,
      noStore: true,
      run: (ctx, id) => clients.rotateSecret(ctx, id),
    },
  },
}));
