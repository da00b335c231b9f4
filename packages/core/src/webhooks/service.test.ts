import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recordedEvents } from '../../test/events.ts';
import { createMemoryStore, fakeClock, fakeIds, fakeKeyManager } from '../../test/kit.ts';
import { refusal } from '../../test/refusal.ts';
import { EVENT_PREFIXES } from '../events/catalogue.ts';
import { createEventRecorder } from '../events/recorder.ts';
import type { CredentialIssuedEvent, DomainEvent, HttpClient, OutboundRequest, OutboundResult } from '../shared/ports.ts';
import { ROLE_PERMISSIONS, type Role } from '../tenancy/permissions.ts';
import type { RequestContext, Tenant } from '../tenancy/model.ts';
import { createWebhookDeliveryWorker, renderDeliveryBody } from './delivery.ts';
import { createWebhookSigningKeys } from './keys.ts';
import { createWebhookOutbox } from './outbox.ts';
import { createWebhookService } from './service.ts';
import { contentDigest, parseSignatureInput, receivedSignatureBase } from './signature.ts';

/** A receiver that answers from a script (statuses or errors, in order; 200 once the script ends) and keeps every request. */
function scriptedReceiver(script: Array<number | string> = []): HttpClient & { requests: OutboundRequest[] } {
  const requests: OutboundRequest[] = [];
  return {
    requests,
    async send(request): Promise<OutboundResult> {
      requests.push(request);
      const next = script.shift() ?? 200;
      return typeof next === 'number' ? { status: next } : { error: next };
    },
    async fetch() {
      return { error: 'webhook deliveries do not read answers' };
    },
  };
}

function setup(script: Array<number | string> = [], options: { retryBaseDelayMs?: number } = {}) {
  const store = createMemoryStore();
  const clock = fakeClock('2026-05-01T12:00:00.000Z');
  const ids = fakeIds();
  const keys = fakeKeyManager({ clock });
  const recorder = createEventRecorder({ events: store.events, clock, ids });
  const signingKeys = createWebhookSigningKeys({ store, keys, clock });
  const webhooks = createWebhookService({ store, clock, ids, events: recorder, signingKeys });
  const outbox = createWebhookOutbox({ clock, ids });
  const http = scriptedReceiver(script);
  const worker = createWebhookDeliveryWorker({ store, keys, signingKeys, http, clock, ids, retryBaseDelayMs: options.retryBaseDelayMs ?? 1000 });
  let n = 0;
  async function tenant(subdomain = `t${(n += 1)}`): Promise<Tenant> {
    const t: Tenant = { id: ids.uuid(), subdomain, region: 'eu01', name: subdomain, loggingLevel: 2, createdAt: clock.now().toISOString() };
    await store.tenants.insert(t);
    return t;
  }
  const ctx = (t: Tenant, role: Role | null = 'admin'): RequestContext => ({
    tenant: t,
    origin: `https://${t.subdomain}.eu01.vellum.test`,
    requestId: `req-${(n += 1)}`,
    ip: '192.0.2.1',
    ...(role ? { requestor: { clientId: `client-${role}`, role, permissions: new Set(ROLE_PERMISSIONS[role]) } } : {}),
  });
  const event = (t: Tenant, over: Partial<CredentialIssuedEvent['payload']> = {}): CredentialIssuedEvent => ({
    id: ids.uuid(),
    tenantId: t.id,
    type: 'OpenIdCredentialIssued',
    occurredAt: clock.now().toISOString(),
    payload: {
      credential: 'omdkb2NUeXBl',
      credentialId: ids.uuid(),
      credentialConfigurationId: ids.uuid(),
      credentialProfile: 'mso_mdoc',
      format: 'mso_mdoc',
      userId: ids.uuid(),
      userClaims: { givenName: 'Ada', familyName: 'Lovelace' },
      ...over,
    },
  });
  const publish = (e: DomainEvent) => store.transaction((tx) => outbox.publish(tx, e));
  /** A new tenant with one webhook to HOOK for `events`. */
  async function subscribed(events = ['OpenIdCredentialIssued']) {
    const t = await tenant();
    return { t, hook: await webhooks.create(ctx(t), { events, url: HOOK }) };
  }
  return { store, clock, ids, keys, recorder, signingKeys, webhooks, outbox, http, worker, tenant, ctx, event, publish, subscribed };
}

const HOOK = 'https://hooks.example.com/vellum';

describe('webhook subscriptions (docs/decisions.md "Webhooks")', () => {
  it('creates, reads, lists, replaces and deletes, showing id, events, url and disabled', async () => {
    const s = setup();
    const t = await s.tenant();
    const created = await s.webhooks.create(s.ctx(t), { events: ['OpenIdCredentialIssued'], url: 'https://Hooks.Example.com/vellum' });
    expect(created).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), events: ['OpenIdCredentialIssued'], url: HOOK, disabled: false });
    expect(await s.webhooks.get(s.ctx(t), created.id)).toEqual(created);
    const second = await s.webhooks.create(s.ctx(t, 'managed-issuer'), {
      events: ['OpenIdCredentialIssuedSummary', 'OidcIssuerCredentialIssued'],
      url: HOOK,
      disabled: true,
    });
    const page = await s.webhooks.list(s.ctx(t), { limit: 1 });
    expect(page.data).toEqual([created]);
    expect((await s.webhooks.list(s.ctx(t), { cursor: page.nextCursor })).data).toEqual([second]);

    // docs/decisions.md "Webhooks": PUT with disabled true disables; PUT without it enables again.
    const disabled = await s.webhooks.update(s.ctx(t), created.id, { events: ['OpenIdCredentialIssuedSummary'], url: HOOK, disabled: true });
    expect(disabled).toEqual({ id: created.id, events: ['OpenIdCredentialIssuedSummary'], url: HOOK, disabled: true });
    expect((await s.webhooks.update(s.ctx(t), created.id, { events: ['OpenIdCredentialIssued'], url: HOOK })).disabled).toBe(false);
    await s.webhooks.delete(s.ctx(t), created.id);
    expect(await refusal(s.webhooks.get(s.ctx(t), created.id))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(s.webhooks.delete(s.ctx(t), created.id))).toMatchObject({ code: 'NotFound' });
  });

  it('keeps tenants apart: another tenant’s webhook is 404 for every operation', async () => {
    const s = setup();
    const a = await s.tenant();
    const b = await s.tenant();
    const hook = await s.webhooks.create(s.ctx(a), { events: ['OpenIdCredentialIssued'], url: HOOK });
    for (const attempt of [
      s.webhooks.get(s.ctx(b), hook.id),
      s.webhooks.update(s.ctx(b), hook.id, { events: ['OpenIdCredentialIssued'], url: HOOK }),
      s.webhooks.delete(s.ctx(b), hook.id),
      s.webhooks.listDeliveries(s.ctx(b), hook.id, {}),
    ]) {
      expect(await refusal(attempt)).toMatchObject({ code: 'NotFound' });
    }
    expect((await s.webhooks.list(s.ctx(b), {})).data).toEqual([]);
  });

  it('refuses bad input with 400 and a detail for each problem, and ids that are not UUIDs', async () => {
    const s = setup();
    const t = await s.tenant();
    const bad = await refusal(s.webhooks.create(s.ctx(t), { events: [], url: 'http://203.0.113.1/x?y=1' }));
    expect(bad).toMatchObject({ code: 'BadRequest', message: 'Validation Error' });
    expect(bad.details?.map((d) => d.param)).toEqual(['events', 'url']);
    expect(await refusal(s.webhooks.get(s.ctx(t), 'not-a-uuid'))).toMatchObject({ code: 'BadRequest', details: [{ param: 'id', location: 'params' }] });
  });

  it('needs the webhooks permission (roles admin, issuer, managed-issuer)', async () => {
    const s = setup();
    const t = await s.tenant();
    expect(await refusal(s.webhooks.list(s.ctx(t, 'verifier'), {}))).toMatchObject({ code: 'Forbidden' });
    expect(await refusal(s.webhooks.list(s.ctx(t, null), {}))).toMatchObject({ code: 'Unauthorized' });
    for (const role of ['admin', 'issuer', 'managed-issuer'] as const) await s.webhooks.list(s.ctx(t, role), {});
  });

  it('records WEBHOOK_* events in category webhook (docs/decisions.md "Webhooks": WEBHOOK_UPDATE, WEBHOOK_RETRIEVE)', async () => {
    const s = setup();
    const { t, hook } = await s.subscribed();
    await s.webhooks.get(s.ctx(t), hook.id);
    await s.webhooks.update(s.ctx(t), hook.id, { events: ['OpenIdCredentialIssued'], url: HOOK, disabled: true });
    await refusal(s.webhooks.create(s.ctx(t), { events: ['Nope'], url: HOOK }));
    const types = (await recordedEvents(s, t.id)).map((e) => e.type).reverse();
    expect(types).toEqual([
      'WEBHOOK_CREATE_START',
      'WEBHOOK_CREATE_SUCCESS',
      'WEBHOOK_RETRIEVE_START',
      'WEBHOOK_RETRIEVE_SUCCESS',
      'WEBHOOK_UPDATE_START',
      'WEBHOOK_UPDATE_SUCCESS',
      'WEBHOOK_CREATE_START',
      'WEBHOOK_CREATE_FAIL',
    ]);
    for (const prefix of ['WEBHOOK_CREATE', 'WEBHOOK_LIST', 'WEBHOOK_RETRIEVE', 'WEBHOOK_UPDATE', 'WEBHOOK_DELETE'] as const)
      expect(EVENT_PREFIXES[prefix]).toBe('webhook');
  });
});

describe('the outbox (docs/decisions.md "Webhooks": written in the issuance transaction)', () => {
  it('writes one delivery per enabled webhook and subscribed type; the summary never holds the credential', async () => {
    const s = setup();
    const t = await s.tenant();
    const full = await s.webhooks.create(s.ctx(t), { events: ['OpenIdCredentialIssued', 'OpenIdCredentialIssuedSummary'], url: HOOK });
    const summary = await s.webhooks.create(s.ctx(t), { events: ['OpenIdCredentialIssuedSummary'], url: HOOK });
    const off = await s.webhooks.create(s.ctx(t), { events: ['OpenIdCredentialIssued'], url: HOOK, disabled: true });
    const bridge = await s.webhooks.create(s.ctx(t), { events: ['OidcIssuerCredentialIssued'], url: HOOK });
    const e = s.event(t);
    await s.publish(e);
    const of = async (id: string) => (await s.store.webhookDeliveries.list(t.id, id, { limit: 10 })).items;
    const fullDeliveries = await of(full.id);
    expect(fullDeliveries.map((d) => d.eventType)).toEqual(['OpenIdCredentialIssued', 'OpenIdCredentialIssuedSummary']);
    expect(fullDeliveries[0]).toMatchObject({
      eventId: e.id,
      status: 'pending',
      credential: e.payload.credential,
      retriesLeft: 3,
      nextAttemptAt: '2026-05-01T12:00:00.000Z',
    });
    expect(fullDeliveries[1]).not.toHaveProperty('credential');
    expect((await of(summary.id)).map((d) => d.eventType)).toEqual(['OpenIdCredentialIssuedSummary']);
    expect(await of(off.id)).toEqual([]);
    expect(await of(bridge.id)).toEqual([]);
    // Pinned to the tenant's signing key, made with its first webhook.
    expect(fullDeliveries[0]?.keyId).toBe((await s.signingKeys.ensureActive(t.id)).keyId);
  });

  it('sends CredentialStatusUpdated (revocation, suspension) only to the webhooks that subscribe to it, never with a credential', async () => {
    const s = setup();
    const t = await s.tenant();
    const status = await s.webhooks.create(s.ctx(t), { events: ['CredentialStatusUpdated'], url: HOOK });
    const issued = await s.webhooks.create(s.ctx(t), { events: ['OpenIdCredentialIssued', 'OpenIdCredentialIssuedSummary'], url: HOOK });
    const payload = {
      credentialId: s.ids.uuid(),
      credentialConfigurationId: s.ids.uuid(),
      format: 'mso_mdoc',
      userId: s.ids.uuid(),
      status: 'invalid',
      previousStatus: 'valid',
    };
    const e = { id: s.ids.uuid(), tenantId: t.id, type: 'CredentialStatusUpdated' as const, occurredAt: s.clock.now().toISOString(), payload };
    await s.publish(e);
    const [delivery, ...more] = (await s.store.webhookDeliveries.list(t.id, status.id, { limit: 10 })).items;
    expect(more).toEqual([]);
    expect(delivery).toMatchObject({ eventId: e.id, eventType: 'CredentialStatusUpdated', payload, status: 'pending' });
    expect(delivery).not.toHaveProperty('credential');
    expect((await s.store.webhookDeliveries.list(t.id, issued.id, { limit: 10 })).items).toEqual([]);
  });

  it('writes nothing when the issuance transaction rolls back', async () => {
    const s = setup();
    const { t, hook } = await s.subscribed();
    await expect(
      s.store.transaction(async (tx) => {
        await s.outbox.publish(tx, s.event(t));
        throw new Error('the credential could not be recorded');
      }),
    ).rejects.toThrow('could not be recorded');
    expect((await s.store.webhookDeliveries.list(t.id, hook.id, { limit: 10 })).items).toEqual([]);
  });
});

describe('delivering (docs/decisions.md "Webhooks"; RFC 9421, RFC 9530)', () => {
  it('posts the body, headers and an Ed25519 signature that verifies against the JWKS', async () => {
    const s = setup();
    const { t, hook } = await s.subscribed();
    const e = s.event(t);
    await s.publish(e);
    expect(await s.worker.deliverDue()).toBe(1);
    const [request] = s.http.requests;
    const body = JSON.parse(new TextDecoder().decode(request?.body));
    const [delivery] = (await s.store.webhookDeliveries.list(t.id, hook.id, { limit: 1 })).items;
    expect(body).toEqual({
      deliveryId: delivery?.id,
      deliveryTimestamp: '2026-05-01T12:00:00.000Z',
      webhookId: hook.id,
      event: { id: e.id, type: 'OpenIdCredentialIssued', payload: e.payload, timestamp: e.occurredAt },
    });
    expect(Object.keys(body.event.payload)[0]).toBe('credential');
    const h = request?.headers ?? {};
    expect(h).toMatchObject({ 'content-type': 'application/json', 'webhook-id': delivery?.id, 'webhook-event-type': 'OpenIdCredentialIssued' });
    expect(h['content-digest']).toBe(await contentDigest(request?.body as Uint8Array));
    const jwks = await s.webhooks.jwks(s.ctx(t, null));
    expect(jwks.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: expect.any(String), alg: 'EdDSA', use: 'sig' }]);
    const input = parseSignatureInput(h['signature-input'] as string).get('sig1');
    expect(input?.params).toEqual([
      ['created', 1_777_636_800],
      ['keyid', jwks.keys[0]?.kid],
      ['alg', 'ed25519'],
    ]);
    const base = receivedSignatureBase({ method: 'POST', targetUri: HOOK, headers: h }, input!);
    const signature = Buffer.from(/^sig1=:(.*):$/.exec(h.signature as string)?.[1] as string, 'base64');
    const key = createPublicKey({ key: { ...jwks.keys[0] }, format: 'jwk' });
    expect(verify(null, Buffer.from(base), key, signature)).toBe(true);
    // Done: succeeded, and the credential is no longer kept.
    const done = await s.store.webhookDeliveries.get(t.id, delivery!.id);
    expect(done).toMatchObject({ status: 'succeeded', attempts: [{ at: '2026-05-01T12:00:00.000Z', statusCode: 200, durationMs: 0 }] });
    expect(done).not.toHaveProperty('credential');
    expect(await s.worker.deliverDue()).toBe(0);
  });

  it('retries non-2xx and failures three times with backoff and jitter, then fails and forgets the credential', async () => {
    const s = setup([500, 'The receiver did not answer within 3000 ms', 503, 404], { retryBaseDelayMs: 1000 });
    const { t, hook } = await s.subscribed();
    await s.publish(s.event(t));
    const [d] = (await s.store.webhookDeliveries.list(t.id, hook.id, { limit: 1 })).items;
    const read = async () => (await s.webhooks.listDeliveries(s.ctx(t), hook.id, {})).data[0];
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      expect(await s.worker.deliverDue()).toBe(1);
      const view = await read();
      expect(view?.attempts).toHaveLength(attempt);
      if (attempt < 4) {
        expect(view?.status).toBe('pending');
        const due = Date.parse(view?.nextAttemptAt as string) - s.clock.now().getTime();
        delays.push(due);
        // Not due a moment before its time.
        s.clock.advance(due - 1);
        expect(await s.worker.deliverDue()).toBe(0);
        s.clock.advance(1);
      }
    }
    // Exponential with jitter in the upper half: [500, 1000], [1000, 2000], [2000, 4000].
    expect(delays[0]).toBeGreaterThanOrEqual(500);
    expect(delays[0]).toBeLessThanOrEqual(1000);
    expect(delays[1]).toBeGreaterThanOrEqual(1000);
    expect(delays[1]).toBeLessThanOrEqual(2000);
    expect(delays[2]).toBeGreaterThanOrEqual(2000);
    expect(delays[2]).toBeLessThanOrEqual(4000);
    const failed = await read();
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed).not.toHaveProperty('nextAttemptAt');
    expect(failed?.attempts.map((a) => a.statusCode ?? a.error)).toEqual([500, 'The receiver did not answer within 3000 ms', 503, 404]);
    expect(await s.store.webhookDeliveries.get(t.id, d!.id)).not.toHaveProperty('credential');
    expect(s.http.requests).toHaveLength(4);
    // Every attempt of one delivery carries the same Webhook-Id, so a receiver can tell repeats.
    expect(new Set(s.http.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([d!.id]));
  });

  it('retries a failed delivery by hand, once, without the credential it no longer keeps', async () => {
    const s = setup([500, 500, 500, 500, 500, 200], { retryBaseDelayMs: 10 });
    const { t, hook } = await s.subscribed();
    await s.publish(s.event(t));
    const [d] = (await s.store.webhookDeliveries.list(t.id, hook.id, { limit: 1 })).items;
    expect(await refusal(s.webhooks.retryDelivery(s.ctx(t), hook.id, d!.id))).toMatchObject({ code: 'Conflict' });
    for (let i = 0; i < 4; i++) {
      await s.worker.deliverDue();
      s.clock.advance(100);
    }
    expect((await s.store.webhookDeliveries.get(t.id, d!.id))?.status).toBe('failed');
    const queued = await s.webhooks.retryDelivery(s.ctx(t), hook.id, d!.id);
    expect(queued).toMatchObject({ id: d!.id, status: 'pending', nextAttemptAt: s.clock.now().toISOString() });
    expect(queued.attempts).toHaveLength(4);
    await s.worker.deliverDue();
    expect((await s.store.webhookDeliveries.get(t.id, d!.id))?.status).toBe('failed');
    expect(s.http.requests).toHaveLength(5);
    await s.webhooks.retryDelivery(s.ctx(t), hook.id, d!.id);
    await s.worker.deliverDue();
    const last = JSON.parse(new TextDecoder().decode(s.http.requests[5]?.body));
    expect(last.event.payload).not.toHaveProperty('credential');
    expect(last.event.payload).toHaveProperty('userClaims');
    expect(await s.webhooks.listDeliveries(s.ctx(t), hook.id, {})).toMatchObject({ data: [{ status: 'succeeded' }] });
    expect(await refusal(s.webhooks.retryDelivery(s.ctx(t), hook.id, '00000000-0000-4000-8000-00000000ffff'))).toMatchObject({ code: 'NotFound' });
  });

  it('sends nothing to a webhook disabled after the event was written', async () => {
    const s = setup();
    const { t, hook } = await s.subscribed(['OpenIdCredentialIssuedSummary']);
    await s.publish(s.event(t));
    await s.webhooks.update(s.ctx(t), hook.id, { events: ['OpenIdCredentialIssuedSummary'], url: HOOK, disabled: true });
    expect(await s.worker.deliverDue()).toBe(1);
    expect(s.http.requests).toEqual([]);
    expect((await s.webhooks.listDeliveries(s.ctx(t), hook.id, {})).data[0]).toMatchObject({
      status: 'failed',
      attempts: [{ error: 'Not sent: the webhook is disabled', durationMs: 0 }],
    });
  });

  it('renders the summary without the credential', async () => {
    const s = setup();
    const { t, hook } = await s.subscribed(['OpenIdCredentialIssuedSummary']);
    const e = s.event(t);
    await s.publish(e);
    const [d] = (await s.store.webhookDeliveries.list(t.id, hook.id, { limit: 1 })).items;
    const { credential: _c, ...summary } = e.payload;
    expect(renderDeliveryBody(d!, new Date('2026-05-01T12:00:01.000Z')).event).toEqual({
      id: e.id,
      type: 'OpenIdCredentialIssuedSummary',
      payload: summary,
      timestamp: e.occurredAt,
    });
  });
});

describe('signing keys and rotation', () => {
  it('makes one key per tenant on first use, even when asked at once', async () => {
    const s = setup();
    const t = await s.tenant();
    const keys = await Promise.all(Array.from({ length: 5 }, () => s.signingKeys.ensureActive(t.id)));
    expect(new Set(keys.map((k) => k.keyId)).size).toBe(1);
    expect(s.keys.count(t.id)).toBe(1);
    expect((await s.webhooks.jwks(s.ctx(t, null))).keys.map((k) => k.kid)).toEqual([keys[0]?.keyId]);
  });

  it('keeps the old key in the JWKS until its last pending delivery is done, then destroys it', async () => {
    const s = setup([500]);
    const { t, hook } = await s.subscribed();
    const old = await s.signingKeys.ensureActive(t.id);
    await s.publish(s.event(t));
    await s.worker.deliverDue(); // 500: pending, signed with the old key
    const rotated = await s.webhooks.rotateSigningKey(s.ctx(t));
    expect(rotated).toMatchObject({ retiredKid: old.keyId });
    expect(rotated.keys.map((k) => k.kid)).toEqual([rotated.activeKid, old.keyId]);
    expect(await s.signingKeys.pruneSpent()).toBe(0);
    // A new event is signed with the new key; the retry of the old one keeps its key.
    await s.publish(s.event(t));
    s.clock.advance(60_000);
    await s.worker.deliverDue();
    const kids = s.http.requests.map((r) => /keyid="([^"]+)"/.exec(r.headers['signature-input'] as string)?.[1]);
    expect(kids[0]).toBe(old.keyId);
    expect(kids.slice(1).sort()).toEqual([old.keyId, rotated.activeKid].sort());
    expect((await s.webhooks.jwks(s.ctx(t, null))).keys.map((k) => k.kid)).toEqual([rotated.activeKid]);
    expect(await s.signingKeys.pruneSpent()).toBe(1);
    expect(await s.keys.get(t.id, old.keyId)).toBeUndefined();
    expect((await s.webhooks.listDeliveries(s.ctx(t), hook.id, {})).data.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('signs with the active key when the pinned one is gone', async () => {
    const s = setup();
    const t = await s.tenant();
    await s.webhooks.create(s.ctx(t), { events: ['OpenIdCredentialIssued'], url: HOOK });
    const old = await s.signingKeys.ensureActive(t.id);
    await s.publish(s.event(t));
    const { active } = await s.signingKeys.rotate(t.id);
    await s.keys.destroy(t.id, old.keyId);
    await s.worker.deliverDue();
    expect(s.http.requests[0]?.headers['signature-input']).toContain(`keyid="${active.keyId}"`);
  });
});
