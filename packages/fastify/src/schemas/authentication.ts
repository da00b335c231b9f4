import { Type } from '@sinclair/typebox';
import { PageQuery, PageSchema } from './common.ts';

// docs/authentication.md: the authentication provider and the interaction hook. The bodies are the core's own
// schemas (one validation path); the core also checks the values (URL rules, reserved parameter names).
export { OpenIdConfigurationBody, ProviderBody } from '@vellum/core/schemas';

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
export const ProviderListQuery = PageQuery;

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
