// Wiring for the core's unit tests: real use cases over the in-memory store and fakes.
import { createMemoryStore } from '@vellum/storage-memory';
import { fakeClock, fakeDns, fakeFormatSigners, fakeHasher, fakeIds, fakeKeyManager, fakeTokenSigner, fakeX509Authority } from '@vellum/testing';
import { fakeDigests, fakeNonceCodec, fakeWalletTokens } from '@vellum/testing';
import { fakeCredentialEncryption, fakeJwtProofVerifier, fakeProofVerifier } from '@vellum/testing';
import { fakeIdentityProvider, fakeSessionTokens } from '@vellum/testing';
import { fakeSecretBox } from '@vellum/testing';
import {
  createVellum,
  type ProviderFailureReport,
  type RateLimitSettings,
  ROLE_PERMISSIONS,
  type RequestContext,
  type Role,
  type Tenant,
  type VellumDeps,
  type WalletProviderTrust,
} from '../src/index.ts';

export const PLATFORM = 'vellum.test';

/** `rateLimits`: the limits to apply (none unless given); `walletProviderTrust`: the tenants' trusted wallet providers (none unless given). */
export function harness(options: { rateLimits?: RateLimitSettings; walletProviderTrust?: WalletProviderTrust } = {}) {
  const clock = fakeClock('2026-05-01T12:00:00.000Z');
  const keys = fakeKeyManager({ clock });
  const signers = fakeFormatSigners(keys);
  // Every port the core asks for, as fakes; the tests reach most of them through the harness too.
  const ports = {
    store: createMemoryStore(),
    clock,
    ids: fakeIds(),
    hasher: fakeHasher(),
    tokens: fakeTokenSigner(clock),
    dns: fakeDns(),
    keys,
    ...signers,
    x509: fakeX509Authority(keys),
    digests: fakeDigests(),
    walletTokens: fakeWalletTokens(clock),
    proofVerifier: fakeProofVerifier(),
    jwtProofs: fakeJwtProofVerifier(),
    credentialEncryption: fakeCredentialEncryption(),
    nonceCodec: fakeNonceCodec(),
    identityProvider: fakeIdentityProvider(),
    sessionTokens: fakeSessionTokens(clock),
    secretBox: fakeSecretBox(),
  };
  // What the core tells the host's log about tenants' identity providers.
  const providerFailures: ProviderFailureReport[] = [];
  const vellum = createVellum({
    ...ports,
    onProviderFailure: (report) => providerFailures.push(report),
    platformDomain: PLATFORM,
    publicUrl: 'http://localhost:3000',
    defaultTenant: 'demo',
    adminTokenTtlSeconds: 3600,
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    ...(options.walletProviderTrust ? { walletProviderTrust: options.walletProviderTrust } : {}),
  });
  const { store, dns, x509, digests, walletTokens, nonceCodec, proofVerifier, identityProvider, sessionTokens, secretBox, hasher } = ports;
  const { linkedDataSigner, mdocEngine, cwtSigner, sdJwtSigner, statusListTokens, tokenStatusLists, revocationLists } = signers;
  return {
    store,
    clock,
    dns,
    keys,
    signer: linkedDataSigner,
    recorder: vellum.recorder,
    addressing: vellum.addressing,
    tenants: vellum.tenants,
    auth: vellum.adminAuth,
    adminClients: vellum.adminClients,
    domains: vellum.customDomains,
    analytics: vellum.analytics,
    dids: vellum.dids,
    didConfiguration: vellum.didConfiguration,
    x509,
    mdocEngine,
    iacas: vellum.iacas,
    documentSigners: vellum.documentSigners,
    issuerCas: vellum.issuerCas,
    issuerSigners: vellum.issuerSigners,
    issuerSigning: vellum.issuerSigning,
    mdocIssuance: vellum.mdocIssuance,
    credentialIssuance: vellum.credentialIssuance,
    formats: vellum.formats,
    cwtSigner,
    sdJwtSigner,
    statusListTokens,
    tokenStatusLists,
    revocationLists,
    statusLists: vellum.statusLists,
    configurations: vellum.credentialConfigurations,
    metadata: vellum.issuerMetadata,
    issuerDisplay: vellum.issuerDisplay,
    batchIssuance: vellum.batchIssuance,
    digests,
    walletTokens,
    users: vellum.users,
    offers: vellum.offers,
    tokenEndpoint: vellum.tokenEndpoint,
    nonces: vellum.nonces,
    nonceCodec,
    proofVerifier,
    dpop: vellum.dpop,
    credentialEndpoint: vellum.credentialEndpoint,
    authorizationFlow: vellum.authorizationFlow,
    identityProvider,
    providerFailures,
    sessionTokens,
    issuedCredentials: vellum.issuedCredentials,
    deferredCredentialEndpoint: vellum.deferredCredentialEndpoint,
    deferredIssuances: vellum.deferredIssuances,
    webhooks: vellum.webhooks,
    refreshTokens: vellum.refreshTokens,
    secretBox,
    hasher,
    authenticationProviders: vellum.authenticationProviders,
    openIdSettings: vellum.openIdSettings,
    claimSources: vellum.claimSources,
    verifierApplications: vellum.verifierApplications,
    signingKeys: vellum.signingKeys,
    signerRotation: vellum.signerRotation,
  };
}

let requests = 0;
/** A request context for `tenant` whose caller has `role` (or no token when role is null). */
export function contextFor(tenant: Tenant, role: Role | null = 'admin'): RequestContext {
  requests += 1;
  return {
    tenant,
    origin: `https://${tenant.subdomain}.${tenant.region}.${PLATFORM}`,
    requestId: `req-${requests}`,
    ip: '192.0.2.1',
    ...(role ? { requestor: { clientId: `client-${role}`, role, permissions: new Set(ROLE_PERMISSIONS[role]) } } : {}),
  };
}

/** The harness with the tenant acme (eu01) and a context in which its caller has `role` (admin unless given). */
export async function withTenant(role: Role | null = 'admin') {
  const h = harness();
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  return { ...h, tenant, ctx: contextFor(tenant, role) };
}

/**
 * The harness with two tenants, acme (eu01) and other (us01), and acme's admin context; `loggingLevel`
 * is the level that context carries (docs/decisions.md "Analytic events"), the tenant's own unless given.
 */
export async function withTenants(loggingLevel?: Tenant['loggingLevel'], options: { rateLimits?: RateLimitSettings } = {}) {
  const h = harness(options);
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  const { tenant: other } = await h.tenants.createTenant({ subdomain: 'other', region: 'us01' });
  return { ...h, tenant, other, ctx: contextFor(loggingLevel === undefined ? tenant : { ...tenant, loggingLevel }) };
}

/**
 * A second server over the store, clock, DNS, keys and nonce codec of `h`: its own use cases and
 * caches, as another process sharing the database has them. `over` replaces any of its dependencies.
 */
export function secondServer(h: ReturnType<typeof harness>, over: Partial<VellumDeps> = {}) {
  return createVellum({
    store: h.store,
    clock: h.clock,
    ids: { uuid: () => crypto.randomUUID(), token: () => 'x', bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) },
    hasher: { hash: async (s) => s, verify: async () => false },
    tokens: { sign: async () => '', verify: async () => undefined },
    dns: h.dns,
    keys: h.keys,
    ...fakeFormatSigners(h.keys),
    x509: fakeX509Authority(h.keys),
    platformDomain: PLATFORM,
    publicUrl: 'http://localhost:3000',
    adminTokenTtlSeconds: 60,
    digests: fakeDigests(),
    walletTokens: fakeWalletTokens(h.clock),
    proofVerifier: fakeProofVerifier(),
    jwtProofs: fakeJwtProofVerifier(),
    credentialEncryption: fakeCredentialEncryption(),
    nonceCodec: h.nonceCodec,
    secretBox: fakeSecretBox(),
    identityProvider: fakeIdentityProvider(),
    sessionTokens: fakeSessionTokens(h.clock),
    ...over,
  });
}
