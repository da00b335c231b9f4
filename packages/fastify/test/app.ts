// Builds the plugin over real adapters (memory store, scrypt, ES256 tokens, the node DNS resolver
// pointed at a loopback DNS server) for HTTP tests through app.inject().
import {
  type KeyCustodyOptions,
  createVellum,
  type HttpClient,
  type FormatVerifiers,
  type Inflater,
  type KeyManager,
  type RateLimitSettings,
  type Role,
  type Store,
  type WalletProviderTrust,
} from '@vellum/core';
import { createKeyManager, createScryptHasher, createSealer, createX509Authority, loadPlatformTokenSigner } from '@vellum/crypto';
import { createSecretBox, loadDigests, createSessionTokens, createWalletTokens } from '@vellum/crypto';
import { createJwtProofVerifier, createPresentationCrypto, createProofVerifier, loadCredentialEncryption, loadNonceCodec } from '@vellum/crypto';
import { createDnsResolver, createNodeIds, systemClock } from '@vellum/node';
import { createMemoryStore } from '@vellum/storage-memory';
import { fakeFormatSigners, fakeIdentityProvider, type FakeIdentityProvider, startDnsServer } from '@vellum/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import { vellumPlugin, type VellumServices } from '../src/index.ts';

export const PLATFORM = 'vellum.test';

export interface TestApp {
  app: FastifyInstance;
  /** The services the plugin was given, to mount it again in another host. */
  services: VellumServices;
  /** The KeyManager behind the app, to check what happens to keys. */
  keys: KeyManager;
  /** The store behind the app, to set up what only issuance would write. */
  store: Store;
  /** The identity provider tenants' sign-ins go to (a fake: the real adapter is tested in @vellum/node). */
  identityProvider: FakeIdentityProvider;
  /** The tenants' trust in wallet providers (the port the token and credential endpoints ask). */
  walletProviderTrust: WalletProviderTrust;
  /** Path prefix the plugin is mounted under ('' when standalone). */
  prefix: string;
  zone: Record<string, string[] | 'servfail'>;
  hostOf(subdomain: string): string;
  createTenant(subdomain: string): Promise<{ tenantId: string; clientId: string; clientSecret: string; host: string }>;
  token(subdomain: string, role?: Role): Promise<string>;
  close(): Promise<void>;
}

/** What a test app may be built with besides the defaults. */
export interface TestAppOptions {
  /** The limits the app applies (none unless given). */
  rateLimits?: RateLimitSettings;
  /** Whether DPoP proofs must carry a server nonce (RFC 9449 §8; VELLUM_DPOP_NONCE_REQUIRED). */
  dpopNonceRequired?: boolean;
  /** Outbound HTTP (claim sources, trusted lists and status lists); none unless given. */
  http?: HttpClient;
  /** zlib for wallet providers' status lists; none unless given. */
  inflater?: Inflater;
  /** Format verifiers for the verify API (none unless given). */
  formatVerifiers?: FormatVerifiers;
  /** False: composed without the presentation crypto port, so presentation sessions answer 503. */
  presentationCrypto?: false;
  /** The key custodies the app offers tenants (software only unless given). */
  keyCustody?: KeyCustodyOptions;
}

export async function buildTestApp(mount: 'standalone' | 'prefixed', options: TestAppOptions = {}): Promise<TestApp> {
  const store = createMemoryStore();
  const clock = systemClock;
  const ids = createNodeIds();
  const sealer = createSealer(new Uint8Array(32).fill(7));
  const tokens = await loadPlatformTokenSigner({ keys: store.platformKeys, sealer, clock });
  const dnsServer = await startDnsServer({});
  const keys = createKeyManager({ keys: store.keys, sealer, ids, clock });
  const identityProvider = fakeIdentityProvider();
  const services = createVellum({
    ...(options.keyCustody ? { keyCustody: options.keyCustody } : {}),
    store,
    clock,
    ids,
    tokens,
    keys,
    identityProvider,
    sessionTokens: createSessionTokens(),
    secretBox: createSecretBox(sealer),
    hasher: createScryptHasher({ N: 1024 }),
    dns: createDnsResolver({ servers: [dnsServer.address], timeoutMs: 500, tries: 1 }),
    // Real X.509 (the HTTP tests read the certificates and CRLs); mDocs themselves are issued in core and interop tests.
    x509: createX509Authority({ keys }),
    // Real keys, fake formats: the credentials themselves are proven against others' verifiers in tools/interop.
    ...fakeFormatSigners(keys),
    digests: await loadDigests({ keys: store.platformKeys, sealer, clock }),
    walletTokens: createWalletTokens({ signingKeys: store.tenantSigningKeys, keys, clock }),
    proofVerifier: createProofVerifier(),
    jwtProofs: createJwtProofVerifier(),
    credentialEncryption: await loadCredentialEncryption({ keys: store.platformKeys, sealer, clock }),
    nonceCodec: await loadNonceCodec({ keys: store.platformKeys, sealer, clock }),
    platformDomain: PLATFORM,
    publicUrl: 'http://localhost:3000',
    adminTokenTtlSeconds: 600,
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    ...(options.dpopNonceRequired ? { dpopNonceRequired: true } : {}),
    ...(options.http ? { http: options.http } : {}),
    ...(options.inflater ? { inflater: options.inflater } : {}),
    ...(options.formatVerifiers ? { formatVerifiers: options.formatVerifiers } : {}),
    ...(options.presentationCrypto === false ? {} : { presentationCrypto: createPresentationCrypto() }),
  });
  const { tenants } = services;

  const app = Fastify();
  const prefix = mount === 'prefixed' ? '/issuance' : '';
  if (mount === 'prefixed') {
    // A host app with routes and error handling of its own, that mounts Vellum under a prefix.
    app.get('/host-route', async () => ({ host: true }));
    await app.register(vellumPlugin, { services, prefix });
  } else {
    await app.register(vellumPlugin, { services });
  }
  await app.ready();

  const hostOf = (s: string) => `${s}.eu01.${PLATFORM}`;
  const created = new Map<string, string>();
  return {
    app,
    services,
    keys,
    store,
    identityProvider,
    walletProviderTrust: services.walletProviderTrust,
    prefix,
    zone: dnsServer.zone,
    hostOf,
    async createTenant(subdomain) {
      const t = await tenants.createTenant({ subdomain, region: 'eu01' });
      created.set(subdomain, t.tenant.id);
      return { tenantId: t.tenant.id, clientId: t.client.clientId, clientSecret: t.clientSecret, host: hostOf(subdomain) };
    },
    async token(subdomain, role = 'admin') {
      const c = await tenants.createClient({ subdomain, role });
      const res = await app.inject({
        method: 'POST',
        url: `${prefix}/oauth/token`,
        payload: { grant_type: 'client_credentials', client_id: c.client.clientId, client_secret: c.clientSecret, audience: `https://${hostOf(subdomain)}` },
      });
      if (res.statusCode !== 200) throw new Error(`token request failed: ${res.body}`);
      return (res.json() as { access_token: string }).access_token;
    },
    async close() {
      await app.close();
      await dnsServer.close();
    },
  };
}

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * The TestApp the tests of one describe block share: built before the first (its fields are there
 * when the block's own beforeAll hooks run, which come after this one) and closed after the last.
 */
export function useTestApp(mount: 'standalone' | 'prefixed', options: TestAppOptions = {}): TestApp {
  const t = {} as TestApp;
  beforeAll(async () => {
    Object.assign(t, await buildTestApp(mount, options));
  });
  afterAll(async () => t.close?.());
  return t;
}

/** A request to the API, under the app's prefix. */
function inject(t: TestApp, method: Method, path: string, headers: Record<string, string>, payload: unknown) {
  return t.app.inject({ method, url: `${t.prefix}${path}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
}

/** Calls the API on `host` with a bearer token: `token` unless the call names another. */
export function bearerCaller(t: TestApp, host: string, token: string) {
  return (method: Method, path: string, payload?: unknown, as = token) => inject(t, method, path, { host, authorization: `Bearer ${as}` }, payload);
}

/**
 * Calls the API on a tenant's host: each call carries a token of `role` (`defaultRole`, admin
 * unless told; made once per role and reused), or none when `role` is null.
 */
export function tenantCaller(t: TestApp, subdomain: string, host: string, defaultRole: Role = 'admin') {
  const tokens = new Map<string, string>();
  return async (method: Method, path: string, payload?: unknown, role: Role | null = defaultRole) => {
    const headers: Record<string, string> = { host };
    if (role) {
      if (!tokens.has(role)) tokens.set(role, await t.token(subdomain, role));
      headers.authorization = `Bearer ${tokens.get(role)}`;
    }
    return inject(t, method, path, headers, payload);
  };
}

/**
 * Makes fresh tenants `${prefix}1`, `${prefix}2`, …, so each test sees only its own data, each with
 * a caller whose calls carry a token of `role` unless told otherwise (tenantCaller).
 */
export function freshTenants(t: TestApp, prefix: string) {
  let count = 0;
  return async (role: Role = 'admin') => {
    const name = `${prefix}${(count += 1)}`;
    const created = await t.createTenant(name);
    return { ...created, name, call: tenantCaller(t, name, created.host, role) };
  };
}

/** A tenant freshTenants made, with its caller. */
export type FreshTenant = Awaited<ReturnType<ReturnType<typeof freshTenants>>>;

/**
 * A collection at `path` under the issuance-setup permission, `id` naming one of tenant `a`'s items:
 * roles without it are refused (403) the list and each call of `refused`, issuers read the item, no
 * token is 401; tenant `b` neither finds nor deletes the item and lists none, and an id that is not a
 * UUID is a 400 naming it.
 */
export async function expectIssuanceSetupCollection(
  a: FreshTenant,
  b: FreshTenant,
  path: string,
  id: string,
  refused: ReadonlyArray<readonly [Method, string, unknown?]>,
): Promise<void> {
  for (const role of ['verifier', 'auditor', 'dts-provider'] as const) {
    expect((await a.call('GET', path, undefined, role)).statusCode, role).toBe(403);
    for (const [method, url, payload] of refused) expect((await a.call(method, url, payload, role)).statusCode, `${role} ${method} ${url}`).toBe(403);
  }
  for (const role of ['issuer', 'managed-issuer'] as const) expect((await a.call('GET', `${path}/${id}`, undefined, role)).statusCode, role).toBe(200);
  expect((await a.call('GET', path, undefined, null)).statusCode).toBe(401);

  expect((await b.call('GET', `${path}/${id}`)).statusCode).toBe(404);
  expect((await b.call('DELETE', `${path}/${id}`)).statusCode).toBe(404);
  expect((await b.call('GET', path)).json()).toEqual({ data: [] });
  const bad = await a.call('GET', `${path}/not-a-uuid`);
  expect(bad.statusCode).toBe(400);
  expect(bad.json()).toMatchObject({ details: [{ param: 'id', location: 'params' }] });
}
