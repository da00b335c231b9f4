import { Type } from '@sinclair/typebox';
import { PageQuery, PageSchema } from './common.ts';

// docs/wallet-clients.md `/v1/openid/clients`. The body is the core's own schema (one validation path); the core
// also checks the rules (redirect URI schemes and hosts, PEM armour) and reports them as details.
export { WalletClientBody } from '@vellum/core/schemas';

/** A wallet client as the API shows it: never its secret's hash. */
export const WalletClientResponse = Type.Object({
  clientId: Type.String(),
  clientName: Type.String(),
  redirectUris: Type.Array(Type.String()),
  grantTypes: Type.Array(Type.String()),
  tokenEndpointAuthMethod: Type.String(),
  dpop: Type.Optional(Type.Object({ required: Type.Boolean() })),
  clientAttestation: Type.Optional(Type.Object({ rootCertificates: Type.Array(Type.String()), dpopRequired: Type.Optional(Type.Boolean()) })),
  credentialResponseEncryption: Type.Optional(Type.Object({ required: Type.Boolean() })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

/** Create and replace answers: with the secret Vellum just made, when it made one. */
export const WalletClientWithSecretResponse = Type.Object({
  ...WalletClientResponse.properties,
  clientSecret: Type.Optional(Type.String()),
});

/** The rotate-secret answer: always with the new secret. */
export const WalletClientRotatedResponse = Type.Object({
  ...WalletClientResponse.properties,
  clientSecret: Type.String(),
});

export const WalletClientsPage = PageSchema(WalletClientResponse);

export const WalletClientListQuery = PageQuery;

/** The client id in the path; the core says when its characters are not allowed. */
export const WalletClientParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 256 }) });
