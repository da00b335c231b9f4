import { Type } from '@sinclair/typebox';
import { PageQuerySchema, PageSchema } from './common.ts';

// docs/authentication.md: the authentication provider and the interaction hook. The schemas check the shape;
// the core checks the values (URL rules, reserved parameter names, limits) and names each problem.

const strict = { additionalProperties: false } as const;
const Name = Type.String({ maxLength: 256 });

/** `POST`/`PUT /v1/users/authentication-providers[/{id}]`; `clientSecret` may be left out on PUT. */
export const ProviderBody = Type.Object(
  {
    url: Type.String({ maxLength: 2048 }),
    clientId: Type.String({ maxLength: 255 }),
    clientSecret: Type.Optional(Type.String({ maxLength: 1000 })),
    scope: Type.Optional(Type.String({ maxLength: 1000 })),
    tokenEndpointAuthMethod: Type.Optional(Type.Union([Type.Literal('client_secret_basic'), Type.Literal('client_secret_post')])),
    staticRequestParameters: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 1000 }), { maxProperties: 20 })),
    forwardedRequestParameters: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 20 })),
    claimsToPersist: Type.Optional(Type.Array(Name, { maxItems: 50 })),
  },
  strict,
);

/** The provider as returned: never its client secret. */
export const ProviderResponse = Type.Object({
  id: Type.String(),
  url: Type.String(),
  clientId: Type.String(),
  scope: Type.String(),
  tokenEndpointAuthMethod: Type.String(),
  staticRequestParameters: Type.Record(Type.String(), Type.String()),
  forwardedRequestParameters: Type.Array(Type.String()),
  claimsToPersist: Type.Array(Type.String()),
  redirectUrl: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const ProvidersPage = PageSchema(ProviderResponse);
export const ProviderParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const ProviderListQuery = Type.Object({ ...PageQuerySchema }, strict);

/** `PUT /v1/openid/configuration`: without `interactionHook` the hook is removed. */
export const OpenIdConfigurationBody = Type.Object(
  {
    interactionHook: Type.Optional(
      Type.Object(
        {
          url: Type.String({ maxLength: 2048 }),
          claims: Type.Optional(Type.Array(Name, { maxItems: 50 })),
          sessionTimeoutInSec: Type.Optional(Type.Integer({ minimum: 60, maximum: 3600 })),
          disabled: Type.Optional(Type.Boolean()),
        },
        strict,
      ),
    ),
  },
  strict,
);

/** The settings as returned: the hook with its HS256 secret, the tenant's own shared key; `{}` when none. */
export const OpenIdConfigurationResponse = Type.Object({
  interactionHook: Type.Optional(
    Type.Object({
      url: Type.String(),
      claims: Type.Array(Type.String()),
      sessionTimeoutInSec: Type.Integer(),
      disabled: Type.Boolean(),
      secret: Type.String(),
    }),
  ),
});
