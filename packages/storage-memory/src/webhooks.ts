// The webhook repositories of the memory store: subscriptions, the delivery outbox and the signing keys.
import { conflict, type Repositories, type Webhook, type WebhookDelivery, type WebhookSigningKey } from '@vellum/core';
import { copy, ownedById, ownedRow, ownedValue, purgeWhere, type Row, tenantPage, tenantValues } from './rows.ts';

/** A delivery and its lease. */
interface DeliveryRow extends Row<WebhookDelivery> {
  leaseUntil?: string;
  claimToken?: string;
}

export interface WebhookState {
  /** By id. */
  webhooks: Map<string, Row<Webhook>>;
  /** By id, in creation order. */
  deliveries: Map<string, DeliveryRow>;
  /** By key id, in creation order. */
  keys: Map<string, Row<WebhookSigningKey>>;
}

export const emptyWebhookState = (): WebhookState => ({ webhooks: new Map(), deliveries: new Map(), keys: new Map() });

/** The webhook repositories over the state `get` returns; `next` hands out creation-order numbers. */
export function webhookRepositories(get: () => WebhookState, next: () => number): Pick<Repositories, 'webhooks' | 'webhookDeliveries' | 'webhookKeys'> {
  const webhookOf = (tenantId: string, id: string) => ownedRow(get().webhooks, tenantId, id);
  const pendingSignedWith = (tenantId: string, keyId: string) =>
    [...get().deliveries.values()].some((r) => r.value.tenantId === tenantId && r.value.keyId === keyId && r.value.status === 'pending');

  return {
    webhooks: {
      ...ownedById(() => get().webhooks, next, 'Webhook id exists'),
      async update(webhook) {
        const r = webhookOf(webhook.tenantId, webhook.id);
        if (!r) return false;
        const { url, events, disabled, updatedAt } = copy(webhook);
        r.value = { ...r.value, url, events, disabled, updatedAt };
        return true;
      },
      async delete(tenantId, id) {
        const s = get();
        if (!webhookOf(tenantId, id)) return false;
        s.webhooks.delete(id);
        for (const [deliveryId, r] of s.deliveries) if (r.value.webhookId === id) s.deliveries.delete(deliveryId);
        return true;
      },
      async listSubscribed(tenantId, events) {
        return tenantValues(get().webhooks, tenantId, (w) => !w.disabled && w.events.some((e) => events.includes(e)));
      },
    },

    webhookDeliveries: {
      async insertMany(deliveries) {
        const s = get();
        const ids = new Set(deliveries.map((d) => d.id));
        if (ids.size !== deliveries.length || deliveries.some((d) => s.deliveries.has(d.id))) throw conflict('Delivery id exists');
        for (const d of deliveries) {
          // The SQL store's foreign key: a delivery belongs to an existing webhook of its tenant.
          if (!webhookOf(d.tenantId, d.webhookId)) throw new Error(`Delivery ${d.id} names webhook ${d.webhookId}, which the tenant does not have`);
        }
        for (const d of deliveries) s.deliveries.set(d.id, { seq: next(), value: copy(d) });
      },
      async get(tenantId, id) {
        return ownedValue(get().deliveries, tenantId, id);
      },
      async list(tenantId, webhookId, page) {
        return tenantPage(get().deliveries, tenantId, page, (d) => d.webhookId === webhookId);
      },
      async claimDue({ now, leaseUntil, limit, claimToken }) {
        const s = get();
        const due = [...s.deliveries.values()]
          .filter(
            (r) =>
              r.value.status === 'pending' &&
              r.value.nextAttemptAt !== undefined &&
              r.value.nextAttemptAt <= now &&
              (r.leaseUntil === undefined || r.leaseUntil <= now),
          )
          .sort((a, b) =>
            (a.value.nextAttemptAt as string) < (b.value.nextAttemptAt as string)
              ? -1
              : (a.value.nextAttemptAt as string) > (b.value.nextAttemptAt as string)
                ? 1
                : a.seq - b.seq,
          )
          .slice(0, limit);
        return due.map((r) => {
          r.leaseUntil = leaseUntil;
          r.claimToken = claimToken;
          const webhook = s.webhooks.get(r.value.webhookId)?.value as Webhook;
          return { delivery: copy(r.value), url: webhook.url, disabled: webhook.disabled, claimToken };
        });
      },
      async recordAttempts(outcomes) {
        const s = get();
        const recorded: string[] = [];
        for (const o of outcomes) {
          const r = s.deliveries.get(o.id);
          if (!r || r.value.tenantId !== o.tenantId || r.claimToken !== o.claimToken) continue;
          const final = o.status !== 'pending';
          const { credential: _credential, nextAttemptAt: _next, keyId: _key, ...rest } = r.value;
          const keyId = o.keyId ?? r.value.keyId;
          r.value = {
            ...rest,
            ...(final || !('credential' in r.value) ? {} : { credential: r.value.credential }),
            ...(!final && o.nextAttemptAt !== undefined ? { nextAttemptAt: o.nextAttemptAt } : {}),
            ...(keyId !== undefined ? { keyId } : {}),
            status: o.status,
            attempts: copy(o.attempts),
            retriesLeft: o.retriesLeft,
            updatedAt: o.attempts[o.attempts.length - 1]?.at ?? r.value.updatedAt,
          };
          delete r.leaseUntil;
          delete r.claimToken;
          recorded.push(o.id);
        }
        return recorded;
      },
      async requeue(tenantId, id, at, retriesLeft) {
        const r = get().deliveries.get(id);
        if (!r || r.value.tenantId !== tenantId || r.value.status !== 'failed') return false;
        r.value = { ...r.value, status: 'pending', nextAttemptAt: at, retriesLeft, updatedAt: at };
        delete r.leaseUntil;
        delete r.claimToken;
        return true;
      },
      async countPending() {
        let n = 0;
        for (const r of get().deliveries.values()) if (r.value.status === 'pending') n += 1;
        return n;
      },
      async purgeFinishedBefore(tenantId, before, limit) {
        return purgeWhere(get().deliveries, limit, (r) => r.value.tenantId === tenantId && r.value.status !== 'pending' && r.value.updatedAt < before);
      },
    },

    webhookKeys: {
      async active(tenantId) {
        const r = [...get().keys.values()].find((k) => k.value.tenantId === tenantId && k.value.status === 'active');
        return r && copy(r.value);
      },
      async insertActive(key) {
        const s = get();
        const existing = [...s.keys.values()].find((k) => k.value.tenantId === key.tenantId && k.value.status === 'active');
        if (existing) return copy(existing.value);
        if (s.keys.has(key.keyId)) throw conflict('Signing key id exists');
        s.keys.set(key.keyId, { seq: next(), value: copy({ ...key, status: 'active' }) });
        return copy({ ...key, status: 'active' });
      },
      async rotate(tenantId, currentKeyId, nextKey, at) {
        const s = get();
        const current = s.keys.get(currentKeyId);
        if (!current || current.value.tenantId !== tenantId || current.value.status !== 'active') throw conflict('The active signing key changed meanwhile');
        if (s.keys.has(nextKey.keyId)) throw conflict('Signing key id exists');
        current.value = { ...current.value, status: 'retired', retiredAt: at };
        s.keys.set(nextKey.keyId, { seq: next(), value: copy({ ...nextKey, status: 'active' }) });
      },
      async listPublished(tenantId) {
        return [...get().keys.values()]
          .filter((k) => k.value.tenantId === tenantId && (k.value.status === 'active' || pendingSignedWith(tenantId, k.value.keyId)))
          .map((k) => copy(k.value));
      },
      async listSpent(limit) {
        return [...get().keys.values()]
          .filter((k) => k.value.status === 'retired' && !pendingSignedWith(k.value.tenantId, k.value.keyId))
          .slice(0, limit)
          .map((k) => copy(k.value));
      },
      async deleteRetired(tenantId, keyId) {
        const s = get();
        const k = s.keys.get(keyId);
        return k !== undefined && k.value.tenantId === tenantId && k.value.status === 'retired' && s.keys.delete(keyId);
      },
    },
  };
}
