import { Type } from '@sinclair/typebox';
import {
  MAX_REDIRECT_URI_LENGTH,
  MAX_REDIRECT_URIS,
  MAX_ROOT_CERTIFICATE_LENGTH,
  MAX_ROOT_CERTIFICATES,
  MAX_WALLET_CLIENT_ID,
  MAX_WALLET_CLIENT_NAME,
} from '@vellum/core';
import { PageQuerySchema, PageSchema } from './common.ts';

// docs/wallet-clients.md `/v1/openid/clients`. The schemas bound and shape the body; the core checks the rules
// (client id characters, redirect URI schemes and hosts, PEM armour) and reports them as details.

const strict = { additionalProperties: false } as const;
const Flag = Type.Object({ required: Type.Boolean() }, strict);
const Attestation = Type.Object(
  {
    rootCertificates: Type.Array(Type.String({ maxLength: MAX_ROOT_CERTIFICATE_LENGTH }), { maxItems: MAX_ROOT_CERTIFICATES }),
    dpopRequired: Type.Optional(Type.Boolean()),
  },
  strict,
);

/** Create (POST) and replace (PUT) bodies: upper bounds here, every other rule in the core. */
export const WalletClientBody = Type.Object(
  {
    clientId: Type.Optional(Type.String({ maxLength: MAX_WALLET_CLIENT_ID })),
    clientName: Type.String({ maxLength: MAX_WALLET_CLIENT_NAME }),
    redirectUris: Type.Array(Type.String({ maxLength: MAX_REDIRECT_URI_LENGTH }), { maxItems: MAX_REDIRECT_URIS }),
    grantTypes: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 10 })),
    tokenEndpointAuthMethod: Type.Optional(Type.String({ maxLength: 100 })),
    dpop: Type.Optional(Flag),
    clientAttestation: Type.Optional(Attestation),
    credentialResponseEncryption: Type.Optional(Flag),
  },
  strict,
);

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

export const WalletClientListQuery = Type.Object({ ...PageQuerySchema }, strict);

/** The client id in the path; the core says when its characters are not allowed. */
export const WalletClientParams = Type.Object({ clientId: Type.String({ minLength: 1, maxLength: 256 }) });
