// The Store contract for the webhook repositories (ports.ts: WebhookRepository,
// WebhookDeliveryRepository, WebhookKeyRepository), run inside describeStoreContract against every adapter.
import type { ClaimedDelivery, Store, Webhook, WebhookDelivery, WebhookSigningKey } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, expectWriteRolledBack, inserting, tenantMakers, unique, uuid } from './store-contract-support.ts';

export function makeWebhook(tenantId: string, over: Partial<Webhook> = {}): Webhook {
  const now = new Date().toISOString();
  return {
    id: uuid(),
    tenantId,
    url: `https://${unique('h')}.example.com/hook`,
    events: ['OpenIdCredentialIssued'],
    disabled: false,
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

/** A pending delivery of `webhook`, due at once, carrying a credential. */
export function makeDelivery(webhook: Webhook, over: Partial<WebhookDelivery> = {}): WebhookDelivery {
  const now = new Date().toISOString();
  return {
    id: uuid(),
    tenantId: webhook.tenantId,
    webhookId: webhook.id,
    eventId: uuid(),
    eventType: 'OpenIdCredentialIssued',
    occurredAt: now,
    payload: {
      credentialId: uuid(),
      credentialConfigurationId: uuid(),
      credentialProfile: 'mso_mdoc',
      format: 'mso_mdoc',
      userId: uuid(),
      userClaims: { givenName: 'Ada' },
    },
    credential: 'omFhZGNyZWQ',
    status: 'pending',
    attempts: [],
    retriesLeft: 3,
    nextAttemptAt: '2000-01-01T00:00:00.000Z',
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

export function makeSigningKey(tenantId: string, over: Partial<WebhookSigningKey> = {}): WebhookSigningKey {
  return { tenantId, keyId: uuid(), publicJwk: { kty: 'OKP', crv: 'Ed25519', x: unique('x') }, status: 'active', createdAt: new Date().toISOString(), ...over };
}

/** The webhook part of the Store contract; `store` is read when the tests run. */
export function describeWebhookContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);
  const webhook = inserting(makeWebhook, (w) => store().webhooks.insert(w));

  /**
   * Claims until every one of `mine` has been claimed (other tests' rows of the shared store may
   * take places in a batch), returning only the claims of `mine`, in claim order.
   */
  async function claimMine(mine: readonly string[], now: string, leaseUntil: string): Promise<ClaimedDelivery[]> {
    const wanted = new Set(mine);
    const got: ClaimedDelivery[] = [];
    for (let round = 0; round < 50 && got.length < wanted.size; round++) {
      const batch = await store().webhookDeliveries.claimDue({ now, leaseUntil, limit: 1000, claimToken: uuid() });
      got.push(...batch.filter((c) => wanted.has(c.delivery.id)));
      if (batch.length === 0) break;
    }
    return got;
  }

  /** Settles claimed deliveries so they leave the queue (the store is shared by the contract's tests). */
  async function settle(claims: readonly ClaimedDelivery[]): Promise<void> {
    await store().webhookDeliveries.recordAttempts(
      claims.map((c) => ({
        tenantId: c.delivery.tenantId,
        id: c.delivery.id,
        claimToken: c.claimToken,
        attempts: [{ at: new Date().toISOString(), statusCode: 200, durationMs: 1 }],
        status: 'succeeded',
        retriesLeft: 3,
      })),
    );
  }

  describe('webhooks', () => {
    it('stores, finds, lists in creation order, replaces and deletes within the tenant only', async () => {
      const [a, b] = await tenants();
      const made = [
        makeWebhook(a.id),
        makeWebhook(a.id, { events: ['OpenIdCredentialIssuedSummary', 'OidcIssuerCredentialIssued'], disabled: true }),
        makeWebhook(a.id),
      ];
      for (const w of made) await store().webhooks.insert(w);
      await expectDomainError(store().webhooks.insert(made[0] as Webhook), 'Conflict');
      expect(await store().webhooks.get(a.id, made[1]!.id)).toEqual(made[1]);
      expect(await store().webhooks.get(b.id, made[1]!.id)).toBeUndefined();
      const first = await store().webhooks.list(a.id, { limit: 2 });
      expect(first.items).toEqual(made.slice(0, 2));
      expect((await store().webhooks.list(a.id, { limit: 2, after: first.last as number })).items).toEqual([made[2]]);
      expect((await store().webhooks.list(b.id, { limit: 10 })).items).toEqual([]);

      const changed = {
        ...made[0]!,
        url: 'https://moved.example.com/x',
        events: ['OpenIdCredentialIssuedSummary' as const],
        disabled: true,
        updatedAt: new Date(Date.now() + 1000).toISOString(),
      };
      expect(await store().webhooks.update(changed)).toBe(true);
      expect(await store().webhooks.get(a.id, changed.id)).toEqual(changed);
      expect(await store().webhooks.update({ ...changed, tenantId: b.id })).toBe(false);
      expect(await store().webhooks.delete(b.id, changed.id)).toBe(false);
      expect(await store().webhooks.delete(a.id, changed.id)).toBe(true);
      expect(await store().webhooks.delete(a.id, changed.id)).toBe(false);
      expect(await store().webhooks.get(a.id, changed.id)).toBeUndefined();
    });

    it('lists only enabled webhooks subscribed to one of the events, in creation order', async () => {
      const t = await tenant();
      const other = await tenant();
      const full = makeWebhook(t.id, { events: ['OpenIdCredentialIssued'] });
      const summary = makeWebhook(t.id, { events: ['OpenIdCredentialIssuedSummary', 'OpenIdCredentialIssued'] });
      const off = makeWebhook(t.id, { disabled: true });
      const bridge = makeWebhook(t.id, { events: ['OidcIssuerCredentialIssued'] });
      for (const w of [full, summary, off, bridge, makeWebhook(other.id)]) await store().webhooks.insert(w);
      const subscribed = await store().webhooks.listSubscribed(t.id, ['OpenIdCredentialIssued', 'OpenIdCredentialIssuedSummary']);
      expect(subscribed.map((w) => w.id)).toEqual([full.id, summary.id]);
      expect((await store().webhooks.listSubscribed(t.id, ['OpenIdCredentialIssuedSummary'])).map((w) => w.id)).toEqual([summary.id]);
    });
  });

  describe('webhook deliveries', () => {
    it('stores deliveries with their credential, lists one webhook’s in creation order, within the tenant only', async () => {
      const t = await tenant();
      const other = await tenant();
      const w = makeWebhook(t.id);
      const w2 = makeWebhook(t.id);
      await store().webhooks.insert(w);
      await store().webhooks.insert(w2);
      const summary = makeDelivery(w, { eventType: 'OpenIdCredentialIssuedSummary', nextAttemptAt: '2999-01-01T00:00:00.000Z', keyId: uuid() });
      delete summary.credential;
      const ds = [
        makeDelivery(w, { nextAttemptAt: '2999-01-01T00:00:00.000Z', credential: { nested: ['structured', 1] } }),
        summary,
        makeDelivery(w2, { nextAttemptAt: '2999-01-01T00:00:00.000Z' }),
      ];
      await store().webhookDeliveries.insertMany(ds);
      await expectDomainError(store().webhookDeliveries.insertMany([ds[0] as WebhookDelivery]), 'Conflict');
      expect(await store().webhookDeliveries.get(t.id, ds[0]!.id)).toEqual(ds[0]);
      expect(await store().webhookDeliveries.get(t.id, summary.id)).toEqual(summary);
      expect(await store().webhookDeliveries.get(other.id, ds[0]!.id)).toBeUndefined();
      const page = await store().webhookDeliveries.list(t.id, w.id, { limit: 1 });
      expect(page.items.map((d) => d.id)).toEqual([ds[0]!.id]);
      expect((await store().webhookDeliveries.list(t.id, w.id, { limit: 10, after: page.last as number })).items.map((d) => d.id)).toEqual([summary.id]);
      expect((await store().webhookDeliveries.list(other.id, w.id, { limit: 10 })).items).toEqual([]);
      // Deleting the webhook takes its deliveries.
      await store().webhooks.delete(t.id, w.id);
      expect(await store().webhookDeliveries.get(t.id, ds[0]!.id)).toBeUndefined();
      await store().webhooks.delete(t.id, w2.id);
    });

    it('rolls back with the transaction that writes the event', async () => {
      const t = await tenant();
      const w = await webhook(t.id);
      const d = makeDelivery(w, { nextAttemptAt: '2999-01-01T00:00:00.000Z' });
      await expectWriteRolledBack(store(), 'issuance failed', {
        write: (tx) => tx.webhookDeliveries.insertMany([d]),
        read: (r) => r.webhookDeliveries.get(t.id, d.id),
      });
      await store().webhooks.delete(t.id, w.id);
    });

    it('claims due, unleased, pending deliveries only, earliest first, with the webhook’s current URL and state', async () => {
      const t = await tenant();
      const w = await webhook(t.id);
      const early = makeDelivery(w, { nextAttemptAt: '2001-01-01T00:00:00.000Z' });
      const late = makeDelivery(w, { nextAttemptAt: '2001-01-01T00:00:05.000Z' });
      const future = makeDelivery(w, { nextAttemptAt: '2001-01-01T01:00:00.000Z' });
      const done = makeDelivery(w, { status: 'succeeded', nextAttemptAt: '2001-01-01T00:00:00.000Z' });
      await store().webhookDeliveries.insertMany([late, early, future, done]);
      await store().webhooks.update({ ...w, url: 'https://moved.example.com/hook', disabled: true });

      const now = '2001-01-01T00:00:10.000Z';
      const claimed = await claimMine([early.id, late.id], now, '2001-01-01T00:01:00.000Z');
      expect(claimed.map((c) => c.delivery.id)).toEqual([early.id, late.id]);
      expect(claimed[0]).toMatchObject({ url: 'https://moved.example.com/hook', disabled: true, delivery: early });
      // Leased: nobody else gets them while the lease holds; the future and finished ones never came.
      const again = await store().webhookDeliveries.claimDue({ now, leaseUntil: '2001-01-01T00:02:00.000Z', limit: 1000, claimToken: uuid() });
      expect(again.map((c) => c.delivery.id)).not.toContain(early.id);
      expect(again.map((c) => c.delivery.id)).not.toContain(future.id);
      expect(again.map((c) => c.delivery.id)).not.toContain(done.id);
      // Once the lease has run out, another worker may take them (a worker that died mid-send).
      const after = await claimMine([early.id], '2001-01-01T00:01:00.000Z', '2001-01-01T00:03:00.000Z');
      expect(after.map((c) => c.delivery.id)).toEqual([early.id]);
      // The first claim's token no longer holds: only the new claimer records the attempt.
      const attempt = { at: '2001-01-01T00:01:01.000Z', statusCode: 500, durationMs: 12 };
      const stale = { tenantId: t.id, id: early.id, claimToken: claimed[0]!.claimToken, attempts: [attempt], status: 'failed' as const, retriesLeft: 0 };
      expect(await store().webhookDeliveries.recordAttempts([stale])).toEqual([]);
      expect((await store().webhookDeliveries.get(t.id, early.id))?.status).toBe('pending');
      await settle([...after, claimed[1] as ClaimedDelivery]);
      const futureClaim = await claimMine([future.id], '2001-01-01T02:00:00.000Z', '2001-01-01T02:01:00.000Z');
      await settle(futureClaim);
      await store().webhooks.delete(t.id, w.id);
    });

    it('records attempts: a retry stays pending with its credential, a final outcome drops the credential', async () => {
      const t = await tenant();
      const w = await webhook(t.id);
      const d = makeDelivery(w, { nextAttemptAt: '2002-01-01T00:00:00.000Z' });
      await store().webhookDeliveries.insertMany([d]);
      const keyId = uuid();

      const [first] = await claimMine([d.id], '2002-01-01T00:00:01.000Z', '2002-01-01T00:01:00.000Z');
      const a1 = { at: '2002-01-01T00:00:01.000Z', statusCode: 500, durationMs: 40 };
      const retry = {
        tenantId: t.id,
        id: d.id,
        claimToken: first!.claimToken,
        attempts: [a1],
        status: 'pending' as const,
        nextAttemptAt: '2002-01-01T00:00:11.000Z',
        retriesLeft: 2,
        keyId,
      };
      expect(await store().webhookDeliveries.recordAttempts([retry])).toEqual([d.id]);
      expect(await store().webhookDeliveries.get(t.id, d.id)).toMatchObject({
        status: 'pending',
        attempts: [a1],
        retriesLeft: 2,
        nextAttemptAt: '2002-01-01T00:00:11.000Z',
        keyId,
        credential: d.credential,
      });
      // Not due before its time, and its lease ended with the record.
      expect(
        (
          await store().webhookDeliveries.claimDue({ now: '2002-01-01T00:00:10.000Z', leaseUntil: '2002-01-01T00:01:00.000Z', limit: 1000, claimToken: uuid() })
        ).map((c) => c.delivery.id),
      ).not.toContain(d.id);

      const [second] = await claimMine([d.id], '2002-01-01T00:00:11.000Z', '2002-01-01T00:01:00.000Z');
      expect(second?.delivery.attempts).toEqual([a1]);
      const a2 = { at: '2002-01-01T00:00:11.000Z', error: 'The receiver did not answer within 3000 ms', durationMs: 3000 };
      await store().webhookDeliveries.recordAttempts([
        { tenantId: t.id, id: d.id, claimToken: second!.claimToken, attempts: [a1, a2], status: 'failed', retriesLeft: 0 },
      ]);
      const failed = await store().webhookDeliveries.get(t.id, d.id);
      expect(failed).toMatchObject({ status: 'failed', attempts: [a1, a2], keyId });
      expect(failed).not.toHaveProperty('credential');
      expect(failed).not.toHaveProperty('nextAttemptAt');
      expect(failed?.payload).toEqual(d.payload);

      // Queued again by hand: due, with its attempts kept, and claimable.
      expect(await store().webhookDeliveries.requeue(t.id, d.id, '2002-01-01T00:05:00.000Z', 0)).toBe(true);
      expect(await store().webhookDeliveries.requeue(t.id, d.id, '2002-01-01T00:05:00.000Z', 0)).toBe(false);
      expect(await store().webhookDeliveries.get(t.id, d.id)).toMatchObject({
        status: 'pending',
        nextAttemptAt: '2002-01-01T00:05:00.000Z',
        retriesLeft: 0,
        attempts: [a1, a2],
      });
      const [third] = await claimMine([d.id], '2002-01-01T00:05:00.000Z', '2002-01-01T00:06:00.000Z');
      await settle([third as ClaimedDelivery]);
      expect(await store().webhookDeliveries.requeue(t.id, d.id, '2002-01-01T00:07:00.000Z', 0)).toBe(false);
      expect(await store().webhookDeliveries.get(t.id, d.id)).toMatchObject({ status: 'succeeded' });
      await store().webhooks.delete(t.id, w.id);
    });

    it('counts the pending deliveries of every tenant, leased or not, due or not, and no finished one', async () => {
      // The store is shared by the contract's tests: the count is compared with the one before.
      const before = await store().webhookDeliveries.countPending();
      const [a, b] = await tenants();
      const wa = makeWebhook(a.id);
      const wb = makeWebhook(b.id);
      await store().webhooks.insert(wa);
      await store().webhooks.insert(wb);
      const due = makeDelivery(wa, { nextAttemptAt: '2005-01-01T00:00:00.000Z' });
      const later = makeDelivery(wa, { nextAttemptAt: '2999-01-01T00:00:00.000Z' });
      const otherTenant = makeDelivery(wb, { nextAttemptAt: '2999-01-01T00:00:00.000Z' });
      const succeeded = makeDelivery(wa, { status: 'succeeded' });
      const failed = makeDelivery(wb, { status: 'failed' });
      delete succeeded.nextAttemptAt;
      delete failed.nextAttemptAt;
      await store().webhookDeliveries.insertMany([due, later, otherTenant, succeeded, failed]);
      expect(await store().webhookDeliveries.countPending()).toBe(before + 3);

      // Leased by a worker, it is still waiting to be delivered.
      const [claim] = await claimMine([due.id], '2005-01-01T00:00:01.000Z', '2005-01-01T00:01:00.000Z');
      expect(claim?.delivery.id).toBe(due.id);
      expect(await store().webhookDeliveries.countPending()).toBe(before + 3);
      // Delivered, it leaves the count; a failed one queued again by hand joins it.
      await settle([claim as ClaimedDelivery]);
      expect(await store().webhookDeliveries.countPending()).toBe(before + 2);
      expect(await store().webhookDeliveries.requeue(b.id, failed.id, '2999-01-01T00:00:00.000Z', 0)).toBe(true);
      expect(await store().webhookDeliveries.countPending()).toBe(before + 3);

      // A deleted webhook takes its pending deliveries with it.
      await store().webhooks.delete(b.id, wb.id);
      expect(await store().webhookDeliveries.countPending()).toBe(before + 1);
      await store().webhooks.delete(a.id, wa.id);
      expect(await store().webhookDeliveries.countPending()).toBe(before);
    });

    it('never hands one delivery to two racing claimers (claim race)', async () => {
      const t = await tenant();
      const w = await webhook(t.id);
      const ds = Array.from({ length: 60 }, () => makeDelivery(w, { nextAttemptAt: '2003-01-01T00:00:00.000Z' }));
      await store().webhookDeliveries.insertMany(ds);
      const now = '2003-01-01T00:00:01.000Z';
      const leaseUntil = '2003-01-01T00:10:00.000Z';
      // Eight claimers at once, each taking at most 10: on PostgreSQL they run on separate pooled connections.
      const batches = await Promise.all(
        Array.from({ length: 8 }, () => store().webhookDeliveries.claimDue({ now, leaseUntil, limit: 10, claimToken: uuid() })),
      );
      const mine = new Set(ds.map((d) => d.id));
      const ids = batches
        .flat()
        .map((c) => c.delivery.id)
        .filter((id) => mine.has(id));
      expect(new Set(ids).size).toBe(ids.length);
      for (const b of batches) expect(b.length).toBeLessThanOrEqual(10);
      const rest = await claimMine(
        ds.map((d) => d.id).filter((id) => !ids.includes(id)),
        now,
        leaseUntil,
      );
      expect(new Set([...ids, ...rest.map((c) => c.delivery.id)])).toEqual(mine);
      await settle([...batches.flat().filter((c) => mine.has(c.delivery.id)), ...rest]);
      await store().webhooks.delete(t.id, w.id);
    });
  });

  describe('webhook signing keys', () => {
    it('keeps one active key per tenant, and racing first keys agree on one', async () => {
      const t = await tenant();
      expect(await store().webhookKeys.active(t.id)).toBeUndefined();
      const candidates = Array.from({ length: 6 }, () => makeSigningKey(t.id));
      const results = await Promise.all(candidates.map((k) => store().webhookKeys.insertActive(k)));
      const active = await store().webhookKeys.active(t.id);
      expect(active).toBeDefined();
      for (const r of results) expect(r).toEqual(active);
      expect(candidates.map((k) => k.keyId)).toContain(active?.keyId);
      expect(await store().webhookKeys.listPublished(t.id)).toEqual([active]);
    });

    it('rotates atomically, publishes a retired key while a pending delivery signs with it, then lets it go', async () => {
      const t = await tenant();
      const first = await store().webhookKeys.insertActive(makeSigningKey(t.id));
      const w = await webhook(t.id);
      const d = makeDelivery(w, { keyId: first.keyId, nextAttemptAt: '2004-01-01T00:00:00.000Z' });
      await store().webhookDeliveries.insertMany([d]);

      const second = makeSigningKey(t.id);
      const at = '2004-01-01T00:00:00.000Z';
      await store().webhookKeys.rotate(t.id, first.keyId, second, at);
      await expectDomainError(store().webhookKeys.rotate(t.id, first.keyId, makeSigningKey(t.id), at), 'Conflict');
      expect(await store().webhookKeys.active(t.id)).toEqual(second);
      expect(await store().webhookKeys.listPublished(t.id)).toEqual([{ ...first, status: 'retired', retiredAt: at }, second]);
      expect((await store().webhookKeys.listSpent(1000)).map((k) => k.keyId)).not.toContain(first.keyId);
      expect(await store().webhookKeys.deleteRetired(t.id, second.keyId)).toBe(false);

      const [claim] = await claimMine([d.id], '2004-01-01T00:00:01.000Z', '2004-01-01T00:01:00.000Z');
      await settle([claim as ClaimedDelivery]);
      expect(await store().webhookKeys.listPublished(t.id)).toEqual([second]);
      expect((await store().webhookKeys.listSpent(1000)).map((k) => k.keyId)).toContain(first.keyId);
      expect(await store().webhookKeys.deleteRetired(t.id, first.keyId)).toBe(true);
      expect(await store().webhookKeys.deleteRetired(t.id, first.keyId)).toBe(false);
      expect((await store().webhookKeys.listSpent(1000)).map((k) => k.keyId)).not.toContain(first.keyId);
      await store().webhooks.delete(t.id, w.id);
    });
  });
}
