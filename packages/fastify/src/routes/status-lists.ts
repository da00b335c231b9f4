import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import {
  REFERENCED_LIST_FORMS,
  REFERENCED_LIST_MEDIA_TYPES,
  REFERENCED_LIST_PATHS,
  REVOCATION_PROFILES,
  type RevocationProfile,
  STATUS_LIST_MEDIA_TYPES,
} from '@vellum/core';
import { requestContext } from '../context.ts';
import { IdParams } from '../schemas/mdoc-pki.ts';
import {
  CredentialIdParams,
  CredentialParams,
  ListParams,
  RevocationBody,
  RevocationResponse,
  CredentialStatusBody,
  CredentialStatusResponse,
  DistributionQuery,
  DistributionResponse,
  StatusListConfigurationBody,
  StatusListConfigurationResponse,
  StatusListConfigurationsPage,
  StatusListIdParams,
} from '../schemas/status-lists.ts';
import type { VellumServices } from '../services.ts';
import { adminErrors, resourceRoutes } from './resource.ts';
import { StatusListToken } from '../schemas/documented.ts';

const tags = ['Status lists'];

const manage = { permission: 'iacas:manage' } as const;
const credentials = { permission: 'credentials' } as const;
const CONFIGURATIONS = '/v2/credentials/mobile/status-lists/configurations';

/**
 * docs/status-lists.md: mDoc status list settings per docType, the status of an issued mDoc, and the public
 * distribution and token endpoints verifiers read (docs/status-lists.md). The deprecated
 * authenticated list endpoints are not served.
 */
export const statusListRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const { statusLists } = services;
  const basePath = app.prefix;

  resourceRoutes(app, {
    path: CONFIGURATIONS,
    params: IdParams,
    tags,
    config: manage,
    create: {
      summary: 'Create an mDoc status list configuration',
      body: StatusListConfigurationBody,
      response: StatusListConfigurationResponse,
      run: (ctx, body) => statusLists.createConfiguration(ctx, body),
    },
    list: { summary: 'List mDoc status list configurations', response: StatusListConfigurationsPage, run: (ctx) => statusLists.listConfigurations(ctx) },
    get: {
      summary: 'Get an mDoc status list configuration',
      response: StatusListConfigurationResponse,
      run: (ctx, id) => statusLists.getConfiguration(ctx, id),
    },
    replace: {
      summary: 'Replace an mDoc status list configuration',
      body: StatusListConfigurationBody,
      response: StatusListConfigurationResponse,
      run: (ctx, id, body) => statusLists.updateConfiguration(ctx, id, body),
    },
    delete: { summary: 'Delete an mDoc status list configuration', run: (ctx, id) => statusLists.deleteConfiguration(ctx, id) },
  });

  app.get(
    '/v2/credentials/mobile/:credentialId/status',
    {
      config: credentials,
      schema: { tags, summary: 'Get an mDoc’s status', params: CredentialIdParams, response: { 200: CredentialStatusResponse, ...adminErrors } },
    },
    async (request) => statusLists.getStatus(requestContext(request), request.params.credentialId),
  );
  app.post(
    '/v2/credentials/mobile/:credentialId/status',
    {
      config: credentials,
      schema: {
        tags,
        summary: 'Set an mDoc’s status',
        params: CredentialIdParams,
        body: CredentialStatusBody,
        response: { 200: CredentialStatusResponse, ...adminErrors },
      },
    },
    async (request) => statusLists.setStatus(requestContext(request), request.params.credentialId, request.body),
  );

  // Public and read often by verifiers: logged at warn, like the other public endpoints.
  app.get(
    '/v2/credentials/mobile/status-lists/distribution',
    {
      logLevel: 'warn',
      schema: { tags, summary: 'Status list distribution (public)', querystring: DistributionQuery, response: { 200: DistributionResponse, ...adminErrors } },
    },
    async (request, reply) =>
      reply.header('access-control-allow-origin', '*').send(await statusLists.distribution(requestContext(request), request.query, basePath)),
  );
  // The other formats (docs/status-lists.md): revocation by credential id, and the public lists their credentials name.
  for (const profile of Object.keys(REVOCATION_PROFILES) as RevocationProfile[]) {
    const path = `/v2/credentials/${profile}/:id/revocation-status`;
    app.get(
      path,
      {
        config: credentials,
        schema: {
          tags,
          summary: `Get a ${profile} credential’s revocation status`,
          params: CredentialParams,
          response: { 200: RevocationResponse, ...adminErrors },
        },
      },
      async (request) => statusLists.getRevocation(requestContext(request), profile, request.params.id),
    );
    app.post(
      path,
      {
        config: credentials,
        schema: {
          tags,
          summary: `Set a ${profile} credential’s revocation status`,
          params: CredentialParams,
          body: RevocationBody,
          response: { 200: RevocationResponse, ...adminErrors },
        },
      },
      async (request) => statusLists.setRevocation(requestContext(request), profile, request.params.id, request.body),
    );
  }
  for (const form of REFERENCED_LIST_FORMS) {
    app.get(
      REFERENCED_LIST_PATHS[form](':listId'),
      {
        logLevel: 'warn',
        schema: {
          tags,
          summary: `Referenced status list (${form}, public)`,
          documentOnly: {
            responses: {
              200: { description: 'The signed list, cacheable for its time to live.', content: { [REFERENCED_LIST_MEDIA_TYPES[form]]: StatusListToken } },
            },
          },
          params: ListParams,
        },
      },
      async (request, reply) => sendList(reply, await statusLists.referencedList(requestContext(request), form, request.params.listId, basePath)),
    );
  }

  app.get(
    '/v2/credentials/mobile/status-lists/:statusListId/token',
    {
      logLevel: 'warn',
      schema: {
        tags,
        summary: 'mDoc status list token (public)',
        documentOnly: {
          responses: {
            200: {
              description: 'The signed list in the configuration’s format, cacheable for its time to live.',
              content: Object.fromEntries(Object.values(STATUS_LIST_MEDIA_TYPES).map((type) => [type, StatusListToken])),
            },
          },
        },
        params: StatusListIdParams,
      },
    },
    async (request, reply) => sendList(reply, await statusLists.token(requestContext(request), request.params.statusListId, basePath)),
  );
};

/** A signed list for anyone to read, cacheable for its ttl. */
function sendList(reply: FastifyReply, list: { mediaType: string; body: Uint8Array; maxAgeSeconds: number }) {
  return reply
    .header('access-control-allow-origin', '*')
    .header('cache-control', `public, max-age=${list.maxAgeSeconds}`)
    .type(list.mediaType)
    .send(Buffer.from(list.body.buffer, list.body.byteOffset, list.body.byteLength));
}
