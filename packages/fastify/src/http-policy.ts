// What every answer says about how browsers may use it: security headers on all of them, and CORS
// on the wallet-facing public endpoints only (docs/limits.md, "HTTP edge").
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `public`: a wallet-facing endpoint any web origin may call (set by the policy, not by routes). */
    cors?: 'public';
  }
}

/** Headers every answer carries: the API serves JSON and documents, never pages to render or frame. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/** Sent only on answers to https requests (directly, or through a trusted proxy that says so). */
export const HSTS = 'max-age=31536000';

/** SECURITY_HEADERS as raw header lines, for answers written straight to the socket. */
export const RAW_SECURITY_HEADERS = Object.entries(SECURITY_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/**
 * The wallet-facing endpoints besides every GET under `/.well-known/` and every did:web document
 * (`…/did.json`): paths as the plugin's routes declare them, without the mount prefix.
 */
export const WALLET_CORS_ROUTES: ReadonlyArray<{ method: 'GET' | 'POST'; path: string }> = [
  { method: 'POST', path: '/v1/oauth/token' },
  { method: 'POST', path: '/v1/oauth/par' },
  { method: 'POST', path: '/v1/openid/nonce' },
  { method: 'POST', path: '/v1/openid/credential' },
  { method: 'POST', path: '/v1/openid/notification' },
  { method: 'POST', path: '/v1/openid/deferred_credential' },
  { method: 'GET', path: '/v1/openid/offers/:id' },
  { method: 'GET', path: '/v2/credentials/mobile/iacas' },
  { method: 'GET', path: '/v2/credentials/mobile/iacas/:id/crl' },
  { method: 'GET', path: '/v2/credentials/issuer-cas' },
  { method: 'GET', path: '/v2/credentials/issuer-cas/:id/crl' },
];

/** Request headers a browser may send cross-origin to those endpoints. */
export const CORS_ALLOWED_HEADERS = 'authorization, content-type, dpop, oauth-client-attestation, oauth-client-attestation-pop';
/** Answer headers a browser lets the calling page read, besides the safelisted ones. */
export const CORS_EXPOSED_HEADERS = 'WWW-Authenticate, DPoP-Nonce, Retry-After, X-Request-Id';
/** How long (seconds) a browser may reuse a preflight answer. */
const CORS_MAX_AGE = '600';

/** Whether a route (method and path inside the plugin) is open to every web origin. */
export function isWalletCorsRoute(method: string, path: string): boolean {
  const m = method === 'HEAD' ? 'GET' : method;
  if (m === 'GET' && (path.startsWith('/.well-known/') || path.endsWith('/did.json'))) return true;
  return WALLET_CORS_ROUTES.some((r) => r.method === m && r.path === path);
}

export interface HttpPolicyOptions {
  /** Add SECURITY_HEADERS (and HSTS over https) to answers that do not have them yet. Default true. */
  securityHeaders: boolean;
}

/** Adds the security headers to an answer, leaving alone any the host has set already. */
export function applySecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  for (const name in SECURITY_HEADERS) {
    if (!reply.hasHeader(name)) reply.header(name, SECURITY_HEADERS[name]);
  }
  if (request.protocol === 'https' && !reply.hasHeader('strict-transport-security')) reply.header('strict-transport-security', HSTS);
}

/**
 * Installs the policy on the plugin's instance, before its routes are registered: marks the
 * wallet-facing routes as they are added, and decorates every answer. `addPreflightRoutes` must
 * follow once the routes are in.
 */
export function addHttpPolicy(app: FastifyInstance, options: HttpPolicyOptions): { addPreflightRoutes(): void } {
  const corsPaths = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().map((m) => m.toUpperCase());
    const path = route.routePath;
    const open = methods.filter((m) => m !== 'OPTIONS' && isWalletCorsRoute(m, path));
    if (open.length === 0) return;
    route.config = { ...route.config, cors: 'public' };
    const known = corsPaths.get(path) ?? new Set<string>();
    for (const m of open) known.add(m);
    corsPaths.set(path, known);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (options.securityHeaders) applySecurityHeaders(request, reply);
    if (request.routeOptions.config?.cors === 'public') {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', CORS_EXPOSED_HEADERS);
    }
    done(null, payload);
  });
  return {
    addPreflightRoutes() {
      for (const [path, methods] of corsPaths) {
        const allowed = [...methods].sort().join(', ');
        // Outside the tenant scope: a preflight carries no credentials and needs no tenant.
        app.options(path, { config: { cors: 'public' }, logLevel: 'warn' }, async (_request, reply) =>
          reply
            .code(204)
            .header('access-control-allow-methods', allowed)
            .header('access-control-allow-headers', CORS_ALLOWED_HEADERS)
            .header('access-control-max-age', CORS_MAX_AGE)
            .send(),
        );
      }
    },
  };
}
