import type {
  DeliveryAttempt,
  DeliveryStatus,
  EmittedWebhookEvent,
  PublicJwk,
  SigningKeyStatus,
  Webhook,
  WebhookDelivery,
  WebhookEvent,
  WebhookSigningKey,
} from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import { fromSqlBoolean, type Seq, type SqlBoolean, type SqlDialectKind, toSqlBoolean } from './database.ts';

export interface WebhooksTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  url: string;
  /** JSON array of event names. */
  events: string;
  disabled: SqlBoolean;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  occurred_at: string;
  /** JSON of the payload without the credential. */
  payload: string;
  /** JSON of the credential; null for summaries, and once the delivery is done (it is not kept longer). */
  credential: string | null;
  status: string;
  /** JSON array of attempts. */
  attempts: string;
  retries_left: number;
  next_attempt_at: string | null;
  lease_until: string | null;
  claim_token: string | null;
  key_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookSigningKeysTable {
  seq: Seq;
  tenant_id: string;
  key_id: string;
  /** JSON of the public JWK. */
  public_jwk: string;
  status: string;
  created_at: string;
  retired_at: string | null;
}

export function toWebhook(row: Selectable<WebhooksTable>): Webhook {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEvent[],
    disabled: fromSqlBoolean(row.disabled),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toWebhookRow(w: Webhook, kind: SqlDialectKind): Insertable<WebhooksTable> {
  return {
    id: w.id,
    tenant_id: w.tenantId,
    url: w.url,
    events: JSON.stringify(w.events),
    disabled: toSqlBoolean(kind, w.disabled),
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

/** Maps a stored delivery to the domain type; the lease columns stay in the store. */
export function toWebhookDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type as EmittedWebhookEvent,
    occurredAt: row.occurred_at,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    ...(row.credential === null ? {} : { credential: JSON.parse(row.credential) as unknown }),
    status: row.status as DeliveryStatus,
    attempts: JSON.parse(row.attempts) as DeliveryAttempt[],
    retriesLeft: row.retries_left,
    ...(row.next_attempt_at === null ? {} : { nextAttemptAt: row.next_attempt_at }),
    ...(row.key_id === null ? {} : { keyId: row.key_id }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toWebhookDeliveryRow(d: WebhookDelivery): Insertable<WebhookDeliveriesTable> {
  return {
    id: d.id,
    tenant_id: d.tenantId,
    webhook_id: d.webhookId,
    event_id: d.eventId,
    event_type: d.eventType,
    occurred_at: d.occurredAt,
    payload: JSON.stringify(d.payload),
    // `undefined` (no credential) and a credential that is JSON null must stay apart.
    credential: 'credential' in d ? JSON.stringify(d.credential ?? null) : null,
    status: d.status,
    attempts: JSON.stringify(d.attempts),
    retries_left: d.retriesLeft,
    next_attempt_at: d.nextAttemptAt ?? null,
    lease_until: null,
    claim_token: null,
    key_id: d.keyId ?? null,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

export function toWebhookSigningKey(row: Selectable<WebhookSigningKeysTable>): WebhookSigningKey {
  return {
    tenantId: row.tenant_id,
    keyId: row.key_id,
    publicJwk: JSON.parse(row.public_jwk) as PublicJwk,
    status: row.status as SigningKeyStatus,
    createdAt: row.created_at,
    ...(row.retired_at === null ? {} : { retiredAt: row.retired_at }),
  };
}

export function toWebhookSigningKeyRow(k: WebhookSigningKey): Insertable<WebhookSigningKeysTable> {
  return {
    tenant_id: k.tenantId,
    key_id: k.keyId,
    public_jwk: JSON.stringify(k.publicJwk),
    status: k.status,
    created_at: k.createdAt,
    retired_at: k.retiredAt ?? null,
  };
}
