import type { Store } from '../ports.ts';
import { type ErrorDetail, validationError } from '../shared/errors.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import { adminOperations } from '../shared/admin-resource.ts';
import { checkLoggingLevel, type LoggingLevel, type RequestContext } from '../tenancy/model.ts';
import type { EventRecorder } from './recorder.ts';
import type { AnalyticEvent, EventFilter } from './model.ts';
import { checkRetentionDays, retentionOf, type TenantRetention } from '../retention/policy.ts';

/** docs/decisions.md "Analytic events": the query of `GET /v1/events`, as strings from the URL. */
export interface EventQuery {
  limit?: number;
  cursor?: string;
  ids?: string;
  requestIds?: string;
  categories?: string;
  types?: string;
  dateFrom?: string;
  dateTo?: string;
}

/**
 * `GET`/`PUT /v1/config/analytics`: the logging level, and how many days analytic events and
 * finished webhook deliveries are kept (docs/retention.md; the defaults are filled in).
 */
export interface AnalyticsSettings extends Required<TenantRetention> {
  loggingLevel: LoggingLevel;
}

/** What `PUT /v1/config/analytics` takes: a retention period left out keeps its current value. */
export interface AnalyticsSettingsInput extends TenantRetention {
  loggingLevel: number;
}

export interface AnalyticsService {
  listEvents(ctx: RequestContext, query: EventQuery): Promise<Page<AnalyticEvent>>;
  getSettings(ctx: RequestContext): Promise<AnalyticsSettings>;
  updateSettings(ctx: RequestContext, input: AnalyticsSettingsInput): Promise<AnalyticsSettings>;
}

const list = (v: string | undefined) =>
  v
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

function parseFilter(query: EventQuery): EventFilter {
  const details: ErrorDetail[] = [];
  const date = (param: 'dateFrom' | 'dateTo'): string | undefined => {
    const v = query[param];
    if (v === undefined) return undefined;
    const ms = Date.parse(v);
    if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(v)) {
      details.push({ value: v, msg: 'Must be an ISO 8601 date or timestamp', param, location: 'query' });
      return undefined;
    }
    // A bare date as the upper bound covers that whole day (the bounds are inclusive).
    if (param === 'dateTo' && /^\d{4}-\d{2}-\d{2}$/.test(v)) return new Date(ms + 86_399_999).toISOString();
    return new Date(ms).toISOString();
  };
  const filter: EventFilter = {};
  const ids = list(query.ids),
    requestIds = list(query.requestIds),
    categories = list(query.categories),
    types = list(query.types);
  if (ids?.length) filter.ids = ids;
  if (requestIds?.length) filter.requestIds = requestIds;
  if (categories?.length) filter.categories = categories;
  if (types?.length) filter.types = types;
  const from = date('dateFrom'),
    to = date('dateTo');
  if (from) filter.dateFrom = from;
  if (to) filter.dateTo = to;
  if (details.length > 0) throw validationError(details);
  return filter;
}

/** Analytic events and the tenant's logging level (docs/decisions.md "Analytic events"). */
export function createAnalyticsService(deps: { store: Store; events: EventRecorder }): AnalyticsService {
  const { store, events } = deps;
  const reading = adminOperations(events, 'events:read');
  const writing = adminOperations(events, 'analytics:write');
  return {
    listEvents(ctx, query) {
      const read = async (page: PageRequest) => {
        const filter = parseFilter(query);
        await events.flush();
        return store.events.list(ctx.tenant.id, filter, page);
      };
      return reading.list(ctx, 'ANALYTICS_EVENTS_LIST', query, read, (e) => e, { keepResponse: false });
    },

    getSettings(ctx) {
      return reading.run(ctx, 'CONFIG_ANALYTICS_RETRIEVE', {}, async () => ({ loggingLevel: ctx.tenant.loggingLevel, ...retentionOf(ctx.tenant) }));
    },

    updateSettings(ctx, input) {
      return writing.run(ctx, 'CONFIG_ANALYTICS_UPDATE', { input }, async () => {
        const loggingLevel = checkLoggingLevel(input.loggingLevel);
        // A period left out keeps the tenant's current one.
        const period = (param: keyof TenantRetention) => {
          const days = input[param];
          return days === undefined ? ctx.tenant[param] : checkRetentionDays(param, days);
        };
        const retention: TenantRetention = {
          eventRetentionDays: period('eventRetentionDays'),
          webhookDeliveryRetentionDays: period('webhookDeliveryRetentionDays'),
        };
        await store.transaction(async (tx) => {
          await tx.tenants.setLoggingLevel(ctx.tenant.id, loggingLevel);
          await tx.tenants.setRetention(ctx.tenant.id, retention);
        });
        return { loggingLevel, ...retentionOf(retention) };
      });
    },
  };
}
