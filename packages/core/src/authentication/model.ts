import type { TenantRecord } from '../shared/ports.ts';

/** How Vellum authenticates to the tenant's OpenID Connect provider at its token endpoint. */
export const PROVIDER_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;
export type ProviderAuthMethod = (typeof PROVIDER_AUTH_METHODS)[number];

/**
 * The tenant's OpenID Connect provider (docs/authentication.md `/v1/users/authentication-providers`; one per
 * tenant): the Authorization Code flow sends the user there to sign in.
 */
export interface AuthenticationProvider extends TenantRecord {
  id: string;
  /** The provider's issuer URL (https); discovery is `{url}/.well-known/openid-configuration`. */
  url: string;
  clientId: string;
  /** The client secret, sealed (SecretBox, context `authentication-provider:{tenantId}:{id}`): Vellum must send it. */
  sealedClientSecret: string;
  /** Space-separated; `openid` is always asked for. Default `openid profile email`. */
  scope: string;
  tokenEndpointAuthMethod: ProviderAuthMethod;
  /** Added to every authentication request as they are. */
  staticRequestParameters: Record<string, string>;
  /** Names of the wallet's authorization request parameters passed on to the provider (e.g. `login_hint`, `prompt`). */
  forwardedRequestParameters: string[];
  /** ID token claims stored on the user after sign-in. */
  claimsToPersist: string[];
}

export interface AuthenticationProviderRepository {
  /** Adds the tenant's provider. Throws DomainError `Conflict` when the tenant has one already (one per tenant) or the id exists. */
  insert(provider: AuthenticationProvider): Promise<void>;
  get(tenantId: string, id: string): Promise<AuthenticationProvider | undefined>;
  /** The tenant's provider, if it has one. */
  current(tenantId: string): Promise<AuthenticationProvider | undefined>;
  /** Replaces every field but `tenantId`, `id` and `createdAt`. Returns false when the tenant has no such provider. */
  update(provider: AuthenticationProvider): Promise<boolean>;
  /** Returns false when the tenant has no such provider. */
  delete(tenantId: string, id: string): Promise<boolean>;
}

/** The interaction hook (docs/authentication.md `/v1/openid/configuration`): a page of the issuer's the browser visits after sign-in. */
export interface InteractionHook {
  /** https; the browser is sent to `{url}?session_token=<JWT>`. */
  url: string;
  /** Names of the user's claims put in the outgoing session token. */
  claims: string[];
  /** How long the hook may take, in seconds (default 600). */
  sessionTimeoutInSec: number;
  disabled: boolean;
  /** The HS256 key both session tokens are signed with, sealed (SecretBox, context `interaction-hook:{tenantId}`). */
  sealedSecret: string;
}

/** The tenant's OpenID settings (`GET`/`PUT /v1/openid/configuration`). */
export interface OpenIdSettings {
  tenantId: string;
  interactionHook?: InteractionHook;
  updatedAt: string;
}

export interface OpenIdSettingsRepository {
  get(tenantId: string): Promise<OpenIdSettings | undefined>;
  /** Inserts or replaces the tenant's settings. */
  put(settings: OpenIdSettings): Promise<void>;
}
