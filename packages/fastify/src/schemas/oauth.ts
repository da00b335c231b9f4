import { Type } from '@sinclair/typebox';

// Specification 4.5, 2.5; OpenID4VCI 1.0 §6, §7. Fields other than these are ignored (RFC 6749 §3.2).

const Field = Type.Optional(Type.String({ maxLength: 4096 }));

/** `POST /v1/oauth/token`: each known field once, as text. */
export const WalletTokenBody = Type.Object({ grant_type: Field, 'pre-authorized_code': Field, tx_code: Field, client_id: Field }, { additionalProperties: true });

export const WalletTokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  scope: Type.String(),
});

export const NonceResponse = Type.Object({ c_nonce: Type.String() });

export const JwksResponse = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) });
