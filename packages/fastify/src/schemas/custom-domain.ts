import { Type } from '@sinclair/typebox';

/** docs/decisions.md "Custom domains": create and update body, the core's own schema (one validation path). */
export { CustomDomainBody } from '@vellum/core/schemas';

/** docs/decisions.md "Custom domains": response body. */
export const CustomDomainResponse = Type.Object({
  name: Type.Optional(Type.String()),
  logoUrl: Type.Optional(Type.String()),
  domain: Type.String(),
  verificationToken: Type.String(),
  isVerified: Type.Boolean(),
  verifiedAt: Type.Optional(Type.String()),
});
