import { Type } from '@sinclair/typebox';

/** OpenID4VCI 1.0 §4.1: the offer bodies, the core's own schemas (one validation path). */
export { AuthorizationCodeOfferBody, PreAuthorizedOfferBody } from '@vellum/core/schemas';

const Id = Type.String({ maxLength: 200 });

export const OfferUriResponse = Type.Object({ uri: Type.String() });

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
