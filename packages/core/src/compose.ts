import { type AnalyticsService, createAnalyticsService } from './events/service.ts';
import { createEventRecorder, type EventRecorder } from './events/recorder.ts';
import { type CredentialConfigurationService, createCredentialConfigurationService } from './configurations/service.ts';
import { type CustomDomainService, createCustomDomainService } from './custom-domains/service.ts';
import { createDidConfigurationService, type DidConfigurationService } from './dids/configuration.ts';
import { createDidService, type DidService } from './dids/service.ts';
import { createMdocIssuance, type MdocIssuance } from './mdoc-issuance/service.ts';
import { createDocumentSignerService, type DocumentSignerService } from './mdoc-pki/document-signers.ts';
import { createIacaService, type IacaService } from './mdoc-pki/iacas.ts';
import { createIssuingChains } from './mdoc-pki/signers.ts';
import { type IssuanceFeatures, LIVE_ISSUANCE_FEATURES } from './metadata/issuer-metadata.ts';
import { createIssuerMetadataService, type IssuerMetadataService } from './metadata/service.ts';
import type { Clock, DnsResolver, Ids, KeyManager, LinkedDataSigner, MdocEngine, SecretHasher, Store, TokenSigner, X509Authority } from './ports.ts';
import { type Addressing, type AddressingOptions, createAddressing } from './tenancy/addressing.ts';
import { type AdminAuth, createAdminAuth } from './tenancy/admin-auth.ts';
import { createTenantAdmin, type TenantAdmin } from './tenancy/tenants.ts';

/** Everything the use cases need from the world, plus the few settings they read. */
export interface VellumDeps extends AddressingOptions {
  store: Store;
  clock: Clock;
  ids: Ids;
  hasher: SecretHasher;
  tokens: TokenSigner;
  dns: DnsResolver;
  /** Tenants' signing keys (the private halves never leave it). */
  keys: KeyManager;
  /** Signs JSON-LD documents with Linked Data proofs (the DID configuration's credentials). */
  linkedDataSigner: LinkedDataSigner;
  /** Lifetime of admin access tokens, in seconds. */
  adminTokenTtlSeconds: number;
  /** X.509 for mDocs (IACAs, document signers, CSRs, CRLs) over `keys`: @vellum/crypto's createX509Authority. */
  x509: X509Authority;
  /** The mso_mdoc engine signing through `keys`: @vellum/formats' createMdocEngine. */
  mdocEngine: MdocEngine;
  /**
   * How long the IACA and document signer that sign a tenant's mDocs are reused before the store is
   * read again, in ms (default 1000; 0 reads them for every credential). Bounds how long another
   * server may keep using a deactivated IACA.
   */
  mdocSignerCacheMs?: number;
  /** Told when a batch of analytic events could not be written (it is retried at the next flush). */
  onEventWriteError?: (error: unknown) => void;
  /**
   * What of the issuance protocol the host serves, which metadata advertises (default
   * LIVE_ISSUANCE_FEATURES: what this release implements).
   */
  issuanceFeatures?: IssuanceFeatures;
}

/** Every use case of the platform, wired once. */
export interface Vellum {
  addressing: Addressing;
  adminAuth: AdminAuth;
  customDomains: CustomDomainService;
  dids: DidService;
  didConfiguration: DidConfigurationService;
  analytics: AnalyticsService;
  tenants: TenantAdmin;
  credentialConfigurations: CredentialConfigurationService;
  issuerMetadata: IssuerMetadataService;
  /** mDoc PKI (API.md §7): IACAs and document signers. */
  iacas: IacaService;
  documentSigners: DocumentSignerService;
  /** Issues mDocs for a configuration, a user's claims and a holder key, independent of OpenID4VCI. */
  mdocIssuance: MdocIssuance;
  /** The analytic event buffer: the host flushes it on a timer and at shutdown. */
  recorder: EventRecorder;
}

/** Builds all use cases over one set of adapters: the one call a host (or a test) needs. */
export function createVellum(deps: VellumDeps): Vellum {
  const { store, clock, ids, hasher, tokens, dns } = deps;
  const addressing = createAddressing(store, {
    platformDomain: deps.platformDomain,
    publicUrl: deps.publicUrl,
    ...(deps.defaultTenant ? { defaultTenant: deps.defaultTenant } : {}),
  });
  const recorder = createEventRecorder({ events: store.events, clock, ids, ...(deps.onEventWriteError ? { onError: deps.onEventWriteError } : {}) });
  const { keys, x509 } = deps;
  const chains = createIssuingChains({ store, clock, ids, keys, x509, ...(deps.mdocSignerCacheMs !== undefined ? { cacheMs: deps.mdocSignerCacheMs } : {}) });
  return {
    addressing,
    iacas: createIacaService({ store, clock, ids, keys, x509, events: recorder, addressing, chains }),
    documentSigners: createDocumentSignerService({ store, clock, ids, keys, x509, events: recorder, chains }),
    mdocIssuance: createMdocIssuance({ clock, engine: deps.mdocEngine, chains }),
    recorder,
    adminAuth: createAdminAuth({ store, hasher, tokens, addressing, tokenTtlSeconds: deps.adminTokenTtlSeconds }),
    customDomains: createCustomDomainService({ store, clock, ids, dns, events: recorder, platformDomain: deps.platformDomain }),
    dids: createDidService({ store, clock, keys: deps.keys, events: recorder, addressing }),
    didConfiguration: createDidConfigurationService({ store, clock, addressing, signer: deps.linkedDataSigner }),
    analytics: createAnalyticsService({ store, events: recorder }),
    tenants: createTenantAdmin({ store, clock, ids, hasher }),
    credentialConfigurations: createCredentialConfigurationService({ store, clock, ids, events: recorder }),
    issuerMetadata: createIssuerMetadataService({ store, features: deps.issuanceFeatures ?? LIVE_ISSUANCE_FEATURES }),
  };
}
