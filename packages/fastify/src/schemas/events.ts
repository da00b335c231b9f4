import { Type } from '@sinclair/typebox';
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

export const AnalyticsSettings = Type.Object(
  { loggingLevel: Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)]) },
  { additionalProperties: false },
);
