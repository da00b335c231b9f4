import { Type } from '@sinclair/typebox';
import { KeyAttestationLevelsBody, WalletRequirementsBody } from '../configurations/schema.ts';

// OpenID4VCI 1.0 §4.1; docs/decisions.md "Users, offers, the token and nonce endpoints": the offer
// bodies. The value rules (rules.ts) add what a schema cannot say: each id once, claims to persist
// that the offer carries, an expiry of 1 second to 10 minutes; the service adds what needs the store.

const strict = { additionalProperties: false } as const;

/** An offer's `credentials`: configuration ids (both kinds of offer). */
const Credentials = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  minItems: 1,
  maxItems: 50,
  errorMessage: 'A non-empty list of credential configuration ids',
});
const ByReference = Type.Optional(Type.Boolean({ errorMessage: 'true or false' }));
/** What the offer asks of the wallet beyond its configurations (docs/decisions.md "Wallet requirements per configuration and offer (issue 30)"). */
const requirements = {
  walletRequirements: Type.Optional(WalletRequirementsBody),
  keyAttestationsRequired: Type.Optional(KeyAttestationLevelsBody),
};

/** `POST /v1/openid/offers` (OpenID4VCI 1.0 §4.1, docs/authorization-code.md). */
export const AuthorizationCodeOfferBody = Type.Object(
  {
    credentials: Credentials,
    request_parameters: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'An object of request parameters, such as { "login_hint": "..." }' }),
    ),
    byReference: ByReference,
    ...requirements,
  },
  strict,
);

const TransactionCodeConfiguration = Type.Object(
  {
    inputMode: Type.Optional(Type.Union([Type.Literal('numeric'), Type.Literal('text')], { errorMessage: 'numeric or text' })),
    length: Type.Optional(Type.Integer({ minimum: 4, maximum: 8, errorMessage: 'A whole number from 4 to 8' })),
    description: Type.Optional(Type.String({ maxLength: 300, errorMessage: 'Text of at most 300 characters' })),
  },
  { ...strict, errorMessage: 'An object such as { "inputMode": "numeric", "length": 6 }' },
);

const Count = Type.Optional(Type.Integer({ minimum: 0 }));

/** `POST /v1/openid/offers/pre-authorized` (OpenID4VCI 1.0 §4.1, docs/decisions.md "Users, offers, the token and nonce endpoints"). */
export const PreAuthorizedOfferBody = Type.Object(
  {
    credentials: Credentials,
    userId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, errorMessage: 'A user id' })),
    transactionCodeConfiguration: Type.Optional(TransactionCodeConfiguration),
    claims: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'An object of claims' })),
    claimsToPersist: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 1000, errorMessage: 'A list of claim names' })),
    // Another member is refused in the words of the whole (`Never`, where `false` would say "Unknown field").
    expiresIn: Type.Optional(
      Type.Object(
        { minutes: Count, seconds: Count },
        { additionalProperties: Type.Never(), errorMessage: 'Whole numbers of minutes and seconds, such as { "minutes": 5 }' },
      ),
    ),
    byReference: ByReference,
    ...requirements,
  },
  strict,
);
