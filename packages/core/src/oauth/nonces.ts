import { type EventRecorder, withEvents } from '../events/recorder.ts';
import type { Store } from '../ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { NonceCodec } from './ports.ts';
import type { RequestContext } from '../tenancy/model.ts';

/** docs/decisions.md "Users, offers, the token and nonce endpoints": a nonce lives 5 minutes. */
export const NONCE_TTL_SECONDS = 300;

/**
 * How long after its expiry a used-nonce record is kept. An expired nonce is refused on its expiry
 * alone, so the record only matters while it is live; the margin covers a sweeping server whose
 * clock runs ahead of the server checking the nonce.
 */
const SWEEP_GRACE_MS = 60_000;

export interface NonceDeps {
  store: Store;
  clock: Clock;
  /** Mints self-authenticating nonces: @vellum/crypto's loadNonceCodec. */
  codec: NonceCodec;
  events: EventRecorder;
  /** How often, per tenant, records of used nonces that expired are swept (default every 60 s). */
  sweepIntervalMs?: number;
}

/**
 * `POST /v1/openid/nonce` (OpenID4VCI 1.0 §7). Nothing is stored when a nonce is issued; the
 * credential endpoint opens it with the codec and records its single use with `store.nonces.markUsed`.
 */
export interface NonceService {
  issue(ctx: RequestContext): Promise<{ c_nonce: string }>;
}

// Sweep bookkeeping is per process and bounded: forgetting a tenant only means an early sweep.
const MAX_TRACKED_TENANTS = 10_000;

/** Single-use nonces with a 5-minute life; records of used ones are swept after expiry, now and then, per tenant. */
export function createNonceService(deps: NonceDeps): NonceService {
  const { store, clock, codec, events } = deps;
  const sweepEvery = deps.sweepIntervalMs ?? 60_000;
  const lastSweep = new Map<string, number>();

  function sweep(tenantId: string, now: Date): void {
    const last = lastSweep.get(tenantId);
    if (last !== undefined && now.getTime() - last < sweepEvery) return;
    if (lastSweep.size >= MAX_TRACKED_TENANTS) lastSweep.clear();
    lastSweep.set(tenantId, now.getTime());
    // Housekeeping off the request path: a failure only leaves the rows for the next sweep.
    void store.nonces.deleteExpired(tenantId, new Date(now.getTime() - SWEEP_GRACE_MS).toISOString()).catch(() => undefined);
  }

  return {
    issue(ctx) {
      return withEvents(events, ctx, 'OPENID_NONCE', async () => {
        const now = clock.now();
        const nonce = codec.mint(ctx.tenant.id, new Date(now.getTime() + NONCE_TTL_SECONDS * 1000));
        sweep(ctx.tenant.id, now);
        return { c_nonce: nonce };
      });
    },
  };
}
