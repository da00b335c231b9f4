import { Type } from '@sinclair/typebox';

const strict = { additionalProperties: false } as const;

/** Any JSON object; its names and nesting are value rules (rules.ts). */
const Claims = Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'An object of claims' });

/**
 * docs/decisions.md "Users, offers, the token and nonce endpoints": the create and replace body,
 * `{ claims? }`. The body's own words are for a body that is no object.
 */
export const UserBody = Type.Object({ claims: Type.Optional(Claims) }, { ...strict, errorMessage: 'An object such as { "claims": { ... } }' });

/** `POST /v1/users/search`: every part given must match; paging in the body. */
export const UserSearchBody = Type.Object(
  {
    claims: Type.Optional(Claims),
    authenticationProvider: Type.Optional(
      Type.Object({ subjectId: Type.String({ minLength: 1, maxLength: 1000 }) }, { ...strict, errorMessage: 'An object such as { "subjectId": "..." }' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, errorMessage: 'A whole number from 1 to 1000' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64, errorMessage: 'A cursor from a previous page' })),
  },
  strict,
);
