import { Type } from '@sinclair/typebox';

// docs/status-lists.md. The shapes; the core checks every value and says what each may be.

const strict = { additionalProperties: false } as const;
const Count = Type.Optional(Type.Integer());
const Duration = Type.Object({ years: Count, months: Count, weeks: Count, days: Count, hours: Count, minutes: Count, seconds: Count }, strict);

export const StatusListConfigurationBody = Type.Object(
  {
    docType: Type.String({ maxLength: 1000 }),
    timeToLiveDuration: Type.Optional(Duration),
    expiryDuration: Type.Optional(Duration),
    format: Type.Optional(Type.String({ maxLength: 100 })),
  },
  strict,
);

export const StatusListConfigurationResponse = Type.Object({
  id: Type.String(),
  docType: Type.String(),
  timeToLiveDuration: Duration,
  expiryDuration: Duration,
  format: Type.String(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const StatusListConfigurationsPage = Type.Object({ data: Type.Array(StatusListConfigurationResponse) });

export const CredentialStatusBody = Type.Object({ status: Type.String({ maxLength: 100 }) }, strict);
export const CredentialStatusResponse = Type.Object({ status: Type.String() });

export const CredentialIdParams = Type.Object({ credentialId: Type.String({ minLength: 1, maxLength: 64 }) });
export const StatusListIdParams = Type.Object({ statusListId: Type.String({ minLength: 1, maxLength: 64 }) });
export const DistributionQuery = Type.Object({ format: Type.Optional(Type.String({ maxLength: 100 })) }, strict);
export const DistributionResponse = Type.Union([Type.Array(Type.String()), Type.Array(Type.Object({ uri: Type.String() }))]);

export const RevocationBody = Type.Object({ isRevoked: Type.Boolean() }, strict);
export const RevocationResponse = Type.Object({ isRevoked: Type.Boolean() });
export const CredentialParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const ListParams = Type.Object({ listId: Type.String({ minLength: 1, maxLength: 64 }) });
