import type { FormatRegistry } from '../credential-formats/port.ts';
import { type PublishedTypeMetadata, servedVct, typeMetadataOf } from '../credential-formats/type-metadata.ts';
import type { IssuerSigners, X509Signer } from '../issuer-pki/model.ts';
import type { KeyManager } from '../keys/ports.ts';
import type { Store } from '../ports.ts';
import { isDomainError, notFound } from '../shared/errors.ts';
import type { Clock, Digests } from '../shared/ports.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { buildAuthorizationServerMetadata } from './authorization-server.ts';
import { buildIssuerMetadata, type IssuanceFeatures } from './issuer-metadata.ts';
import { buildJwtVcIssuerMetadata, type SignedIssuerMetadata, signIssuerMetadata } from './signed-metadata.ts';

/** What signs the issuer metadata and publishes the JWT VC Issuer Metadata: the tenant's issuer CA (docs/decisions.md "Signed issuer metadata"). */
export interface IssuerMetadataSigning {
  signers: IssuerSigners;
  keys: KeyManager;
  clock: Clock;
  /** `exp` − `iat` of the signed metadata (default SIGNED_METADATA_LIFETIME_SECONDS, a day), never past the leaf's end. */
  lifetimeSeconds?: number;
}

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
  /** Without it no tenant signs its metadata (`application/jwt` gets the JSON) and none serves JWT VC Issuer Metadata (404). */
  signing?: IssuerMetadataSigning;
  /** Hashes served type metadata, as the dc+sd-jwt handler does for `vct#integrity`; without it no type metadata is served (404). */
  digests?: Pick<Digests, 'sha256'>;
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
  /**
   * The leaf certificate that signs this origin's metadata now (its SAN names the issuer identifier),
   * or undefined when the tenant has none: no active issuer CA, or (imported CA) no leaf for this
   * origin. A cache compares it with the one that signed the copy it keeps.
   */
  metadataSigner(ctx: RequestContext, basePath?: string): Promise<X509Signer | undefined>;
  /**
   * The same metadata as a JWT (OpenID4VCI 1.0 §12.2.3) signed by `metadataSigner`, or undefined
   * when there is none: the host then answers with the JSON, which OpenID4VCI 1.0 §12.2.2 requires
   * every issuer to serve. Behind cacheIssuerMetadata the same frozen object is served while the
   * configurations and the signer are unchanged and it is not yet due for renewal.
   */
  signedIssuerMetadata(ctx: RequestContext, basePath?: string): Promise<Readonly<SignedIssuerMetadata> | undefined>;
  /**
   * JWT VC Issuer Metadata (SD-JWT VC draft) for the issuer identifier: `issuer` and the `jwks` of
   * every valid credential leaf whose SAN names it. NotFound when the tenant has no issuer CA (its
   * SD-JWT VCs name a DID as `iss`) or no valid leaf names this origin.
   */
  jwtVcIssuerMetadata(ctx: RequestContext, basePath?: string): Promise<Readonly<Record<string, unknown>>>;
  /**
   * The SD-JWT VC Type Metadata of the tenant's dc+sd-jwt configuration whose vct is
   * `{issuer}/types/{name}` for this origin (docs/decisions.md "SD-JWT VC type metadata (issue 29)"),
   * as the exact bytes its credentials' `vct#integrity` hashes. NotFound when no configuration publishes one there.
   */
  typeMetadata(ctx: RequestContext, basePath: string | undefined, name: string): Promise<PublishedTypeMetadata>;
  /** The authorization server metadata (RFC 8414) for the same issuer identifier. */
  authorizationServerMetadata(ctx: RequestContext, basePath?: string): Promise<Readonly<Record<string, unknown>>>;
}

/** The issuer identifier: the request's origin, plus the mount path when the API is not at the root. */
export function issuerOf(ctx: RequestContext, basePath = ''): string {
  return `${ctx.origin}${basePath.replace(/\/+$/, '')}`;
}

const noIssuerCa = () => notFound('The tenant has no issuer certificate authority: its SD-JWT VCs name a DID as issuer, whose DID document holds the key');

/**
 * Issuer metadata from the tenant's configurations, built (and signed) afresh on every call: the
 * domain keeps no cache. createVellum wraps it in cacheIssuerMetadata (cached-service.ts), which
 * serves the last document while the configurations' stamps are unchanged, and the last signed
 * document while the signer is unchanged too and the JWT is not due for renewal.
 */
export function createIssuerMetadataService(deps: IssuerMetadataDeps): IssuerMetadataService {
  const { store, features, formats } = deps;
  /** The features with this tenant's request encryption keys filled in. */
  const tenantFeatures = async (tenantId: string): Promise<IssuanceFeatures> =>
    features.credentialRequestEncryption && deps.requestEncryptionKeys
      ? { ...features, credentialRequestEncryption: { ...features.credentialRequestEncryption, jwks: { keys: await deps.requestEncryptionKeys(tenantId) } } }
      : features;
  const { signing } = deps;

  async function issuerMetadata(ctx: RequestContext, basePath?: string): Promise<Record<string, unknown>> {
    const configurations = await store.credentialConfigurations.listAll(ctx.tenant.id);
    return buildIssuerMetadata(
      issuerOf(ctx, basePath),
      configurations,
      await tenantFeatures(ctx.tenant.id),
      formats,
      ctx.tenant.issuerDisplay,
      ctx.tenant.batchSize,
    );
  }

  async function metadataSigner(ctx: RequestContext, basePath?: string): Promise<X509Signer | undefined> {
    if (!signing) return undefined;
    const now = signing.clock.now();
    if (!(await signing.signers.available(ctx.tenant, now))) return undefined;
    try {
      return await signing.signers.current(ctx.tenant, 'credential', issuerOf(ctx, basePath), now);
    } catch (error) {
      // An imported CA with no leaf for this origin: a 400 for the operator, but the wallet still gets the JSON.
      if (isDomainError(error) && error.code === 'BadRequest') return undefined;
      throw error;
    }
  }

  return {
    issuerMetadata,
    metadataSigner,
    async signedIssuerMetadata(ctx, basePath) {
      const signer = await metadataSigner(ctx, basePath);
      if (!signing || !signer) return undefined;
      return signIssuerMetadata({
        keys: signing.keys,
        signer,
        issuer: issuerOf(ctx, basePath),
        metadata: await issuerMetadata(ctx, basePath),
        now: signing.clock.now(),
        ...(signing.lifetimeSeconds !== undefined ? { lifetimeSeconds: signing.lifetimeSeconds } : {}),
      });
    },
    async jwtVcIssuerMetadata(ctx, basePath) {
      const now = signing?.clock.now();
      if (!signing || !now || !(await signing.signers.available(ctx.tenant, now))) throw noIssuerCa();
      const issuer = issuerOf(ctx, basePath);
      const signers = await signing.signers.published(ctx.tenant, 'credential', issuer, now);
      if (signers.length === 0) throw notFound('No valid credential signing certificate of the tenant names this issuer identifier');
      return buildJwtVcIssuerMetadata(issuer, signers);
    },
    async typeMetadata(ctx, basePath, name) {
      const vct = servedVct(issuerOf(ctx, basePath), name);
      const configurations = deps.digests ? await store.credentialConfigurations.listAll(ctx.tenant.id) : [];
      for (const configuration of configurations) {
        if (configuration.format !== 'dc+sd-jwt' || configuration.type !== vct || !deps.digests) continue;
        const published = typeMetadataOf(configuration, deps.digests);
        if (published) return published;
      }
      throw notFound('No credential configuration of this issuer publishes type metadata for this vct');
    },
    async authorizationServerMetadata(ctx, basePath) {
      const configurations = await store.credentialConfigurations.listAll(ctx.tenant.id);
      return buildAuthorizationServerMetadata(
        issuerOf(ctx, basePath),
        features,
        configurations.some((c) => c.refresh?.allowed === true),
      );
    },
  };
}
