// What the tenant may write about its authentication provider and interaction hook (docs/authentication.md),
// checked here so the HTTP layer and an embedding host get the same answers.

import type { Static } from '@sinclair/typebox';
import { isUuid } from '../shared/ids.ts';
import { invalidField } from '../shared/errors.ts';
import { outboundUrl, Problems } from '../shared/body-problems.ts';
import type { ProviderAuthMethod } from './model.ts';
import { HOOK_TIMEOUT, OpenIdConfigurationBody, PARAMETER_NAME, ProviderBody } from './schema.ts';

export { HOOK_TIMEOUT } from './schema.ts';

/** Scope asked for when the tenant names none. */
export const DEFAULT_PROVIDER_SCOPE = 'openid profile email';

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

/** RFC 6749 §3.3: a scope token is printable ASCII without space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

const parameterProblem = (name: string) =>
  !PARAMETER_NAME.test(name)
    ? 'A parameter name: 1 to 100 letters, digits and _ . : ~ -'
    : RESERVED_PROVIDER_PARAMETERS.includes(name)
      ? 'Set by Vellum itself; it cannot be given here'
      : undefined;

/** Each problem of a list of names (after its shape is checked), and the names, each once. */
function names(p: Problems, param: string, list: string[] | undefined, problem?: (name: string) => string | undefined): string[] {
  if (list === undefined || p.has(param)) return [];
  list.forEach((name, i) => {
    const found = p.has(`${param}.${i}`) ? undefined : problem?.(name);
    if (found !== undefined) p.add(`${param}.${i}`, found, name);
  });
  return [...new Set(list)];
}

/**
 * The provider's issuer URL. A bare origin keeps no trailing slash (the URL parser adds one),
 * because an issuer identifier is compared exactly (OpenID Connect Discovery 1.0 §4.3).
 */
function issuerUrl(p: Problems, value: string): string | undefined {
  const url = p.has('url') ? undefined : outboundUrl(p, 'url', value, 'the https issuer URL of the OpenID Connect provider');
  if (url === undefined) return undefined;
  return new URL(url).pathname === '/' && !value.trim().endsWith('/') ? url.slice(0, -1) : url;
}

/** `openid` first, then the tenant's scopes in order, each once. */
function providerScope(p: Problems, value: string | undefined): string {
  if (value === undefined || p.has('scope')) return DEFAULT_PROVIDER_SCOPE;
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

/**
 * Checks an authentication provider body: its shape, then the URL, scope and parameter name rules,
 * reporting every problem. `secretRequired` is false on a replace, where a missing `clientSecret`
 * keeps the stored one.
 */
export function checkProviderInput(input: unknown, secretRequired: boolean): CheckedProvider {
  const p = new Problems();
  // A body that is no object has nothing more to check.
  if (!p.checkShape(ProviderBody, input) && p.has('body')) p.throwIfAny();
  const body = input as Static<typeof ProviderBody>;
  const url = issuerUrl(p, body.url);
  if (secretRequired && body.clientSecret === undefined && !p.has('clientSecret')) p.add('clientSecret', ProviderBody.properties.clientSecret.errorMessage);
  const scope = providerScope(p, body.scope);
  const staticRequestParameters: Record<string, string> = {};
  if (body.staticRequestParameters !== undefined && !p.has('staticRequestParameters')) {
    for (const [name, value] of Object.entries(body.staticRequestParameters)) {
      const param = `staticRequestParameters.${name}`;
      if (p.has(param)) continue;
      const problem = parameterProblem(name);
      if (problem !== undefined) p.add(param, problem, name);
      // A `__proto__` parameter name is data, not a prototype.
      else Object.defineProperty(staticRequestParameters, name, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  const forwardedRequestParameters = names(p, 'forwardedRequestParameters', body.forwardedRequestParameters, parameterProblem);
  const claimsToPersist = names(p, 'claimsToPersist', body.claimsToPersist);
  p.throwIfAny(ProviderBody);
  return {
    url: url as string,
    clientId: body.clientId,
    ...(body.clientSecret !== undefined ? { clientSecret: body.clientSecret } : {}),
    scope,
    tokenEndpointAuthMethod: body.tokenEndpointAuthMethod ?? 'client_secret_basic',
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

/** Checks a `PUT /v1/openid/configuration` body; without `interactionHook` the hook is removed. */
export function checkOpenIdSettingsInput(input: unknown): { interactionHook?: CheckedInteractionHook } {
  const p = new Problems();
  p.checkShape(OpenIdConfigurationBody, input);
  const hook = p.has('interactionHook') ? undefined : (input as Static<typeof OpenIdConfigurationBody>).interactionHook;
  if (hook === undefined) {
    p.throwIfAny(OpenIdConfigurationBody);
    return {};
  }
  const param = 'interactionHook.url';
  const url = p.has(param) ? undefined : outboundUrl(p, param, hook.url, 'the https address of the issuer’s interaction page');
  const claims = names(p, 'interactionHook.claims', hook.claims);
  p.throwIfAny(OpenIdConfigurationBody);
  return {
    interactionHook: { url: url as string, claims, sessionTimeoutInSec: hook.sessionTimeoutInSec ?? HOOK_TIMEOUT.default, disabled: hook.disabled === true },
  };
}

/** Checks an id named in a path; anything but a UUID is a 400 about `id`. */
export function checkPathId(id: string, what: string): string {
  if (!isUuid(id)) throw invalidField('id', `${what} id (UUID)`, id, 'params');
  return id.toLowerCase();
}
