import { KeyCustodyField } from '../../keys/custody-settings.ts';
import { Type } from '@sinclair/typebox';
import { MAX_ROOT_CERTIFICATE_LENGTH } from '../../shared/root-certificates.ts';
import { MAX_DID_LENGTH } from '../trusted-issuers/schema.ts';
import { CLIENT_ID_PREFIXES, VP_RESPONSE_MODES } from './model.ts';

// docs/verification.md "Verifier applications". What a schema cannot say (did only and always with
// decentralized_identifier, the DID the tenant's, no value twice, https URLs that parse) is checked in service.ts.

export const MAX_VERIFIER_APPLICATION_NAME = 200;
export const MAX_VERIFIER_REDIRECT_URIS = 10;
export const MAX_VERIFIER_URI_LENGTH = 2000;
export const MAX_VERIFIER_CHAIN_CERTIFICATES = 5;

const strict = { additionalProperties: false } as const;
const text = (max: number, what: string) =>
  Type.String({
    maxLength: max,
    pattern: '^(?=[\\s\\S]*\\S)[^\\x00-\\x1F\\x7F]*$',
    errorMessage: `Required: ${what}, 1 to ${max} characters, no control characters`,
  });
const httpsUri = (what: string) =>
  Type.String({
    maxLength: MAX_VERIFIER_URI_LENGTH,
    pattern: '^https://[^\\s]+$',
    errorMessage: `${what}: an https URL of at most ${MAX_VERIFIER_URI_LENGTH} characters`,
  });

/** Create (POST) and replace (PUT) bodies. */
export const VerifierApplicationBody = Type.Object(
  {
    name: text(MAX_VERIFIER_APPLICATION_NAME, 'a name'),
    clientIdPrefix: Type.Union(
      CLIENT_ID_PREFIXES.map((p) => Type.Literal(p)),
      { errorMessage: `Required: one of ${CLIENT_ID_PREFIXES.join(', ')}` },
    ),
    responseModes: Type.Optional(
      Type.Array(Type.Union(VP_RESPONSE_MODES.map((m) => Type.Literal(m))), {
        minItems: 1,
        maxItems: VP_RESPONSE_MODES.length,
        errorMessage: `A non-empty list of: ${VP_RESPONSE_MODES.join(', ')} (default ["direct_post.jwt"])`,
      }),
    ),
    redirectUris: Type.Optional(
      Type.Array(httpsUri('A same-device redirect'), {
        maxItems: MAX_VERIFIER_REDIRECT_URIS,
        errorMessage: `At most ${MAX_VERIFIER_REDIRECT_URIS} https URLs`,
      }),
    ),
    display: Type.Optional(
      Type.Object(
        { name: text(MAX_VERIFIER_APPLICATION_NAME, 'the name wallets show'), logoUri: Type.Optional(httpsUri('The logo')) },
        { ...strict, errorMessage: 'An object such as { "name": "Example Bank", "logoUri": "https://bank.example/logo.png" }' },
      ),
    ),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', errorMessage: 'An ISO 3166-1 alpha-2 country code in upper case, such as DE' })),
    // x509_hash, at creation: where the request-signing key is held (docs/key-custody.md "Custody per resource").
    keyCustody: Type.Optional(KeyCustodyField),
    did: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_DID_LENGTH,
        pattern: '^did:[a-z0-9]+:\\S+$',
        errorMessage: 'One of the tenant’s DIDs, such as did:web:verifier.example.com',
      }),
    ),
  },
  { ...strict, errorMessage: 'An object such as { "name": "...", "clientIdPrefix": "x509_hash" }' },
);

/** `PUT .../{id}/certificate`: the chain for the application's key, leaf first. */
export const VerifierCertificateBody = Type.Object(
  {
    certificates: Type.Array(Type.String({ maxLength: MAX_ROOT_CERTIFICATE_LENGTH, errorMessage: 'One certificate in PEM form' }), {
      minItems: 1,
      maxItems: MAX_VERIFIER_CHAIN_CERTIFICATES,
      errorMessage: `1 to ${MAX_VERIFIER_CHAIN_CERTIFICATES} PEM certificates, the leaf (for the application's CSR) first`,
    }),
  },
  { ...strict, errorMessage: 'An object such as { "certificates": ["-----BEGIN CERTIFICATE-----..."] }' },
);
