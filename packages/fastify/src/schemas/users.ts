import { Type } from '@sinclair/typebox';
import { PageQuerySchema, PageSchema } from './common.ts';

// docs/decisions.md "Users, offers, the token and nonce endpoints". The bodies are the core's own schemas (one validation path).
export { UserBody, UserSearchBody } from '@vellum/core/schemas';

const Claims = Type.Record(Type.String(), Type.Unknown());

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
