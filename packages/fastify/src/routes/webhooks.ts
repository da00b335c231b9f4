import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { ErrorBodySchema, NoContent } from '../schemas/common.ts';
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

const tags = ['Webhooks'];

const errors = { 400: ErrorBodySchema, 403: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema };
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
    { config, schema: { tags, summary: 'Rotate the webhook signing key', response: { 200: RotatedJwksResponse, ...errors } } },
    async (request) => webhooks.rotateSigningKey(requestContext(request)),
  );

  app.post(
    '/v1/webhooks',
    { config, schema: { tags, summary: 'Create a webhook', body: WebhookBody, response: { 201: WebhookResponse, ...errors } } },
    async (request, reply) => reply.code(201).send(await webhooks.create(requestContext(request), request.body)),
  );

  app.get(
    '/v1/webhooks',
    { config, schema: { tags, summary: 'List webhooks', querystring: WebhookListQuery, response: { 200: WebhooksPage, ...errors } } },
    async (request) => webhooks.list(requestContext(request), request.query),
  );

  app.get(
    '/v1/webhooks/:id',
    { config, schema: { tags, summary: 'Get a webhook', params: WebhookParams, response: { 200: WebhookResponse, ...errors } } },
    async (request) => webhooks.get(requestContext(request), request.params.id),
  );

  app.put(
    '/v1/webhooks/:id',
    { config, schema: { tags, summary: 'Replace a webhook', params: WebhookParams, body: WebhookBody, response: { 200: WebhookResponse, ...errors } } },
    async (request) => webhooks.update(requestContext(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/webhooks/:id',
    { config, schema: { tags, summary: 'Delete a webhook', params: WebhookParams, response: { 204: NoContent, ...errors } } },
    async (request, reply) => {
      await webhooks.delete(requestContext(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config,
      schema: {
        tags,
        summary: 'List a webhook’s deliveries',
        params: WebhookParams,
        querystring: WebhookListQuery,
        response: { 200: DeliveriesPage, ...errors },
      },
    },
    async (request) => webhooks.listDeliveries(requestContext(request), request.params.id, request.query),
  );

  app.post(
    '/v1/webhooks/:id/deliveries/:deliveryId/retry',
    { config, schema: { tags, summary: 'Retry a delivery', params: DeliveryParams, response: { 202: DeliveryResponse, ...errors } } },
    async (request, reply) => reply.code(202).send(await webhooks.retryDelivery(requestContext(request), request.params.id, request.params.deliveryId)),
  );
};
