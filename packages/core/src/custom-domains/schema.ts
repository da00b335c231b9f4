import { Type } from '@sinclair/typebox';

/** docs/decisions.md "Custom domains": the create and update body. The host name and logo URL rules are value rules (rules.ts). */
export const CustomDomainBody = Type.Object(
  {
    domain: Type.String({ maxLength: 300, errorMessage: 'A domain name is required' }),
    logoUrl: Type.Optional(Type.String({ maxLength: 2048, errorMessage: 'An https URL of at most 2048 characters' })),
    name: Type.Optional(Type.String({ maxLength: 200, errorMessage: '1 to 200 characters' })),
  },
  { additionalProperties: false },
);
