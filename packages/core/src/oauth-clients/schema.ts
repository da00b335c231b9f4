import { Type } from '@sinclair/typebox';
import { MAX_ROOT_CERTIFICATE_LENGTH, MAX_ROOT_CERTIFICATES } from '../shared/root-certificates.ts';
import { WALLET_CLIENT_AUTH_METHODS, WALLET_CLIENT_GRANT_TYPES } from './model.ts';

// docs/wallet-clients.md `/v1/openid/clients`. What a schema cannot say (redirect URI schemes and hosts,
// PEM armour, an entry listed twice) is in rules.ts.

/** Longest client id and client name. */
export const MAX_WALLET_CLIENT_ID = 200;
export const MAX_WALLET_CLIENT_NAME = 200;
/** Most redirect URIs a client may register, and the longest one. */
export const MAX_REDIRECT_URIS = 20;
export const MAX_REDIRECT_URI_LENGTH = 2000;

export const CLIENT_ID_WORDS = `1 to ${MAX_WALLET_CLIENT_ID} characters of A-Z, a-z, 0-9, "-", ".", "_", "~"`;

const strict = { additionalProperties: false } as const;
/**
 * One of `values`. The schema bounds the text only and rules.ts says which values are known, so that a
 * body with an unknown one still has its redirect URIs and certificates checked in the same answer.
 */
const oneOf = (values: readonly string[]) => Type.String({ maxLength: 100, errorMessage: `One of ${values.join(', ')}` });
const Flag = Type.Object({ required: Type.Boolean() }, { ...strict, errorMessage: 'An object such as { "required": true }' });

/** `{ rootCertificates, dpopRequired? }`: PEM shape only; chains are checked with each attestation (attestation.ts). */
const Attestation = Type.Object(
  {
    rootCertificates: Type.Array(
      Type.String({
        maxLength: MAX_ROOT_CERTIFICATE_LENGTH,
        errorMessage: 'One certificate in PEM form: -----BEGIN CERTIFICATE-----, base64 lines, -----END CERTIFICATE-----',
      }),
      { minItems: 1, maxItems: MAX_ROOT_CERTIFICATES, errorMessage: `Required: 1 to ${MAX_ROOT_CERTIFICATES} PEM certificates` },
    ),
    dpopRequired: Type.Optional(Type.Boolean({ errorMessage: 'true or false' })),
  },
  { ...strict, errorMessage: 'An object such as { "rootCertificates": ["-----BEGIN CERTIFICATE-----..."] }' },
);

/** Create (POST) and replace (PUT) bodies. Defaults: grantTypes `["authorization_code"]`, tokenEndpointAuthMethod `none`. */
export const WalletClientBody = Type.Object(
  {
    // Its characters are a value rule too, for the same reason.
    clientId: Type.Optional(Type.String({ maxLength: MAX_WALLET_CLIENT_ID, errorMessage: `${CLIENT_ID_WORDS}; leave it out and Vellum makes one` })),
    // Not blank, and no control characters.
    clientName: Type.String({
      maxLength: MAX_WALLET_CLIENT_NAME,
      pattern: '^(?=[\\s\\S]*\\S)[^\\x00-\\x1F\\x7F]*$',
      errorMessage: `Required: 1 to ${MAX_WALLET_CLIENT_NAME} characters, no control characters`,
    }),
    redirectUris: Type.Array(
      Type.String({ maxLength: MAX_REDIRECT_URI_LENGTH, errorMessage: `An absolute URI of at most ${MAX_REDIRECT_URI_LENGTH} characters` }),
      {
        minItems: 1,
        maxItems: MAX_REDIRECT_URIS,
        errorMessage: `Required: 1 to ${MAX_REDIRECT_URIS} redirect URIs`,
      },
    ),
    grantTypes: Type.Optional(
      Type.Array(oneOf(WALLET_CLIENT_GRANT_TYPES), { minItems: 1, maxItems: 10, errorMessage: `A non-empty list of: ${WALLET_CLIENT_GRANT_TYPES.join(', ')}` }),
    ),
    tokenEndpointAuthMethod: Type.Optional(oneOf(WALLET_CLIENT_AUTH_METHODS)),
    dpop: Type.Optional(Flag),
    clientAttestation: Type.Optional(Attestation),
    credentialResponseEncryption: Type.Optional(Flag),
  },
  { ...strict, errorMessage: 'An object such as { "clientName": "...", "redirectUris": ["https://..."] }' },
);
