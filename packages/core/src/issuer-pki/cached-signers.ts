// The cache in front of the issuer signers: a tenant's leaf for one use and issuer is reused for a
// short while instead of being read from the store for every credential or token (docs/decisions.md
// "Issuer certificates"; Caches live outside the core).

import { MAX_SIGNER_ROTATION_DAYS, SIGNER_ROTATION_DAYS } from '../mdoc-pki/model.ts';
import type { Clock } from '../shared/ports.ts';
import type { IssuerSigners, X509Signer } from './model.ts';

const DAY_MS = 86_400_000;

export interface IssuerSignersCacheOptions {
  /** How long a leaf is reused before it is chosen again, in ms; 0 chooses it for every signature. */
  cacheMs: number;
  clock: Clock;
}

interface Cached {
  signer: X509Signer;
  until: number;
}

/**
 * Wraps IssuerSigners so that each tenant's leaf (per use and issuer) is reused for `cacheMs`
 * while it stays valid for the lifetime asked, the rotation window included. Concurrent misses for
 * the same tenant, use and issuer share one choice, so a burst of first credentials (or of
 * credentials at rotation time) makes one new leaf, not one each, whatever `cacheMs` is. Changes
 * made through this process apply at once (the services call `invalidate`); a revoked leaf's key
 * is destroyed, so it cannot sign anywhere even within the bound.
 */
export function cacheIssuerSigners(inner: IssuerSigners, options: IssuerSignersCacheOptions): IssuerSigners {
  const { cacheMs, clock } = options;
  const cache = new Map<string, Map<string, Cached>>();
  const loading = new Map<string, Map<string, Promise<X509Signer>>>();
  const generations = new Map<string, number>();

  /** The inner choice for the key, shared with the calls that ask for it while it is made; `joined` when another call started it. */
  function shared(tenantId: string, key: string, choose: () => Promise<X509Signer>): { signer: Promise<X509Signer>; joined: boolean } {
    const pending = loading.get(tenantId) ?? new Map<string, Promise<X509Signer>>();
    loading.set(tenantId, pending);
    const inFlight = pending.get(key);
    if (inFlight) return { signer: inFlight, joined: true };
    const started = choose().finally(() => {
      if (pending.get(key) !== started) return;
      pending.delete(key);
      if (pending.size === 0 && loading.get(tenantId) === pending) loading.delete(tenantId);
    });
    pending.set(key, started);
    return { signer: started, joined: false };
  }

  return {
    async current(tenant, use, issuer, now, lifetimeMs = 0) {
      const key = `${use} ${issuer}`;
      const at = now.getTime();
      // What the inner chooser's rotation rule asks of a leaf, so a cached one is never kept past it.
      const needed = Math.min(Math.max(lifetimeMs, SIGNER_ROTATION_DAYS * DAY_MS), MAX_SIGNER_ROTATION_DAYS * DAY_MS);
      const suits = (signer: X509Signer) => at + needed <= signer.notAfter.getTime();
      const hit = cache.get(tenant.id)?.get(key);
      if (hit && clock.now().getTime() < hit.until && suits(hit.signer)) return hit.signer;
      const generation = generations.get(tenant.id) ?? 0;
      const choice = shared(tenant.id, key, () => inner.current(tenant, use, issuer, now, lifetimeMs));
      let signer = await choice.signer;
      // A choice made for a caller issuing a shorter-lived credential may not suit this one: the
      // inner chooser decides again (it rotates only when its rule says so, near the CA's end never).
      if (choice.joined && !suits(signer)) signer = await inner.current(tenant, use, issuer, now, lifetimeMs);
      if (cacheMs > 0 && (generations.get(tenant.id) ?? 0) === generation) {
        const entries = cache.get(tenant.id) ?? new Map<string, Cached>();
        entries.set(key, { signer, until: clock.now().getTime() + cacheMs });
        cache.set(tenant.id, entries);
      }
      return signer;
    },
    // What /.well-known/jwt-vc-issuer publishes is read afresh: a new or revoked leaf shows at once.
    published: (tenant, use, issuer, now) => inner.published(tenant, use, issuer, now),
    available: (tenant, now) => inner.available(tenant, now),
    invalidate(tenantId) {
      cache.delete(tenantId);
      loading.delete(tenantId);
      generations.set(tenantId, (generations.get(tenantId) ?? 0) + 1);
      inner.invalidate(tenantId);
    },
  };
}
