import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AdminTokenBody, AdminTokenResponseSchema } from '../schemas/admin-token.ts';
import type { VellumServices } from '../services.ts';

/** Specification 5.1–5.2, API.md §2: `POST /oauth/token`, client credentials for admin clients. */
export const adminTokenRoutes: FastifyPluginAsyncTypebox<{ services: VellumServices }> = async (app, { services }) => {
  app.post(
    '/oauth/token',
    { config: { errorStyle: 'oauth' }, schema: { body: AdminTokenBody, response: { 200: AdminTokenResponseSchema } } },
    async (request, reply) => {
      const ua = request.headers['user-agent'];
      // request.ip honours trustProxy: the per-IP limit counts the client, not the proxy (docs/limits.md).
      const caller = { requestId: request.id, ip: request.ip, ...(typeof ua === 'string' ? { userAgent: ua.slice(0, 512) } : {}) };
      const { response } = await services.adminAuth.issueToken(request.body, caller);
      return reply.header('cache-control', 'no-store').header('pragma', 'no-cache').send(response);
    },
  );
};
