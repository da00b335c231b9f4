import type { Repositories } from '../ports.ts';
import type { Clock, DomainEvent, DomainEventSink, Ids } from '../shared/ports.ts';
import type { EmittedWebhookEvent, WebhookDelivery } from './model.ts';
import { WEBHOOK_RETRIES } from './rules.ts';

export interface WebhookOutboxDeps {
  clock: Clock;
  ids: Ids;
}

/** Which webhook event types a domain event becomes. */
const EVENT_TYPES: Record<DomainEvent['type'], readonly EmittedWebhookEvent[]> = {
  OpenIdCredentialIssued: ['OpenIdCredentialIssued', 'OpenIdCredentialIssuedSummary'],
  CredentialStatusUpdated: ['CredentialStatusUpdated'],
  OpenIdCredentialReviewRequested: ['OpenIdCredentialReviewRequested'],
  PresentationVerified: ['PresentationVerified'],
  PresentationFailed: ['PresentationFailed'],
};

/**
 * The transactional outbox behind webhooks (ARCHITECTURE.md, Storage): inside the caller's
 * transaction, one pending delivery for each enabled webhook of the tenant and each event type it
 * subscribes to. The credential is stored only for `OpenIdCredentialIssued` deliveries, and only
 * until the delivery is done (WebhookDeliveryRepository.recordAttempts).
 */
export function createWebhookOutbox(deps: WebhookOutboxDeps): DomainEventSink {
  const { clock, ids } = deps;
  return {
    async publish(tx: Repositories, event: DomainEvent) {
      const types = EVENT_TYPES[event.type];
      const webhooks = await tx.webhooks.listSubscribed(event.tenantId, types);
      if (webhooks.length === 0) return;
      const now = clock.now().toISOString();
      // Fixing the signing key now keeps every attempt under one key, which stays published until
      // the delivery is done. A tenant without a key yet gets one at the first attempt.
      const key = await tx.webhookKeys.active(event.tenantId);
      const { credential, ...summary } = event.type === 'OpenIdCredentialIssued' ? event.payload : { ...event.payload, credential: undefined };
      const deliveries: WebhookDelivery[] = [];
      for (const webhook of webhooks) {
        for (const type of types) {
          if (!webhook.events.includes(type)) continue;
          deliveries.push({
            id: ids.uuid(),
            tenantId: event.tenantId,
            webhookId: webhook.id,
            eventId: event.id,
            eventType: type,
            occurredAt: event.occurredAt,
            payload: summary,
            ...(type === 'OpenIdCredentialIssued' ? { credential } : {}),
            status: 'pending',
            attempts: [],
            retriesLeft: WEBHOOK_RETRIES,
            nextAttemptAt: now,
            ...(key ? { keyId: key.keyId } : {}),
            createdAt: now,
            updatedAt: now,
          });
        }
      }
      await tx.webhookDeliveries.insertMany(deliveries);
    },
  };
}
