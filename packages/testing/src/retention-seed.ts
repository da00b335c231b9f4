// Rows of every kind the retention job purges (docs/retention.md), some past their life and some
// not, for the job's tests on every store: after a run, the first are gone and the rest untouched.

import { RETENTION_GRACE_MS, RETENTION_KINDS, type RetentionKind, type Store, type Tenant } from '@vellum/core';
import { makeAuthorization } from './store-contract-authorizations.ts';
import { makeOffer } from './store-contract-offers.ts';
import { makeDeferredIssuance } from './store-contract-deferred.ts';
import { makePresentationSession } from './store-contract-presentation-sessions.ts';
import { insertTenant, unique, uuid } from './store-contract-support.ts';
import { makeDelivery, makeWebhook } from './store-contract-webhooks.ts';

const DAY = 86_400_000;
const RULE = { limit: 100, windowMs: 60_000 };

/** One seeded row: whether it is still stored. Checks of nonces and rate-limit counters record them again when gone, so check once. */
type Present = () => Promise<boolean>;

export interface RetentionSeed {
  /** The tenants seeded: the first keeps the default periods, the second keeps events 7 days and deliveries 1 day. */
  tenants: [Tenant, Tenant];
  /** Rows past their life, by kind. */
  pastLife: Record<RetentionKind, Present[]>;
  /** Rows still alive (within their grace period or retention period, or pending), by kind. */
  alive: Record<RetentionKind, Present[]>;
}

/** Which of the seeded rows are still stored, by kind. */
export async function presence(rows: Record<RetentionKind, Present[]>): Promise<Record<RetentionKind, boolean[]>> {
  const entries = await Promise.all(RETENTION_KINDS.map(async (k) => [k, await Promise.all(rows[k].map((present) => present()))] as const));
  return Object.fromEntries(entries) as Record<RetentionKind, boolean[]>;
}

const byKind = (): Record<RetentionKind, Present[]> => Object.fromEntries(RETENTION_KINDS.map((k) => [k, []])) as unknown as Record<RetentionKind, Present[]>;

/** Seeds rows of every kind relative to `now`, the instant the job will run at. */
export async function seedRetention(store: Store, now: Date): Promise<RetentionSeed> {
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const a = await insertTenant(store);
  const b = await insertTenant(store);
  await store.tenants.setRetention(b.id, { eventRetentionDays: 7, webhookDeliveryRetentionDays: 1 });
  const pastLife = byKind();
  const alive = byKind();

  // Authorizations, offers and used nonces: past their expiry and grace; within the grace; live.
  const expiring = async (kind: 'authorizations' | 'offers' | 'nonces', expiresAt: string, into: Record<RetentionKind, Present[]>) => {
    // Their sealed claims are erased once they expire, grace or not (docs/decisions.md "Claims at rest").
    const claims = expiresAt <= now.toISOString() ? pastLife : alive;
    if (kind === 'authorizations') {
      const r = makeAuthorization(a.id, { expiresAt, stage: 'redeemed', sealedClaims: unique('v1.sealed-claims-') });
      delete r.handleDigest;
      await store.authorizations.insert(r);
      into.authorizations.push(async () => (await store.authorizations.get(a.id, r.id)) !== undefined);
      claims.authorization_claims.push(async () => (await store.authorizations.get(a.id, r.id))?.sealedClaims !== undefined);
    } else if (kind === 'offers') {
      const o = makeOffer(a.id, undefined, { expiresAt });
      await store.offers.insert(o);
      into.offers.push(async () => (await store.offers.get(a.id, o.id)) !== undefined);
      claims.offer_claims.push(async () => (await store.offers.get(a.id, o.id))?.sealedClaims !== undefined);
    } else {
      const nonce = `dpop:${unique('jti-')}`;
      await store.nonces.markUsed({ tenantId: a.id, nonce, expiresAt });
      into.nonces.push(async () => !(await store.nonces.markUsed({ tenantId: a.id, nonce, expiresAt })));
    }
  };
  for (const kind of ['authorizations', 'offers', 'nonces'] as const) {
    const grace = RETENTION_GRACE_MS[kind];
    await expiring(kind, at(-grace - 1000), pastLife);
    await expiring(kind, at(-grace + 60_000), alive);
    await expiring(kind, at(300_000), alive);
  }

  // Deferred issuances: past their expiry and grace, within the grace, live.
  for (const [expiresAt, into] of [
    [at(-RETENTION_GRACE_MS.deferred_issuances - 1000), pastLife],
    [at(-RETENTION_GRACE_MS.deferred_issuances + 60_000), alive],
    [at(300_000), alive],
  ] as const) {
    const d = makeDeferredIssuance(a.id, { expiresAt });
    await store.deferredIssuances.insert(d);
    into.deferred_issuances.push(async () => (await store.deferredIssuances.get(a.id, d.id)) !== undefined);
  }
  // Refresh tokens: expired, or revoked, past the grace; within it; live.
  const refresh = async (expiresAt: string, revokedAt: string | undefined, into: Present[]) => {
    const id = uuid();
    await store.refreshTokens.insert({
      id,
      tenantId: a.id,
      familyId: uuid(),
      digest: unique('digest-'),
      userId: uuid(),
      grant: 'pre-authorized_code',
      grantId: uuid(),
      configurationIds: [uuid()],
      familyCreatedAt: at(-40 * DAY),
      createdAt: at(-40 * DAY),
      expiresAt,
      ...(revokedAt !== undefined ? { revokedAt } : {}),
    });
    into.push(async () => (await store.refreshTokens.get(a.id, id)) !== undefined);
  };
  const refreshGrace = RETENTION_GRACE_MS.refresh_tokens;
  await refresh(at(-refreshGrace - 1000), undefined, pastLife.refresh_tokens);
  await refresh(at(DAY), at(-refreshGrace - 1000), pastLife.refresh_tokens);
  await refresh(at(-refreshGrace + 60_000), undefined, alive.refresh_tokens);
  await refresh(at(DAY), at(-refreshGrace + 60_000), alive.refresh_tokens);
  await refresh(at(DAY), undefined, alive.refresh_tokens);

  // Presentation sessions: past their expiry and grace, within the grace, live; the ephemeral key of
  // an expired one is erased at its expiry, grace or not.
  for (const [expiresAt, into] of [
    [at(-RETENTION_GRACE_MS.presentation_sessions - 1000), pastLife],
    [at(-RETENTION_GRACE_MS.presentation_sessions + 60_000), alive],
    [at(300_000), alive],
  ] as const) {
    const s = makePresentationSession(a.id, { expiresAt });
    await store.presentationSessions.insert(s);
    into.presentation_sessions.push(async () => (await store.presentationSessions.get(a.id, s.id)) !== undefined);
    (expiresAt <= now.toISOString() ? pastLife : alive).presentation_keys.push(
      async () => (await store.presentationSessions.get(a.id, s.id))?.sealedKey !== undefined,
    );
  }

  // Rate-limit windows: the current one first (a hit may sweep ended windows itself), then one that ended long ago.
  const counter = async (hitAt: Date, into: Present[]) => {
    const key = unique('retention:');
    await store.rateLimits.hit(key, RULE, hitAt);
    into.push(async () => (await store.rateLimits.hit(key, RULE, hitAt)).count > 1);
  };
  await counter(now, alive.rate_limits);
  await counter(new Date(now.getTime() - RETENTION_GRACE_MS.rate_limits - 3 * RULE.windowMs), pastLife.rate_limits);

  // Analytic events: past and within each tenant's period.
  const event = async (tenant: Tenant, timestamp: string, into: Present[]) => {
    const id = uuid();
    await store.events.insertMany([
      { id, type: 'OPENID_NONCE_START', category: 'openid', timestamp, tenantId: tenant.id, requestId: unique('r'), requestIp: '127.0.0.1' },
    ]);
    into.push(async () => (await store.events.list(tenant.id, { ids: [id] }, { limit: 1 })).items.length === 1);
  };
  await event(a, at(-91 * DAY), pastLife.analytic_events);
  await event(a, at(-89 * DAY), alive.analytic_events);
  await event(b, at(-8 * DAY), pastLife.analytic_events);
  await event(b, at(-6 * DAY), alive.analytic_events);

  // Webhook deliveries: finished ones past and within each tenant's period, and a pending one, never purged.
  const delivery = async (tenant: Tenant, status: 'succeeded' | 'failed' | 'pending', updatedAt: string, into: Present[]) => {
    const hook = makeWebhook(tenant.id);
    await store.webhooks.insert(hook);
    const { credential: _c, nextAttemptAt: _n, ...finished } = makeDelivery(hook);
    const d = status === 'pending' ? makeDelivery(hook, { updatedAt }) : { ...finished, status, updatedAt };
    await store.webhookDeliveries.insertMany([d]);
    into.push(async () => (await store.webhookDeliveries.get(tenant.id, d.id)) !== undefined);
  };
  await delivery(a, 'succeeded', at(-31 * DAY), pastLife.webhook_deliveries);
  await delivery(a, 'failed', at(-29 * DAY), alive.webhook_deliveries);
  await delivery(a, 'pending', at(-100 * DAY), alive.webhook_deliveries);
  await delivery(b, 'failed', at(-2 * DAY), pastLife.webhook_deliveries);
  await delivery(b, 'succeeded', at(-DAY / 2), alive.webhook_deliveries);

  return { tenants: [a, b], pastLife, alive };
}
