import type { ConfigurationStamp } from '../configurations/ports.ts';
import type { Clock } from '../shared/ports.ts';
import type { Tenant } from '../tenancy/model.ts';
import { issuerOf, type IssuerMetadataService } from './service.ts';
import type { SignedIssuerMetadata } from './signed-metadata.ts';

/** What the issuer metadata cache checks before it serves a document again. */
export interface IssuerMetadataCacheOptions {
  /** The stamps of the tenant's credential configurations (one indexed read): a document is served again only while they are unchanged. */
  stamps: (tenantId: string) => Promise<ConfigurationStamp[]>;
  /** How many tenant origins' documents are kept (default 10,000; least recently served go first), and as many signed ones. */
  maxDocuments?: number;
  /** For the signed documents' renewal time. */
  clock: Clock;
}

interface Cached {
  fingerprint: string;
  document: Readonly<Record<string, unknown>>;
}

interface CachedSigned {
  fingerprint: string;
  signed: Readonly<SignedIssuerMetadata>;
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
 * from the last read, per tenant and issuer identifier. A change made through any server sharing
 * the store shows at once. While
 * nothing changes the answer is the same frozen object, so a host may keep its serialisation.
 * The signed form is kept likewise (see signedIssuerMetadata below). The authorization server
 * metadata, the signer and the JWT VC Issuer Metadata pass straight through: the IssuerSigners
 * port has its own cache in front.
 */
export function cacheIssuerMetadata(service: IssuerMetadataService, options: IssuerMetadataCacheOptions): IssuerMetadataService {
  const maxDocuments = options.maxDocuments ?? 10_000;
  const { clock } = options;
  const cache = new Map<string, Cached>();
  const signedCache = new Map<string, CachedSigned>();
  // Concurrent misses for one document, stamps and signer share one signature.
  const signing = new Map<string, Promise<Readonly<SignedIssuerMetadata> | undefined>>();

  function remember<T>(map: Map<string, T>, key: string, entry: T): void {
    map.delete(key);
    map.set(key, entry); // most recently served last
    if (map.size > maxDocuments) map.delete(map.keys().next().value as string);
  }

  /**
   * The fingerprint of the tenant's configurations, read before `service` reads the records (if the
   * two differ, the next request rebuilds), and of its issuer display and batch size, which come with the
   * request's tenant (no read of its own): a change to it, through any server, is a new fingerprint
   * as soon as this server reads the changed tenant.
   */
  async function fingerprintOf(tenant: Tenant): Promise<string> {
    const stamps = await options.stamps(tenant.id);
    const display = tenant.issuerDisplay?.length ? JSON.stringify(tenant.issuerDisplay) : '';
    return `${display}\n${tenant.batchSize ?? 1}\n${stamps.map((s) => `${s.id} ${s.revision}`).join('\n')}`;
  }

  return {
    async issuerMetadata(ctx, basePath) {
      const key = `${ctx.tenant.id} ${issuerOf(ctx, basePath)}`;
      const fingerprint = await fingerprintOf(ctx.tenant);
      const hit = cache.get(key);
      if (hit && hit.fingerprint === fingerprint) {
        remember(cache, key, hit);
        return hit.document;
      }
      const document = deepFreeze(await service.issuerMetadata(ctx, basePath));
      remember(cache, key, { fingerprint, document });
      return document;
    },
    metadataSigner: (ctx, basePath) => service.metadataSigner(ctx, basePath),
    /**
     * The signed document is kept beside the JSON one, under the same stamps and the id of the leaf
     * that signed it: a change of configuration, of signer (rotation, a new or revoked CA, on any
     * server sharing the store) or its renewal time signs it again. Never signed per request.
     */
    async signedIssuerMetadata(ctx, basePath) {
      const key = `${ctx.tenant.id} ${issuerOf(ctx, basePath)}`;
      const [fingerprint, signer] = await Promise.all([fingerprintOf(ctx.tenant), service.metadataSigner(ctx, basePath)]);
      if (!signer) {
        signedCache.delete(key);
        return undefined;
      }
      const hit = signedCache.get(key);
      if (hit && hit.fingerprint === fingerprint && hit.signed.signerId === signer.signerId && clock.now() < hit.signed.renewAt) {
        remember(signedCache, key, hit);
        return hit.signed;
      }
      const flight = `${key}\n${signer.signerId}\n${fingerprint}`;
      let pending = signing.get(flight);
      if (!pending) {
        pending = service.signedIssuerMetadata(ctx, basePath).then((signed) => {
          if (!signed) {
            signedCache.delete(key);
            return undefined;
          }
          const frozen = Object.freeze({ ...signed });
          remember(signedCache, key, { fingerprint, signed: frozen });
          return frozen;
        });
        signing.set(flight, pending);
        const forget = () => signing.delete(flight);
        pending.then(forget, forget);
      }
      return pending;
    },
    jwtVcIssuerMetadata: (ctx, basePath) => service.jwtVcIssuerMetadata(ctx, basePath),
    // Public but rare (a wallet fetches a type once and keeps it by its integrity): one read of the configurations per request.
    typeMetadata: (ctx, basePath, name) => service.typeMetadata(ctx, basePath, name),
    authorizationServerMetadata: (ctx, basePath) => service.authorizationServerMetadata(ctx, basePath),
  };
}
