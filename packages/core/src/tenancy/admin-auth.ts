import type { SecretHasher, Store, TokenSigner } from '../ports.ts';
import { DomainError } from '../shared/errors.ts';
import type { Addressing } from './addressing.ts';
import type { RequestContext, Requestor, Tenant } from './model.ts';
import { decodePermissions, encodePermissions, isRole, ROLE_PERMISSIONS, type Permission } from './permissions.ts';

export interface AdminAuthDeps {
  store: Pick<Store, 'clients' | 'tenants'>;
  hasher: SecretHasher;
  tokens: TokenSigner;
  addressing: Addressing;
  /** Lifetime of admin access tokens in seconds (API.md §2: default 3600). */
  tokenTtlSeconds: number;
}

/** Specification 5.1: the client credentials request body. */
export interface AdminTokenRequest {
  client_id?: string;
  client_secret?: string;
  audience?: string;
  grant_type?: string;
}

/** Specification 5.2. */
export interface AdminTokenResponse {
  access_token: string;
  expires_in: number;
  token_type: 'Bearer';
}

export interface AdminAuth {
  issueToken(request: AdminTokenRequest): Promise<{ tenant: Tenant; response: AdminTokenResponse }>;
  /** The requestor behind an `Authorization` header on this tenant, or undefined if it is not a valid token for it. */
  authenticate(tenant: Tenant, authorization: string | undefined): Promise<Requestor | undefined>;
}

function denied(message = 'Unauthorized'): DomainError {
  return new DomainError('Unauthorized', message, { oauthError: 'access_denied' });
}

// Claim names kept short: the token rides in every admin request's headers (specification 5.6).
const TENANT_CLAIM = 'tid';
const ROLE_CLAIM = 'rol';
const PERMISSIONS_CLAIM = 'prm';

/** Admin authentication (specification 5, API.md §2): client credentials in, tenant-bound JWT out. */
export function createAdminAuth(deps: AdminAuthDeps): AdminAuth {
  return {
    async issueToken(request) {
      if (request.grant_type !== 'client_credentials') {
        throw new DomainError('BadRequest', 'grant_type must be client_credentials', { oauthError: 'unsupported_grant_type' });
      }
      const { client_id: clientId, client_secret: secret, audience } = request;
      if (!clientId || !secret || !audience) throw denied();
      const client = await deps.store.clients.findByClientId(clientId);
      // Hash even when the client is unknown, so timing does not tell which client ids exist.
      const ok = await deps.hasher.verify(secret, client?.secretHash ?? 'scrypt$unknown');
      if (!client || !ok) throw denied();
      const tenant = await deps.store.tenants.findById(client.tenantId);
      if (!tenant) throw denied();
      const origins = await deps.addressing.originsOf(tenant);
      const aud = audience.replace(/\/+$/, '');
      if (!origins.includes(aud)) throw denied();
      const access_token = await deps.tokens.sign(
        { [TENANT_CLAIM]: tenant.id, [ROLE_CLAIM]: client.role, [PERMISSIONS_CLAIM]: encodePermissions(ROLE_PERMISSIONS[client.role]) },
        { subject: client.clientId, audience: aud, expiresInSeconds: deps.tokenTtlSeconds },
      );
      return { tenant, response: { access_token, expires_in: deps.tokenTtlSeconds, token_type: 'Bearer' } };
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
