// What a tenant may write about a claim source (docs/authentication.md), checked here for every caller.

import type { Static } from '@sinclair/typebox';
import { MAP_FROM } from '../configurations/rules.ts';
import { outboundUrl, Problems } from '../shared/body-problems.ts';
import type { ClaimSourceParameter } from './model.ts';
import { type ClaimSourceAuthorizationBody, ClaimSourceAuthorization, ClaimSourceBody } from './schema.ts';

export { CLAIM_SOURCE_AUTH_TYPES, CLAIM_SOURCE_TOKEN_AUTH_METHODS, MAX_CLAIM_SOURCE_PARAMETERS } from './schema.ts';

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

/** The parameters' names and paths, once their shape is checked. */
function parameters(p: Problems, value: Record<string, ClaimSourceParameter> | undefined): Record<string, ClaimSourceParameter> {
  const out: Record<string, ClaimSourceParameter> = {};
  if (value === undefined || p.has('requestParameters')) return out;
  for (const [name, spec] of Object.entries(value)) {
    const param = `requestParameters.${name}`;
    if (p.has(param)) continue;
    if (!PARAMETER_NAME.test(name)) p.add(param, 'A parameter name: 1 to 100 letters, digits and _ . : ~ - [ ]', name);
    else if (spec.mapFrom === undefined && spec.defaultValue === undefined) p.add(param, 'Needs mapFrom or defaultValue');
    else if (spec.mapFrom !== undefined && !p.has(`${param}.mapFrom`) && !MAP_FROM.test(spec.mapFrom)) {
      p.add(`${param}.mapFrom`, 'A path such as claims.email or authenticationProvider.subjectId', spec.mapFrom);
    }
    // A `__proto__` parameter name is data, not a prototype.
    else Object.defineProperty(out, name, { value: { ...spec }, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Which of the authorization's fields each type takes; the others are unknown to it. */
const TYPE_FIELDS: Record<ClaimSourceAuthorizationBody['type'], readonly string[]> = {
  'api-key': ['type', 'value'],
  'oauth-client-credentials': ['type', 'tokenEndpoint', 'clientId', 'clientSecret', 'audience', 'tokenEndpointAuthMethod'],
};

/**
 * The authorization's rules by its type, once its shape is checked. `secretOptional` on a replace: the
 * stored key or secret is kept when the body leaves it out and the authorization type is the same
 * (the service checks the type against the stored source).
 */
function authorization(p: Problems, value: ClaimSourceAuthorizationBody, secretOptional: boolean): ClaimSourceAuthorizationInput | undefined {
  if (p.has('authorization')) return undefined;
  // Fields outside the schema are reported already; those of the other type are unknown to this one.
  p.unknownFields(
    Object.fromEntries(Object.entries(value).filter(([key]) => key in ClaimSourceAuthorization.properties)),
    TYPE_FIELDS[value.type],
    'authorization.',
  );
  const required = (key: keyof typeof ClaimSourceAuthorization.properties, secret = false) => {
    const param = `authorization.${key}`;
    if (value[key] === undefined && !(secret && secretOptional) && !p.has(param)) p.add(param, ClaimSourceAuthorization.properties[key].errorMessage);
  };
  if (value.type === 'api-key') {
    required('value', true);
    return { type: 'api-key', ...(value.value !== undefined ? { value: value.value } : {}) };
  }
  required('tokenEndpoint');
  required('clientId');
  required('clientSecret', true);
  const param = 'authorization.tokenEndpoint';
  const tokenEndpoint = p.has(param) ? undefined : outboundUrl(p, param, value.tokenEndpoint, 'the https token endpoint of the OAuth server');
  return {
    type: 'oauth-client-credentials',
    tokenEndpoint: tokenEndpoint as string,
    clientId: value.clientId as string,
    ...(value.clientSecret !== undefined ? { clientSecret: value.clientSecret } : {}),
    ...(value.audience !== undefined ? { audience: value.audience } : {}),
    tokenEndpointAuthMethod: value.tokenEndpointAuthMethod ?? 'client_secret_basic',
  };
}

/**
 * Checks a claim source create or replace body (docs/authentication.md): its shape, then the URL,
 * parameter and authorization rules, reporting every problem. On a replace (`secretOptional`) the
 * key or client secret may be left out.
 */
export function checkClaimSourceInput(input: unknown, secretOptional = false): CheckedClaimSource {
  const p = new Problems();
  // A body that is no object has nothing more to check.
  if (!p.checkShape(ClaimSourceBody, input) && p.has('body')) p.throwIfAny();
  const body = input as Static<typeof ClaimSourceBody>;
  const url = p.has('url') ? undefined : outboundUrl(p, 'url', body.url, 'the https address of the claim source');
  const requestParameters = parameters(p, body.requestParameters);
  const auth = authorization(p, body.authorization, secretOptional);
  p.throwIfAny(ClaimSourceBody);
  return {
    name: body.name,
    url: url as string,
    requestMethod: body.requestMethod,
    requestParameters,
    authorization: auth as ClaimSourceAuthorizationInput,
  };
}
