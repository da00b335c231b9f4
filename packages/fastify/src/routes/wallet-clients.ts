import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { ErrorBodySchema, NoContent } from '../schemas/common.ts';
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

const tags = ['Wallet clients'];

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema };
const config = { permission: 'issuance-setup' } as const;

/** docs/wallet-clients.md: the tenant's wallet (OAuth) clients; a secret Vellum makes is in one answer only (docs/wallet-clients.md). */
export const walletClientRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const clients = services.walletClients;

  app.post(
    '/v1/openid/clients',
    { config, schema: { tags, summary: 'Create a wallet client', body: WalletClientBody, response: { 201: WalletClientWithSecretResponse, ...errors } } },
    async (request, reply) => {
      const created = await clients.create(requestContext(request), request.body);
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );

  app.get(
    '/v1/openid/clients',
    { config, schema: { tags, summary: 'List wallet clients', querystring: WalletClientListQuery, response: { 200: WalletClientsPage, ...errors } } },
    async (request) => clients.list(requestContext(request), request.query),
  );

  app.get(
    '/v1/openid/clients/:clientId',
    { config, schema: { tags, summary: 'Get a wallet client', params: WalletClientParams, response: { 200: WalletClientResponse, ...errors } } },
    async (request) => clients.get(requestContext(request), request.params.clientId),
  );

  app.put(
    '/v1/openid/clients/:clientId',
    {
      config,
      schema: {
        tags,
        summary: 'Replace a wallet client',
        params: WalletClientParams,
        body: WalletClientBody,
        response: { 200: WalletClientWithSecretResponse, ...errors },
      },
    },
    async (request, reply) => {
      const updated = await clients.update(requestContext(request), request.params.clientId, request.body);
      return reply.header('cache-control', 'no-store').send(updated);
    },
  );

  app.delete(
    '/v1/openid/clients/:clientId',
    { config, schema: { tags, summary: 'Delete a wallet client', params: WalletClientParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await clients.delete(requestContext(request), request.params.clientId);
      return reply.code(204).send();
    },
  );

  app.post(
    '/v1/openid/clients/:clientId/rotate-secret',
    {
      config,
      schema: { tags, summary: 'Rotate a wallet client’s secret', params: WalletClientParams, response: { 200: WalletClientRotatedResponse, ...errors } },
    },
    async (request, reply) => {
      const rotated = await clients.rotateSecret(requestContext(request), request.params.clientId);
      return reply.header('cache-control', 'no-store').send(rotated);
    },
  );
};
