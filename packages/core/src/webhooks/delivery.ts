import type { KeyManager } from '../keys/ports.ts';
import type { Store } from '../ports.ts';
import type { Clock, HttpClient, Ids } from '../shared/ports.ts';
import { isDomainError } from '../shared/errors.ts';
import type { WebhookSigningKeys } from './keys.ts';
import type { ClaimedDelivery, DeliveryAttempt, DeliveryOutcome, WebhookDelivery, WebhookSigningKey } from './model.ts';
import { nextAttemptDelay, WEBHOOK_RETRIES } from './rules.ts';
import { bytesToBase64, contentDigest, type Sha256, signatureBase, signatureHeaders } from './signature.ts';

/** docs/decisions.md "Webhooks": a receiver has 3 s to answer. */
export const WEBHOOK_TIMEOUT_MS = 3000;
/** docs/decisions.md "Webhooks": the first backoff unless the host sets another. */
export const DEFAULT_RETRY_BASE_DELAY_MS = 10_000;
/** How long a claimed delivery is a worker's before another may take it (it must outlast a send). */
export const DEFAULT_DELIVERY_LEASE_MS = 30_000;

export interface WebhookDeliveryDeps {
  store: Store;
  keys: KeyManager;
  signingKeys: WebhookSigningKeys;
  http: HttpClient;
  clock: Clock;
  ids: Ids;
  /** The first retry's backoff, doubling after each failure (default 10 s). */
  retryBaseDelayMs?: number;
  /** How many deliveries one round claims (default 200). */
  batchSize?: number;
  /** How many of them are sent at once (default 64). */
  concurrency?: number;
  leaseMs?: number;
  timeoutMs?: number;
  /** SHA-256 for Content-Digest (default WebCrypto's). */
  sha256?: Sha256;
}

/** The body of a delivery (docs/decisions.md "Webhooks"). */
export interface WebhookDeliveryBody {
  deliveryId: string;
  deliveryTimestamp: string;
  webhookId: string;
  event: { id: string; type: string; payload: Record<string, unknown>; timestamp: string };
}

/** Sends due webhook deliveries: a host runs `deliverDue` in a loop (apps/server does, on every server). */
export interface WebhookDeliveryWorker {
  /** Claims a batch of due deliveries, sends them, records every attempt; returns how many were claimed. */
  deliverDue(): Promise<number>;
}

/**
 * The payload a delivery sends: the stored payload, with the credential first for
 * `OpenIdCredentialIssued` while it is kept (a delivery queued again after it failed has lost it).
 */
export function deliveryPayload(delivery: WebhookDelivery): Record<string, unknown> {
  return delivery.eventType === 'OpenIdCredentialIssued' && 'credential' in delivery
    ? { credential: delivery.credential, ...delivery.payload }
    : { ...delivery.payload };
}

/** Renders a delivery's body for one attempt (`deliveryTimestamp` is the attempt's time). */
export function renderDeliveryBody(delivery: WebhookDelivery, at: Date): WebhookDeliveryBody {
  return {
    deliveryId: delivery.id,
    deliveryTimestamp: at.toISOString(),
    webhookId: delivery.webhookId,
    event: { id: delivery.eventId, type: delivery.eventType, payload: deliveryPayload(delivery), timestamp: delivery.occurredAt },
  };
}

/** Builds the delivery worker (docs/decisions.md "Webhooks": 3 s timeout, three retries with backoff and jitter, then failed). */
export function createWebhookDeliveryWorker(deps: WebhookDeliveryDeps): WebhookDeliveryWorker {
  const { store, keys, signingKeys, http, clock, ids } = deps;
  const baseMs = deps.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
  const batchSize = deps.batchSize ?? 200;
  const concurrency = deps.concurrency ?? 64;
  const leaseMs = deps.leaseMs ?? DEFAULT_DELIVERY_LEASE_MS;
  const timeoutMs = deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const encoder = new TextEncoder();
  const random = () => {
    const b = ids.bytes(4);
    return ((((b[0] ?? 0) << 24) | ((b[1] ?? 0) << 16) | ((b[2] ?? 0) << 8) | (b[3] ?? 0)) >>> 0) / 2 ** 32;
  };

  /** Signs and sends one attempt; returns the attempt and the key that signed it. */
  async function attempt(
    claimed: ClaimedDelivery,
    keyFor: (tenantId: string) => Promise<WebhookSigningKey>,
  ): Promise<{ attempt: DeliveryAttempt; keyId?: string }> {
    const { delivery, url } = claimed;
    const started = clock.now();
    const body = encoder.encode(JSON.stringify(renderDeliveryBody(delivery, started)));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-digest': await contentDigest(body, deps.sha256),
      'webhook-id': delivery.id,
      'webhook-event-type': delivery.eventType,
      'user-agent': 'Vellum-Webhooks/1',
    };
    const created = Math.floor(started.getTime() / 1000);
    const sign = async (keyId: string) => {
      const params = { keyId, created };
      const base = signatureBase({ method: 'POST', targetUri: url, headers }, params);
      return signatureHeaders(bytesToBase64(await keys.sign(delivery.tenantId, keyId, encoder.encode(base))), params);
    };
    let keyId = delivery.keyId ?? (await keyFor(delivery.tenantId)).keyId;
    let signature: { 'signature-input': string; signature: string };
    try {
      signature = await sign(keyId);
    } catch (error) {
      // The pinned key was pruned under a racing rotation: sign with the tenant's active key instead.
      if (!isDomainError(error) || error.code !== 'NotFound' || delivery.keyId === undefined) throw error;
      keyId = (await signingKeys.ensureActive(delivery.tenantId)).keyId;
      signature = await sign(keyId);
    }
    const result = await http.send({ method: 'POST', url, headers: { ...headers, ...signature }, body, timeoutMs });
    const durationMs = Math.max(0, clock.now().getTime() - started.getTime());
    const at = started.toISOString();
    return { keyId, attempt: 'status' in result ? { at, statusCode: result.status, durationMs } : { at, error: result.error, durationMs } };
  }

  /** What to record after an attempt: done, failed for good, or due again after the backoff. */
  function outcomeOf(claimed: ClaimedDelivery, made: { attempt: DeliveryAttempt; keyId?: string }): DeliveryOutcome {
    const { delivery, claimToken } = claimed;
    const attempts = [...delivery.attempts, made.attempt];
    const base = { tenantId: delivery.tenantId, id: delivery.id, claimToken, attempts, ...(made.keyId ? { keyId: made.keyId } : {}) };
    const code = made.attempt.statusCode;
    if (code !== undefined && code >= 200 && code < 300) return { ...base, status: 'succeeded', retriesLeft: delivery.retriesLeft };
    const delay = delivery.retriesLeft > 0 ? nextAttemptDelay(WEBHOOK_RETRIES - delivery.retriesLeft + 1, baseMs, random) : undefined;
    if (delay === undefined) return { ...base, status: 'failed', retriesLeft: 0 };
    return { ...base, status: 'pending', retriesLeft: delivery.retriesLeft - 1, nextAttemptAt: new Date(clock.now().getTime() + delay).toISOString() };
  }

  async function deliverOne(claimed: ClaimedDelivery, keyFor: (tenantId: string) => Promise<WebhookSigningKey>): Promise<DeliveryOutcome> {
    if (claimed.disabled) {
      // docs/decisions.md "Webhooks": a disabled webhook is sent nothing. The delivery ends here; a retry after
      // the webhook is enabled again sends it.
      const attempt = { at: clock.now().toISOString(), error: 'Not sent: the webhook is disabled', durationMs: 0 };
      return {
        tenantId: claimed.delivery.tenantId,
        id: claimed.delivery.id,
        claimToken: claimed.claimToken,
        attempts: [...claimed.delivery.attempts, attempt],
        status: 'failed',
        retriesLeft: 0,
      };
    }
    try {
      return outcomeOf(claimed, await attempt(claimed, keyFor));
    } catch {
      // Signing failed (a store or key problem): an attempt that never left, retried as any other.
      return outcomeOf(claimed, { attempt: { at: clock.now().toISOString(), error: 'Not sent: the delivery could not be signed', durationMs: 0 } });
    }
  }

  return {
    async deliverDue() {
      const now = clock.now();
      const claimed = await store.webhookDeliveries.claimDue({
        now: now.toISOString(),
        leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
        limit: batchSize,
        claimToken: ids.uuid(),
      });
      if (claimed.length === 0) return 0;
      const activeKeys = new Map<string, Promise<WebhookSigningKey>>();
      const keyFor = (tenantId: string) => {
        let key = activeKeys.get(tenantId);
        if (!key) {
          key = signingKeys.ensureActive(tenantId);
          activeKeys.set(tenantId, key);
          key.catch(() => activeKeys.delete(tenantId));
        }
        return key;
      };
      const outcomes: DeliveryOutcome[] = new Array(claimed.length);
      let next = 0;
      const lane = async () => {
        while (next < claimed.length) {
          const i = next++;
          outcomes[i] = await deliverOne(claimed[i] as ClaimedDelivery, keyFor);
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, lane));
      await store.webhookDeliveries.recordAttempts(outcomes);
      return claimed.length;
    },
  };
}
