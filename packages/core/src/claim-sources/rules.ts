// What a tenant may write about a claim source (docs/authentication.md), checked here for every caller.

import { MAP_FROM } from '../configurations/rules.ts';
import { invalidField, validationError } from '../shared/errors.ts';
import { isPlainObject, outboundUrl, Problems, text } from '../shared/body-problems.ts';
import type { ClaimSourceParameter } from './model.ts';

/** Most parameters one claim source may be sent. */
export const MAX_CLAIM_SOURCE_PARAMETERS = 50;
export const CLAIM_SOURCE_AUTH_TYPES = ['api-key', 'oauth-client-credentials'] as const;
export const CLAIM_SOURCE_TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

const PARAMETER_NAME = /^[A-Za-z0-9_.:~\-[\]]{1,100}$/;

/** How the tenant asks Vellum to authenticate to the source, its secret in clear (absent: keep the stored one). */
export type ClaimSourceAuthorizationInput =
  | { type: 'api-key'; value?: string }
  | {
      type: 'oauth-client-credentials';
      tokenEndpoint: string;
      clientId: string;
      clientSecret?: string;
      audience?: string;
      tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post';
    };

export interface CheckedClaimSource {
  name: string;
  url: string;
  requestMethod: 'GET' | 'POST';
  requestParameters: Record<string, ClaimSourceParameter>;
  authorization: ClaimSourceAuthorizationInput;
}

function parameters(p: Problems, value: unknown): Record<string, ClaimSourceParameter> {
  const out: Record<string, ClaimSourceParameter> = {};
  if (value === undefined) return out;
  if (!isPlainObject(value) || Object.keys(value).length > MAX_CLAIM_SOURCE_PARAMETERS) {
    p.add('requestParameters', `An object of at most ${MAX_CLAIM_SOURCE_PARAMETERS} parameters, each { mapFrom?, defaultValue? }`, value);
    return out;
  }
  for (const [name, spec] of Object.entries(value)) {
    const param = `requestParameters.${name}`;
    if (!PARAMETER_NAME.test(name)) {
      p.add(param, 'A parameter name: 1 to 100 letters, digits and _ . : ~ - [ ]', name);
      continue;
    }
    if (!isPlainObject(spec)) {
      p.add(param, 'An object such as { "mapFrom": "claims.email" } or { "defaultValue": "..." }', spec);
      continue;
    }
    const before = p.details.length;
    p.unknownFields(spec, ['mapFrom', 'defaultValue'], `${param}.`);
    const { mapFrom, defaultValue } = spec;
    if (mapFrom === undefined && defaultValue === undefined) p.add(param, 'Needs mapFrom or defaultValue');
    if (mapFrom !== undefined && (typeof mapFrom !== 'string' || mapFrom.length > 500 || !MAP_FROM.test(mapFrom))) {
      p.add(`${param}.mapFrom`, 'A path such as claims.email or authenticationProvider.subjectId', mapFrom);
    }
    if (
      defaultValue !== undefined &&
      !(
        typeof defaultValue === 'boolean' ||
        (typeof defaultValue === 'number' && Number.isFinite(defaultValue)) ||
        (typeof defaultValue === 'string' && defaultValue.length <= 1000)
      )
    ) {
      p.add(`${param}.defaultValue`, 'A string (at most 1000 characters), a number or a boolean', defaultValue);
    }
    if (p.details.length > before) continue;
    const kept: ClaimSourceParameter = {
      ...(mapFrom !== undefined ? { mapFrom: mapFrom as string } : {}),
      ...(defaultValue !== undefined ? { defaultValue: defaultValue as string | number | boolean } : {}),
    };
    // A `__proto__` parameter name is data, not a prototype.
    Object.defineProperty(out, name, { value: kept, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * `secretOptional` on a replace: the stored key or secret is kept when the body leaves it out and the
 * authorization type is the same (the service checks the type against the stored source).
 */
function authorization(p: Problems, value: unknown, secretOptional: boolean): ClaimSourceAuthorizationInput | undefined {
  if (!isPlainObject(value) || !(CLAIM_SOURCE_AUTH_TYPES as readonly unknown[]).includes(value.type)) {
    p.add('authorization', `An object whose type is one of ${CLAIM_SOURCE_AUTH_TYPES.join(', ')}`, isPlainObject(value) ? value.type : value);
    return undefined;
  }
  const secret = (param: string, v: unknown, what: string) => (v === undefined && secretOptional ? undefined : text(p, param, v, 4096, what, true));
  if (value.type === 'api-key') {
    p.unknownFields(value, ['type', 'value'], 'authorization.');
    const key = secret('authorization.value', value.value, 'Required: the API key, sent as the x-api-key header');
    return { type: 'api-key', ...(key !== undefined ? { value: key } : {}) };
  }
  p.unknownFields(value, ['type', 'tokenEndpoint', 'clientId', 'clientSecret', 'audience', 'tokenEndpointAuthMethod'], 'authorization.');
  const tokenEndpoint = outboundUrl(p, 'authorization.tokenEndpoint', value.tokenEndpoint, 'the https token endpoint of the OAuth server');
  const clientId = text(p, 'authorization.clientId', value.clientId, 255, 'Required: the client id');
  const clientSecret = secret('authorization.clientSecret', value.clientSecret, 'Required: the client secret');
  const audience = value.audience === undefined ? undefined : text(p, 'authorization.audience', value.audience, 1000, 'The audience to ask the token for');
  const method = value.tokenEndpointAuthMethod ?? 'client_secret_basic';
  if (!(CLAIM_SOURCE_TOKEN_AUTH_METHODS as readonly unknown[]).includes(method)) {
    p.add('authorization.tokenEndpointAuthMethod', `One of ${CLAIM_SOURCE_TOKEN_AUTH_METHODS.join(', ')}`, method);
  }
  return {
    type: 'oauth-client-credentials',
    tokenEndpoint: tokenEndpoint as string,
    clientId: clientId as string,
    ...(clientSecret !== undefined ? { clientSecret } : {}),
    ...(audience !== undefined ? { audience } : {}),
    tokenEndpointAuthMethod: method as 'client_secret_basic' | 'client_secret_post',
  };
}

/**
 * Checks a claim source create or replace body (docs/authentication.md), reporting every problem. On a replace
 * (`secretOptional`) the key or client secret may be left out.
 */
export function checkClaimSourceInput(input: unknown, secretOptional = false): CheckedClaimSource {
  if (!isPlainObject(input))
    throw invalidField('body', 'An object such as { "name": "...", "url": "https://...", "requestMethod": "GET", "authorization": { ... } }', input);
  const p = new Problems();
  p.unknownFields(input, ['name', 'url', 'requestMethod', 'requestParameters', 'authorization']);
  const name = text(p, 'name', input.name, 100, 'Required: a name');
  const url = outboundUrl(p, 'url', input.url, 'the https address of the claim source');
  if (input.requestMethod !== 'GET' && input.requestMethod !== 'POST') p.add('requestMethod', 'GET or POST', input.requestMethod);
  const requestParameters = parameters(p, input.requestParameters);
  const auth = authorization(p, input.authorization, secretOptional);
  if (p.details.length > 0) throw validationError(p.details);
  return {
    name: name as string,
    url: url as string,
    requestMethod: input.requestMethod as 'GET' | 'POST',
    requestParameters,
    authorization: auth as ClaimSourceAuthorizationInput,
  };
}
