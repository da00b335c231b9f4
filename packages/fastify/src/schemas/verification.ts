import { Type } from '@sinclair/typebox';
import { PageQuery, PageSchema } from './common.ts';

// docs/verification.md: trusted issuers `/v2/credentials/trusted-issuers` and the verify API. The
// bodies are the core's own schemas (one validation path); the core also checks the rules.
export { TrustedIssuerBody, VerifyBody } from '@vellum/core/schemas';

/** A trusted issuer as the API shows it: exactly one of certificates and did. */
export const TrustedIssuerResponse = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  formats: Type.Array(Type.String()),
  types: Type.Optional(Type.Array(Type.String(), { description: 'The vcts or docTypes it may issue; absent: any.' })),
  certificates: Type.Optional(Type.Array(Type.String(), { description: 'PEM CA certificates (IACAs for mDocs, X.509 roots for SD-JWT VC).' })),
  did: Type.Optional(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

export const TrustedIssuersPage = PageSchema(TrustedIssuerResponse);

export const TrustedIssuerListQuery = PageQuery;

/** The issuer's id (a UUID) in the path. */
export const TrustedIssuerParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** What verifying one credential found (core VerificationResult). */
export const VerificationResultResponse = Type.Object({
  verified: Type.Boolean({ description: 'True only when every check passed and the issuer is trusted.' }),
  format: Type.String(),
  issuer: Type.Optional(
    Type.Object({
      kind: Type.String(),
      id: Type.String(),
      trusted: Type.Boolean(),
      trustedIssuerId: Type.Optional(Type.String()),
      authorityKeyIds: Type.Optional(
        Type.Array(Type.String(), {
          description:
            'The AuthorityKeyIdentifier keyIdentifiers (base64url) of the certificates the credential carries: what DCQL trusted_authorities of type aki match.',
        }),
      ),
    }),
  ),
  credentialType: Type.Optional(Type.String()),
  claims: Type.Object({}, { additionalProperties: true, description: 'SD-JWT VC: the disclosed JSON object; mDoc: namespace → element → value.' }),
  validity: Type.Optional(Type.Object({ validFrom: Type.Optional(Type.String()), validUntil: Type.Optional(Type.String()) })),
  status: Type.Optional(Type.String()),
  holderBound: Type.Optional(
    Type.Boolean({
      description:
        'The holder proved possession of the key: a verified KB-JWT (with nonce and aud when given), or an mDoc device signature over the given sessionTranscript.',
    }),
  ),
  checks: Type.Array(Type.Object({ check: Type.String(), ok: Type.Boolean(), reason: Type.Optional(Type.String()) })),
});
