import { Type } from '@sinclair/typebox';

// OpenID4VCI 1.0 §4.1; docs/decisions.md "Users, offers, the token and nonce endpoints". The schemas check JSON types and known fields; the core checks
// values (lengths, input modes, durations, configuration ids) and says what each may be.

const strict = { additionalProperties: false } as const;
const Id = Type.String({ maxLength: 200 });
const Credentials = Type.Array(Id, { maxItems: 50 });
const FreeObject = Type.Record(Type.String(), Type.Unknown());

/** `POST /v1/openid/offers` (OpenID4VCI 1.0 §4.1). */
export const AuthorizationCodeOfferBody = Type.Object(
  { credentials: Credentials, request_parameters: Type.Optional(FreeObject), byReference: Type.Optional(Type.Boolean()) },
  strict,
);

export const OfferUriResponse = Type.Object({ uri: Type.String() });

/** `POST /v1/openid/offers/pre-authorized` (OpenID4VCI 1.0 §4.1, docs/decisions.md "Users, offers, the token and nonce endpoints"). */
export const PreAuthorizedOfferBody = Type.Object(
  {
    credentials: Credentials,
    userId: Type.Optional(Id),
    transactionCodeConfiguration: Type.Optional(
      Type.Object(
        {
          inputMode: Type.Optional(Type.String({ maxLength: 20 })),
          length: Type.Optional(Type.Integer()),
          description: Type.Optional(Type.String({ maxLength: 1000 })),
        },
        strict,
      ),
    ),
    claims: Type.Optional(FreeObject),
    claimsToPersist: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 1000 })),
    expiresIn: Type.Optional(Type.Object({ minutes: Type.Optional(Type.Integer()), seconds: Type.Optional(Type.Integer()) }, strict)),
    byReference: Type.Optional(Type.Boolean()),
  },
  strict,
);

export const PreAuthorizedOfferResponse = Type.Object({
  id: Type.String(),
  userId: Type.String(),
  uri: Type.String(),
  expiresAt: Type.String(),
  transactionCode: Type.Optional(Type.String()),
});

/** The offer id in the path (delete); the core says when it is not a UUID. */
export const OfferParams = Type.Object({ id: Id });

/** The reference of a by-reference offer in its URL. */
export const OfferReferenceParams = Type.Object({ id: Type.String({ maxLength: 500 }) });
