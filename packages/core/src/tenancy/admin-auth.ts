import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import type { SecretHasher } from '../shared/ports.ts';
import type { TokenSigner } from './ports.ts';
import type { AdminTokenLimiter } from '../rate-limits/limiters.ts';
import { DomainError, isDomainError } from '../shared/errors.ts';
import type { Addressing } from './addressing.ts';
import type { AdminClient, RequestContext, Requestor, Tenant } from './model.ts';
import { decodePermissions, encodePermissions, isRole, ROLE_PERMISSIONS, type Permission } from './permissions.ts';

export interface AdminAuthDeps {
  store: Pick<Store, 'clients' | 'tenants'>;
  hasher: SecretHasher;
  tokens: TokenSigner;
  addressing: Addressing;
  /** Lifetime of admin access tokens in seconds (docs/decisions.md "Tenancy and admin authentication": default 3600). */
  tokenTtlSeconds: number;
  /** Where `ADMIN_TOKEN_*` events go; without it, token requests record nothing. */
  events?: EventRecorder;
  /** Limits failed token requests per client id and per source IP (docs/limits.md); none without it. */
  limiter?: AdminTokenLimiter;
}

/** Who sent a token request, for its `ADMIN_TOKEN_*` events (the endpoint has no tenant by host). */
export interface AdminTokenCaller {
  requestId: string;
  ip: string;
  userAgent?: string;
}

/** RFC 6749 §4.4.2: the client credentials request body. */
export interface AdminTokenRequest {
  client_id?: string;
  client_secret?: string;
  audience?: string;
  grant_type?: string;
}

/** RFC 6749 §5.1. */
export interface AdminTokenResponse {
  access_token: string;
  expires_in: number;
  token_type: 'Bearer';
}

export interface AdminAuth {
  /**
   * With `caller`, records `ADMIN_TOKEN_START` and `_SUCCESS`/`_FAIL` on the tenant the audience
   * names (nothing when it names none); the secret is never recorded.
   */
  issueToken(request: AdminTokenRequest, caller?: AdminTokenCaller): Promise<{ tenant: Tenant; response: AdminTokenResponse }>;
  /**
   * The requestor behind an `Authorization` header on this tenant, or undefined if it is not a valid
   * token for it. Checks the client on every call (through the store it was given, which the server
   * wraps in its read cache), so a revoked client's tokens, and tokens issued before a secret
   * rotation, are refused: at once where the change was made, within the cache's TTL elsewhere.
   */
  authenticate(tenant: Tenant, authorization: string | undefined): Promise<Requestor | undefined>;
}

function denied(message = 'Unauthorized'): DomainError {
  return new DomainError('Unauthorized', message, { oauthError: 'access_denied' });
}

// Claim names kept short: the token rides in every admin request's headers (docs/decisions.md "Tenancy and admin authentication").
const TENANT_CLAIM = 'tid';
const ROLE_CLAIM = 'rol';
const PERMISSIONS_CLAIM = 'prm';
// The client's secret version when the token was issued; tokens from before this claim count as 1.
const SECRET_VERSION_CLAIM = 'sv';

/** Why a token request was refused: non-secret, kept in the FAIL event's data from logging level 2. */
type DenialReason = 'missing_credentials' | 'unknown_client' | 'invalid_secret' | 'client_revoked' | 'wrong_audience';

class Denied extends Error {
  readonly reason: DenialReason;
  readonly client: AdminClient | undefined;
  constructor(reason: DenialReason, client?: AdminClient) {
    super(reason);
    this.reason = reason;
    this.client = client;
  }
}

/** Admin authentication (docs/decisions.md "Tenancy and admin authentication"): client credentials in, tenant-bound JWT out. */
export function createAdminAuth(deps: AdminAuthDeps): AdminAuth {
  /** The tenant whose origin `audience` is exactly, if any: the tenant a token request's events belong to. */
  async function tenantNamedBy(audience: string | undefined): Promise<Tenant | undefined> {
    if (!audience) return undefined;
    const aud = audience.replace(/\/+$/, '');
    const host = /^https?:\/\/([^/?#@]+)$/i.exec(aud)?.[1];
    if (!host) return undefined;
    const resolved = await deps.addressing.resolveHost(host);
    // In single-tenant mode any host resolves to the default tenant: only an origin it really has counts.
    if (!resolved || !(await deps.addressing.originsOf(resolved.tenant)).includes(aud)) return undefined;
    return resolved.tenant;
  }

  async function issue(request: AdminTokenRequest, ip: string | undefined): Promise<{ tenant: Tenant; client: AdminClient; response: AdminTokenResponse }> {
    if (request.grant_type !== 'client_credentials') {
      throw new DomainError('BadRequest', 'grant_type must be client_credentials', { oauthError: 'unsupported_grant_type' });
    }
    const { client_id: clientId, client_secret: secret, audience } = request;
    if (!clientId || !secret || !audience) throw new Denied('missing_credentials');
    // Counted before the slow hash, so a flood of wrong secrets is refused cheaply (docs/limits.md).
    const attempt = await deps.limiter?.attempt(clientId, ip);
    const client = await deps.store.clients.findByClientId(clientId);
    // Hash even when the client is unknown, so timing does not tell which client ids exist.
    const ok = await deps.hasher.verify(secret, client?.secretHash ?? 'scrypt$unknown');
    if (!client) throw new Denied('unknown_client');
    if (!ok) throw new Denied('invalid_secret', client);
    if (client.revokedAt !== undefined) throw new Denied('client_revoked', client);
    const tenant = await deps.store.tenants.findById(client.tenantId);
    if (!tenant) throw new Denied('unknown_client');
    const origins = await deps.addressing.originsOf(tenant);
    const aud = audience.replace(/\/+$/, '');
    if (!origins.includes(aud)) throw new Denied('wrong_audience', client);
    const access_token = await deps.tokens.sign(
      {
        [TENANT_CLAIM]: tenant.id,
        [ROLE_CLAIM]: client.role,
        [PERMISSIONS_CLAIM]: encodePermissions(ROLE_PERMISSIONS[client.role]),
        [SECRET_VERSION_CLAIM]: client.secretVersion,
      },
      { subject: client.clientId, audience: aud, expiresInSeconds: deps.tokenTtlSeconds },
    );
    await attempt?.succeeded();
    return { tenant, client, response: { access_token, expires_in: deps.tokenTtlSeconds, token_type: 'Bearer' } };
  }

  return {
    async issueToken(request, caller) {
      const events = deps.events;
      const tenant = caller && events ? await tenantNamedBy(request.audience) : undefined;
      if (!caller || !events || !tenant) {
        try {
          const issued = await issue(request, caller?.ip);
          return { tenant: issued.tenant, response: issued.response };
        } catch (error) {
          throw error instanceof Denied ? denied() : error;
        }
      }
      // The client is named in the events only when it is one of this tenant's: an id sent with
      // another tenant's audience, or made up, is not recorded (it may be anything the caller typed).
      const ctx = (client: AdminClient | undefined): RequestContext => ({
        tenant,
        origin: request.audience?.replace(/\/+$/, '') ?? '',
        requestId: caller.requestId,
        ip: caller.ip,
        ...(caller.userAgent !== undefined ? { userAgent: caller.userAgent } : {}),
        ...(client && client.tenantId === tenant.id ? { requestor: { clientId: client.clientId, role: client.role, permissions: new Set<Permission>() } } : {}),
      });
      try {
        const issued = await issue(request, caller?.ip);
        const c = ctx(issued.client);
        events.record(c, 'ADMIN_TOKEN', 'START');
        events.record(c, 'ADMIN_TOKEN', 'SUCCESS', { meta: { role: issued.client.role } });
        return { tenant: issued.tenant, response: issued.response };
      } catch (error) {
        const own = error instanceof Denied && error.client?.tenantId === tenant.id ? error.client : undefined;
        const reason = error instanceof Denied ? (error.client && !own ? 'unknown_client' : error.reason) : isDomainError(error) ? error.oauthError : undefined;
        const errorCode = error instanceof Denied ? 'access_denied' : isDomainError(error) ? (error.oauthError ?? error.code) : 'InternalServerError';
        const c = ctx(own);
        events.record(c, 'ADMIN_TOKEN', 'START');
        events.record(c, 'ADMIN_TOKEN', 'FAIL', { meta: { errorCode, ...(reason !== undefined ? { reason } : {}) } });
        throw error instanceof Denied ? denied() : error;
      }
    },

    async authenticate(tenant, authorization) {
      const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(authorization?.trim() ?? '');
      if (!match?.[1]) return undefined;
      const claims = await deps.tokens.verify(match[1]);
      if (!claims || claims[TENANT_CLAIM] !== tenant.id) return undefined;
      const origins = await deps.addressing.originsOf(tenant);
      const aud = claims.aud;
      const audiences = Array.isArray(aud) ? aud : [aud];
      if (!audiences.some((a) => typeof a === 'string' && origins.includes(a))) return undefined;
      const role = claims[ROLE_CLAIM];
      if (typeof claims.sub !== 'string' || typeof role !== 'string' || !isRole(role)) return undefined;
      // Through the read cache: a revocation or rotation shows at once on the server that made it,
      // and on the others within its TTL (docs/limits.md, Admin clients).
      const client = await deps.store.clients.findByClientId(claims.sub);
      if (!client || client.tenantId !== tenant.id || client.revokedAt !== undefined) return undefined;
      if ((claims[SECRET_VERSION_CLAIM] ?? 1) !== client.secretVersion) return undefined;
      return { clientId: claims.sub, role, permissions: decodePermissions(claims[PERMISSIONS_CLAIM]) };
    },
  };
}

/** Throws 401 when the request carries no valid token, 403 when its role lacks the permission. */
export function requirePermission(ctx: RequestContext, permission: Permission): Requestor {
  if (!ctx.requestor) throw new DomainError('Unauthorized', 'Unauthorized');
  if (!ctx.requestor.permissions.has(permission)) {
    throw new DomainError('Forbidden', `The ${ctx.requestor.role} role may not perform this operation`);
  }
  return ctx.requestor;
}
