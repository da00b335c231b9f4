import { type EventRecorder, withEvents } from '../events/recorder.ts';
import type { Clock, Ids, Store } from '../ports.ts';
import type { RequestContext } from '../tenancy/model.ts';

/** API.md §9: a nonce lives 5 minutes. */
export const NONCE_TTL_SECONDS = 300;

export interface NonceDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  events: EventRecorder;
  /** How often, per tenant, expired nonces are swept (default every 60 s). */
  sweepIntervalMs?: number;
}

/** `POST /v1/openid/nonce` (OpenID4VCI 1.0 §7). The credential endpoint uses nonces up with `store.nonces.consume`. */
export interface NonceService {
  issue(ctx: RequestContext): Promise<{ c_nonce: string }>;
}

// Sweep bookkeeping is per process and bounded: forgetting a tenant only means an early sweep.
const MAX_TRACKED_TENANTS = 10_000;

/** Single-use nonces with a 5-minute life; expired ones are swept now and then, per tenant. */
export function createNonceService(deps: NonceDeps): NonceService {
  const { store, clock, ids, events } = deps;
  const sweepEvery = deps.sweepIntervalMs ?? 60_000;
  const lastSweep = new Map<string, number>();

  function sweep(tenantId: string, now: Date): void {
    const last = lastSweep.get(tenantId);
    if (last !== undefined && now.getTime() - last < sweepEvery) return;
    if (lastSweep.size >= MAX_TRACKED_TENANTS) lastSweep.clear();
    lastSweep.set(tenantId, now.getTime());
    // Housekeeping off the request path: a failure only leaves the rows for the next sweep.
    void store.nonces.deleteExpired(tenantId, now.toISOString()).catch(() => undefined);
  }

  return {
    issue(ctx) {
      return withEvents(events, ctx, 'OPENID_NONCE', async () => {
        const now = clock.now();
        const nonce = ids.token(32);
        await store.nonces.insert({ tenantId: ctx.tenant.id, nonce, expiresAt: new Date(now.getTime() + NONCE_TTL_SECONDS * 1000).toISOString() });
        sweep(ctx.tenant.id, now);
        return { c_nonce: nonce };
      });
    },
  };
}
