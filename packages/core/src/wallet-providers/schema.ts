import { Type } from '@sinclair/typebox';
import { MAX_ROOT_CERTIFICATE_LENGTH, MAX_ROOT_CERTIFICATES } from '../shared/root-certificates.ts';
import { WALLET_PROVIDER_TRUSTED_FOR } from './model.ts';

// docs/dpop-and-attestation.md "Trusted wallet providers". What a schema cannot say (exactly one kind of anchor,
// certificates that are CAs, keys that are public P-256 or Ed25519, the URL's rules) is in rules.ts.

export const MAX_WALLET_PROVIDER_NAME = 200;
/** Most keys in a provider's JWKS, and the longest `kid`. */
export const MAX_WALLET_PROVIDER_KEYS = 20;
export const MAX_WALLET_PROVIDER_KID = 200;

const strict = { additionalProperties: false } as const;
const short = (errorMessage: string) => Type.String({ maxLength: 200, errorMessage });

/** One JWK: members a public key may hold are read by rules.ts; the shape only bounds them. */
const Jwk = Type.Object(
  {
    kty: short('EC or OKP'),
    crv: short('P-256 (EC) or Ed25519 (OKP)'),
    x: short('The base64url public key member x'),
    y: Type.Optional(short('The base64url public key member y (EC)')),
    kid: Type.String({ minLength: 1, maxLength: MAX_WALLET_PROVIDER_KID, errorMessage: `Required: a key id of 1 to ${MAX_WALLET_PROVIDER_KID} characters` }),
    alg: Type.Optional(short('ES256 or EdDSA')),
    use: Type.Optional(short('sig')),
  },
  // Private members (d) and anything else are refused by name rather than dropped unseen.
  { ...strict, errorMessage: 'A public JWK such as { "kty": "EC", "crv": "P-256", "x": "...", "y": "...", "kid": "..." }' },
);

/** Create (POST) and replace (PUT) bodies. Default trustedFor: both purposes. Exactly one of x509, jwks, trustedListUrl. */
export const WalletProviderBody = Type.Object(
  {
    name: Type.String({
      maxLength: MAX_WALLET_PROVIDER_NAME,
      pattern: '^(?=[\\s\\S]*\\S)[^\\x00-\\x1F\\x7F]*$',
      errorMessage: `Required: 1 to ${MAX_WALLET_PROVIDER_NAME} characters, no control characters`,
    }),
    trustedFor: Type.Optional(
      Type.Array(Type.String({ maxLength: 100, errorMessage: `One of ${WALLET_PROVIDER_TRUSTED_FOR.join(', ')}` }), {
        minItems: 1,
        maxItems: 2,
        errorMessage: `A non-empty list of: ${WALLET_PROVIDER_TRUSTED_FOR.join(', ')}`,
      }),
    ),
    x509: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: MAX_ROOT_CERTIFICATE_LENGTH,
          errorMessage: 'One CA certificate in PEM form: -----BEGIN CERTIFICATE-----, base64 lines, -----END CERTIFICATE-----',
        }),
        { minItems: 1, maxItems: MAX_ROOT_CERTIFICATES, errorMessage: `1 to ${MAX_ROOT_CERTIFICATES} PEM CA certificates` },
      ),
    ),
    jwks: Type.Optional(
      Type.Object(
        { keys: Type.Array(Jwk, { minItems: 1, maxItems: MAX_WALLET_PROVIDER_KEYS, errorMessage: `1 to ${MAX_WALLET_PROVIDER_KEYS} public JWKs` }) },
        { ...strict, errorMessage: 'A JWKS such as { "keys": [{ "kty": "EC", "crv": "P-256", "x": "...", "y": "...", "kid": "..." }] }' },
      ),
    ),
    trustedListUrl: Type.Optional(Type.String({ maxLength: 2048, errorMessage: 'An https URL of an ETSI TS 119 612 trusted list' })),
  },
  { ...strict, errorMessage: 'An object such as { "name": "...", "x509": ["-----BEGIN CERTIFICATE-----..."] }' },
);
