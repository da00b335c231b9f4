import { DomainError, type Permission, type RequestContext, type ResolvedTenant, type Requestor } from '@vellum/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { VellumServices } from './services.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The permission the route's operation needs; routes without one are public. */
    permission?: Permission;
    /**
     * `optional`: a public route whose answer depends on who asks (the IACA list). A bearer token,
     * when sent, must be valid (401 otherwise) and identifies the caller; the use case decides what
     * its permissions show. Without a token the caller is anonymous.
     */
    authentication?: 'optional';
  }
  interface FastifyRequest {
    vellumTenant: ResolvedTenant | undefined;
    vellumRequestor: Requestor | undefined;
  }
}

/**
 * Adds the hooks every tenant route needs: find the tenant from the Host header (docs/decisions.md "Tenancy and admin authentication"), then,
 * for routes that name a permission, authenticate the bearer token and check the role — before the
 * body is validated, so an anonymous caller learns nothing about the input rules.
 */
export function addTenantHooks(app: FastifyInstance, services: VellumServices): void {
  app.decorateRequest('vellumTenant', undefined);
  app.decorateRequest('vellumRequestor', undefined);
  app.addHook('onRequest', async (request) => {
    const resolved = await services.addressing.resolveHost(request.host);
    if (!resolved) throw new DomainError('NotFound', 'No tenant is served at this host');
    request.vellumTenant = resolved;
    const permission = request.routeOptions.config?.permission;
    const optional = request.routeOptions.config?.authentication === 'optional';
    if (!permission && !(optional && request.headers.authorization !== undefined)) return;
    const requestor = await services.adminAuth.authenticate(resolved.tenant, request.headers.authorization);
    if (!requestor) throw new DomainError('Unauthorized', 'Unauthorized');
    if (permission && !requestor.permissions.has(permission)) {
      throw new DomainError('Forbidden', `The ${requestor.role} role may not perform this operation`);
    }
    request.vellumRequestor = requestor;
  });
}

/** The RequestContext a use case receives, built from the request the hooks have prepared. */
export function requestContext(request: FastifyRequest): RequestContext {
  const resolved = request.vellumTenant;
  if (!resolved) throw new Error('requestContext called on a route without tenant hooks');
  const ua = request.headers['user-agent'];
  return {
    tenant: resolved.tenant,
    origin: resolved.origin,
    requestId: request.id,
    ip: request.ip,
    ...(request.vellumRequestor ? { requestor: request.vellumRequestor } : {}),
    ...(typeof ua === 'string' ? { userAgent: ua.slice(0, 512) } : {}),
  };
}
