import { Type } from '@sinclair/typebox';

/**
 * The three event types of docs/decisions.md "Webhooks", `CredentialStatusUpdated` (a Vellum addition: revocation,
 * suspension, reinstatement) and `OpenIdCredentialReviewRequested` (one: a deferred issuance waits for review).
 */
export const WEBHOOK_EVENTS = [
  'OpenIdCredentialIssued',
  'OpenIdCredentialIssuedSummary',
  'OidcIssuerCredentialIssued',
  'CredentialStatusUpdated',
  'OpenIdCredentialReviewRequested',
  // Issue 31: a presentation session's answer verified, or not (docs/verification.md "Presentation sessions").
  'PresentationVerified',
  'PresentationFailed',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

// The messages stay within the 200 characters an error detail keeps over HTTP (body-limits.ts).
const eventList = WEBHOOK_EVENTS.join(', ');

/** docs/decisions.md "Webhooks": the create and replace body. The URL rules are value rules (rules.ts). */
export const WebhookBody = Type.Object(
  {
    events: Type.Array(
      Type.Union(
        WEBHOOK_EVENTS.map((event) => Type.Literal(event)),
        { errorMessage: `Unknown; one of ${eventList}` },
      ),
      {
        minItems: 1,
        maxItems: 20,
        errorMessage: `1 to 20 of ${eventList}`,
      },
    ),
    url: Type.String({ maxLength: 2048, errorMessage: 'Required: the https address of the receiver' }),
    disabled: Type.Optional(Type.Boolean({ errorMessage: 'true or false' })),
  },
  { additionalProperties: false },
);
