import { CreateDidBody, CreatedDidResponse, DidListQuery, DidParams, DidResponse, DidsPage } from '../schemas/dids.ts';
import { resourcePlugin } from './resource.ts';

/** docs/decisions.md "DIDs": the tenant's DIDs. The DID in the path arrives URL-decoded by the router. */
export const didRoutes = resourcePlugin((services) => ({
  path: '/v1/dids',
  params: DidParams,
  tags: ['DIDs'],
  config: { permission: 'dids' },
  service: services.dids,
  create: { summary: 'Create a DID', body: CreateDidBody, response: CreatedDidResponse },
  list: { summary: 'List DIDs', querystring: DidListQuery, response: DidsPage },
  get: { summary: 'Get a DID', response: DidResponse },
  delete: { summary: 'Delete a DID' },
}));
