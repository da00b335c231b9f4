import { Type } from '@sinclair/typebox';

// OpenID4VCI 1.0 §6, §6.2; OpenID4VCI 1.0 §6, §7. Fields other than these are ignored (RFC 6749 §3.2).

const Field = Type.Optional(Type.String({ maxLength: 4096 }));

/** `POST /v1/oauth/token`: each known field once, as text. */
export const WalletTokenBody = Type.Object(
  {
    grant_type: Field,
    'pre-authorized_code': Field,
    tx_code: Field,
    client_id: Field,
    // The Authorization Code grant (OpenID4VCI 1.0 §6).
    code: Field,
    redirect_uri: Field,
    code_verifier: Field,
    client_secret: Field,
    // The refresh grant (RFC 6749 §6; docs/refresh-tokens.md).
    refresh_token: Field,
    // RFC 9396 / OpenID4VCI 1.0 §6.1: a JSON array, as text (the core reads it).
    authorization_details: Type.Optional(Type.String({ maxLength: 16384 })),
  },
  { additionalProperties: true },
);

export const WalletTokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Union([Type.Literal('Bearer'), Type.Literal('DPoP')]),
  expires_in: Type.Integer(),
  scope: Type.String(),
  // OpenID4VCI 1.0 §6.2: when the request sent authorization_details.
  authorization_details: Type.Optional(
    Type.Array(
      Type.Object({ type: Type.Literal('openid_credential'), credential_configuration_id: Type.String(), credential_identifiers: Type.Array(Type.String()) }),
    ),
  ),
  // RFC 6749 §5.1: when a configuration the grant covers allows refresh (docs/refresh-tokens.md).
  refresh_token: Type.Optional(Type.String()),
});

export const NonceResponse = Type.Object({ c_nonce: Type.String() });

export const JwksResponse = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) });

/**
 * The authorization request's parameters (OpenID4VCI 1.0 §5, RFC 9126 for `request_uri`), in the
 * query or, for PAR, the form: each as text; a repeated one arrives as an array and the core refuses
 * it. Parameters other than the known ones are passed on (forwarded request parameters).
 */
export const AuthorizationFields = Type.Record(
  Type.String({ maxLength: 100 }),
  Type.Union([Type.String({ maxLength: 16384 }), Type.Array(Type.String({ maxLength: 16384 }), { maxItems: 10 })]),
  { maxProperties: 60 },
);

/** RFC 9126 §2.2: the pushed request's reference. */
export const PushedAuthorizationResponse = Type.Object({ request_uri: Type.String(), expires_in: Type.Integer() });
