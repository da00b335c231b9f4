import { Type } from '@sinclair/typebox';

// docs/verification.md "The verify API": one credential or presentation posted by an operator.

/** The longest credential accepted, in characters (an SD-JWT VC with its disclosures, or a base64url mDoc). */
export const MAX_VERIFY_CREDENTIAL_LENGTH = 100_000;
export const MAX_VERIFY_NONCE_LENGTH = 500;
export const MAX_VERIFY_AUDIENCE_LENGTH = 2000;
export const MAX_SESSION_TRANSCRIPT_LENGTH = 20_000;

const base64url = '^[A-Za-z0-9_-]+$';

/** `POST /v2/credentials/{profile}/verify`. */
export const VerifyBody = Type.Object(
  {
    credential: Type.Union(
      [
        Type.String({ minLength: 1, maxLength: MAX_VERIFY_CREDENTIAL_LENGTH, pattern: '^[A-Za-z0-9_~.=-]+$' }),
        Type.Object({}, { additionalProperties: true, description: 'web-semantic (ldp_vc): the Verifiable Presentation or Verifiable Credential as JSON' }),
      ],
      {
        errorMessage: `Required: the SD-JWT VC in compact form, the base64url of an mDoc DeviceResponse or IssuerSigned (at most ${MAX_VERIFY_CREDENTIAL_LENGTH} characters), or for web-semantic a JSON Verifiable Presentation or Credential`,
      },
    ),
    nonce: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_VERIFY_NONCE_LENGTH,
        pattern: '^[\\x20-\\x7E]+$',
        errorMessage: `The nonce the key binding must carry: 1 to ${MAX_VERIFY_NONCE_LENGTH} printable characters`,
      }),
    ),
    audience: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_VERIFY_AUDIENCE_LENGTH,
        pattern: '^[\\x20-\\x7E]+$',
        errorMessage: `The audience the key binding must name: 1 to ${MAX_VERIFY_AUDIENCE_LENGTH} printable characters`,
      }),
    ),
    sessionTranscript: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_SESSION_TRANSCRIPT_LENGTH,
        pattern: base64url,
        errorMessage: 'The base64url of the CBOR SessionTranscript the device signed (mobile only)',
      }),
    ),
  },
  { additionalProperties: false, errorMessage: 'An object such as { "credential": "..." }' },
);
