import { Type } from '@sinclair/typebox';
import { PageQuerySchema, PageSchema } from './common.ts';

// docs/authentication.md: claim sources. The schemas check the shape; the core checks the values (URL rules,
// mapFrom paths, which fields each authorization type takes, secrets on replace).

const strict = { additionalProperties: false } as const;
const DefaultValue = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]);

const Parameter = Type.Object({ mapFrom: Type.Optional(Type.String({ maxLength: 500 })), defaultValue: Type.Optional(DefaultValue) }, strict);

/**
 * How Vellum authenticates to the source. One object for both types: the core says which fields
 * the type takes, and that the key or secret is needed unless a PUT keeps the stored one.
 */
const Authorization = Type.Object(
  {
    type: Type.Union([Type.Literal('api-key'), Type.Literal('oauth-client-credentials')]),
    value: Type.Optional(Type.String({ maxLength: 4096 })),
    tokenEndpoint: Type.Optional(Type.String({ maxLength: 2048 })),
    clientId: Type.Optional(Type.String({ maxLength: 255 })),
    clientSecret: Type.Optional(Type.String({ maxLength: 4096 })),
    audience: Type.Optional(Type.String({ maxLength: 1000 })),
    tokenEndpointAuthMethod: Type.Optional(Type.Union([Type.Literal('client_secret_basic'), Type.Literal('client_secret_post')])),
  },
  strict,
);

/** `POST /v1/claim-sources` and `PUT /v1/claim-sources/{id}`. */
export const ClaimSourceBody = Type.Object(
  {
    name: Type.String({ maxLength: 100 }),
    url: Type.String({ maxLength: 2048 }),
    requestMethod: Type.Union([Type.Literal('GET'), Type.Literal('POST')]),
    requestParameters: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Parameter, { maxProperties: 50 })),
    authorization: Authorization,
  },
  strict,
);

/** A claim source as returned: the authorization without its key or client secret. */
export const ClaimSourceResponse = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  requestMethod: Type.String(),
  requestParameters: Type.Record(
    Type.String(),
    Type.Object({ mapFrom: Type.Optional(Type.String()), defaultValue: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Boolean()])) }),
  ),
  authorization: Type.Object({
    type: Type.String(),
    tokenEndpoint: Type.Optional(Type.String()),
    clientId: Type.Optional(Type.String()),
    audience: Type.Optional(Type.String()),
    tokenEndpointAuthMethod: Type.Optional(Type.String()),
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const ClaimSourcesPage = PageSchema(ClaimSourceResponse);
export const ClaimSourceParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const ClaimSourceListQuery = Type.Object({ ...PageQuerySchema }, strict);
