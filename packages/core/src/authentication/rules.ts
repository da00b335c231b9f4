// What the tenant may write about its authentication provider and interaction hook (docs/authentication.md),
// checked here so the HTTP layer and an embedding host get the same answers.

import { isUuid } from '../configurations/input.ts';
import { invalidField } from '../shared/errors.ts';
import { isPlainObject, outboundUrl, Problems, text } from '../shared/body-problems.ts';
import { MAX_CLAIM_NAME } from '../users/rules.ts';
import { PROVIDER_AUTH_METHODS, type ProviderAuthMethod } from './model.ts';

/** Scope asked for when the tenant names none. */
export const DEFAULT_PROVIDER_SCOPE = 'openid profile email';
/** Most static request parameters, forwarded parameter names, and claims to persist. */
export const MAX_STATIC_PARAMETERS = 20;
export const MAX_FORWARDED_PARAMETERS = 20;
export const MAX_CLAIMS_TO_PERSIST = 50;
/** Most claims the interaction hook may be given. */
export const MAX_HOOK_CLAIMS = 50;
/** The interaction hook's session: 60 s to 1 h, 10 minutes by default. */
export const HOOK_TIMEOUT = { min: 60, max: 3600, default: 600 } as const;

/**
 * Authentication request parameters Vellum sets itself (OpenID Connect Core 1.0 §3.1.2.1, RFC 7636):
 * a static or forwarded one of these names would break the flow, so it is refused.
 */
export const RESERVED_PROVIDER_PARAMETERS: readonly string[] = [
  'client_id',
  'client_secret',
  'redirect_uri',
  'response_type',
  'response_mode',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'request',
  'request_uri',
];

const PARAMETER_NAME = /^[A-Za-z0-9_.:~-]{1,100}$/;
/** RFC 6749 §3.3: a scope token is printable ASCII without space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** A list of distinct names, each checked by `valid`, at most `max` of them. */
function names(p: Problems, param: string, value: unknown, max: number, valid: (name: string) => string | undefined): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > max) {
    p.add(param, `A list of at most ${max} names`, value);
    return [];
  }
  const out: string[] = [];
  value.forEach((name, i) => {
    const problem = typeof name === 'string' ? valid(name) : 'A name';
    if (problem !== undefined) p.add(`${param}.${i}`, problem, name);
    else if (!out.includes(name as string)) out.push(name as string);
  });
  return out;
}

const parameterProblem = (name: string) =>
  !PARAMETER_NAME.test(name)
    ? 'A parameter name: 1 to 100 letters, digits and _ . : ~ -'
    : RESERVED_PROVIDER_PARAMETERS.includes(name)
      ? 'Set by Vellum itself; it cannot be given here'
      : undefined;

const claimNameProblem = (name: string) =>
  name.length === 0 || name.length > MAX_CLAIM_NAME ? `Claim names have 1 to ${MAX_CLAIM_NAME} characters` : undefined;

/**
 * The provider's issuer URL. A bare origin keeps no trailing slash (the URL parser adds one),
 * because an issuer identifier is compared exactly (OpenID Connect Discovery 1.0 §4.3).
 */
function issuerUrl(p: Problems, value: unknown): string | undefined {
  const url = outboundUrl(p, 'url', value, 'the https issuer URL of the OpenID Connect provider');
  if (url === undefined) return undefined;
  return new URL(url).pathname === '/' && !(value as string).trim().endsWith('/') ? url.slice(0, -1) : url;
}

/** `openid` first, then the tenant's scopes in order, each once. */
function providerScope(p: Problems, value: unknown): string {
  if (value === undefined) return DEFAULT_PROVIDER_SCOPE;
  if (typeof value !== 'string' || value.length > 1000) {
    p.add('scope', 'Space-separated scopes (at most 1000 characters)', value);
    return DEFAULT_PROVIDER_SCOPE;
  }
  const tokens = value.split(' ').filter((s) => s.length > 0);
  const bad = tokens.find((s) => !SCOPE_TOKEN.test(s));
  if (bad !== undefined) p.add('scope', 'Scopes are printable ASCII without quotes or backslashes, separated by spaces', value);
  return [...new Set(['openid', ...tokens])].join(' ');
}

/** A create or replace body of `/v1/users/authentication-providers` (docs/authentication.md). */
export interface ProviderInput {
  url?: unknown;
  clientId?: unknown;
  clientSecret?: unknown;
  scope?: unknown;
  tokenEndpointAuthMethod?: unknown;
  staticRequestParameters?: unknown;
  forwardedRequestParameters?: unknown;
  claimsToPersist?: unknown;
}

export interface CheckedProvider {
  url: string;
  clientId: string;
  /** Absent only on a replace that keeps the stored secret. */
  clientSecret?: string;
  scope: string;
  tokenEndpointAuthMethod: ProviderAuthMethod;
  staticRequestParameters: Record<string, string>;
  forwardedRequestParameters: string[];
  claimsToPersist: string[];
}

const PROVIDER_FIELDS = [
  'url',
  'clientId',
  'clientSecret',
  'scope',
  'tokenEndpointAuthMethod',
  'staticRequestParameters',
  'forwardedRequestParameters',
  'claimsToPersist',
];

/**
 * Checks an authentication provider body, reporting every problem. `secretRequired` is false on a
 * replace, where a missing `clientSecret` keeps the stored one.
 */
export function checkProviderInput(input: unknown, secretRequired: boolean): CheckedProvider {
  if (!isPlainObject(input)) throw invalidField('body', 'An object such as { "url": "https://...", "clientId": "...", "clientSecret": "..." }', input);
  const p = new Problems();
  p.unknownFields(input, PROVIDER_FIELDS);
  const url = issuerUrl(p, input.url);
  const clientId = text(p, 'clientId', input.clientId, 255, 'Required: the client id Vellum has at the provider');
  const clientSecret =
    input.clientSecret === undefined && !secretRequired
      ? undefined
      : text(p, 'clientSecret', input.clientSecret, 1000, 'Required: the client secret Vellum has at the provider', true);
  const scope = providerScope(p, input.scope);
  const method = input.tokenEndpointAuthMethod ?? 'client_secret_basic';
  if (!(PROVIDER_AUTH_METHODS as readonly unknown[]).includes(method)) p.add('tokenEndpointAuthMethod', `One of ${PROVIDER_AUTH_METHODS.join(', ')}`, method);

  const staticRequestParameters: Record<string, string> = {};
  const statics = input.staticRequestParameters;
  if (statics !== undefined) {
    if (!isPlainObject(statics) || Object.keys(statics).length > MAX_STATIC_PARAMETERS) {
      p.add('staticRequestParameters', `An object of at most ${MAX_STATIC_PARAMETERS} parameter names and string values`, statics);
    } else {
      for (const [name, value] of Object.entries(statics)) {
        const problem = parameterProblem(name);
        if (problem !== undefined) p.add(`staticRequestParameters.${name}`, problem, name);
        else if (typeof value !== 'string' || value.length > 1000) p.add(`staticRequestParameters.${name}`, 'A string of at most 1000 characters', value);
        else Object.defineProperty(staticRequestParameters, name, { value, enumerable: true, writable: true, configurable: true });
      }
    }
  }
  const forwardedRequestParameters = names(p, 'forwardedRequestParameters', input.forwardedRequestParameters, MAX_FORWARDED_PARAMETERS, parameterProblem);
  const claimsToPersist = names(p, 'claimsToPersist', input.claimsToPersist, MAX_CLAIMS_TO_PERSIST, claimNameProblem);
  p.throwIfAny();
  return {
    url: url as string,
    clientId: clientId as string,
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    scope,
    tokenEndpointAuthMethod: method as ProviderAuthMethod,
    staticRequestParameters,
    forwardedRequestParameters,
    claimsToPersist,
  };
}

/** The interaction hook as written (docs/authentication.md), before its secret is added. */
export interface CheckedInteractionHook {
  url: string;
  claims: string[];
  sessionTimeoutInSec: number;
  disabled: boolean;
}

const HOOK_FIELDS = ['url', 'claims', 'sessionTimeoutInSec', 'disabled'];

/** Checks a `PUT /v1/openid/configuration` body; without `interactionHook` the hook is removed. */
export function checkOpenIdSettingsInput(input: unknown): { interactionHook?: CheckedInteractionHook } {
  if (!isPlainObject(input)) throw invalidField('body', 'An object such as { "interactionHook": { "url": "https://..." } }', input);
  const p = new Problems();
  p.unknownFields(input, ['interactionHook']);
  const hook = input.interactionHook;
  if (hook === undefined) {
    p.throwIfAny();
    return {};
  }
  if (!isPlainObject(hook)) {
    p.add('interactionHook', 'An object such as { "url": "https://..." }', hook);
    p.throwIfAny();
  }
  const h = hook as Record<string, unknown>;
  p.unknownFields(h, HOOK_FIELDS, 'interactionHook.');
  const url = outboundUrl(p, 'interactionHook.url', h.url, 'the https address of the issuer’s interaction page');
  const claims = names(p, 'interactionHook.claims', h.claims, MAX_HOOK_CLAIMS, claimNameProblem);
  const timeout = h.sessionTimeoutInSec ?? HOOK_TIMEOUT.default;
  if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < HOOK_TIMEOUT.min || timeout > HOOK_TIMEOUT.max) {
    p.add('interactionHook.sessionTimeoutInSec', `A whole number of seconds from ${HOOK_TIMEOUT.min} to ${HOOK_TIMEOUT.max}`, timeout);
  }
  if (h.disabled !== undefined && typeof h.disabled !== 'boolean') p.add('interactionHook.disabled', 'true or false', h.disabled);
  p.throwIfAny();
  return { interactionHook: { url: url as string, claims, sessionTimeoutInSec: timeout as number, disabled: h.disabled === true } };
}

/** Checks an id named in a path; anything but a UUID is a 400 about `id`. */
export function checkPathId(id: string, what: string): string {
  if (!isUuid(id)) throw invalidField('id', `${what} id (UUID)`, id, 'params');
  return id.toLowerCase();
}
