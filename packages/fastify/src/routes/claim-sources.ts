import { ClaimSourceBody, ClaimSourceListQuery, ClaimSourceParams, ClaimSourceResponse, ClaimSourcesPage } from '../schemas/claim-sources.ts';
import { resourcePlugin } from './resource.ts';

/** docs/authentication.md: the issuer's APIs Vellum asks for a user's claims at issuance. */
export const claimSourceRoutes = resourcePlugin((services) => ({
  path: '/v1/claim-sources',
  params: ClaimSourceParams,
  tags: ['Claim sources'],
  config: { permission: 'issuance-setup' },
  service: services.claimSources,
  create: { summary: 'Create a claim source', body: ClaimSourceBody, response: ClaimSourceResponse },
  list: { summary: 'List claim sources', querystring: ClaimSourceListQuery, response: ClaimSourcesPage },
  get: { summary: 'Get a claim source', response: ClaimSourceResponse },
  replace: { summary: 'Replace a claim source', body: ClaimSourceBody, response: ClaimSourceResponse },
  delete: { summary: 'Delete a claim source' },
}));
