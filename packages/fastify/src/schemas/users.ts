import { Type } from '@sinclair/typebox';
import { PageQuerySchema, PageSchema } from './common.ts';

// docs/decisions.md "Users, offers, the token and nonce endpoints". The schemas check the shape; the core checks claim names and nesting.

const strict = { additionalProperties: false } as const;
const Claims = Type.Record(Type.String(), Type.Unknown());

export const UserBody = Type.Object({ claims: Type.Optional(Claims) }, strict);

export const UserResponse = Type.Object({
  id: Type.String(),
  claims: Claims,
  authenticationProvider: Type.Optional(Type.Object({ url: Type.String(), subjectId: Type.String() })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const UsersPage = PageSchema(UserResponse);

export const UserListQuery = Type.Object(PageQuerySchema);

/** The user id in the path; the core says when it is not a UUID. */
export const UserParams = Type.Object({ id: Type.String({ maxLength: 200 }) });

/** `POST /v1/users/search`: every part given must match; paging in the body. */
export const UserSearchBody = Type.Object(
  {
    claims: Type.Optional(Claims),
    authenticationProvider: Type.Optional(Type.Object({ subjectId: Type.String({ minLength: 1, maxLength: 1000 }) }, strict)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  strict,
);
