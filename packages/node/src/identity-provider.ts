// The IdentityProvider port over openid-client (OpenID Connect Core 1.0, Discovery 1.0). Every
// request the library makes (discovery, the token endpoint, the JWKS) goes through its `customFetch`
// hook into our HttpClient, so each one passes the SSRF guard, the TLS check and the size limit.
import type { Clock, HttpClient, IdentityProvider, ProviderFailure, ProviderSettings } from '@vellum/core';
import * as oidc from 'openid-client';

export interface IdentityProviderOptions {
  /** The SSRF-guarded outbound client; nothing reaches the provider any other way. */
  http: HttpClient;
  /** The time ID tokens are checked against (default: the system clock). */
  clock?: Clock;
  /** Deadline of each request to the provider, body included (default 10 s). */
  timeoutMs?: number;
  /** How long a provider's discovery document and keys are reused (default 5 minutes). */
  discoveryTtlMs?: number;
}

/** Leeway for `exp`, `nbf` and a future `iat` between our clock and the provider's. */
const CLOCK_TOLERANCE_SECONDS = 30;
/** Providers remembered at most; the oldest is dropped first. */
const CACHE_SIZE = 1_000;
/** Discovery documents, JWKS and token responses are small; anything larger is refused. */
const MAX_ANSWER_BYTES = 512 * 1024;

interface Discovered {
  metadata: oidc.ServerMetadata;
  expiresAt: number;
  /** The provider's keys as openid-client last fetched them, reused across exchanges. */
  jwks?: oidc.ExportedJWKSCache;
}

/** A request our HttpClient could not complete; `reason` is its short, safe error. */
class Unreachable extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

function bodyBytes(body: oidc.FetchBody): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return new TextEncoder().encode(body);
  if (body instanceof URLSearchParams) return new TextEncoder().encode(body.toString());
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new Unreachable('The request body cannot be sent');
}

/** An OAuth error code as the provider sent it, if it is a plain short token (RFC 6749 §5.2 limits its characters). */
function oauthError(value: unknown): string | undefined {
  return typeof value === 'string' && /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(value) ? value : undefined;
}

const ID_TOKEN_CLAIMS: Record<string, string> = {
  nonce: 'the ID token nonce does not match',
  iss: 'the ID token was issued by another issuer',
  aud: 'the ID token is meant for another client',
  azp: 'the ID token is meant for another client',
  exp: 'the ID token has expired',
  nbf: 'the ID token is not valid yet',
  iat: 'the ID token has no valid issue time',
  sub: 'the ID token has no subject',
};

/** Our HttpClient's failure behind `error`, if it is one: the provider was not reached, or not fully (the SSRF guard, the network, the deadline). */
function unreachableCause(error: unknown): Unreachable | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    if (e instanceof Unreachable) return e;
  }
  return undefined;
}

/**
 * Words a failure of openid-client or of our client for the tenant: what went wrong,
 * never a secret, a token or a stack. The library's codes and the claim it names decide the words.
 */
function describeFailure(error: unknown, step: 'discovery' | 'exchange'): string {
  const cut = unreachableCause(error);
  if (cut) return `the provider could not be reached: ${cut.reason}`;
  if (error instanceof oidc.ResponseBodyError) {
    const code = oauthError(error.error);
    const what = step === 'exchange' ? 'the provider refused the code' : 'the provider refused the request';
    return code ? `${what} (${code})` : what;
  }
  if (error instanceof oidc.WWWAuthenticateChallengeError) {
    const code = oauthError(error.cause[0]?.parameters.error);
    return code ? `the provider refused the client (${code})` : 'the provider refused the client';
  }
  if (!(error instanceof oidc.ClientError))
    return step === 'discovery' ? 'the provider’s discovery document is not valid' : 'the provider’s answer is not valid';
  const cause = error.cause as
    | { claim?: unknown; attribute?: unknown; status?: unknown; message?: unknown; cause?: { claim?: unknown; attribute?: unknown } }
    | undefined;
  const claim = cause?.claim ?? cause?.cause?.claim;
  switch (error.code) {
    case 'OAUTH_RESPONSE_IS_NOT_CONFORM': {
      const status = typeof cause?.status === 'number' ? ` (HTTP ${cause.status})` : '';
      return step === 'discovery' ? `the provider’s discovery document could not be read${status}` : `the provider answered an unexpected status${status}`;
    }
    case 'OAUTH_RESPONSE_IS_NOT_JSON':
    case 'OAUTH_PARSE_ERROR':
      return step === 'discovery' ? 'the provider’s discovery document is not JSON' : 'the provider’s answer is not JSON';
    case 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED':
      return (cause?.attribute ?? cause?.cause?.attribute) === 'issuer'
        ? 'the provider’s discovery document names another issuer'
        : 'the provider’s answer is not valid';
    case 'OAUTH_JWT_CLAIM_COMPARISON_FAILED':
    case 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED':
      return (typeof claim === 'string' && ID_TOKEN_CLAIMS[claim]) || 'the ID token is not valid';
    case 'OAUTH_KEY_SELECTION_FAILED':
      return 'the provider publishes no key that matches the ID token';
    case 'OAUTH_MISSING_SERVER_METADATA':
    case 'OAUTH_INVALID_SERVER_METADATA':
      return 'the provider’s discovery document is incomplete';
    case 'OAUTH_HTTP_REQUEST_FORBIDDEN':
    case 'OAUTH_REQUEST_PROTOCOL_FORBIDDEN':
      return 'the provider’s URL and endpoints must use https';
    case 'OAUTH_UNSUPPORTED_OPERATION':
      return 'the provider uses an algorithm Vellum does not support';
    case 'OAUTH_INVALID_RESPONSE': {
      // The library's own wording of the check (no values in it): the signature is the one worth naming.
      const inner = error.cause instanceof Error ? error.cause.message : '';
      if (/signature/i.test(inner)) return 'the ID token signature does not verify';
      if (/id_token/i.test(inner)) return 'the provider gave no valid ID token';
      return step === 'discovery' ? 'the provider’s discovery document is not valid' : 'the provider’s answer is not valid';
    }
    default:
      return step === 'discovery' ? 'the provider’s discovery document is not valid' : 'the provider’s answer is not valid';
  }
}

/** The provider's scope, with `openid` first when it is missing. */
function scopeOf(provider: ProviderSettings): string {
  const scopes = provider.scope.split(/\s+/).filter(Boolean);
  return scopes.includes('openid') ? scopes.join(' ') : ['openid', ...scopes].join(' ');
}

/** The IdentityProvider port: discovery, the authentication request and the code exchange through the guarded HttpClient. */
export function createIdentityProvider(options: IdentityProviderOptions): IdentityProvider {
  const { http } = options;
  const now = () => (options.clock ? options.clock.now().getTime() : Date.now());
  const timeoutMs = options.timeoutMs ?? 10_000;
  const ttlMs = options.discoveryTtlMs ?? 5 * 60_000;
  const cache = new Map<string, Discovered>();
  const pending = new Map<string, Promise<Discovered>>();

  /** openid-client's fetch, answered by our HttpClient; `exactRedirectUri` restores the redirect URI byte for byte (the library derives it from a URL). */
  const fetcher =
    (exactRedirectUri?: string): oidc.CustomFetch =>
    async (url, init) => {
      if (init.method !== 'GET' && init.method !== 'POST') throw new Unreachable(`The ${init.method} method is not used`);
      if (exactRedirectUri !== undefined && init.body instanceof URLSearchParams && init.body.get('grant_type') === 'authorization_code') {
        init.body.set('redirect_uri', exactRedirectUri);
      }
      const body = bodyBytes(init.body);
      let answer: Awaited<ReturnType<HttpClient['fetch']>>;
      try {
        answer = await http.fetch({ method: init.method, url, headers: init.headers, ...(body ? { body } : {}), timeoutMs, maxBytes: MAX_ANSWER_BYTES });
      } catch {
        answer = { error: 'The request failed' };
      }
      if ('error' in answer) throw new Unreachable(answer.error);
      if (answer.status < 200 || answer.status > 599) throw new Unreachable(`The provider answered HTTP ${answer.status}`);
      try {
        return new Response(NULL_BODY_STATUSES.has(answer.status) ? null : answer.body, { status: answer.status, headers: answer.headers });
      } catch {
        throw new Unreachable('The provider’s answer cannot be read');
      }
    };

  /** The provider's metadata, from the cache while it is fresh; racing callers share one discovery. */
  async function discover(provider: ProviderSettings): Promise<Discovered> {
    const hit = cache.get(provider.url);
    if (hit && hit.expiresAt > now()) return hit;
    const running = pending.get(provider.url);
    if (running) return running;
    const started = (async () => {
      if (!URL.canParse(provider.url)) throw new Unreachable('The server URL is not valid');
      const found = await oidc.discovery(new URL(provider.url), provider.clientId, undefined, undefined, {
        [oidc.customFetch]: fetcher(),
        timeout: Math.ceil(timeoutMs / 1000) + 1,
      });
      // Only the enumerable fields: serverMetadata() adds helper functions a later clone would trip on.
      const entry: Discovered = { metadata: { ...found.serverMetadata() }, expiresAt: now() + ttlMs };
      cache.delete(provider.url);
      cache.set(provider.url, entry);
      if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      return entry;
    })();
    pending.set(provider.url, started);
    try {
      return await started;
    } finally {
      pending.delete(provider.url);
    }
  }

  function configure(provider: ProviderSettings, discovered: Discovered, exactRedirectUri?: string): oidc.Configuration {
    const auth =
      provider.tokenEndpointAuthMethod === 'client_secret_post' ? oidc.ClientSecretPost(provider.clientSecret) : oidc.ClientSecretBasic(provider.clientSecret);
    const config = new oidc.Configuration(
      discovered.metadata,
      provider.clientId,
      {
        // openid-client reads the system clock; the skew moves its "now" to ours.
        [oidc.clockSkew]: Math.round((now() - Date.now()) / 1000),
        [oidc.clockTolerance]: CLOCK_TOLERANCE_SECONDS,
      },
      auth,
    );
    config[oidc.customFetch] = fetcher(exactRedirectUri);
    config.timeout = Math.ceil(timeoutMs / 1000) + 1;
    return config;
  }

  /**
   * Runs `step` with the provider's metadata: a failure to discover it is told as one, and so is any
   * other failure of `step` as the step it is (`failing`).
   */
  async function withDiscovered<T>(
    provider: ProviderSettings,
    failing: 'discovery' | 'exchange',
    step: (discovered: Discovered) => Promise<T>,
  ): Promise<T | ProviderFailure> {
    let discovered: Discovered;
    try {
      discovered = await discover(provider);
    } catch (error) {
      // Without its metadata the provider cannot be used at all, whatever the reason.
      return { ok: false, reason: describeFailure(error, 'discovery'), unavailable: true };
    }
    try {
      return await step(discovered);
    } catch (error) {
      const reason = describeFailure(error, failing);
      return unreachableCause(error) ? { ok: false, reason, unavailable: true } : { ok: false, reason };
    }
  }

  return {
    authorizationUrl(provider, request) {
      return withDiscovered(provider, 'discovery', async (discovered) => {
        const config = configure(provider, discovered);
        // The tenant's parameters first, so none of them can replace a parameter the flow depends on.
        const parameters = new URLSearchParams({ ...provider.staticRequestParameters, ...request.extraParameters });
        const own: Record<string, string> = {
          client_id: provider.clientId,
          response_type: 'code',
          redirect_uri: request.redirectUri,
          scope: scopeOf(provider),
          state: request.state,
          nonce: request.nonce,
          code_challenge: await oidc.calculatePKCECodeChallenge(request.codeVerifier),
          code_challenge_method: 'S256',
        };
        for (const [name, value] of Object.entries(own)) parameters.set(name, value);
        for (const name of ['request', 'request_uri', 'response_mode']) parameters.delete(name);
        return { ok: true, url: oidc.buildAuthorizationUrl(config, parameters).href };
      });
    },

    exchangeCode(provider, exchange) {
      return withDiscovered(provider, 'exchange', async (discovered) => {
        const config = configure(provider, discovered, exchange.redirectUri);
        // Without this openid-client trusts an ID token from the token endpoint on TLS alone;
        // the port asks for its signature to be checked against the provider's JWKS.
        oidc.enableNonRepudiationChecks(config);
        if (discovered.jwks) oidc.setJwksCache(config, discovered.jwks);
        // openid-client reads the authorization response from the callback URL; the core has
        // checked `state` (and the provider's error) already, so only the code is passed on. The
        // issuer is ours to add: with one provider per tenant there is no mix-up to detect (RFC 9207).
        const callback = new URL(exchange.redirectUri);
        callback.search = '';
        callback.hash = '';
        callback.searchParams.set('code', exchange.code);
        if (discovered.metadata.authorization_response_iss_parameter_supported) callback.searchParams.set('iss', discovered.metadata.issuer);
        const tokens = await oidc.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: exchange.codeVerifier,
          expectedNonce: exchange.nonce,
          idTokenExpected: true,
        });
        const jwks = oidc.getJwksCache(config);
        if (jwks) discovered.jwks = jwks;
        const claims = tokens.claims();
        if (!claims) return { ok: false, reason: 'the provider gave no ID token' };
        // openid-client requires `iat`; one from the future is refused here.
        if (typeof claims.iat !== 'number' || claims.iat > now() / 1000 + CLOCK_TOLERANCE_SECONDS) return { ok: false, reason: ID_TOKEN_CLAIMS.iat as string };
        if (typeof claims.sub !== 'string' || claims.sub === '') return { ok: false, reason: ID_TOKEN_CLAIMS.sub as string };
        return { ok: true, subject: claims.sub, claims: { ...claims } };
      });
    },
  };
}
