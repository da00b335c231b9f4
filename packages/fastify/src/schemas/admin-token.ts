import { Type } from '@sinclair/typebox';

/** RFC 6749 §4.4.2: the client credentials request (JSON or form). */
export const AdminTokenBody = Type.Object({
  client_id: Type.Optional(Type.String({ maxLength: 256 })),
  client_secret: Type.Optional(Type.String({ maxLength: 512 })),
  audience: Type.Optional(Type.String({ maxLength: 2048 })),
  grant_type: Type.String({ maxLength: 256 }),
});

/** RFC 6749 §5.1. */
export const AdminTokenResponseSchema = Type.Object({
  access_token: Type.String(),
  expires_in: Type.Integer(),
  token_type: Type.Literal('Bearer'),
});
