import { WalletProviderBody, WalletProviderListQuery, WalletProviderParams, WalletProviderResponse, WalletProvidersPage } from '../schemas/wallet-providers.ts';
import { resourcePlugin } from './resource.ts';

/** docs/dpop-and-attestation.md "Trusted wallet providers": the wallet providers whose attestations the tenant trusts. */
export const walletProviderRoutes = resourcePlugin(({ walletProviders }) => ({
  path: '/v1/openid/wallet-providers',
  params: WalletProviderParams,
  tags: ['Wallet providers'],
  config: { permission: 'issuance-setup' },
  service: walletProviders,
  create: { summary: 'Trust a wallet provider', body: WalletProviderBody, response: WalletProviderResponse },
  list: { summary: 'List trusted wallet providers', querystring: WalletProviderListQuery, response: WalletProvidersPage },
  get: { summary: 'Get a trusted wallet provider', response: WalletProviderResponse },
  replace: { summary: 'Replace a trusted wallet provider', body: WalletProviderBody, response: WalletProviderResponse },
  delete: { summary: 'Stop trusting a wallet provider' },
}));
