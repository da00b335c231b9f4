import type { PublicJwk } from '../keys/model.ts';
import type { WebhookEvent } from './rules.ts';
import type { TenantRecord } from '../shared/ports.ts';

/** docs/decisions.md "Webhooks": a receiver and the events it subscribes to. */
export interface Webhook extends TenantRecord {
  id: string;
  /** Normalised by the rules of docs/decisions.md "Webhooks". */
  url: string;
  events: WebhookEvent[];
  /** docs/decisions.md "Webhooks": a disabled webhook is sent nothing. */
  disabled: boolean;
}

/** The event types Vellum emits today; `OidcIssuerCredentialIssued` is accepted in subscriptions but never emitted. */
export const EMITTED_WEBHOOK_EVENTS = [
  'OpenIdCredentialIssued',
  'OpenIdCredentialIssuedSummary',
  'CredentialStatusUpdated',
  'OpenIdCredentialReviewRequested',
  'PresentationVerified',
  'PresentationFailed',
] as const satisfies readonly WebhookEvent[];
export type EmittedWebhookEvent = (typeof EMITTED_WEBHOOK_EVENTS)[number];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One try at sending a delivery (docs/decisions.md "Webhooks"). */
export interface DeliveryAttempt {
  at: string;
  /** The receiver's HTTP status, when it answered. */
  statusCode?: number;
  /** Why there was no answer (timeout, refused address, TLS), or why the delivery was not sent. */
  error?: string;
  durationMs: number;
}

/**
 * A row of the webhook outbox: one event for one subscribed webhook and event type. It is written
 * in the transaction of the event that causes it, and a worker sends it.
 */
export interface WebhookDelivery extends TenantRecord {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: EmittedWebhookEvent;
  /** When the event happened (the body's `event.timestamp`). */
  occurredAt: string;
  /** The event payload without the credential (`credentialId`, `userClaims`, …). */
  payload: Record<string, unknown>;
  /**
   * The issued credential, for `OpenIdCredentialIssued` only. Kept no longer than needed: the
   * store drops it when the delivery succeeds or finally fails.
   */
  credential?: unknown;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** Automatic retries still allowed after a failed attempt (docs/decisions.md "Webhooks": three). */
  retriesLeft: number;
  /** When a pending delivery is due. */
  nextAttemptAt?: string;
  /** The KeyManager id of the key that signs every attempt, fixed when the delivery is written or first sent. */
  keyId?: string;
}

/** A delivery a worker has leased, with the webhook's state as it is now. */
export interface ClaimedDelivery {
  delivery: WebhookDelivery;
  /** The webhook's current URL: a receiver moved by PUT gets the retries. */
  url: string;
  disabled: boolean;
  /** Proves the lease when the outcome is recorded. */
  claimToken: string;
}

/** What a worker records after an attempt of a claimed delivery. */
export interface DeliveryOutcome {
  tenantId: string;
  id: string;
  claimToken: string;
  /** Every attempt so far, the new one last. */
  attempts: DeliveryAttempt[];
  status: DeliveryStatus;
  nextAttemptAt?: string;
  retriesLeft: number;
  keyId?: string;
}

export const SIGNING_KEY_STATUSES = ['active', 'retired'] as const;
export type SigningKeyStatus = (typeof SIGNING_KEY_STATUSES)[number];

/** A tenant's Ed25519 key for webhook signatures; the private half stays in the KeyManager. */
export interface WebhookSigningKey {
  tenantId: string;
  /** The KeyManager id, which is also the `keyid` of the signatures and the `kid` in the JWKS. */
  keyId: string;
  publicJwk: PublicJwk;
  status: SigningKeyStatus;
  createdAt: string;
  retiredAt?: string;
}
