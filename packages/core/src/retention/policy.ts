// docs/retention.md: what Vellum keeps, and for how long. Rows that expire are kept a grace period
// past their expiry, so that a request in flight, a server whose clock runs behind, or a token
// issued from the row still finds it; analytic events and finished webhook deliveries are kept for a
// period each tenant sets.

import { invalidField } from '../shared/errors.ts';

/**
 * What the retention job purges, one label each on `vellum_retention_purged_total`. The two
 * `*_claims` kinds are not rows but the sealed claims of offers and authorizations, erased as soon
 * as they expire (docs/decisions.md "Claims at rest"); the rows themselves go after their grace.
 */
export const RETENTION_KINDS = [
  'offer_claims',
  'authorization_claims',
  'presentation_keys',
  'authorizations',
  'offers',
  'nonces',
  'deferred_issuances',
  'refresh_tokens',
  'presentation_sessions',
  'rate_limits',
  'webhook_deliveries',
  'analytic_events',
] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

/** The kinds purged past their own expiry (the rest are purged per tenant, past the tenant's retention period). */
export type ExpiringKind = 'authorizations' | 'offers' | 'nonces' | 'deferred_issuances' | 'refresh_tokens' | 'presentation_sessions' | 'rate_limits';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * How long past its expiry each kind is kept. Authorizations: a day, well past the life of the
 * access token redeemed from one (10 minutes, ACCESS_TOKEN_TTL_SECONDS), which still records on it
 * what it issued. Offers: 30 days, during which `GET /v1/openid/offers/{id}` still shows an expired
 * or used offer (and its access token still works, as for authorizations). Used nonces, DPoP and
 * attestation `jti`s and rate-limit windows: a minute, for clock differences between servers.
 * Deferred issuances (docs/deferred-issuance.md): a day, so an admin still sees one that expired
 * unreviewed or uncollected; its transaction_id stopped working at `expiresAt`.
 * Refresh tokens: a day past their family's expiry or their revocation, past the life of any access
 * token issued with one (docs/refresh-tokens.md).
 * Presentation sessions (docs/verification.md "Presentation sessions"): 7 days past their expiry, so
 * the tenant can still read a result (with the holder's claims) it missed; then they are gone.
 */
export const RETENTION_GRACE_MS: Readonly<Record<ExpiringKind, number>> = {
  authorizations: DAY_MS,
  offers: 30 * DAY_MS,
  nonces: MINUTE_MS,
  deferred_issuances: DAY_MS,
  refresh_tokens: DAY_MS,
  presentation_sessions: 7 * DAY_MS,
  rate_limits: MINUTE_MS,
};

/** docs/retention.md: how many days analytic events are kept unless the tenant sets otherwise. */
export const DEFAULT_EVENT_RETENTION_DAYS = 90;
/** docs/retention.md: how many days finished webhook deliveries are kept unless the tenant sets otherwise. */
export const DEFAULT_WEBHOOK_DELIVERY_RETENTION_DAYS = 30;
/** The longest retention period a tenant may set (about ten years). */
export const MAX_RETENTION_DAYS = 3650;

/** A tenant's retention periods, in days; absent ones take the defaults. */
export interface TenantRetention {
  eventRetentionDays?: number;
  webhookDeliveryRetentionDays?: number;
}

/** The tenant's retention periods with the defaults filled in. */
export function retentionOf(tenant: TenantRetention): Required<TenantRetention> {
  return {
    eventRetentionDays: tenant.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS,
    webhookDeliveryRetentionDays: tenant.webhookDeliveryRetentionDays ?? DEFAULT_WEBHOOK_DELIVERY_RETENTION_DAYS,
  };
}

/** A retention period in days as a tenant may set it: a whole number from 1 to MAX_RETENTION_DAYS. */
export function checkRetentionDays(param: keyof TenantRetention, days: number): number {
  if (!Number.isInteger(days) || days < 1 || days > MAX_RETENTION_DAYS) {
    throw invalidField(param, `Must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}`, days);
  }
  return days;
}

/** The instant before which rows of a tenant kept `days` days are purged. */
export function retentionCutoff(now: Date, days: number): string {
  return new Date(now.getTime() - days * DAY_MS).toISOString();
}
