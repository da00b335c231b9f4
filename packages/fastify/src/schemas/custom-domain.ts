import { Type } from '@sinclair/typebox';

/** docs/decisions.md "Custom domains": create and update body. */
export const CustomDomainBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    logoUrl: Type.Optional(Type.String({ maxLength: 2048 })),
    domain: Type.String({ maxLength: 300 }),
  },
  { additionalProperties: false },
);

/** docs/decisions.md "Custom domains": response body. */
export const CustomDomainResponse = Type.Object({
  name: Type.Optional(Type.String()),
  logoUrl: Type.Optional(Type.String()),
  domain: Type.String(),
  verificationToken: Type.String(),
  isVerified: Type.Boolean(),
  verifiedAt: Type.Optional(Type.String()),
});
