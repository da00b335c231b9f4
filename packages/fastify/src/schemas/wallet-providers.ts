import { Type } from '@sinclair/typebox';
import { PageQuery, PageSchema } from './common.ts';

// docs/dpop-and-attestation.md "Trusted wallet providers" `/v1/openid/wallet-providers`. The body is the core's own
// schema (one validation path); the core also checks the rules (one kind of anchor, CA certificates, public keys, the URL).
export { WalletProviderBody } from '@vellum/core/schemas';

const Jwk = Type.Object({
  kty: Type.String(),
  crv: Type.String(),
  x: Type.String(),
  y: Type.Optional(Type.String()),
  kid: Type.String(),
  alg: Type.Optional(Type.String()),
});

/** A trusted wallet provider as the API shows it: exactly one of x509, jwks and trustedListUrl. */
export const WalletProviderResponse = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  trustedFor: Type.Array(Type.String()),
  x509: Type.Optional(Type.Array(Type.String())),
  jwks: Type.Optional(Type.Object({ keys: Type.Array(Jwk) })),
  trustedListUrl: Type.Optional(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const WalletProvidersPage = PageSchema(WalletProviderResponse);

export const WalletProviderListQuery = PageQuery;

/** The provider's id (a UUID) in the path; anything else names none (404). */
export const WalletProviderParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
