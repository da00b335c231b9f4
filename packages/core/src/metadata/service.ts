import type { FormatRegistry } from '../credential-formats/port.ts';
import type { Store } from '../ports.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { buildAuthorizationServerMetadata } from './authorization-server.ts';
import { buildIssuerMetadata, type IssuanceFeatures } from './issuer-metadata.ts';

export interface IssuerMetadataDeps {
  store: Store;
  /** What the host serves of the issuance protocol; metadata advertises exactly this. */
  features: IssuanceFeatures;
  /** The format handlers, which write each configuration's entry. */
  formats: FormatRegistry;
  /** How many tenant origins' documents the cache keeps (default 10,000; least recently served go first). */
  cachedDocuments?: number;
  /**
   * The tenant's public keys for encrypted credential requests, published as
   * `credential_request_encryption.jwks` when the features advertise request encryption. A tenant's
   * keys must not change while the process runs (documents are cached on configuration changes only).
   */
  requestEncryptionKeys?: (tenantId: string) => Promise<Record<string, unknown>[]>;
}

/**
 * Public metadata of a tenant (specification 2.7, 4.6a; RFC 8414). No token, and no analytic
 * events: anyone may read it as often as they like, like the public DID endpoints.
 */
export interface IssuerMetadataService {
  /**
   * The credential issuer metadata for the origin the request came on. `basePath` is where the
   * API is mounted under that origin ('' at the root), so the identifier and endpoints carry it.
   * While nothing changes the answer is the same frozen object, so a host may keep its serialisation.
   */
  issuerMetadata(ctx: RequestContext, basePath?: string): Promise<Readonly<Record<string, unknown>>>;
  /** The authorization server metadata (RFC 8414) for the same issuer identifier. */
  authorizationServerMetadata(ctx: RequestContext, basePath?: string): Promise<Readonly<Record<string, unknown>>>;
}

/** The issuer identifier: the request's origin, plus the mount path when the API is not at the root. */
export function issuerOf(ctx: RequestContext, basePath = ''): string {
  return `${ctx.origin}${basePath.replace(/\/+$/, '')}`;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

interface Cached {
  fingerprint: string;
  document: Readonly<Record<string, unknown>>;
}

/**
 * Issuer metadata from the tenant's configurations. Every request reads the configurations'
 * stamps (one indexed query), so a change made through any server shows at once; the document is
 * rebuilt only when they differ from the last read, per tenant and issuer identifier.
 */
export function createIssuerMetadataService(deps: IssuerMetadataDeps): IssuerMetadataService {
  const { store, features, formats } = deps;
  /** The features with this tenant's request encryption keys filled in. */
  const tenantFeatures = async (tenantId: string): Promise<IssuanceFeatures> =>
    features.credentialRequestEncryption && deps.requestEncryptionKeys
      ? { ...features, credentialRequestEncryption: { ...features.credentialRequestEncryption, jwks: { keys: await deps.requestEncryptionKeys(tenantId) } } }
      : features;
  const maxDocuments = deps.cachedDocuments ?? 10_000;
  const cache = new Map<string, Cached>();

  function remember(key: string, entry: Cached): void {
    cache.delete(key);
    cache.set(key, entry); // most recently served last
    if (cache.size > maxDocuments) cache.delete(cache.keys().next().value as string);
  }

  return {
    async issuerMetadata(ctx, basePath) {
      const issuer = issuerOf(ctx, basePath);
      const key = `${ctx.tenant.id} ${issuer}`;
      const stamps = await store.credentialConfigurations.listStamps(ctx.tenant.id);
      // From the stamps read before the records: if the two differ, the next request rebuilds.
      const fingerprint = stamps.map((s) => `${s.id} ${s.revision}`).join('\n');
      const hit = cache.get(key);
      if (hit && hit.fingerprint === fingerprint) {
        remember(key, hit);
        return hit.document;
      }
      const configurations = stamps.length === 0 ? [] : await store.credentialConfigurations.listAll(ctx.tenant.id);
      const document = deepFreeze(buildIssuerMetadata(issuer, configurations, await tenantFeatures(ctx.tenant.id), formats));
      remember(key, { fingerprint, document });
      return document;
    },
    async authorizationServerMetadata(ctx, basePath) {
      return buildAuthorizationServerMetadata(issuerOf(ctx, basePath), features);
    },
  };
}
