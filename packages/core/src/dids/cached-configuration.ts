// The caches in front of the DID configuration: each DID's signed linkage credential is kept until
// shortly before it expires, and the last document while the tenant's DIDs and origin are unchanged
// (docs/decisions.md, Caches live outside the core).

import type { Clock } from '../shared/ports.ts';
import type { Tenant } from '../tenancy/model.ts';
import type { DidConfiguration, DidConfigurationBuilder, DidConfigurationService, LinkageCredential, LinkageCredentials } from './configuration.ts';
import { signingKeyOf } from './configuration.ts';
import type { DidRecord } from './model.ts';
import type { DidStamp } from './ports.ts';

export interface LinkageCredentialsCacheOptions {
  /** How many tenants' credentials are kept (default 10,000; least recently signed for go first). */
  cachedTenants?: number;
}

interface TenantCredentials {
  origin: string;
  byDid: Map<string, LinkageCredential>;
}

/** Keeps the most recently used entry last and the map within `max` entries. */
function remember<T>(map: Map<string, T>, key: string, value: T, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as string);
}

/**
 * Wraps LinkageCredentials so that each credential is signed once and kept until its `renewAt`, per
 * tenant, DID, key and origin: the inner port is handed only the DIDs with no fitting credential,
 * so a new DID signs only itself, and concurrent calls share a signature in flight. A DID not
 * given again is forgotten, a failed signature at once, and a tenant's credentials when its origin
 * changes.
 */
export function cacheLinkageCredentials(inner: LinkageCredentials, options: LinkageCredentialsCacheOptions = {}): LinkageCredentials {
  const maxTenants = options.cachedTenants ?? 10_000;
  const tenants = new Map<string, TenantCredentials>();

  return {
    forDids(tenantId, records, origin, now) {
      const known = tenants.get(tenantId);
      const cache = known?.origin === origin ? known : { origin, byDid: new Map<string, LinkageCredential>() };
      remember(tenants, tenantId, cache, maxTenants);
      const byDid = new Map<string, LinkageCredential>();
      for (const record of records) {
        const hit = cache.byDid.get(record.did);
        if (hit && hit.keyId === signingKeyOf(record).kmsKeyId && now < hit.renewAt) byDid.set(record.did, hit);
      }
      const missing = records.filter((r) => !byDid.has(r.did));
      inner.forDids(tenantId, missing, origin, now).forEach((signed, i) => {
        const did = (missing[i] as DidRecord).did;
        byDid.set(did, signed);
        // A failed signature is not kept: the next call tries again.
        signed.credential.catch(() => cache.byDid.get(did) === signed && cache.byDid.delete(did));
      });
      cache.byDid = byDid;
      return records.map((r) => byDid.get(r.did) as LinkageCredential);
    },
  };
}

/** What the DID configuration cache checks before it serves a document again. */
export interface DidConfigurationCacheOptions {
  /** The stamps of the tenant's DIDs (one indexed read): a document is served again only while they are unchanged. */
  stamps: (tenantId: string) => Promise<DidStamp[]>;
  /** The tenant's public origin: a document is served again only for the origin it was built for. */
  origin: (tenant: Tenant) => Promise<string>;
  clock: Clock;
  /** How many tenants' documents are kept (default 10,000; least recently served go first). */
  cachedTenants?: number;
}

interface CachedDocument {
  fingerprint: string;
  origin: string;
  /** When one of its credentials is due to be signed again (ms). */
  renewAt: number;
  configuration: DidConfiguration;
}

/**
 * Wraps the DID configuration service so that each request reads only the DIDs' stamps and the
 * origin, and the document is built again (by `service`) only when either differs from the last
 * build or one of its credentials is due for renewal. A DID created or deleted on any server sharing
 * the store shows at once. A document missing a DID deleted while it was built is not kept.
 */
export function cacheDidConfiguration(service: DidConfigurationBuilder, options: DidConfigurationCacheOptions): DidConfigurationService {
  const maxTenants = options.cachedTenants ?? 10_000;
  const documents = new Map<string, CachedDocument>();

  return {
    async get(ctx) {
      const tenantId = ctx.tenant.id;
      const [stamps, origin] = await Promise.all([options.stamps(tenantId), options.origin(ctx.tenant)]);
      // From the stamps read before `service` reads the records: if the two differ, the next request builds again.
      const fingerprint = stamps.map((s) => `${s.did} ${s.revision}`).join('\n');
      const hit = documents.get(tenantId);
      if (hit && hit.fingerprint === fingerprint && hit.origin === origin && options.clock.now().getTime() < hit.renewAt) {
        remember(documents, tenantId, hit, maxTenants);
        return hit.configuration;
      }
      const { configuration, renewAt, complete } = await service.build(ctx);
      if (complete) remember(documents, tenantId, { fingerprint, origin, renewAt, configuration }, maxTenants);
      else documents.delete(tenantId);
      return configuration;
    },
  };
}
