import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AdminTokenBody, AdminTokenResponseSchema } from '../schemas/admin-token.ts';
import { OAuthErrorBodySchema } from '../schemas/common.ts';
import type { VellumServices } from '../services.ts';

const tags = ['Admin token'];

// The document lists both bodies the route takes (RFC 6749 §4.4.2: form; and JSON, which Vellum also accepts).
const FORM_OR_JSON = ['application/x-www-form-urlencoded', 'application/json'];

/** RFC 6749 §4.4.2, §5.1, docs/decisions.md "Tenancy and admin authentication": `POST /oauth/token`, client credentials for admin clients. */
export const adminTokenRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  app.post(
    '/oauth/token',
    {
      config: { errorStyle: 'oauth' },
      schema: {
        tags,
        summary: 'Get an admin access token (client credentials)',
        consumes: FORM_OR_JSON,
        body: AdminTokenBody,
        response: { 200: AdminTokenResponseSchema },
        documentOnly: {
          responses: {
            400: {
              description: 'The body is invalid, or `grant_type` is not `client_credentials` (`unsupported_grant_type`).',
              content: { 'application/json': OAuthErrorBodySchema },
            },
            401: {
              description: 'The client, its secret or the `audience` is not one this tenant takes (`access_denied`); which one is not said.',
              content: { 'application/json': OAuthErrorBodySchema },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const ua = request.headers['user-agent'];
      // request.ip honours trustProxy: the per-IP limit counts the client, not the proxy (docs/limits.md).
      const caller = { requestId: request.id, ip: request.ip, ...(typeof ua === 'string' ? { userAgent: ua.slice(0, 512) } : {}) };
      const { response } = await services.adminAuth.issueToken(request.body, caller);
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(response);
    },
  );
};
