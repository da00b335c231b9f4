import { type AnalyticsService, createAnalyticsService } from './events/service.ts';
import { createEventRecorder, type EventRecorder } from './events/recorder.ts';
import { type CustomDomainService, createCustomDomainService } from './custom-domains/service.ts';
import { createDidConfigurationService, type DidConfigurationService } from './dids/configuration.ts';
import { createDidService, type DidService } from './dids/service.ts';
import type { Clock, DnsResolver, Ids, KeyManager, LinkedDataSigner, SecretHasher, Store, TokenSigner } from './ports.ts';
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
  /** Told when a batch of analytic events could not be written (it is retried at the next flush). */
  onEventWriteError?: (error: unknown) => void;
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
  return {
    addressing,
    recorder,
    adminAuth: createAdminAuth({ store, hasher, tokens, addressing, tokenTtlSeconds: deps.adminTokenTtlSeconds }),
    customDomains: createCustomDomainService({ store, clock, ids, dns, events: recorder, platformDomain: deps.platformDomain }),
    dids: createDidService({ store, clock, keys: deps.keys, events: recorder, addressing }),
    didConfiguration: createDidConfigurationService({ store, clock, addressing, signer: deps.linkedDataSigner }),
    analytics: createAnalyticsService({ store, events: recorder }),
    tenants: createTenantAdmin({ store, clock, ids, hasher }),
  };
}
