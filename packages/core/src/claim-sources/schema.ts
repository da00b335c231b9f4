import { type Static, Type } from '@sinclair/typebox';
import { Text } from '../authentication/schema.ts';

// docs/authentication.md: claim sources. What a schema cannot say (URL rules, mapFrom paths, parameter
// names, which fields each authorization type takes, a secret required unless a replace keeps it) is in rules.ts.

/** Most parameters one claim source may be sent. */
export const MAX_CLAIM_SOURCE_PARAMETERS = 50;
export const CLAIM_SOURCE_AUTH_TYPES = ['api-key', 'oauth-client-credentials'] as const;
export const CLAIM_SOURCE_TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post'] as const;

const strict = { additionalProperties: false } as const;
const oneOf = <T extends string>(values: readonly T[], errorMessage?: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    errorMessage === undefined ? {} : { errorMessage },
  );

/** A value sent to the source: taken from the user (`mapFrom`) or fixed (`defaultValue`). No words of their own: body-problems.ts reads no record's values. */
const Parameter = Type.Object(
  {
    mapFrom: Type.Optional(Type.String({ maxLength: 500 })),
    defaultValue: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()])),
  },
  strict,
);

/**
 * How Vellum authenticates to the source. One object for both types: rules.ts says which fields
 * the type takes, and that the key or secret is needed unless a PUT keeps the stored one. A bad
 * `type` is named by the object's words.
 */
export const ClaimSourceAuthorization = Type.Object(
  {
    type: oneOf(CLAIM_SOURCE_AUTH_TYPES),
    value: Type.Optional(Text(4096, 'Required: the API key, sent as the x-api-key header', { writeOnly: true })),
    tokenEndpoint: Type.Optional(Type.String({ maxLength: 2048, errorMessage: 'Required: the https token endpoint of the OAuth server' })),
    clientId: Type.Optional(Text(255, 'Required: the client id')),
    clientSecret: Type.Optional(Text(4096, 'Required: the client secret', { writeOnly: true })),
    audience: Type.Optional(Text(1000, 'The audience to ask the token for')),
    tokenEndpointAuthMethod: Type.Optional(oneOf(CLAIM_SOURCE_TOKEN_AUTH_METHODS, `One of ${CLAIM_SOURCE_TOKEN_AUTH_METHODS.join(', ')}`)),
  },
  { ...strict, errorMessage: `An object whose type is one of ${CLAIM_SOURCE_AUTH_TYPES.join(', ')}` },
);
export type ClaimSourceAuthorizationBody = Static<typeof ClaimSourceAuthorization>;

/** `POST /v1/claim-sources` and `PUT /v1/claim-sources/{id}`. */
export const ClaimSourceBody = Type.Object(
  {
    name: Text(100, 'Required: a name'),
    url: Type.String({ maxLength: 2048, errorMessage: 'Required: the https address of the claim source' }),
    requestMethod: oneOf(['GET', 'POST'] as const, 'GET or POST'),
    requestParameters: Type.Optional(Type.Record(Type.String(), Parameter, { maxProperties: MAX_CLAIM_SOURCE_PARAMETERS })),
    authorization: ClaimSourceAuthorization,
  },
  strict,
);
