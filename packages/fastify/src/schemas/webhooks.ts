import { Type } from '@sinclair/typebox';
import { PageQuery, PageSchema } from './common.ts';

/** docs/decisions.md "Webhooks": create and replace body, the core's own schema (one validation path). */
export { WebhookBody } from '@vellum/core/schemas';

/** docs/decisions.md "Webhooks": the webhook as returned. */
export const WebhookResponse = Type.Object({
  id: Type.String(),
  events: Type.Array(Type.String()),
  url: Type.String(),
  disabled: Type.Boolean(),
});

export const WebhooksPage = PageSchema(WebhookResponse);

export const WebhookParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const DeliveryParams = Type.Object({ id: Type.String({ maxLength: 64 }), deliveryId: Type.String({ maxLength: 64 }) });
export const WebhookListQuery = PageQuery;

/** docs/decisions.md "Webhooks": one try at sending. */
const AttemptSchema = Type.Object({
  at: Type.String(),
  statusCode: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
  durationMs: Type.Integer(),
});

/** docs/decisions.md "Webhooks": a delivery in the log. */
export const DeliveryResponse = Type.Object({
  id: Type.String(),
  webhookId: Type.String(),
  eventId: Type.String(),
  eventType: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempts: Type.Array(AttemptSchema),
  nextAttemptAt: Type.Optional(Type.String()),
  createdAt: Type.String(),
});

export const DeliveriesPage = PageSchema(DeliveryResponse);

const JwkSchema = Type.Object({
  kty: Type.Literal('OKP'),
  crv: Type.Literal('Ed25519'),
  x: Type.String(),
  kid: Type.String(),
  alg: Type.String(),
  use: Type.String(),
});

/** The public keys that sign deliveries (RFC 7517 JWK Set). */
export const JwksResponse = Type.Object({ keys: Type.Array(JwkSchema) });

export const RotatedJwksResponse = Type.Object({ activeKid: Type.String(), retiredKid: Type.String(), keys: Type.Array(JwkSchema) });
