import { Type } from '@sinclair/typebox';
import { PageQuery, PageSchema } from './common.ts';

/** An admin client as the API shows it: never its secret nor the secret's hash (docs/limits.md, Admin clients). */
export const AdminClientResponse = Type.Object({
  clientId: Type.String(),
  tenantId: Type.String(),
  role: Type.String(),
  name: Type.String(),
  createdAt: Type.String(),
  rotatedAt: Type.Optional(Type.String()),
  revokedAt: Type.Optional(Type.String()),
});

/** A client with its secret: only in the answer that creates it or rotates its secret. */
export const AdminClientWithSecretResponse = Type.Object({
  ...AdminClientResponse.properties,
  clientSecret: Type.String(),
});

export const AdminClientsPage = PageSchema(AdminClientResponse);

/** The create body, the core's own schema (one validation path). */
export { AdminClientBody } from '@vellum/core/schemas';

export const AdminClientParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 256 }) });
export const AdminClientListQuery = PageQuery;
