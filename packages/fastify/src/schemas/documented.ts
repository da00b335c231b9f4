import { type TSchema, Type } from '@sinclair/typebox';
import { NOTIFICATION_EVENTS } from '@vellum/core';
import type { DocumentedResponse } from '../openapi.ts';

// Shapes the OpenAPI document describes for routes that hand their input to the core unparsed, or
// render their answer themselves. Nothing here validates or serialises: the core checks these
// values (docs/api-reference.md).

const Jwt = (description: string) => Type.String({ description, pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]*){2,4}$' });
const Binary = (description: string) => Type.String({ format: 'binary', description });
const JsonDocument = (description: string) => Type.Object({}, { additionalProperties: true, description });

/** The wallet proof headers of the token and PAR requests (docs/dpop-and-attestation.md; RFC 9449; attestation-based client authentication). */
export const WalletProofHeaders = Type.Object({
  dpop: Type.Optional(Jwt('A DPoP proof (RFC 9449 §4): binds the access token to the wallet’s key.')),
  'oauth-client-attestation': Type.Optional(Jwt('A client attestation JWT issued by the wallet provider.')),
  'oauth-client-attestation-pop': Type.Optional(Jwt('The proof of possession of the attested key.')),
});

/** The credential and notification requests: a DPoP proof goes with a DPoP-bound access token. */
export const DpopHeader = Type.Object({
  dpop: Type.Optional(Jwt('A DPoP proof (RFC 9449 §4), required with a DPoP-bound access token.')),
});

/** Answer header: the next DPoP nonce, when the tenant asks for nonces (RFC 9449 §8). */
export const DpopNonceHeader = { 'dpop-nonce': Type.String({ description: 'The nonce the next DPoP proof must carry (RFC 9449 §8).' }) };

/** OpenID4VCI 1.0 §8.2: the credential request, as JSON; `application/jwt` carries it encrypted (§10). */
export const CredentialRequest = Type.Object(
  {
    credential_configuration_id: Type.Optional(Type.String()),
    credential_identifier: Type.Optional(Type.String()),
    proofs: Type.Optional(
      Type.Object({ jwt: Type.Optional(Type.Array(Type.String())), attestation: Type.Optional(Type.Array(Type.String())) }, { additionalProperties: true }),
    ),
    credential_response_encryption: Type.Optional(
      Type.Object({ jwk: Type.Object({}, { additionalProperties: true }), enc: Type.String(), zip: Type.Optional(Type.String()) }),
    ),
  },
  {
    additionalProperties: true,
    description:
      'One of credential_configuration_id and credential_identifier; the deprecated draft-13 form (`format`, no configuration id) is read too; both at once is `invalid_credential_request`.',
  },
);

/** OpenID4VCI 1.0 §8.3: the credential response (the legacy request form gets `credential` and `format`). */
export const CredentialResponse = Type.Object(
  {
    credentials: Type.Optional(Type.Array(Type.Object({ credential: Type.Unknown() }))),
    credential: Type.Optional(Type.Unknown()),
    format: Type.Optional(Type.String()),
    notification_id: Type.String(),
  },
  { additionalProperties: true },
);

/** OpenID4VCI 1.0 §11.1. */
export const NotificationRequest = Type.Object({
  notification_id: Type.String(),
  event: Type.Union(NOTIFICATION_EVENTS.map((e) => Type.Literal(e))),
  event_description: Type.Optional(Type.String()),
});

/** OpenID4VCI 1.0 §8.3: a request held for review (docs/deferred-issuance.md). */
export const DeferredPending = Type.Object({ transaction_id: Type.String(), interval: Type.Integer({ minimum: 1 }) });

/** OpenID4VCI 1.0 §9.1. */
export const DeferredCredentialRequest = Type.Object(
  { transaction_id: Type.String(), credential_response_encryption: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  { additionalProperties: true },
);

/** OpenID4VCI 1.0 §4.1: the credential offer a wallet fetches by reference. */
export const CredentialOffer = Type.Object(
  {
    credential_issuer: Type.String(),
    credential_configuration_ids: Type.Array(Type.String()),
    grants: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

export const IssuerMetadata = JsonDocument('Credential issuer metadata (OpenID4VCI 1.0 §12.2), per tenant and per origin the request came on.');
export const SignedIssuerMetadata = Jwt('The credential issuer metadata as a JWT (OpenID4VCI 1.0 §12.2.3): `typ` openidvci-issuer-metadata+jwt, `x5c`.');
export const SdJwtTypeMetadata = Type.Object(
  {
    vct: Type.String({ description: 'The credential type, the URL this document is served at.' }),
    name: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    extends: Type.Optional(Type.String({ description: 'The vct of the type this one extends.' })),
    'extends#integrity': Type.Optional(Type.String()),
    display: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'Per locale: name, description, rendering.' })),
    claims: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'Per claim path: display per locale and `sd`.' })),
  },
  { description: 'SD-JWT VC Type Metadata; its SHA-256 (SRI) is the `vct#integrity` of the credentials of its type.' },
);
export const JwtVcIssuerMetadata = Type.Object(
  {
    issuer: Type.String({ description: 'The issuer identifier, the `iss` of the SD-JWT VCs signed under the tenant’s issuer CA.' }),
    jwks: Type.Object(
      { keys: Type.Array(Type.Object({}, { additionalProperties: true })) },
      { description: 'The keys of the valid credential signing certificates, each with `kid` and its chain in `x5c`.' },
    ),
  },
  { description: 'JWT VC Issuer Metadata (SD-JWT VC).' },
);
export const AuthorizationServerMetadata = JsonDocument('OAuth 2.0 authorization server metadata (RFC 8414).');
export const DidDocument = JsonDocument('A DID document (W3C DID Core).');
export const DidConfiguration = JsonDocument('A DID configuration resource (DIF Well Known DID Configuration): domain linkage credentials.');
export const Crl = Binary('A DER-encoded X.509 CRL (RFC 5280).');
export const StatusListToken = Binary('A signed status list: a JWT or a CWT, as the media type says.');

/** Standard answers of the routes that render their own. */
export const documentedResponses = {
  json: (description: string, schema: TSchema): DocumentedResponse => ({ description, content: { 'application/json': schema } }),
  notModified: { description: 'Not modified: the `If-None-Match` tag is current.' } satisfies DocumentedResponse,
  redirect: (description: string): DocumentedResponse => ({
    description,
    headers: { location: Type.String({ format: 'uri-reference', description: 'Where the browser goes next.' }) },
  }),
};
