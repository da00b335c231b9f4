// What webhooks ask of the world: the Store's webhooks, their delivery outbox and signing keys. Each
// method's comment is its contract, which the Store contract suite in @vellum/testing asserts.

import type { PageRequest, Slice } from '../shared/pagination.ts';
import type { TenantRecordRepository } from '../shared/ports.ts';
import type { ClaimedDelivery, DeliveryOutcome, Webhook, WebhookDelivery, WebhookSigningKey } from './model.ts';
import type { WebhookEvent } from './rules.ts';

export interface WebhookRepository extends TenantRecordRepository<Webhook> {
  /** Removes the webhook together with its deliveries. Returns false when the tenant has no such webhook. */
  delete(tenantId: string, id: string): Promise<boolean>;
  /** The tenant's enabled webhooks subscribed to at least one of `events`, in creation order (the outbox reads it on every issuance). */
  listSubscribed(tenantId: string, events: readonly WebhookEvent[]): Promise<Webhook[]>;
}

/**
 * The webhook outbox. Deliveries are written in the transaction of the event that causes them and
 * claimed by workers; `claimDue`, `recordAttempts` and `countPending` are the only queries that span
 * tenants (a worker, or the metrics scrape, serves them all); the first two reach only rows a claim
 * has leased, and `countPending` returns a number, nothing of any tenant's rows.
 */
export interface WebhookDeliveryRepository {
  /** Adds deliveries of the tenants' webhooks. Throws DomainError `Conflict` when an id exists. */
  insertMany(deliveries: readonly WebhookDelivery[]): Promise<void>;
  get(tenantId: string, id: string): Promise<WebhookDelivery | undefined>;
  /** One webhook's deliveries in creation order. */
  list(tenantId: string, webhookId: string, page: PageRequest): Promise<Slice<WebhookDelivery>>;
  /**
   * Leases up to `limit` deliveries of any tenant that are pending, due (`nextAttemptAt` <= `now`)
   * and not leased (no lease, or one that ended by `now`), until `leaseUntil` under `claimToken`,
   * the earliest due first. Atomic: racing claimers, in one process or several sharing a database,
   * never receive the same delivery while its lease holds. Each comes with its webhook's current
   * URL and state.
   */
  claimDue(claim: { now: string; leaseUntil: string; limit: number; claimToken: string }): Promise<ClaimedDelivery[]>;
  /**
   * Records the outcome of claimed deliveries and ends their leases, each only while its claim token
   * still holds (once a lease has run out and another worker claimed the delivery, the outcome is
   * that worker's to record). A final status (`succeeded`, `failed`) drops the stored `credential`
   * and `nextAttemptAt`. Returns the ids recorded.
   */
  recordAttempts(outcomes: readonly DeliveryOutcome[]): Promise<string[]>;
  /**
   * Queues a failed delivery again, due at `at` with `retriesLeft` automatic retries; its attempts
   * are kept. Returns false (nothing changed) when the tenant has no such delivery or it is not failed.
   */
  requeue(tenantId: string, id: string, at: string, retriesLeft: number): Promise<boolean>;
  /**
   * How many deliveries of all tenants are pending: due or not, leased by a worker or not (the
   * outbox's depth, read at each metrics scrape). Succeeded and failed deliveries are not counted.
   */
  countPending(): Promise<number>;
  /**
   * Deletes up to `limit` of the tenant's finished deliveries (succeeded or failed, never pending)
   * last updated before `before` (the retention job, docs/retention.md); returns how many.
   */
  purgeFinishedBefore(tenantId: string, before: string, limit: number): Promise<number>;
}

/** Tenants' webhook signing keys: at most one active per tenant, and the retired ones still in use. */
export interface WebhookKeyRepository {
  active(tenantId: string): Promise<WebhookSigningKey | undefined>;
  /**
   * Stores `key` (status active) unless the tenant already has an active key, checked and written
   * atomically; returns the tenant's active key, whichever it is, so racing servers agree.
   */
  insertActive(key: WebhookSigningKey): Promise<WebhookSigningKey>;
  /**
   * Retires the tenant's active key `currentKeyId` at `at` and makes `next` active, atomically.
   * Throws DomainError `Conflict` (nothing changed) when `currentKeyId` is not the active key.
   */
  rotate(tenantId: string, currentKeyId: string, next: WebhookSigningKey, at: string): Promise<void>;
  /** What receivers may need, oldest first: the active key, and each retired key a pending delivery still signs with. */
  listPublished(tenantId: string): Promise<WebhookSigningKey[]>;
  /** Up to `limit` retired keys, of any tenant, that no pending delivery signs with (their private halves may go). */
  listSpent(limit: number): Promise<WebhookSigningKey[]>;
  /** Forgets a retired key. Returns false when the tenant has no such retired key. */
  deleteRetired(tenantId: string, keyId: string): Promise<boolean>;
}
