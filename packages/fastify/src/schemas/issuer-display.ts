import { Type } from '@sinclair/typebox';

/** docs/decisions.md "Issuer display and unbound credentials (issue 29)": the replace body, the core's own schema (one validation path). */
export { IssuerDisplayBody } from '@vellum/core/schemas';

/** What `GET` and `PUT /v1/config/issuer-display` answer: the display as the issuer metadata publishes it. */
export const IssuerDisplayResponse = Type.Object({
  display: Type.Array(
    Type.Object({
      name: Type.String(),
      locale: Type.Optional(Type.String()),
      logo: Type.Optional(Type.Object({ uri: Type.String(), alt_text: Type.Optional(Type.String()) })),
    }),
  ),
});
