import { isUuid } from '../shared/ids.ts';
import type { EventRecorder } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import type { Clock, Ids } from '../shared/ports.ts';
import { adminCollection, type CollectionService } from '../shared/admin-resource.ts';
import { conflict, invalidField, notFound } from '../shared/errors.ts';
import { type Page, type PageQuery, parsePageQuery, toPage } from '../shared/pagination.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { WebhookJwks, WebhookSigningKeys } from './keys.ts';
import type { DeliveryAttempt, DeliveryStatus, Webhook, WebhookDelivery } from './model.ts';
import { checkWebhookInput, type WebhookEvent, type WebhookInput } from './rules.ts';

export interface WebhookServiceDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  events: EventRecorder;
  signingKeys: WebhookSigningKeys;
}

/** docs/decisions.md "Webhooks": a webhook as the API shows it. */
export interface WebhookView {
  id: string;
  events: WebhookEvent[];
  url: string;
  disabled: boolean;
}

/** docs/decisions.md "Webhooks": a delivery and its attempts, as the delivery log shows it (never its payload). */
export interface WebhookDeliveryView {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  nextAttemptAt?: string;
  createdAt: string;
}

export type WebhookListQuery = PageQuery;

/**
 * Webhooks (docs/decisions.md "Webhooks"): subscriptions, the delivery log, the signing keys. `update`
 * replaces a webhook (PUT): `disabled` left out means enabled (notifications resume). `delete` removes
 * it; its pending deliveries are not sent.
 */
export interface WebhookService extends CollectionService<WebhookView, WebhookInput> {
  listDeliveries(ctx: RequestContext, webhookId: string, query: WebhookListQuery): Promise<Page<WebhookDeliveryView>>;
  /** Sends a failed delivery once more, as soon as a worker is free. */
  retryDelivery(ctx: RequestContext, webhookId: string, deliveryId: string): Promise<WebhookDeliveryView>;
  /** Public: the tenant's signing keys (no token, no events). */
  jwks(ctx: RequestContext): Promise<WebhookJwks>;
  /** Makes a new signing key; the old one stays in the JWKS until its last pending delivery is done. */
  rotateSigningKey(ctx: RequestContext): Promise<WebhookJwks & { activeKid: string; retiredKid: string }>;
}

/** Renders a stored webhook as the API shows it. */
export function webhookView(w: Webhook): WebhookView {
  return { id: w.id, events: [...w.events], url: w.url, disabled: w.disabled };
}

/** Renders a delivery for the delivery log. */
export function webhookDeliveryView(d: WebhookDelivery): WebhookDeliveryView {
  return {
    id: d.id,
    webhookId: d.webhookId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts.map((a) => ({ ...a })),
    ...(d.status === 'pending' && d.nextAttemptAt !== undefined ? { nextAttemptAt: d.nextAttemptAt } : {}),
    createdAt: d.createdAt,
  };
}

/** A webhook or delivery id named in a path; anything but a UUID is a 400 about it. */
function checkId(value: string, param: string): string {
  if (!isUuid(value)) throw invalidField(param, 'A UUID', value, 'params');
  return value.toLowerCase();
}

const noWebhook = () => notFound('The tenant has no such webhook');
const noDelivery = () => notFound('The webhook has no such delivery');

/** Builds the webhook use cases. */
export function createWebhookService(deps: WebhookServiceDeps): WebhookService {
  const { store, clock, ids, events, signingKeys } = deps;

  const meta = (v: WebhookView) => ({ id: v.id, events: v.events, disabled: v.disabled });
  const webhooks = adminCollection({
    events,
    permission: 'webhooks',
    stem: 'WEBHOOK',
    records: () => store.webhooks,
    view: webhookView,
    meta,
    checkId: (id) => checkId(id, 'id'),
    missing: noWebhook,
  });
  const { run, find } = webhooks;

  return {
    create(ctx, input) {
      return run(ctx, 'WEBHOOK_CREATE', { input, meta }, async () => {
        const checked = checkWebhookInput(input);
        const now = clock.now().toISOString();
        const webhook: Webhook = { id: ids.uuid(), tenantId: ctx.tenant.id, ...checked, createdAt: now, updatedAt: now };
        await store.webhooks.insert(webhook);
        // The tenant's signing key is made with its first webhook, so deliveries are signed from the start.
        await signingKeys.ensureActive(ctx.tenant.id);
        return webhookView(webhook);
      });
    },

    list: webhooks.list,
    get: webhooks.get,

    update(ctx, id, input) {
      return webhooks.update(ctx, input, async () => {
        const checked = checkWebhookInput(input);
        return { ...(await find(ctx, id)), ...checked, updatedAt: clock.now().toISOString() };
      });
    },

    delete: webhooks.delete,

    listDeliveries(ctx, webhookId, query) {
      return run(ctx, 'WEBHOOK_DELIVERY_LIST', { meta: (p) => ({ webhookId, count: p.data.length }), keepResponse: false }, async () => {
        const webhook = await find(ctx, webhookId);
        const page = parsePageQuery(query);
        return toPage(await store.webhookDeliveries.list(ctx.tenant.id, webhook.id, page), page, webhookDeliveryView);
      });
    },

    retryDelivery(ctx, webhookId, deliveryId) {
      return run(ctx, 'WEBHOOK_DELIVERY_RETRY', { meta: () => ({ webhookId, deliveryId }) }, async () => {
        const webhook = await find(ctx, webhookId);
        const found = await store.webhookDeliveries.get(ctx.tenant.id, checkId(deliveryId, 'deliveryId'));
        if (!found || found.webhookId !== webhook.id) throw noDelivery();
        if (found.status !== 'failed') throw conflict(`Only a failed delivery can be retried; this one is ${found.status}`);
        // One more attempt: a manual retry does not start another automatic retry cycle.
        const at = clock.now().toISOString();
        if (!(await store.webhookDeliveries.requeue(ctx.tenant.id, found.id, at, 0))) throw conflict('The delivery changed meanwhile; read it again');
        const { credential: _credential, ...rest } = found;
        return webhookDeliveryView({ ...rest, status: 'pending', nextAttemptAt: at, retriesLeft: 0 });
      });
    },

    jwks(ctx) {
      return signingKeys.jwks(ctx.tenant.id);
    },

    rotateSigningKey(ctx) {
      return run(ctx, 'WEBHOOK_SIGNING_KEY_ROTATE', { meta: (r) => ({ activeKid: r.activeKid, retiredKid: r.retiredKid }) }, async () => {
        const { active, retired } = await signingKeys.rotate(ctx.tenant.id);
        return { activeKid: active.keyId, retiredKid: retired.keyId, ...(await signingKeys.jwks(ctx.tenant.id)) };
      });
    },
  };
}
