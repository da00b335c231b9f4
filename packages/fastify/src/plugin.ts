import formbody from '@fastify/formbody';
import { DomainError } from '@vellum/core';
import type { FastifyPluginAsync } from 'fastify';
import { jsonNestsDeeperThan, tooDeep } from './body-limits.ts';
import { addTenantHooks } from './context.ts';
import { handleError, sendError } from './errors.ts';
import { addHttpPolicy } from './http-policy.ts';
import { addOpenApi, apiReferenceRoutes, type HostPaths } from './openapi.ts';
import { adminClientRoutes } from './routes/admin-clients.ts';
import { adminTokenRoutes } from './routes/admin-token.ts';
import { configurationRoutes } from './routes/configurations.ts';
import { customDomainRoutes } from './routes/custom-domain.ts';
import { didRoutes } from './routes/dids.ts';
import { publicDidRoutes } from './routes/dids-public.ts';
import { eventRoutes } from './routes/events.ts';
import { issuerDisplayRoutes } from './routes/issuer-display.ts';
import { batchIssuanceRoutes } from './routes/batch-issuance.ts';
import { keyCustodyRoutes } from './routes/key-custody.ts';
import { signingKeyRoutes } from './routes/signing-keys.ts';
import { metadataRoutes } from './routes/metadata.ts';
import { mdocPkiRoutes } from './routes/mdoc-pki.ts';
import { issuerPkiRoutes } from './routes/issuer-pki.ts';
import { statusListRoutes } from './routes/status-lists.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { authorizationRoutes } from './routes/authorization.ts';
import { offerPageRoutes } from './routes/offer-page.ts';
import { offerRoutes } from './routes/offers.ts';
import { userRoutes } from './routes/users.ts';
import { authenticationProviderRoutes } from './routes/authentication-providers.ts';
import { claimSourceRoutes } from './routes/claim-sources.ts';
import { openIdConfigurationRoutes } from './routes/openid-configuration.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { walletClientRoutes } from './routes/wallet-clients.ts';
import { walletProviderRoutes } from './routes/wallet-providers.ts';
import { trustedIssuerRoutes, verificationRoutes } from './routes/verification.ts';
import { verifierApplicationRoutes } from './routes/verifier-applications.ts';
import { presentationSessionRoutes } from './routes/presentation-sessions.ts';
import { credentialRoutes } from './routes/credential.ts';
import { issuedCredentialRoutes } from './routes/issued-credentials.ts';
import { deferredIssuanceRoutes } from './routes/deferred-issuances.ts';
import type { VellumServices } from './services.ts';
import { validatorCompiler } from './validation.ts';

export interface VellumPluginOptions {
  services: VellumServices;
  /**
   * Add the security headers (`X-Content-Type-Options`, `Referrer-Policy`, `X-Frame-Options`,
   * `Content-Security-Policy`, and HSTS over https) to answers that lack them. Default true.
   */
  securityHeaders?: boolean;
  /**
   * Serve the OpenAPI document of these routes at `/openapi.json` and its reference page at `/docs`
   * (docs/api-reference.md). Default true.
   */
  apiReference?: boolean;
  /**
   * The host's own routes beside the plugin (its health checks, say), as OpenAPI path items keyed by
   * path, to show in the same document. Each operation needs an `operationId`.
   */
  hostPaths?: HostPaths;
}

/**
 * Vellum's HTTP API as one Fastify plugin. It is encapsulated (its validator, error handler and
 * parsers stay inside), so a host can register it at the root or under a prefix beside its own routes.
 */
export const vellumPlugin: FastifyPluginAsync<VellumPluginOptions> = async (app, { services, securityHeaders = true, apiReference = true, hostPaths }) => {
  // First, so that it sees every route added below.
  if (apiReference) await addOpenApi(app, hostPaths);
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    void sendError(reply, new DomainError('NotFound', `No route for ${request.method} ${request.url.split('?')[0]}`), 'api');
  });
  // A callback hook, not an async one: it runs on every answer, and needs no promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });
  const policy = addHttpPolicy(app, { securityHeaders });
  // JSON nested deeper than any Vellum body is refused before it is parsed: deep values overflow
  // the stack of the validator and of the error body's serialiser (docs/limits.md).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string; // parseAs: 'string'
    if (jsonNestsDeeperThan(text)) done(tooDeep('JSON'), undefined);
    else parseJson(request, text, done);
  });
  await app.register(formbody, { bodyLimit: 64 * 1024 });

  await app.register(adminTokenRoutes, { services });
  await app.register(async (tenantScope) => {
    addTenantHooks(tenantScope, services);
    await tenantScope.register(customDomainRoutes, { services });
    await tenantScope.register(didRoutes, { services });
    await tenantScope.register(publicDidRoutes, { services });
    await tenantScope.register(eventRoutes, { services });
    await tenantScope.register(issuerDisplayRoutes, { services });
    await tenantScope.register(batchIssuanceRoutes, { services });
    await tenantScope.register(keyCustodyRoutes, { services });
    await tenantScope.register(signingKeyRoutes, { services });
    await tenantScope.register(configurationRoutes, { services });
    await tenantScope.register(metadataRoutes, { services });
    await tenantScope.register(mdocPkiRoutes, { services });
    await tenantScope.register(issuerPkiRoutes, { services });
    await tenantScope.register(statusListRoutes, { services });
    await tenantScope.register(webhookRoutes, { services });
    await tenantScope.register(userRoutes, { services });
    await tenantScope.register(authenticationProviderRoutes, { services });
    await tenantScope.register(openIdConfigurationRoutes, { services });
    await tenantScope.register(claimSourceRoutes, { services });
    await tenantScope.register(offerRoutes, { services });
    await tenantScope.register(offerPageRoutes, { services });
    await tenantScope.register(oauthRoutes, { services });
    await tenantScope.register(authorizationRoutes, { services });
    await tenantScope.register(credentialRoutes, { services });
    await tenantScope.register(issuedCredentialRoutes, { services });
    await tenantScope.register(deferredIssuanceRoutes, { services });
    await tenantScope.register(adminClientRoutes, { services });
    await tenantScope.register(walletClientRoutes, { services });
    await tenantScope.register(walletProviderRoutes, { services });
    await tenantScope.register(trustedIssuerRoutes, { services });
    await tenantScope.register(verifierApplicationRoutes, { services });
    await tenantScope.register(verificationRoutes, { services });
    await tenantScope.register(presentationSessionRoutes, { services });
  });
  policy.addPreflightRoutes();
  // Global, like the admin token endpoint: the document is the same on every host (docs/api-reference.md).
  if (apiReference) await app.register(apiReferenceRoutes);
};
