import type { Clock } from '../shared/ports.ts';
import type { RateLimitRepository } from './ports.ts';
import type { DomainError } from '../shared/errors.ts';
import { type RateLimitSettings, tooManyRequests } from './model.ts';

export interface RateLimitDeps {
  /** The counters, shared by every process on the same store. */
  repository: RateLimitRepository;
  clock: Clock;
  settings: RateLimitSettings;
}

/** One admin token request, counted against its limits until it proves to be right. */
export interface AdminTokenAttempt {
  /** Takes the request's count back: right credentials do not use up the limit. */
  succeeded(): Promise<void>;
}

/** Limits on `POST /oauth/token` per client id and per source IP (docs/limits.md). */
export interface AdminTokenLimiter {
  /**
   * Counts a token request before its secret is checked (so a flood never reaches the slow hash) and
   * throws DomainError `TooManyRequests` when the client id or the IP is over its limit; a request
   * refused so is counted too. `ip` undefined (not an HTTP request) counts against the client id only.
   */
  attempt(clientId: string, ip: string | undefined): Promise<AdminTokenAttempt>;
}

const NOTHING_TO_TAKE_BACK: AdminTokenAttempt = { succeeded: async () => {} };

/** The admin token limiter for `settings`, or undefined when both its limits are off (0). */
export function createAdminTokenLimiter(deps: RateLimitDeps): AdminTokenLimiter | undefined {
  const { repository, clock, settings } = deps;
  if (settings.adminTokenPerClient <= 0 && settings.adminTokenPerIp <= 0) return undefined;
  const windowMs = settings.windowSeconds * 1000;
  return {
    async attempt(clientId, ip) {
      const limits: { key: string; limit: number }[] = [];
      if (settings.adminTokenPerClient > 0) limits.push({ key: `admin-token:client:${clientId}`, limit: settings.adminTokenPerClient });
      if (ip !== undefined && ip !== '' && settings.adminTokenPerIp > 0) limits.push({ key: `admin-token:ip:${ip}`, limit: settings.adminTokenPerIp });
      if (limits.length === 0) return NOTHING_TO_TAKE_BACK;
      const now = clock.now();
      const hits = await Promise.all(limits.map(({ key, limit }) => repository.hit(key, { limit, windowMs }, now)));
      const refused = hits.filter((h) => !h.allowed);
      if (refused.length > 0) throw tooManyRequests('Too many failed token requests', Math.max(...refused.map((h) => h.retryAfterSeconds)));
      return {
        async succeeded() {
          await Promise.all(limits.map(({ key }, i) => repository.release(key, hits[i]?.windowStart ?? '')));
        },
      };
    },
  };
}

/**
 * The limit on wrong transaction codes per tenant and source IP, across the tenant's offers
 * (docs/limits.md): guesses at one tenant never hold back another tenant's wallets behind the same
 * address (a carrier NAT).
 */
export interface TxCodeLimiter {
  /**
   * Throws DomainError `TooManyRequests` when this process has seen `ip` reach the limit at
   * `tenantId` in the current window. Reads no store, so a request with the right code costs nothing more.
   */
  check(tenantId: string, ip: string): void;
  /** Counts a wrong transaction code from `ip` at `tenantId`; throws DomainError `TooManyRequests` when it went over the limit. */
  wrong(tenantId: string, ip: string): Promise<void>;
}

// Bounds the memory the per-process list of blocked IPs may take under a flood from many addresses.
const MAX_BLOCKED = 10_000;

/**
 * The transaction code limiter for `settings`, or undefined when its limit is off (0). Wrong codes
 * are counted in the store, so every process adds to one count; which IPs reached the limit is
 * remembered per process, from the count its own last hit returned. A process that has not yet
 * seen an IP reach the limit lets one more guess through, and refuses from then on.
 */
export function createTxCodeLimiter(deps: RateLimitDeps): TxCodeLimiter | undefined {
  const { repository, clock, settings } = deps;
  const limit = settings.txCodePerIp;
  if (limit <= 0) return undefined;
  const windowMs = settings.windowSeconds * 1000;
  /** `${tenantId} ${ip}` → when its block ends (ms since the epoch). */
  const blocked = new Map<string, number>();

  function block(key: string, untilMs: number, nowMs: number): void {
    blocked.delete(key);
    if (blocked.size >= MAX_BLOCKED) {
      for (const [other, until] of blocked) if (until <= nowMs) blocked.delete(other);
      if (blocked.size >= MAX_BLOCKED) blocked.delete(blocked.keys().next().value as string);
    }
    blocked.set(key, untilMs);
  }

  return {
    check(tenantId, ip) {
      const key = `${tenantId} ${ip}`;
      const until = blocked.get(key);
      if (until === undefined) return;
      const nowMs = clock.now().getTime();
      if (until <= nowMs) {
        blocked.delete(key);
        return;
      }
      throw tooManyRequests('Too many wrong transaction codes from this address', Math.max(1, Math.ceil((until - nowMs) / 1000)));
    },
    async wrong(tenantId, ip) {
      const now = clock.now();
      // Tenant ids are UUIDs (no colon), so the key names one tenant and one address.
      const hit = await repository.hit(`tx-code:${tenantId}:ip:${ip}`, { limit, windowMs }, now);
      if (hit.count >= limit) block(`${tenantId} ${ip}`, Date.parse(hit.windowStart) + windowMs, now.getTime());
      if (!hit.allowed) throw tooManyRequests('Too many wrong transaction codes from this address', hit.retryAfterSeconds);
    },
  };
}

/** A pushed request refused by its limit (ParLimiter.attempt). */
export interface ParRefusal {
  /** DomainError `TooManyRequests`, with the seconds to wait. */
  error: DomainError;
  /** Whether it is the first refusal of its key in the window: the only one whose events are recorded (docs/limits.md). */
  first: boolean;
}

/** The limit on pushed authorization requests per wallet client and source IP (docs/limits.md). */
export interface ParLimiter {
  /**
   * Counts one pushed request of the tenant's registered client `clientId` from `ip`, before anything
   * of it is stored or a secret hashed: undefined within the limit, else the refusal. Refused
   * requests are counted too; of any number of concurrent ones, from any process, exactly one in a
   * window is the `first` refused.
   */
  attempt(tenantId: string, clientId: string, ip: string): Promise<ParRefusal | undefined>;
}

/** The pushed request limiter for `settings`, or undefined when its limit is off (0). */
export function createParLimiter(deps: RateLimitDeps): ParLimiter | undefined {
  const { repository, clock, settings } = deps;
  const limit = settings.parPerClientIp;
  if (limit <= 0) return undefined;
  const windowMs = settings.windowSeconds * 1000;
  return {
    async attempt(tenantId, clientId, ip) {
      // A public client's id is no secret: the address is part of the key, so that one sender cannot
      // use up the limit of every user of a wallet, and the tenant, since client ids are per tenant.
      const hit = await repository.hit(`par:${tenantId}:${clientId}:${ip}`, { limit, windowMs }, clock.now());
      if (hit.allowed) return undefined;
      return {
        error: tooManyRequests('Too many pushed authorization requests from this address for this client', hit.retryAfterSeconds),
        first: hit.count === limit + 1,
      };
    },
  };
}
