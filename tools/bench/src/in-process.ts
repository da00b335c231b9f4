// Vellum wired in process over real adapters (keys, X.509, every format's signer) on a given store,
// with the sign-in adapters faked: what the in-process benchmarks and the credential samples use.
// Beside it, what those benchmarks set up alike: the stores they run on, a tenant with its
// KeyManager (and a did:key, or a raw mDoc document signer), or one made through the use cases.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVellum, type DidKey, type KeyAlgorithm, type RequestContext, ROLE_PERMISSIONS, type Store, type Tenant, type Vellum } from '@vellum/core';
import {
  createDocumentSignerCertificate,
  createIacaCertificate,
  createKeyManager,
  createJwtProofVerifier,
  createProofVerifier,
  createScryptHasher,
  createSealer,
  createSecretBox,
  createWalletTokens,
  createX509Authority,
  loadCredentialEncryption,
  loadDigests,
  loadNonceCodec,
  loadPlatformTokenSigner,
  managedSigningKey,
} from '@vellum/crypto';
import { createFormatSigners, type MdocValue } from '@vellum/formats';
import { createDnsResolver, createNodeIds, systemClock } from '@vellum/node';
import { createMemoryStore } from '@vellum/storage-memory';
import { openSqlStore } from '@vellum/storage-sql';
import { addDidKey, fakeIdentityProvider, fakeSessionTokens } from '@vellum/testing/fakes';

export async function inProcessVellum(
  store: Store,
  options: { publicUrl?: string; mdocSignerCacheMs?: number } = {},
): Promise<{ vellum: Vellum; keys: ReturnType<typeof createKeyManager> }> {
  const sealer = createSealer(new Uint8Array(32).fill(1));
  const ids = createNodeIds();
  const keys = createKeyManager({ keys: store.keys, sealer, ids, clock: systemClock });
  const vellum = createVellum({
    store,
    clock: systemClock,
    ids,
    hasher: createScryptHasher({ N: 1024 }),
    tokens: await loadPlatformTokenSigner({ keys: store.platformKeys, sealer, clock: systemClock }),
    dns: createDnsResolver({}),
    keys,
    x509: createX509Authority({ keys }),
    ...createFormatSigners({ keys }),
    digests: await loadDigests({ keys: store.platformKeys, sealer, clock: systemClock }),
    walletTokens: createWalletTokens({ signingKeys: store.tenantSigningKeys, keys, clock: systemClock }),
    proofVerifier: createProofVerifier(),
    jwtProofs: createJwtProofVerifier(),
    credentialEncryption: await loadCredentialEncryption({ keys: store.platformKeys, sealer, clock: systemClock }),
    nonceCodec: await loadNonceCodec({ keys: store.platformKeys, sealer, clock: systemClock }),
    ...(options.mdocSignerCacheMs !== undefined ? { mdocSignerCacheMs: options.mdocSignerCacheMs } : {}),
    // Not used in process: sign-in belongs to the Authorization Code flow.
    identityProvider: fakeIdentityProvider(),
    sessionTokens: fakeSessionTokens(systemClock),
    // Real: offers' claims are sealed with it on the issuance path (docs/decisions.md "Claims at rest").
    secretBox: createSecretBox(sealer),
    platformDomain: 'vellum.bench',
    publicUrl: options.publicUrl ?? 'http://localhost:3000',
    adminTokenTtlSeconds: 600,
  });
  return { vellum, keys };
}

export type StoreKind = 'sqlite' | 'memory';

/**
 * Runs `body` once per kind in `kinds` and per variant, each time on a fresh store that is closed
 * right after: SQLite (the server's default) in a temporary directory removed at the end, or memory.
 */
export async function eachStore<V = undefined>(
  tag: string,
  kinds: readonly StoreKind[],
  body: (store: Store, kind: StoreKind, variant: V) => Promise<void>,
  variants: readonly V[] = [undefined as V],
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `vellum-bench-${tag}-`));
  try {
    for (const kind of kinds) {
      for (const variant of variants) {
        const store = kind === 'sqlite' ? await openSqlStore({ kind: 'sqlite', filename: join(dir, `bench-${Date.now()}.db`) }) : createMemoryStore();
        try {
          await body(store, kind, variant);
        } finally {
          await store.close();
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const benchSubdomain = () => `bench${Math.random().toString(36).slice(2, 8)}`;

/** A KeyManager on `store` and a tenant written straight to it, for the benchmarks that skip the use cases. */
export async function benchTenant(store: Store): Promise<{ keys: ReturnType<typeof createKeyManager>; tenant: Tenant }> {
  const keys = createKeyManager({ keys: store.keys, sealer: createSealer(new Uint8Array(32).fill(1)), ids: createNodeIds(), clock: systemClock });
  // Not @vellum/testing's makeTenant: that package loads vitest, which refuses to run outside it.
  const tenant: Tenant = {
    id: crypto.randomUUID(),
    subdomain: benchSubdomain(),
    region: 'eu01',
    name: 'Bench',
    loggingLevel: 1,
    createdAt: new Date().toISOString(),
  };
  await store.tenants.insert(tenant);
  return { keys, tenant };
}

/** A bench tenant with one did:key over a KeyManager key, stored as the DID service stores one. */
export async function tenantWithDidKey(store: Store, algorithm: KeyAlgorithm) {
  const { keys, tenant } = await benchTenant(store);
  const record = await addDidKey(store, keys, tenant.id, algorithm);
  return { keys, tenant, did: record.did, didKey: record.keys[0] as DidKey };
}

const DAY = 86_400_000;

/**
 * An mDoc signer for the engine alone (issueMdoc): a KeyManager-held document signer key and its
 * chain under a fresh IACA, without the use cases.
 */
export async function rawMdocSigner(keys: ReturnType<typeof createKeyManager>, tenantId: string) {
  const now = Date.now();
  const iacaKey = managedSigningKey(keys, await keys.create(tenantId, 'P-256'));
  // What both certificates say of their issuer, as an IACA and the signers it certifies agree.
  const issuer = { country: 'US', issuerAlternativeName: 'https://issuer.example.com', crlDistributionPointUri: 'https://issuer.example.com/crl' };
  const iaca = await createIacaCertificate({
    ...issuer,
    key: iacaKey,
    commonName: 'Bench IACA',
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 3650 * DAY),
  });
  const signerKey = await keys.create(tenantId, 'P-256');
  const ds = await createDocumentSignerCertificate({
    iaca: { certificateDer: iaca.der, key: iacaKey },
    ...issuer,
    subjectPublicJwk: signerKey.publicJwk,
    commonName: 'Bench Document Signer',
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 365 * DAY),
  });
  return { sign: (data: Uint8Array) => keys.sign(tenantId, signerKey.id, data), x5chain: [ds.der] };
}

/** The ten mDL claims the engine-level mDoc benchmarks issue, so that they speak of the same credential. */
export const MDL_CLAIMS: Record<string, MdocValue> = {
  family_name: { type: 'string', value: 'Turner' },
  given_name: { type: 'string', value: 'Susan' },
  birth_date: { type: 'date', value: '1990-05-15' },
  issue_date: { type: 'date', value: '2026-01-10' },
  expiry_date: { type: 'date', value: '2031-01-10' },
  issuing_country: { type: 'string', value: 'US' },
  issuing_authority: { type: 'string', value: 'Bench DMV' },
  document_number: { type: 'string', value: 'DL-1234-5678' },
  age_over_18: { type: 'boolean', value: true },
  height: { type: 'number', value: 172 },
};

/** An admin's request context on `tenant`, as the admin API would build it. */
export function adminContext(tenant: Tenant, origin: string, name: string): RequestContext {
  return {
    tenant,
    origin,
    requestId: name,
    ip: '127.0.0.1',
    requestor: { clientId: name, role: 'admin', permissions: new Set(ROLE_PERMISSIONS.admin) },
  };
}

/** In-process Vellum on `store` with a tenant, an admin's context on it and an active managed IACA, all through the use cases. */
export async function tenantWithIaca(store: Store, options: Parameters<typeof inProcessVellum>[1] = {}) {
  const { vellum, keys } = await inProcessVellum(store, options);
  const { tenant } = await vellum.tenants.createTenant({ subdomain: benchSubdomain(), region: 'eu01', name: 'Bench' });
  const ctx = adminContext(tenant, `https://${tenant.subdomain}.eu01.vellum.bench`, 'bench');
  const iaca = await vellum.iacas.create(ctx, { country: 'US' });
  await vellum.iacas.update(ctx, iaca.id, { active: true });
  return { vellum, keys, tenant, ctx, iacaId: iaca.id };
}
