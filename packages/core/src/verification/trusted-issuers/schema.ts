import { Type } from '@sinclair/typebox';
import { CREDENTIAL_FORMATS } from '../../configurations/model.ts';
import { MAX_ROOT_CERTIFICATE_LENGTH, MAX_ROOT_CERTIFICATES } from '../../shared/root-certificates.ts';

// docs/verification.md "Trusted issuers". What a schema cannot say (exactly one of certificates and
// did, CA certificates valid now, no format or type twice) is checked in service.ts.

export const MAX_TRUSTED_ISSUER_NAME = 200;
export const MAX_TRUSTED_ISSUER_TYPES = 50;
export const MAX_TRUSTED_ISSUER_TYPE = 500;
export const MAX_DID_LENGTH = 2000;

const strict = { additionalProperties: false } as const;

/** Create (POST) and replace (PUT) bodies. */
export const TrustedIssuerBody = Type.Object(
  {
    name: Type.String({
      maxLength: MAX_TRUSTED_ISSUER_NAME,
      pattern: '^(?=[\\s\\S]*\\S)[^\\x00-\\x1F\\x7F]*$',
      errorMessage: `Required: 1 to ${MAX_TRUSTED_ISSUER_NAME} characters, no control characters`,
    }),
    formats: Type.Array(Type.Union(CREDENTIAL_FORMATS.map((f) => Type.Literal(f))), {
      minItems: 1,
      maxItems: CREDENTIAL_FORMATS.length,
      errorMessage: `Required: a non-empty list of: ${CREDENTIAL_FORMATS.join(', ')}`,
    }),
    types: Type.Optional(
      Type.Array(
        Type.String({
          minLength: 1,
          maxLength: MAX_TRUSTED_ISSUER_TYPE,
          pattern: '^[^\\x00-\\x1F\\x7F]*$',
          errorMessage: `A vct or docType of 1 to ${MAX_TRUSTED_ISSUER_TYPE} characters`,
        }),
        { minItems: 1, maxItems: MAX_TRUSTED_ISSUER_TYPES, errorMessage: `1 to ${MAX_TRUSTED_ISSUER_TYPES} vcts or docTypes; leave it out for any` },
      ),
    ),
    certificates: Type.Optional(
      Type.Array(
        Type.String({
          maxLength: MAX_ROOT_CERTIFICATE_LENGTH,
          errorMessage: 'One CA certificate in PEM form: -----BEGIN CERTIFICATE-----, base64 lines, -----END CERTIFICATE-----',
        }),
        { minItems: 1, maxItems: MAX_ROOT_CERTIFICATES, errorMessage: `1 to ${MAX_ROOT_CERTIFICATES} PEM CA certificates` },
      ),
    ),
    did: Type.Optional(
      Type.String({
        maxLength: MAX_DID_LENGTH,
        // W3C DID Core §3.1 syntax, without the path, query and fragment parts.
        pattern: '^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})$',
        errorMessage: 'A DID such as did:web:issuer.example.com',
      }),
    ),
  },
  { ...strict, errorMessage: 'An object such as { "name": "...", "formats": ["mso_mdoc"], "certificates": ["-----BEGIN CERTIFICATE-----..."] }' },
);
