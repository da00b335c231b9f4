import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { REFERENCED_LIST_FORMS, REFERENCED_LIST_PATHS, REVOCATION_PROFILES, type RevocationProfile } from '@vellum/core';
import { requestContext } from '../context.ts';
import { ErrorBodySchema, NoContent } from '../schemas/common.ts';
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

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema };
const manage = { permission: 'iacas:manage' } as const;
const credentials = { permission: 'credentials' } as const;
const CONFIGURATIONS = '/v2/credentials/mobile/status-lists/configurations';

/**
 * API.md §12: mDoc status list settings per docType, the status of an issued mDoc, and the public
 * distribution and token endpoints verifiers read (specification 4.11, 9.5). The deprecated
 * authenticated list endpoints are not served.
 */
export const statusListRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const { statusLists } = services;
  const basePath = app.prefix;

  app.post(CONFIGURATIONS, { config: manage, schema: { body: StatusListConfigurationBody, response: { 201: StatusListConfigurationResponse, ...errors } } }, async (request, reply) =>
    reply.code(201).send(await statusLists.createConfiguration(requestContext(request), request.body)),
  );
  app.get(CONFIGURATIONS, { config: manage, schema: { response: { 200: StatusListConfigurationsPage, ...errors } } }, async (request) => statusLists.listConfigurations(requestContext(request)));
  app.get(`${CONFIGURATIONS}/:id`, { config: manage, schema: { params: IdParams, response: { 200: StatusListConfigurationResponse, ...errors } } }, async (request) =>
    statusLists.getConfiguration(requestContext(request), request.params.id),
  );
  app.put(`${CONFIGURATIONS}/:id`, { config: manage, schema: { params: IdParams, body: StatusListConfigurationBody, response: { 200: StatusListConfigurationResponse, ...errors } } }, async (request) =>
    statusLists.updateConfiguration(requestContext(request), request.params.id, request.body),
  );
  app.delete(`${CONFIGURATIONS}/:id`, { config: manage, schema: { params: IdParams, response: { 204: NoContent, ...errors } } }, async (request, reply) => {
    await statusLists.deleteConfiguration(requestContext(request), request.params.id);
    return reply.code(204).send();
  });

  app.get('/v2/credentials/mobile/:credentialId/status', { config: credentials, schema: { params: CredentialIdParams, response: { 200: CredentialStatusResponse, ...errors } } }, async (request) =>
    statusLists.getStatus(requestContext(request), request.params.credentialId),
  );
  app.post('/v2/credentials/mobile/:credentialId/status', { config: credentials, schema: { params: CredentialIdParams, body: CredentialStatusBody, response: { 200: CredentialStatusResponse, ...errors } } }, async (request) =>
    statusLists.setStatus(requestContext(request), request.params.credentialId, request.body),
  );

  // Public and read often by verifiers: logged at warn, like the other public endpoints.
  app.get('/v2/credentials/mobile/status-lists/distribution', { logLevel: 'warn', schema: { querystring: DistributionQuery, response: { 200: DistributionResponse, ...errors } } }, async (request, reply) =>
    reply.header('access-control-allow-origin', '*').send(await statusLists.distribution(requestContext(request), request.query, basePath)),
  );
  // The other formats (API.md §12): revocation by credential id, and the public lists their credentials name.
  for (const profile of Object.keys(REVOCATION_PROFILES) as RevocationProfile[]) {
    const path = `/v2/credentials/${profile}/:id/revocation-status`;
    app.get(path, { config: credentials, schema: { params: CredentialParams, response: { 200: RevocationResponse, ...errors } } }, async (request) =>
      statusLists.getRevocation(requestContext(request), profile, request.params.id),
    );
    app.post(path, { config: credentials, schema: { params: CredentialParams, body: RevocationBody, response: { 200: RevocationResponse, ...errors } } }, async (request) =>
      statusLists.setRevocation(requestContext(request), profile, request.params.id, request.body),
    );
  }
  for (const form of REFERENCED_LIST_FORMS) {
    app.get(REFERENCED_LIST_PATHS[form](':listId'), { logLevel: 'warn', schema: { params: ListParams } }, async (request, reply) =>
      sendList(reply, await statusLists.referencedList(requestContext(request), form, request.params.listId, basePath)),
    );
  }

  app.get('/v2/credentials/mobile/status-lists/:statusListId/token', { logLevel: 'warn', schema: { params: StatusListIdParams } }, async (request, reply) =>
    sendList(reply, await statusLists.token(requestContext(request), request.params.statusListId, basePath)),
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
