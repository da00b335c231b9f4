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
  /**
   * The tenant's public keys for encrypted credential requests, published as
   * `credential_request_encryption.jwks` when the features advertise request encryption. A tenant's
   * keys must not change while the process runs (cacheIssuerMetadata rebuilds documents on configuration changes only).
   */
  requestEncryptionKeys?: (tenantId: string) => Promise<Record<string, unknown>[]>;
}

/**
 * Public metadata of a tenant (OpenID4VCI 1.0 §12.2, §12.2.2; RFC 8414). No token, and no analytic
 * events: anyone may read it as often as they like, like the public DID endpoints.
 */
export interface IssuerMetadataService {
  /**
   * The credential issuer metadata for the origin the request came on. `basePath` is where the
   * API is mounted under that origin ('' at the root), so the identifier and endpoints carry it.
   * Behind cacheIssuerMetadata (which createVellum applies), the answer is the same frozen object
   * while nothing changes, so a host may keep its serialisation.
   */
  issuerMetadata(ctx: RequestContext, basePath?: string): Promise<Readonly<Record<string, unknown>>>;
  /** The authorization server metadata (RFC 8414) for the same issuer identifier. */
  authorizationServerMetadata(ctx: RequestContext, basePath?: string): Promise<Readonly<Record<string, unknown>>>;
}

/** The issuer identifier: the request's origin, plus the mount path when the API is not at the root. */
export function issuerOf(ctx: RequestContext, basePath = ''): string {
  return `${ctx.origin}${basePath.replace(/\/+$/, '')}`;
}

/**
 * Issuer metadata from the tenant's configurations, built afresh on every call: the domain keeps no
 * cache. createVellum wraps it in cacheIssuerMetadata (cached-service.ts), which serves the last
 * document while the configurations' stamps are unchanged.
 */
export function createIssuerMetadataService(deps: IssuerMetadataDeps): IssuerMetadataService {
  const { store, features, formats } = deps;
  /** The features with this tenant's request encryption keys filled in. */
  const tenantFeatures = async (tenantId: string): Promise<IssuanceFeatures> =>
    features.credentialRequestEncryption && deps.requestEncryptionKeys
      ? { ...features, credentialRequestEncryption: { ...features.credentialRequestEncryption, jwks: { keys: await deps.requestEncryptionKeys(tenantId) } } }
      : features;

  return {
    async issuerMetadata(ctx, basePath) {
      const configurations = await store.credentialConfigurations.listAll(ctx.tenant.id);
      return buildIssuerMetadata(issuerOf(ctx, basePath), configurations, await tenantFeatures(ctx.tenant.id), formats, ctx.tenant.issuerDisplay);
    },
    async authorizationServerMetadata(ctx, basePath) {
      return buildAuthorizationServerMetadata(issuerOf(ctx, basePath), features);
    },
  };
}
