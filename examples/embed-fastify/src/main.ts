// A host Fastify app that embeds Vellum: it mounts `vellumPlugin` under /vc beside routes of its
// own, keeps everything in memory, and issues mDLs (mso_mdoc) with the Pre-authorized Code flow.
// Run it with `node examples/embed-fastify/src/main.ts`; README.md beside this file says more.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVellum, ROLE_PERMISSIONS, type RequestContext, type Tenant, type Vellum } from '@vellum/core';
import {
  createJwtProofVerifier,
  createKeyManager,
  createProofVerifier,
  createScryptHasher,
  createSealer,
  createSecretBox,
  createSessionTokens,
  createWalletTokens,
  createX509Authority,
  loadCredentialEncryption,
  loadDigests,
  loadNonceCodec,
  loadPlatformTokenSigner,
} from '@vellum/crypto';
import { vellumPlugin } from '@vellum/fastify';
import { createFormatSigners } from '@vellum/formats';
import { createDnsResolver, createHttpClient, createIdentityProvider, createNodeIds, systemClock } from '@vellum/node';
import { createMemoryStore } from '@vellum/storage-memory';
import Fastify from 'fastify';

/** Where the host mounts Vellum: the issuer identifier and every OpenID4VCI URL carry it. */
export const PREFIX = '/vc';
export const DOC_TYPE = 'org.iso.18013.5.1.mDL';
export const NAMESPACE = 'org.iso.18013.5.1';

/** Every Vellum use case over the in-memory store and the Node adapters (apps/server/src/runtime.ts is the full wiring). */
async function buildVellum(publicUrl: string): Promise<Vellum> {
  const store = createMemoryStore({ warn: console.warn });
  const clock = systemClock;
  const ids = createNodeIds();
  // The key that seals every private key at rest. Nothing outlives this process here; a real
  // host keeps one master key and a database (@vellum/storage-sql) instead.
  const sealer = createSealer(randomBytes(32));
  const keys = createKeyManager({ keys: store.keys, sealer, ids, clock });
  const platformSecrets = { keys: store.platformKeys, sealer, clock };
  const http = createHttpClient();
  return createVellum({
    store,
    clock,
    ids,
    keys,
    // Single-tenant: every host name reaches the tenant `shop`, whose issuer is `publicUrl` + PREFIX.
    defaultTenant: 'shop',
    publicUrl,
    platformDomain: 'tenants.invalid',
    hasher: createScryptHasher(),
    tokens: await loadPlatformTokenSigner(platformSecrets),
    adminTokenTtlSeconds: 600,
    x509: createX509Authority({ keys }),
    ...createFormatSigners({ keys }),
    digests: await loadDigests(platformSecrets),
    walletTokens: createWalletTokens({ signingKeys: store.tenantSigningKeys, keys, clock, ids }),
    proofVerifier: createProofVerifier(),
    jwtProofs: createJwtProofVerifier(),
    credentialEncryption: await loadCredentialEncryption(platformSecrets),
    nonceCodec: await loadNonceCodec({ ...platformSecrets, ids }),
    secretBox: createSecretBox(sealer),
    sessionTokens: createSessionTokens(),
    identityProvider: createIdentityProvider({ http, clock }),
    http,
    dns: createDnsResolver(),
  });
}

/**
 * The tenant's one-time setup, through the core use cases rather than the admin API: an IACA
 * (the root of the mDoc's certificate chain) made active, and an mDL configuration.
 */
async function setUpIssuer(vellum: Vellum, publicUrl: string) {
  const { tenant } = await vellum.tenants.createTenant({ subdomain: 'shop', region: 'eu01', name: 'Example Shop' });
  const ctx = hostContext(tenant, publicUrl);
  const iaca = await vellum.iacas.create(ctx, { country: 'US' });
  await vellum.iacas.update(ctx, iaca.id, { active: true });
  const configuration = await vellum.credentialConfigurations.create(ctx, 'mso_mdoc', {
    type: DOC_TYPE,
    expiresIn: { days: 365 },
    claimMappings: {
      [NAMESPACE]: {
        family_name: { mapFrom: 'claims.familyName', required: true },
        given_name: { mapFrom: 'claims.givenName', required: true },
        birth_date: { mapFrom: 'claims.birthDate', type: 'date', required: true },
        issuing_country: { defaultValue: 'US' },
      },
    },
  });
  return { tenant, configurationId: configuration.id };
}

/** The host calls the core as the tenant's administrator: it is trusted code, with no token to check. */
function hostContext(tenant: Tenant, origin: string): RequestContext {
  return {
    tenant,
    origin,
    requestor: { clientId: 'example-host', role: 'admin', permissions: new Set(ROLE_PERMISSIONS.admin) },
    requestId: randomUUID(),
    ip: '127.0.0.1',
  };
}

/** A running host: its base URL, and `close`. */
export interface Host {
  url: string;
  close(): Promise<void>;
}

/** Starts the host on `port` (0: any free one) of `host`. */
export async function startHost({ port = 3000, host = '127.0.0.1' } = {}): Promise<Host> {
  // Vellum's issuer identifier is the URL wallets reach it at, so the server listens first and
  // Vellum is built on the address it got (port 0 picks a free port). A host with a fixed public
  // URL would pass that instead.
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;

  const vellum = await buildVellum(url);
  const { tenant, configurationId } = await setUpIssuer(vellum, url);

  const app = Fastify({ serverFactory: (handler) => server.on('request', handler) });
  // The host's own route: its signed-in customer (a fixed one here) asks for an mDL, and gets the
  // credential offer to open in a wallet. Vellum's offer URLs name the prefix it is mounted under.
  app.post('/account/mdl-offer', async () => {
    const offer = await vellum.offers.createPreAuthorizedOffer(
      hostContext(tenant, url),
      { credentials: [configurationId], claims: { familyName: 'Turner', givenName: 'Susan', birthDate: '1990-05-15' } },
      PREFIX,
    );
    return { offerUri: offer.uri };
  });
  await app.register(vellumPlugin, { services: vellum, prefix: PREFIX });
  await app.ready();
  // Analytic events wait in memory until the host writes them to the store, as the server does.
  const flusher = setInterval(() => void vellum.recorder.flush(), 1000);
  flusher.unref();

  return {
    url,
    async close() {
      clearInterval(flusher);
      await app.close();
      await vellum.recorder.flush();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (import.meta.main) {
  const host = await startHost({ port: Number(process.env.PORT ?? 3000) });
  console.log(`Host app on ${host.url}; Vellum under ${host.url}${PREFIX}`);
  console.log(`An offer:   curl -X POST ${host.url}/account/mdl-offer`);
  console.log(`Metadata:   curl ${host.url}${PREFIX}/.well-known/openid-credential-issuer`);
  process.once('SIGINT', () => void host.close());
}
