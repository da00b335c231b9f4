import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { requestContext } from '../context.ts';
import { AnalyticsSettings, AnalyticsSettingsInput, EventsPage, EventsQuery } from '../schemas/events.ts';
import type { VellumServices } from '../services.ts';
import { adminErrorsWithoutConflict } from './resource.ts';

const tags = ['Analytics'];

/** docs/decisions.md "Analytic events": analytic events and the tenant's logging level. */
export const eventRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  app.get(
    '/v1/events',
    {
      config: { permission: 'events:read' },
      schema: { tags, summary: 'List analytic events', querystring: EventsQuery, response: { 200: EventsPage, ...adminErrorsWithoutConflict } },
    },
    async (request) => services.analytics.listEvents(requestContext(request), request.query),
  );

  app.get(
    '/v1/config/analytics',
    {
      config: { permission: 'events:read' },
      schema: { tags, summary: 'Get the analytics settings', response: { 200: AnalyticsSettings, ...adminErrorsWithoutConflict } },
    },
    async (request) => services.analytics.getSettings(requestContext(request)),
  );

  app.put(
    '/v1/config/analytics',
    {
      config: { permission: 'analytics:write' },
      schema: {
        tags,
        summary: 'Update the analytics settings',
        body: AnalyticsSettingsInput,
        response: { 200: AnalyticsSettings, ...adminErrorsWithoutConflict },
      },
    },
    async (request) => services.analytics.updateSettings(requestContext(request), request.body),
  );
};
