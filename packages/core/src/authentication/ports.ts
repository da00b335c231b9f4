// What the Authorization Code flow asks of the world to sign a user in: the tenant's OpenID Connect
// provider, and HS256 session tokens for the interaction hook.

import type { AuthenticationProvider } from './model.ts';

/** The provider as the adapter needs it: its settings with the client secret opened. */
export interface ProviderSettings extends Omit<AuthenticationProvider, 'sealedClientSecret'> {
  clientSecret: string;
}

/**
 * Why a provider step failed, in words safe to show the tenant (no secret, no internal detail).
 * `unavailable` when the provider could not be used at all (not reached, refused by the SSRF guard,
 * or its discovery document unusable): nothing about this sign-in, so the wallet may try again later.
 */
export type ProviderFailure = { ok: false; reason: string; unavailable?: true };

/** A provider step that failed, as the host is told of it (AuthorizationFlowDeps.onProviderFailure) for its log. */
export interface ProviderFailureReport {
  tenantId: string;
  /** `authorize`: discovery before the browser is sent on; `callback`: the code exchange. */
  step: 'authorize' | 'callback';
  /** The provider's URL as the tenant set it, without a query. */
  providerUrl: string;
  reason: string;
  unavailable: boolean;
}

/**
 * Federation to an OpenID Connect provider (OpenID Connect Core 1.0, Discovery 1.0), through the
 * SSRF-guarded outbound client. Never throws: every failure is `{ ok: false, reason }`.
 */
export interface IdentityProvider {
  /**
   * The URL to send the browser to: discovery of `provider.url`, then an authentication request
   * (response_type code, the provider's scope with `openid`, PKCE S256 over `codeVerifier`, `state`,
   * `nonce`, `redirectUri`), with the static parameters and `extraParameters` added.
   */
  authorizationUrl(
    provider: ProviderSettings,
    request: { redirectUri: string; state: string; nonce: string; codeVerifier: string; extraParameters: Record<string, string> },
  ): Promise<{ ok: true; url: string } | ProviderFailure>;
  /**
   * Exchanges the code at the provider's token endpoint (with the client's authentication method and
   * `codeVerifier`), and verifies the ID token: signature against the provider's JWKS, `iss`, `aud`,
   * `exp`, `iat`, and `nonce`. Returns its `sub` and all its claims.
   */
  exchangeCode(
    provider: ProviderSettings,
    exchange: { code: string; redirectUri: string; codeVerifier: string; nonce: string },
  ): Promise<{ ok: true; subject: string; claims: Record<string, unknown> } | ProviderFailure>;
}

/** HS256 JWTs for the interaction hook hand-off (docs/authentication.md), with the tenant's hook secret. */
export interface SessionTokens {
  /** Signs `claims` (with `iat` and `exp` = now + ttlSeconds added) under `secret`. */
  sign(secret: string, claims: Record<string, unknown>, ttlSeconds: number): Promise<string>;
  /** The claims of a token `secret` signed (HS256 only) that has not expired; undefined otherwise. Never throws. */
  verify(secret: string, token: string): Promise<Record<string, unknown> | undefined>;
}
