import { isUuid } from '../configurations/input.ts';
import type { EventPrefix } from '../events/catalogue.ts';
import { type EventRecorder, withEvents } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import type { Clock, Ids } from '../shared/ports.ts';
import { conflict, invalidField, notFound } from '../shared/errors.ts';
import { type Page, parsePageQuery, toPage } from '../shared/pagination.ts';
import { requirePermission } from '../tenancy/admin-auth.ts';
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

export interface WebhookListQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** Webhooks (docs/decisions.md "Webhooks"): subscriptions, the delivery log, the signing keys. */
export interface WebhookService {
  create(ctx: RequestContext, input: WebhookInput): Promise<WebhookView>;
  list(ctx: RequestContext, query: WebhookListQuery): Promise<Page<WebhookView>>;
  get(ctx: RequestContext, id: string): Promise<WebhookView>;
  /** Replaces the webhook (PUT): `disabled` left out means enabled (docs/decisions.md "Webhooks": notifications resume). */
  update(ctx: RequestContext, id: string, input: WebhookInput): Promise<WebhookView>;
  /** Removes the webhook; its pending deliveries are not sent. */
  delete(ctx: RequestContext, id: string): Promise<void>;
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

  async function find(ctx: RequestContext, id: string): Promise<Webhook> {
    const found = await store.webhooks.get(ctx.tenant.id, checkId(id, 'id'));
    if (!found) throw noWebhook();
    return found;
  }

  const run = <T>(ctx: RequestContext, prefix: EventPrefix, work: () => Promise<T>, describe?: Parameters<typeof withEvents<T>>[4]) =>
    withEvents(
      events,
      ctx,
      prefix,
      async () => {
        requirePermission(ctx, 'webhooks');
        return work();
      },
      describe,
    );
  const meta = (v: WebhookView | void) => (v ? { id: v.id, events: v.events, disabled: v.disabled } : {});

  return {
    create(ctx, input) {
      return run(
        ctx,
        'WEBHOOK_CREATE',
        async () => {
          const checked = checkWebhookInput(input);
          const now = clock.now().toISOString();
          const webhook: Webhook = { id: ids.uuid(), tenantId: ctx.tenant.id, ...checked, createdAt: now, updatedAt: now };
          await store.webhooks.insert(webhook);
          // The tenant's signing key is made with its first webhook, so deliveries are signed from the start.
          await signingKeys.ensureActive(ctx.tenant.id);
          return webhookView(webhook);
        },
        { input, meta },
      );
    },

    list(ctx, query) {
      return run(ctx, 'WEBHOOK_LIST', async () => toPage(await store.webhooks.list(ctx.tenant.id, parsePageQuery(query)), webhookView), {
        meta: (p) => ({ count: p.data.length }),
      });
    },

    get(ctx, id) {
      return run(ctx, 'WEBHOOK_RETRIEVE', async () => webhookView(await find(ctx, id)), { meta });
    },

    update(ctx, id, input) {
      return run(
        ctx,
        'WEBHOOK_UPDATE',
        async () => {
          const checked = checkWebhookInput(input);
          const existing = await find(ctx, id);
          const webhook: Webhook = { ...existing, ...checked, updatedAt: clock.now().toISOString() };
          if (!(await store.webhooks.update(webhook))) throw noWebhook();
          return webhookView(webhook);
        },
        { input, meta },
      );
    },

    delete(ctx, id) {
      return run(
        ctx,
        'WEBHOOK_DELETE',
        async () => {
          const existing = await find(ctx, id);
          if (!(await store.webhooks.delete(ctx.tenant.id, existing.id))) throw noWebhook();
        },
        { meta: () => ({ id }) },
      );
    },

    listDeliveries(ctx, webhookId, query) {
      return run(
        ctx,
        'WEBHOOK_DELIVERY_LIST',
        async () => {
          const webhook = await find(ctx, webhookId);
          return toPage(await store.webhookDeliveries.list(ctx.tenant.id, webhook.id, parsePageQuery(query)), webhookDeliveryView);
        },
        { meta: (p) => ({ webhookId, count: p.data.length }), keepResponse: false },
      );
    },

    retryDelivery(ctx, webhookId, deliveryId) {
      return run(
        ctx,
        'WEBHOOK_DELIVERY_RETRY',
        async () => {
          const webhook = await find(ctx, webhookId);
          const found = await store.webhookDeliveries.get(ctx.tenant.id, checkId(deliveryId, 'deliveryId'));
          if (!found || found.webhookId !== webhook.id) throw noDelivery();
          if (found.status !== 'failed') throw conflict(`Only a failed delivery can be retried; this one is ${found.status}`);
          // One more attempt: a manual retry does not start another automatic retry cycle.
          const at = clock.now().toISOString();
          if (!(await store.webhookDeliveries.requeue(ctx.tenant.id, found.id, at, 0))) throw conflict('The delivery changed meanwhile; read it again');
          const { credential: _credential, ...rest } = found;
          return webhookDeliveryView({ ...rest, status: 'pending', nextAttemptAt: at, retriesLeft: 0 });
        },
        { meta: () => ({ webhookId, deliveryId }) },
      );
    },

    jwks(ctx) {
      return signingKeys.jwks(ctx.tenant.id);
    },

    rotateSigningKey(ctx) {
      return run(
        ctx,
        'WEBHOOK_SIGNING_KEY_ROTATE',
        async () => {
          const { active, retired } = await signingKeys.rotate(ctx.tenant.id);
          return { activeKid: active.keyId, retiredKid: retired.keyId, ...(await signingKeys.jwks(ctx.tenant.id)) };
        },
        { meta: (r) => ({ activeKid: r.activeKid, retiredKid: r.retiredKid }) },
      );
    },
  };
}
