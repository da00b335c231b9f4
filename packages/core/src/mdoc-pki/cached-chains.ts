// The cache in front of the issuing chains: a tenant's IACA and document signer are reused for a
// short while instead of being read from the store for every mDoc (docs/decisions.md, Caches live
// outside the core).

import type { Clock } from '../shared/ports.ts';
import type { Tenant } from '../tenancy/model.ts';
import { type IssuingChain, type IssuingChains, rotationDue } from './signers.ts';

export interface IssuingChainsCacheOptions {
  /**
   * How long a tenant's chain is reused before it is loaded again, in ms (0: loaded for every
   * credential, though concurrent calls still share one load). Changes made through this process
   * apply at once (the services call `invalidate`); changes made by another server (an IACA
   * deactivated, a signer revoked) apply within this bound. A revoked signer's key is destroyed,
   * so it cannot sign anywhere even within the bound.
   */
  cacheMs: number;
  clock: Clock;
}

interface Cached {
  chain: IssuingChain;
  /** Clock time (ms) until which the chain is reused without loading it again. */
  until: number;
  signerNotBefore: number;
  signerNotAfter: number;
  iacaNotAfter: number;
}

const time = (iso: string | undefined) => (iso === undefined ? Number.NaN : Date.parse(iso));

/**
 * Wraps IssuingChains so that each tenant's chain is reused for `cacheMs` while it still fits the
 * credential: valid at its `now`, and, for a managed IACA, not yet due for rotation for its
 * lifetime. It holds one small entry per tenant; concurrent misses for a tenant share one load
 * (and so at most one new signer), whatever `cacheMs` is.
 */
export function cacheIssuingChains(inner: IssuingChains, options: IssuingChainsCacheOptions): IssuingChains {
  const { cacheMs, clock } = options;
  const cache = new Map<string, Cached>();
  const loading = new Map<string, Promise<Cached>>();
  // Bumped by invalidate: a load that began before a change is not cached after it.
  const generations = new Map<string, number>();

  async function load(tenant: Tenant, now: Date, lifetimeMs: number): Promise<Cached> {
    const chain = await inner.current(tenant, now, lifetimeMs);
    return {
      chain,
      until: clock.now().getTime() + cacheMs,
      signerNotBefore: time(chain.signer.certificateData?.notBefore),
      signerNotAfter: time(chain.signer.certificateData?.notAfter),
      iacaNotAfter: time(chain.iaca.certificateData.notAfter),
    };
  }

  /** Whether a managed IACA's chain needs a new signer for a credential issued at `at` living `lifetimeMs`. */
  function due(entry: Cached, at: number, lifetimeMs: number): boolean {
    return entry.chain.iaca.isManaged && rotationDue(entry.signerNotAfter, entry.iacaNotAfter, at, lifetimeMs);
  }

  /** A cached chain is reused while fresh, valid at `at`, and (managed) not due for rotation. */
  function fits(entry: Cached, at: number, clockNow: number, lifetimeMs: number): boolean {
    if (clockNow >= entry.until) return false;
    if (at < entry.signerNotBefore || at >= entry.signerNotAfter || at >= entry.iacaNotAfter) return false;
    return !due(entry, at, lifetimeMs);
  }

  return {
    async current(tenant, now, lifetimeMs) {
      const hit = cache.get(tenant.id);
      if (hit && fits(hit, now.getTime(), clock.now().getTime(), lifetimeMs)) return hit.chain;
      const generation = generations.get(tenant.id) ?? 0;
      let pending = loading.get(tenant.id);
      if (!pending) {
        const started = load(tenant, now, lifetimeMs).finally(() => {
          if (loading.get(tenant.id) === started) loading.delete(tenant.id);
        });
        pending = started;
        loading.set(tenant.id, started);
      }
      let entry = await pending;
      // A load shared with a caller issuing a shorter-lived credential may not suit this one.
      if (due(entry, now.getTime(), lifetimeMs)) entry = await load(tenant, now, lifetimeMs);
      if (cacheMs > 0 && (generations.get(tenant.id) ?? 0) === generation) cache.set(tenant.id, entry);
      return entry.chain;
    },
    invalidate(tenantId) {
      cache.delete(tenantId);
      loading.delete(tenantId);
      generations.set(tenantId, (generations.get(tenantId) ?? 0) + 1);
      inner.invalidate(tenantId);
    },
  };
}
