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
 * while it stays valid for the lifetime asked, the rotation window included. Changes made through
 * this process apply at once (the services call `invalidate`); a revoked leaf's key is destroyed,
 * so it cannot sign anywhere even within the bound.
 */
export function cacheIssuerSigners(inner: IssuerSigners, options: IssuerSignersCacheOptions): IssuerSigners {
  const { cacheMs, clock } = options;
  const cache = new Map<string, Map<string, Cached>>();
  const generations = new Map<string, number>();
  return {
    async current(tenant, use, issuer, now, lifetimeMs = 0) {
      const key = `${use} ${issuer}`;
      const at = now.getTime();
      // What the inner chooser's rotation rule asks of a leaf, so a cached one is never kept past it.
      const needed = Math.min(Math.max(lifetimeMs, SIGNER_ROTATION_DAYS * DAY_MS), MAX_SIGNER_ROTATION_DAYS * DAY_MS);
      const hit = cache.get(tenant.id)?.get(key);
      if (hit && clock.now().getTime() < hit.until && at + needed <= hit.signer.notAfter.getTime()) return hit.signer;
      const generation = generations.get(tenant.id) ?? 0;
      const signer = await inner.current(tenant, use, issuer, now, lifetimeMs);
      if (cacheMs > 0 && (generations.get(tenant.id) ?? 0) === generation) {
        const entries = cache.get(tenant.id) ?? new Map<string, Cached>();
        entries.set(key, { signer, until: clock.now().getTime() + cacheMs });
        cache.set(tenant.id, entries);
      }
      return signer;
    },
    available: (tenant, now) => inner.available(tenant, now),
    invalidate(tenantId) {
      cache.delete(tenantId);
      generations.set(tenantId, (generations.get(tenantId) ?? 0) + 1);
      inner.invalidate(tenantId);
    },
  };
}
