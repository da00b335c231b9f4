import type { ConfigurationStamp } from '../configurations/ports.ts';
import { issuerOf, type IssuerMetadataService } from './service.ts';

/** What the issuer metadata cache checks before it serves a document again. */
export interface IssuerMetadataCacheOptions {
  /** The stamps of the tenant's credential configurations (one indexed read): a document is served again only while they are unchanged. */
  stamps: (tenantId: string) => Promise<ConfigurationStamp[]>;
  /** How many tenant origins' documents are kept (default 10,000; least recently served go first). */
  maxDocuments?: number;
}

interface Cached {
  fingerprint: string;
  document: Readonly<Record<string, unknown>>;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Wraps an IssuerMetadataService so that each request reads only the configurations' stamps, and
 * the document is rebuilt (by `service`) only when they (or the tenant's issuer display) differ
 * from the last read, per tenant and issuer identifier. A change made through any server sharing the store shows at once. While
 * nothing changes the answer is the same frozen object, so a host may keep its serialisation.
 * The authorization server metadata depends on nothing stored and passes straight through.
 */
export function cacheIssuerMetadata(service: IssuerMetadataService, options: IssuerMetadataCacheOptions): IssuerMetadataService {
  const maxDocuments = options.maxDocuments ?? 10_000;
  const cache = new Map<string, Cached>();

  function remember(key: string, entry: Cached): void {
    cache.delete(key);
    cache.set(key, entry); // most recently served last
    if (cache.size > maxDocuments) cache.delete(cache.keys().next().value as string);
  }

  return {
    async issuerMetadata(ctx, basePath) {
      const key = `${ctx.tenant.id} ${issuerOf(ctx, basePath)}`;
      const stamps = await options.stamps(ctx.tenant.id);
      // From the stamps read before `service` reads the records: if the two differ, the next request rebuilds.
      // The issuer display comes with the request's tenant (no read of its own): a change to it,
      // through any server, is a new fingerprint as soon as this server reads the changed tenant.
      const display = ctx.tenant.issuerDisplay?.length ? JSON.stringify(ctx.tenant.issuerDisplay) : '';
      const fingerprint = `${display}\n${stamps.map((s) => `${s.id} ${s.revision}`).join('\n')}`;
      const hit = cache.get(key);
      if (hit && hit.fingerprint === fingerprint) {
        remember(key, hit);
        return hit.document;
      }
      const document = deepFreeze(await service.issuerMetadata(ctx, basePath));
      remember(key, { fingerprint, document });
      return document;
    },
    authorizationServerMetadata: (ctx, basePath) => service.authorizationServerMetadata(ctx, basePath),
  };
}
