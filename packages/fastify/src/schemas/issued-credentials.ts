import { Type } from '@sinclair/typebox';
import { PageQuery, PageQuerySchema, PageSchema } from './common.ts';

const strict = { additionalProperties: false } as const;
const Filter = Type.Optional(Type.String({ minLength: 1, maxLength: 200 }));

/** docs/decisions.md "The credential endpoint": `GET /v2/credentials` filters. */
export const IssuedCredentialListQuery = Type.Object({ ...PageQuerySchema, format: Filter, userId: Filter, credentialConfigurationId: Filter }, strict);
export const UserCredentialListQuery = PageQuery;
export const UserCredentialParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
export const CredentialParams = Type.Object({ credentialId: Type.String({ minLength: 1, maxLength: 200 }) });

/** docs/refresh-tokens.md: how many refresh token families a revocation revoked (none revoked before are counted). */
export const RefreshRevocation = Type.Object({ revokedFamilies: Type.Integer({ minimum: 0 }) }, strict);

/** An issued-credential record: what was issued, never the credential itself. */
export const IssuedCredential = Type.Object({
  id: Type.String(),
  format: Type.String(),
  credentialConfigurationId: Type.String(),
  userId: Type.String(),
  offerId: Type.Optional(Type.String()),
  clientId: Type.Optional(Type.String()),
  clientInstanceId: Type.Optional(Type.String()),
  issuedAt: Type.String(),
  validFrom: Type.String(),
  validUntil: Type.String(),
  status: Type.String(),
  notification: Type.Optional(Type.Object({ event: Type.String(), eventDescription: Type.Optional(Type.String()), receivedAt: Type.String() })),
});

export const IssuedCredentialPage = PageSchema(IssuedCredential);
