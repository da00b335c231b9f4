import { DomainError } from '../shared/errors.ts';

/** At most `limit` counted attempts in each fixed window of `windowMs` milliseconds. */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

/** What one counted attempt found (RateLimitRepository.hit). */
export interface RateLimitHit {
  /** Whether the count, this attempt included, is within the limit. */
  allowed: boolean;
  /** Attempts counted in the window so far, this one included. */
  count: number;
  /** Seconds until the window ends and counting starts again (at least 1). */
  retryAfterSeconds: number;
  /** The start of the window the attempt was counted in (ISO 8601), which `release` names. */
  windowStart: string;
}

/**
 * The limits the platform applies (docs/limits.md). A limit of 0 turns that limit off. Admin token
 * limits count failed requests (a request is counted before the secret is checked and taken back
 * when it was right); the transaction code limit counts wrong codes; the pushed request limit
 * counts every pushed request of a registered client.
 */
export interface RateLimitSettings {
  /** Failed `POST /oauth/token` requests per client id per window. */
  adminTokenPerClient: number;
  /** Failed `POST /oauth/token` requests per source IP per window. */
  adminTokenPerIp: number;
  /** Wrong transaction codes at `POST /v1/oauth/token` per tenant and source IP per window, across the tenant's offers. */
  txCodePerIp: number;
  /** `POST /v1/oauth/par` requests per wallet client and source IP per window, in each tenant. */
  parPerClientIp: number;
  /** The length of a window, in seconds. */
  windowSeconds: number;
}

/** The defaults of the server's configuration (README, docs/limits.md). */
export const DEFAULT_RATE_LIMITS: Readonly<RateLimitSettings> = {
  adminTokenPerClient: 10,
  adminTokenPerIp: 30,
  txCodePerIp: 30,
  parPerClientIp: 60,
  windowSeconds: 300,
};

/** The window of `windowMs` that holds `now`: windows start at whole multiples of `windowMs` since the epoch. */
export function windowStartOf(windowMs: number, now: Date): Date {
  const t = now.getTime();
  return new Date(t - (((t % windowMs) + windowMs) % windowMs));
}

/** Whole seconds from `now` until the window that began at `windowStart` ends, at least 1 (a Retry-After value). */
export function secondsLeft(windowStart: string, windowMs: number, now: Date): number {
  return Math.max(1, Math.ceil((Date.parse(windowStart) + windowMs - now.getTime()) / 1000));
}

/** A 429 with the seconds to wait, which the HTTP layer sends as `Retry-After` (RFC 9110 §10.2.3). */
export function tooManyRequests(message: string, retryAfterSeconds: number): DomainError {
  return new DomainError('TooManyRequests', `${message}; retry after ${retryAfterSeconds} s`, { oauthError: 'invalid_request', retryAfterSeconds });
}
