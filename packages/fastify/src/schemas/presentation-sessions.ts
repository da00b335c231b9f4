import { Type } from '@sinclair/typebox';
import { SESSION_STATES } from '@vellum/core';

// docs/verification.md "Presentation sessions". The bodies are the core's own schemas (one
// validation path); the core checks the DCQL query and the application's rules beyond them.
export { CreateSessionBody, PresentationResponseBody, RequestUriPostBody } from '@vellum/core/schemas';

/** The session's id (a UUID) in the path. */
export const PresentationSessionParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

/** `GET /v2/presentations/sessions/{id}?responseCode=`: the same-device redirect's code, when checked. */
export const PresentationSessionQuery = Type.Object(
  {
    responseCode: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'The response_code the same-device redirect carried; the session is shown only when it matches.',
      }),
    ),
  },
  { additionalProperties: false },
);

const Failed = Type.Object({ check: Type.String(), ok: Type.Boolean(), reason: Type.Optional(Type.String()) });

const Presentation = Type.Object({
  verified: Type.Boolean(),
  format: Type.String(),
  issuer: Type.Optional(
    Type.Object(
      { kind: Type.String(), id: Type.String(), trusted: Type.Boolean(), trustedIssuerId: Type.Optional(Type.String()) },
      { additionalProperties: true },
    ),
  ),
  credentialType: Type.Optional(Type.String()),
  validity: Type.Optional(Type.Object({ validFrom: Type.Optional(Type.String()), validUntil: Type.Optional(Type.String()) })),
  status: Type.Optional(Type.String()),
  failedChecks: Type.Array(Failed),
});

/** What the wallet's answer came to (core PresentationResult). */
export const PresentationResultSchema = Type.Object({
  verified: Type.Boolean({ description: 'True when every presentation verified and the DCQL query is satisfied.' }),
  credentials: Type.Record(
    Type.String(),
    Type.Object({
      satisfied: Type.Boolean(),
      claims: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'The claims the query asked for, one object per presentation.' }),
      presentations: Type.Array(Presentation),
      failures: Type.Array(Type.String()),
    }),
    { description: 'Per DCQL credential query id the wallet answered.' },
  ),
  failures: Type.Array(Type.String()),
  receivedAt: Type.String(),
});

const sessionFields = {
  id: Type.String({ format: 'uuid' }),
  applicationId: Type.String(),
  clientId: Type.String({ description: 'The client_id, prefix included.' }),
  state: Type.Union(
    SESSION_STATES.map((s) => Type.Literal(s)),
    { description: 'pending, verified, failed, or expired (pending past expiresAt).' },
  ),
  responseMode: Type.String(),
  redirectUri: Type.Optional(Type.String()),
  authorizationRequestUri: Type.String({ description: 'openid4vp://?client_id=…&request_uri=…&request_uri_method=post' }),
  requestUri: Type.String(),
  createdAt: Type.String(),
  expiresAt: Type.String(),
  completedAt: Type.Optional(Type.String()),
  result: Type.Optional(PresentationResultSchema),
};

export const PresentationSessionResponse = Type.Object(sessionFields);

/** The create answer adds the OpenID4VP `state` the request object carries. */
export const CreatedPresentationSessionResponse = Type.Object({
  ...sessionFields,
  oauthState: Type.String({ description: 'The OpenID4VP state value of the authorization request.' }),
});

/** OpenID4VP 1.0 §8.2: `{ redirect_uri }` for a same-device session, else `{}`. */
export const PresentationResponseAnswer = Type.Object({ redirect_uri: Type.Optional(Type.String()) });
