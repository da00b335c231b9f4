// Fakes of the sign-in ports for unit tests of the core: an identity provider that signs in whoever
// the test says, and session tokens that are readable JSON bound to their secret. Real adapters
// (@vellum/node's createIdentityProvider, @vellum/crypto's createSessionTokens) are tested on their own.

import type { Clock, IdentityProvider, ProviderFailure, ProviderSettings, SessionTokens } from '@vellum/core';

interface PendingSignIn {
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  clientId: string;
}

export interface FakeIdentityProvider extends IdentityProvider {
  /** The authentication requests made so far, as URLs. */
  requests: URL[];
  /**
   * Plays the user signing in at the provider's page `authorizationUrl` as `subject`: the code the
   * provider would send to the callback, with its state. `claims` are the ID token's.
   */
  signIn(authorizationUrl: string, subject: string, claims?: Record<string, unknown>): { code: string; state: string };
  /**
   * Makes the next `authorizationUrl` (discovery) or `exchangeCode` fail with this reason;
   * `unavailable` as when the provider cannot be reached (ProviderFailure.unavailable).
   */
  failNext(step: 'authorizationUrl' | 'exchangeCode', reason: string, options?: { unavailable?: boolean }): void;
}

export function fakeIdentityProvider(): FakeIdentityProvider {
  const pending = new Map<string, PendingSignIn>();
  const codes = new Map<string, PendingSignIn & { subject: string; claims: Record<string, unknown> }>();
  const failures: { authorizationUrl?: ProviderFailure; exchangeCode?: ProviderFailure } = {};
  const requests: URL[] = [];
  let next = 0;
  return {
    requests,
    async authorizationUrl(provider: ProviderSettings, request) {
      if (failures.authorizationUrl !== undefined) {
        const failure = failures.authorizationUrl;
        delete failures.authorizationUrl;
        return failure;
      }
      const url = new URL(`${provider.url}/authorize`);
      url.searchParams.set('client_id', provider.clientId);
      url.searchParams.set('state', request.state);
      url.searchParams.set('redirect_uri', request.redirectUri);
      for (const [k, v] of Object.entries({ ...provider.staticRequestParameters, ...request.extraParameters })) url.searchParams.set(k, v);
      pending.set(request.state, { nonce: request.nonce, codeVerifier: request.codeVerifier, redirectUri: request.redirectUri, clientId: provider.clientId });
      requests.push(url);
      return { ok: true, url: url.toString() };
    },
    signIn(authorizationUrl, subject, claims = {}) {
      const state = new URL(authorizationUrl).searchParams.get('state') ?? '';
      const signIn = pending.get(state);
      if (!signIn) throw new Error('fakeIdentityProvider: no authentication request with this state');
      const code = `code-${++next}`;
      codes.set(code, { ...signIn, subject, claims });
      return { code, state };
    },
    failNext(step, reason, options = {}) {
      failures[step] = options.unavailable ? { ok: false, reason, unavailable: true } : { ok: false, reason };
    },
    async exchangeCode(provider, exchange) {
      if (failures.exchangeCode !== undefined) {
        const failure = failures.exchangeCode;
        delete failures.exchangeCode;
        return failure;
      }
      const signedIn = codes.get(exchange.code);
      codes.delete(exchange.code);
      if (!signedIn) return { ok: false, reason: 'the provider refused the code' };
      if (signedIn.clientId !== provider.clientId || signedIn.redirectUri !== exchange.redirectUri)
        return { ok: false, reason: 'the provider refused the code' };
      if (signedIn.codeVerifier !== exchange.codeVerifier) return { ok: false, reason: 'PKCE verification failed' };
      if (signedIn.nonce !== exchange.nonce) return { ok: false, reason: 'the ID token nonce does not match' };
      return { ok: true, subject: signedIn.subject, claims: { sub: signedIn.subject, ...signedIn.claims } };
    },
  };
}

/** Session tokens as `fake.<base64url JSON>.<secret>`: checked for the secret and expiry, readable by tests. */
export function fakeSessionTokens(clock: Clock): SessionTokens {
  return {
    async sign(secret, claims, ttlSeconds) {
      const iat = Math.floor(clock.now().getTime() / 1000);
      return `fake.${Buffer.from(JSON.stringify({ ...claims, iat, exp: iat + ttlSeconds })).toString('base64url')}.${Buffer.from(secret).toString('base64url')}`;
    },
    async verify(secret, token) {
      const [tag, body, key] = token.split('.');
      if (tag !== 'fake' || body === undefined || key !== Buffer.from(secret).toString('base64url')) return undefined;
      try {
        const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
        return typeof claims.exp === 'number' && claims.exp > clock.now().getTime() / 1000 ? claims : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** Reads a fake session token's claims (what the interaction hook would see). */
export function readFakeSessionToken(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
}
