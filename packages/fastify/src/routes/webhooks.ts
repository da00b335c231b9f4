import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { ErrorBodySchema } from '../schemas/common.ts';
import {
  DeliveriesPage,
  DeliveryParams,
  DeliveryResponse,
  JwksResponse,
  RotatedJwksResponse,
  WebhookBody,
  WebhookListQuery,
  WebhookParams,
  WebhookResponse,
  WebhooksPage,
} from '../schemas/webhooks.ts';
import type { VellumServices } from '../services.ts';
import { adminErrors, resourceRoutes } from './resource.ts';

const tags = ['Webhooks'];

const config = { permission: 'webhooks' } as const;

/** docs/decisions.md "Webhooks": webhooks, their delivery log and the public signing keys. */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  const webhooks = services.webhooks;

  // Public (tenant by Host): the keys receivers verify deliveries with. Static, so it wins over /:id.
  app.get(
    '/v1/webhooks/jwks',
    { logLevel: 'warn', schema: { tags, summary: 'Public keys of the webhook signatures', response: { 200: JwksResponse, 404: ErrorBodySchema } } },
    async (request, reply) => {
      reply.header('cache-control', 'public, max-age=60').header('access-control-allow-origin', '*');
      return webhooks.jwks(requestContext(request));
    },
  );

  // Makes a new signing key; the old one stays in the JWKS until its last pending delivery is done.
  app.post(
    '/v1/webhooks/jwks/rotate',
    { config, schema: { tags, summary: 'Rotate the webhook signing key', response: { 200: RotatedJwksResponse, ...adminErrors } } },
    async (request) => webhooks.rotateSigningKey(requestContext(request)),
  );

  resourceRoutes(app, {
    path: '/v1/webhooks',
    params: WebhookParams,
    tags,
    config,
    service: webhooks,
    create: { summary: 'Create a webhook', body: WebhookBody, response: WebhookResponse },
    list: { summary: 'List webhooks', querystring: WebhookListQuery, response: WebhooksPage },
    get: { summary: 'Get a webhook', response: WebhookResponse },
    replace: { summary: 'Replace a webhook', body: WebhookBody, response: WebhookResponse },
    delete: { summary: 'Delete a webhook' },
  });

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config,
      schema: {
        tags,
        summary: 'List a webhook’s deliveries',
        params: WebhookParams,
        querystring: WebhookListQuery,
        response: { 200: DeliveriesPage, ...adminErrors },
      },
    },
    async (request) => webhooks.listDeliveries(requestContext(request), request.params.id, request.query),
  );

  app.post(
    '/v1/webhooks/:id/deliveries/:deliveryId/retry',
    { config, schema: { tags, summary: 'Retry a delivery', params: DeliveryParams, response: { 202: DeliveryResponse, ...adminErrors } } },
    async (request, reply) => reply.code(202).send(await webhooks.retryDelivery(requestContext(request), request.params.id, request.params.deliveryId)),
  );
};
