import { Type } from '@sinclair/typebox';
import { DEFAULT_EVENT_RETENTION_DAYS, DEFAULT_WEBHOOK_DELIVERY_RETENTION_DAYS, MAX_RETENTION_DAYS } from '@vellum/core';
import { PageQuerySchema, PageSchema } from './common.ts';

const csv = Type.Optional(Type.String({ maxLength: 4000 }));

/** docs/decisions.md "Analytic events": `GET /v1/events` query. */
export const EventsQuery = Type.Object(
  {
    ...PageQuerySchema,
    ids: csv,
    requestIds: csv,
    categories: csv,
    types: csv,
    dateFrom: Type.Optional(Type.String({ maxLength: 40 })),
    dateTo: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
);

export const AnalyticEventSchema = Type.Object({
  id: Type.String(),
  type: Type.String(),
  category: Type.String(),
  timestamp: Type.String(),
  tenantId: Type.String(),
  requestId: Type.String(),
  requestIp: Type.String(),
  clientId: Type.Optional(Type.String()),
  userAgent: Type.Optional(Type.String()),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const EventsPage = PageSchema(AnalyticEventSchema);

const LoggingLevel = Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)]);
const retentionDays = (what: string) =>
  Type.Integer({ minimum: 1, maximum: MAX_RETENTION_DAYS, description: `How many days ${what} are kept (docs/retention.md).` });

/** docs/retention.md: the analytics settings as `GET /v1/config/analytics` answers them, defaults filled in. */
export const AnalyticsSettings = Type.Object(
  {
    loggingLevel: LoggingLevel,
    eventRetentionDays: retentionDays(`analytic events (default ${DEFAULT_EVENT_RETENTION_DAYS})`),
    webhookDeliveryRetentionDays: retentionDays(`finished webhook deliveries (default ${DEFAULT_WEBHOOK_DELIVERY_RETENTION_DAYS})`),
  },
  { additionalProperties: false },
);

/** `PUT /v1/config/analytics`: a retention period left out keeps its current value. */
export const AnalyticsSettingsInput = Type.Object(
  {
    loggingLevel: LoggingLevel,
    eventRetentionDays: Type.Optional(retentionDays('analytic events')),
    webhookDeliveryRetentionDays: Type.Optional(retentionDays('finished webhook deliveries')),
  },
  { additionalProperties: false },
);
