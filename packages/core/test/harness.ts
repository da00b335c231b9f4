// Wiring for the core's unit tests: real use cases over the in-memory store and fakes.
import { createMemoryStore } from '@vellum/storage-memory';
import { fakeClock, fakeDns, fakeHasher, fakeIds, fakeTokenSigner } from '@vellum/testing';
import {
  createAddressing,
  createAdminAuth,
  createAnalyticsService,
  createCustomDomainService,
  createEventRecorder,
  createTenantAdmin,
  ROLE_PERMISSIONS,
  type RequestContext,
  type Role,
  type Tenant,
} from '../src/index.ts';

export const PLATFORM = 'vellum.test';

export function harness() {
  const store = createMemoryStore();
  const clock = fakeClock('2026-05-01T12:00:00.000Z');
  const ids = fakeIds();
  const hasher = fakeHasher();
  const tokens = fakeTokenSigner(clock);
  const dns = fakeDns();
  const addressing = createAddressing(store, { platformDomain: PLATFORM, publicUrl: 'http://localhost:3000', defaultTenant: 'demo' });
  const recorder = createEventRecorder({ events: store.events, clock, ids });
  return {
    store,
    clock,
    dns,
    recorder,
    addressing,
    tenants: createTenantAdmin({ store, clock, ids, hasher }),
    auth: createAdminAuth({ store, hasher, tokens, addressing, tokenTtlSeconds: 3600 }),
    domains: createCustomDomainService({ store, clock, ids, dns, events: recorder, platformDomain: PLATFORM }),
    analytics: createAnalyticsService({ store, events: recorder }),
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
