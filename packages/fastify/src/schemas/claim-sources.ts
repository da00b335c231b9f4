import { Type } from '@sinclair/typebox';
import { PageQuery, PageSchema } from './common.ts';

// docs/authentication.md: claim sources. The body is the core's own schema (one validation path); the core also
// checks the values (URL rules, mapFrom paths, which fields each authorization type takes, secrets on replace).
export { ClaimSourceBody } from '@vellum/core/schemas';

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
export const ClaimSourceListQuery = PageQuery;
