import { type StringOptions, type TString, Type } from '@sinclair/typebox';
import { MAX_CLAIM_NAME } from '../users/rules.ts';
import { PROVIDER_AUTH_METHODS } from './model.ts';

// docs/authentication.md: the authentication provider and the interaction hook. What a schema cannot
// say (URL rules, reserved parameter names, scope tokens, a secret required on create) is in rules.ts.

const strict = { additionalProperties: false } as const;

/** Most static request parameters, forwarded parameter names, and claims to persist. */
const MAX_STATIC_PARAMETERS = 20;
const MAX_FORWARDED_PARAMETERS = 20;
const MAX_CLAIMS_TO_PERSIST = 50;
/** Most claims the interaction hook may be given. */
const MAX_HOOK_CLAIMS = 50;
/** The interaction hook's session: 60 s to 1 h, 10 minutes by default. */
export const HOOK_TIMEOUT = { min: 60, max: 3600, default: 600 } as const;

/** Text of 1 to `max` characters, not only spaces, and the words for anything else. */
export const Text = (max: number, what: string, options: StringOptions = {}) =>
  Type.String({ maxLength: max, pattern: '\\S', errorMessage: `${what} (1 to ${max} characters)`, ...options });

/** A request parameter name; which names Vellum sets itself is a value rule. */
export const PARAMETER_NAME = /^[A-Za-z0-9_.:~-]{1,100}$/;

const names = (name: TString, max: number) => Type.Array(name, { maxItems: max, errorMessage: `A list of at most ${max} names` });
const ParameterName = Type.String({ pattern: PARAMETER_NAME.source, errorMessage: 'A parameter name: 1 to 100 letters, digits and _ . : ~ -' });
const ClaimName = Type.String({ minLength: 1, maxLength: MAX_CLAIM_NAME, errorMessage: `Claim names have 1 to ${MAX_CLAIM_NAME} characters` });

/** `POST`/`PUT /v1/users/authentication-providers[/{id}]`; `clientSecret` may be left out on PUT. */
export const ProviderBody = Type.Object(
  {
    url: Type.String({ maxLength: 2048, errorMessage: 'Required: the https issuer URL of the OpenID Connect provider' }),
    clientId: Text(255, 'Required: the client id Vellum has at the provider'),
    clientSecret: Type.Optional(Text(1000, 'Required: the client secret Vellum has at the provider', { writeOnly: true })),
    scope: Type.Optional(Type.String({ maxLength: 1000, errorMessage: 'Space-separated scopes (at most 1000 characters)' })),
    tokenEndpointAuthMethod: Type.Optional(
      Type.Union(
        PROVIDER_AUTH_METHODS.map((method) => Type.Literal(method)),
        { errorMessage: `One of ${PROVIDER_AUTH_METHODS.join(', ')}` },
      ),
    ),
    // No words of their own: they would stand for the problems of each parameter too (body-problems.ts reads no record's values).
    staticRequestParameters: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 1000 }), { maxProperties: MAX_STATIC_PARAMETERS })),
    forwardedRequestParameters: Type.Optional(names(ParameterName, MAX_FORWARDED_PARAMETERS)),
    claimsToPersist: Type.Optional(names(ClaimName, MAX_CLAIMS_TO_PERSIST)),
  },
  strict,
);

/** `PUT /v1/openid/configuration`: without `interactionHook` the hook is removed. */
export const OpenIdConfigurationBody = Type.Object(
  {
    interactionHook: Type.Optional(
      Type.Object(
        {
          url: Type.String({ maxLength: 2048, errorMessage: 'Required: the https address of the issuer’s interaction page' }),
          claims: Type.Optional(names(ClaimName, MAX_HOOK_CLAIMS)),
          sessionTimeoutInSec: Type.Optional(
            Type.Integer({
              minimum: HOOK_TIMEOUT.min,
              maximum: HOOK_TIMEOUT.max,
              errorMessage: `A whole number of seconds from ${HOOK_TIMEOUT.min} to ${HOOK_TIMEOUT.max}`,
            }),
          ),
          disabled: Type.Optional(Type.Boolean({ errorMessage: 'true or false' })),
        },
        { ...strict, errorMessage: 'An object such as { "url": "https://..." }' },
      ),
    ),
  },
  { ...strict, errorMessage: 'An object such as { "interactionHook": { "url": "https://..." } }' },
);
