import { Type } from '@sinclair/typebox';
import { DEFERRED_STATUSES } from '@vellum/core';
import { PageQuerySchema, PageSchema } from './common.ts';

// docs/deferred-issuance.md: credential requests held for review, as the admin API shows them.

const strict = { additionalProperties: false } as const;

export const DeferredIssuanceListQuery = Type.Object(
  {
    ...PageQuerySchema,
    status: Type.Optional(Type.String({ minLength: 1, maxLength: 20, description: `One of ${DEFERRED_STATUSES.join(', ')}` })),
  },
  strict,
);
export const DeferredIssuanceParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
export const DenyDeferredIssuanceBody = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Why: kept on the record for the admins, never told to the wallet.' })) },
  strict,
);

export const DeferredIssuance = Type.Object({
  id: Type.String(),
  status: Type.Union(DEFERRED_STATUSES.map((s) => Type.Literal(s))),
  expired: Type.Boolean(),
  credentialConfigurationId: Type.String(),
  format: Type.String(),
  userId: Type.String(),
  offerId: Type.String(),
  grant: Type.Union([Type.Literal('pre-authorized_code'), Type.Literal('authorization_code')]),
  clientId: Type.Optional(Type.String()),
  clientInstanceId: Type.Optional(Type.String()),
  holderKeys: Type.Array(Type.Object({ kty: Type.String(), crv: Type.String(), x: Type.String(), y: Type.Optional(Type.String()) }), {
    description: 'The public keys the credentials are bound to, one credential each (none: one unbound credential).',
  }),
  intervalSeconds: Type.Integer(),
  createdAt: Type.String(),
  expiresAt: Type.String(),
  decidedAt: Type.Optional(Type.String()),
  decidedBy: Type.Optional(Type.String()),
  reason: Type.Optional(Type.String()),
  issuedAt: Type.Optional(Type.String()),
  credentialIds: Type.Optional(Type.Array(Type.String())),
  claims: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'On GET of one, to roles that may read users’ claims, until issued or denied.' }),
  ),
});

export const DeferredIssuancePage = PageSchema(DeferredIssuance);
