import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import {
  createRetentionJob,
  createVellum,
  createWebhookOutbox,
  custodyOfTenant,
  type RetentionJob,
  routeKeysByCustody,
  type Store,
  type TenantAdmin,
  type Vellum,
  WALLET_TOKEN_KEY_REFRESH_SECONDS,
} from '@vellum/core';
import {
  createEnvelopeSealer,
  createKeyManager,
  createKeyResealer,
  createMasterKeyWrapper,
  createRecoveryKey,
  createScryptHasher,
  createSealer,
  createSecretBox,
  createSessionTokens,
  createX509Authority,
  type EnvelopeSealer,
  loadPlatformTokenSigner,
  parseMasterKey,
  type ResealReport,
  type RewrapReport,
  rotatePlatformTokenKey,
} from '@vellum/crypto';
import { createWalletTokens, loadDigests } from '@vellum/crypto';
import {
  cacheCertificatePaths,
  createCertificateChainValidator,
  createJwtProofVerifier,
  createPresentationCrypto,
  createProofVerifier,
  loadCredentialEncryption,
  loadNonceCodec,
} from '@vellum/crypto';
import { createFormatSigners, createLinkedDataProofVerifier, createMdocReader } from '@vellum/formats';
import { createDnsResolver, createNodeIds, parseDnsServers, systemClock } from '@vellum/node';
import { createSqlStore, openSqlStore, type StatementCounter, type SqlStoreOptions } from '@vellum/storage-sql';
import {
  createPkcs11KeyManager,
  createPkcs11KeyWrapper,
  createPkcs11PlatformKeyHolder,
  findPkcs11KeyWrapper,
  openPkcs11Token,
  type Pkcs11Token,
  pkcs11KeyWrapperLabel,
} from '@vellum/pkcs11';
import { cacheReads } from '@vellum/store-cache';
import type { Logger } from 'pino';
import type { ServerConfig } from './config.ts';
import { createWebhookDeliveryWorker, type WebhookDeliveryWorker } from '@vellum/core';
import { createHttpClient, createIdentityProvider, createInflater } from '@vellum/node';
import { createMetrics, type VellumMetrics } from '@vellum/fastify';
import { countIssuedCredentials, countWebhookDeliveries, timeStore } from './metrics.ts';

/** Everything the server and the CLI share: storage, keys and the use cases built on them. */
export interface Runtime {
  store: Store;
  vellum: Vellum;
  /** Sends due webhook deliveries; `serve` runs it in a loop (webhook-worker.ts). */
  webhookDelivery: WebhookDeliveryWorker;
  /** Deletes what is past its life (docs/retention.md); `serve` runs it every VELLUM_RETENTION_INTERVAL_MS (retention-loop.ts). */
  retention: RetentionJob;
  /** The Prometheus metrics when VELLUM_METRICS_PORT is set (docs/metrics.md); undefined when they are off. */
  metrics?: VellumMetrics;
  /** Envelope encryption's upkeep (docs/key-custody.md "Envelope encryption"): the `vellum keys` commands. */
  keyWrapping: KeyWrappingUpkeep;
  /**
   * `vellum keys rotate-admin-token`: a new platform key signs admin tokens; the old one verifies
   * those it signed for `overlapSeconds` (default a day; at least the tokens' lifetime and a refresh).
   */
  rotateAdminTokenKey(
    overlapSeconds?: number,
  ): Promise<{ role: 'admin-token'; rotatedAt: string; active: string[]; retired: Array<{ id: string; until: string }> }>;
  close(): Promise<void>;
}

/** What `vellum keys wrapping|rewrap|recover` do, on the runtime's store and wrapping keys. */
export interface KeyWrappingUpkeep {
  /** VELLUM_KEY_WRAPPING, and the wrapping key (and recovery key) new data keys get. */
  status(): Promise<{
    wrapping: ServerConfig['keyWrapping'];
    wrappingKeyId: string;
    recoveryKeyId?: string;
    dataKeys: Array<{ wrappingKeyId: string; recoveryKeyId?: string; count: number }>;
  }>;
  /** One pass of re-wrapping data keys not under the current wrapping (and recovery) key. */
  rewrap(limit: number): Promise<RewrapReport>;
  /** One pass of sealing keys still sealed under the master key alone under their tenant's data key (refused with VELLUM_KEY_WRAPPING=off). */
  reseal(limit: number): Promise<ResealReport>;
  /** One pass of recovering data keys whose wrapping key is lost, from their copies under the recovery key. */
  recover(recoveryPrivateKeyPem: string, limit: number): Promise<RewrapReport>;
}

/** How a runtime opens its database. */
export interface OpenRuntimeOptions {
  /** Bring the schema up to date first (default true). Cluster workers pass false: their primary migrated. */
  migrate?: boolean;
  /** Told each slow step of opening as it begins, for the command line's progress lines (cli-progress.ts). */
  onStep?: (step: OpeningStep) => void;
  /** Counts what the store runs on the database (the flow's store budget, flow-budget.sql.test.ts); unset, nothing is counted. */
  statementCounter?: StatementCounter;
  /**
   * Log the warning that a development master key is in use (default true). The server's process
   * says it once; the CLI commands and cluster workers pass false, so that it is not repeated for
   * every command an operator types or every worker a primary forks (docs/decisions.md "First run").
   */
  warnDevelopmentKey?: boolean;
}

/** A slow step of opening a runtime: the migrations, or writing a first development master key. */
export type OpeningStep = { step: 'migrate' } | { step: 'generate-master-key'; file: string };

/** Opens the configured database (SQLite in the data directory, or PostgreSQL) and migrates it unless told not to. */
export async function openStore(config: ServerConfig, options: OpenRuntimeOptions = {}): Promise<Store> {
  if (options.migrate !== false) options.onStep?.({ step: 'migrate' });
  const counting = options.statementCounter ? { statementCounter: options.statementCounter } : {};
  const open = (o: SqlStoreOptions) => (options.migrate === false ? Promise.resolve(createSqlStore(o)) : openSqlStore(o));
  if (config.databaseUrl) return open({ kind: 'postgres', connectionString: config.databaseUrl, ...counting });
  mkdirSync(config.dataDir, { recursive: true });
  return open({
    kind: 'sqlite',
    filename: join(config.dataDir, 'vellum.db'),
    synchronous: config.sqliteSynchronous,
    groupCommit: config.sqliteGroupCommit,
    ...counting,
  });
}

/**
 * The key that encrypts private keys at rest: VELLUM_MASTER_KEY, or for development one generated
 * once and kept beside the SQLite file, with a warning to `logger` (when given) that production must set it.
 */
export function masterKey(config: ServerConfig, logger: Logger | undefined, onStep?: OpenRuntimeOptions['onStep']): Uint8Array {
  if (config.masterKey) return parseMasterKey(config.masterKey);
  if (config.databaseUrl) {
    throw new Error('VELLUM_MASTER_KEY must be set when DATABASE_URL is: servers sharing a database must share the key');
  }
  const file = join(config.dataDir, 'master.key');
  if (!existsSync(file)) {
    onStep?.({ step: 'generate-master-key', file });
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  logger?.warn({ file }, 'VELLUM_MASTER_KEY is not set: using a development key kept in the data directory. Set it in production.');
  return parseMasterKey(readFileSync(file, 'utf8').trim());
}

/** Builds the runtime from configuration. A wrong master key fails here, at start. */
export async function openRuntime(config: ServerConfig, logger: Logger, options: OpenRuntimeOptions = {}): Promise<Runtime> {
  // Off unless VELLUM_METRICS_PORT is set: then nothing on the request path pays for them.
  const metrics = config.metricsPort === undefined ? undefined : createMetrics();
  // Tenants, custom domains, configurations and key rows are read on nearly every request: each
  // process reuses them for VELLUM_READ_CACHE_TTL_MS (its own writes show at once). Store calls are
  // timed under the cache, so that what is timed is what reached the database.
  const opened = await openStore(config, options);
  const store = cacheReads(metrics ? timeStore(opened, metrics) : opened, { ttlMs: config.readCacheTtlMs });
  let token: Pkcs11Token | undefined;
  try {
    const clock = systemClock;
    const ids = createNodeIds();
    const hasher = createScryptHasher();
    const master = masterKey(config, options.warnDevelopmentKey === false ? undefined : logger, options.onStep);
    const sealer = createSealer(master, { random: ids.bytes });
    // With a PKCS#11 token (docs/key-custody.md), keys in `pkcs11` custody are made and used in it;
    // VELLUM_KEY_CUSTODY says where new keys go. Without one, the software KeyManager alone, as before.
    token = config.pkcs11
      ? openPkcs11Token({
          module: config.pkcs11.module,
          tokenLabel: config.pkcs11.tokenLabel,
          slot: config.pkcs11.slot,
          pin: config.pkcs11.pin,
          sessions: config.pkcs11.sessions,
          threadPool: config.pkcs11.threadPool,
        })
      : undefined;
    // The admin-token key: in the token with VELLUM_KEY_CUSTODY=pkcs11 (docs/key-custody.md "The platform's
    // keys"), else sealed under the master key; a key made in the token is used there whatever the setting.
    // A master key that cannot open the stored record stops the start here.
    const platformHolder = token ? createPkcs11PlatformKeyHolder(token) : undefined;
    const tokens = await loadPlatformTokenSigner({
      keys: store.platformKeys,
      sealer,
      clock,
      issuer: config.authUrl,
      ...(platformHolder ? { holder: platformHolder, newKeysInHolder: config.keyCustody === 'pkcs11' } : {}),
    });
    // Tenants' software keys are sealed under the master key (`v1`), or with VELLUM_KEY_WRAPPING under
    // per-tenant data keys wrapped by the master key or the token's AES key (docs/key-custody.md
    // "Envelope encryption"). Keys sealed either way are read whatever the setting is now.
    const envelope = await openEnvelope(config, store, master, token, { ids, clock });
    const software = createKeyManager({ keys: store.keys, sealer, envelope, sealUnderDataKeys: config.keyWrapping !== 'off', ids, clock });
    // Each tenant's new keys go where it chose (`/v1/config/key-custody`), else where the platform says.
    const keyCustody = { available: token ? (['software', 'pkcs11'] as const) : (['software'] as const), platformDefault: config.keyCustody };
    const keys = routeKeysByCustody({
      keys: store.keys,
      managers: { software, ...(token ? { pkcs11: createPkcs11KeyManager({ token, keys: store.keys, ids, clock }) } : {}) },
      custodyFor: async (tenantId) => {
        const tenant = await store.tenants.findById(tenantId);
        return tenant ? custodyOfTenant(tenant, keyCustody) : keyCustody.platformDefault;
      },
    });
    // Outbound HTTP for webhooks, claim sources and identity providers (docs/limits.md "Outbound calls"): the SSRF guard,
    // and TLS always checked, against the system's CAs plus VELLUM_OUTBOUND_CA_FILE when set.
    const http = createHttpClient({
      allowPrivate: config.outboundAllowPrivate,
      ...(config.outboundCaFile ? { extraCaPem: readFileSync(config.outboundCaFile, 'utf8') } : {}),
    });
    const inflater = createInflater();
    const vellum = createVellum({
      store,
      clock,
      ids,
      hasher,
      tokens,
      keys,
      x509: createX509Authority({ keys }),
      // The credential and status list signers of every format (@vellum/formats).
      ...createFormatSigners({ keys }),
      // The transaction code MAC key, sealed alike (docs/decisions.md "Transaction codes at rest").
      digests: await loadDigests({ keys: store.platformKeys, sealer, clock }),
      walletTokens: createWalletTokens({ signingKeys: store.tenantSigningKeys, keys, clock, ids }),
      proofVerifier: createProofVerifier(),
      // DPoP proofs, client and key attestations (RFC 9449; docs/dpop-and-attestation.md).
      jwtProofs: createJwtProofVerifier(),
      dpopNonceRequired: config.dpopNonceRequired,
      // Its seed is sealed under the master key too: a key that cannot open it stops the start here.
      credentialEncryption: await loadCredentialEncryption({ keys: store.platformKeys, sealer, clock }),
      // The c_nonce MAC key, sealed alike: every server sharing the database opens the others' nonces.
      nonceCodec: await loadNonceCodec({ keys: store.platformKeys, sealer, clock, ids }),
      // Secrets Vellum must read again (identity provider and claim source secrets, the hook's key), under the master key.
      secretBox: createSecretBox(sealer),
      sessionTokens: createSessionTokens(),
      identityProvider: createIdentityProvider({ http, clock }),
      // The wallet hears only temporarily_unavailable; the operator reads why here (no secret in it).
      onProviderFailure: (report) => logger.warn(report, 'a tenant’s identity provider failed'),
      http,
      // Wallet providers' Token Status Lists are zlib streams (docs/dpop-and-attestation.md "Trusted wallet providers");
      // RevocationList2020's encodedList is GZIP (the ldp_vc verifier).
      inflater,
      gunzip: inflater,
      // The verify API's mDoc verifier (docs/verification.md): CBOR and COSE read, chains to the tenant's trusted IACAs.
      mdocReader: createMdocReader(),
      // Each (chain, IACA) path is checked once per process, its dates on every call (docs/decisions.md
      // "Verification cost and its benchmark (issue 31)"); VELLUM_CERTIFICATE_PATH_CACHE=0 checks it every time.
      certificateChains:
        config.certificatePathCache > 0
          ? cacheCertificatePaths(createCertificateChainValidator(), { maxEntries: config.certificatePathCache })
          : createCertificateChainValidator(),
      // The verify API's ldp_vc verifier: Linked Data proofs over the bundled contexts (nothing fetched).
      linkedDataProofs: createLinkedDataProofVerifier(),
      // Presentation sessions' direct_post.jwt keys and the mDoc handover (docs/verification.md "Presentation sessions").
      presentationCrypto: createPresentationCrypto(),
      dns: createDnsResolver(config.dnsServers ? { servers: parseDnsServers(config.dnsServers) } : {}),
      platformDomain: config.platformDomain,
      publicUrl: config.publicUrl,
      ...(config.defaultTenant ? { defaultTenant: config.defaultTenant } : {}),
      adminTokenTtlSeconds: config.adminTokenTtl,
      rateLimits: config.rateLimits,
      keyCustody,
      // Both at most once a minute (the recorder's own limit), so a stuck store cannot fill the log.
      onEventWriteError: (err) => logger.error({ err }, 'could not write analytic events; retrying them one by one'),
      onEventLoss: (losses) =>
        logger.warn(
          { analyticEvents: losses },
          `analytic events lost so far: ${losses.droppedQueueFull + losses.droppedUnwritable} dropped, ${losses.truncated} truncated`,
        ),
      eventQueueMax: config.eventQueueMax,
      // The webhook outbox, as by default; with metrics, issued credentials are counted on the way.
      ...(metrics ? { domainEvents: countIssuedCredentials(createWebhookOutbox({ clock, ids }), metrics) } : {}),
    });
    metrics?.watchEventQueue(vellum.recorder);
    const webhookDelivery = createWebhookDeliveryWorker({
      store: metrics ? countWebhookDeliveries(store, metrics) : store,
      keys,
      signingKeys: vellum.webhookSigningKeys,
      http,
      clock,
      ids,
      retryBaseDelayMs: config.webhookRetryBaseDelayMs,
      leaseMs: config.webhookLeaseMs,
      sha256: (data) => createHash('sha256').update(data).digest(),
    });
    const retention = createRetentionJob({
      store,
      clock,
      // Unique per process: each cluster worker and each server is its own runner.
      holder: `${hostname()}/${process.pid}/${randomUUID()}`,
      holdAfterRunMs: config.retentionIntervalMs,
      ...(metrics ? { onPurged: (kind, count) => metrics.retentionPurged(kind, count) } : {}),
    });
    return {
      store,
      vellum,
      webhookDelivery,
      retention,
      ...(metrics ? { metrics } : {}),
      keyWrapping: keyWrappingUpkeep(config, store, sealer, envelope),
      async rotateAdminTokenKey(overlapSeconds) {
        const minimum = config.adminTokenTtl + WALLET_TOKEN_KEY_REFRESH_SECONDS;
        if (overlapSeconds !== undefined && overlapSeconds < minimum) {
          throw new Error(
            `The overlap must be at least ${minimum} seconds: an admin token lives ${config.adminTokenTtl}, and a server may sign with the old key ${WALLET_TOKEN_KEY_REFRESH_SECONDS} more`,
          );
        }
        const now = clock.now();
        const until = new Date(now.getTime() + (overlapSeconds ?? Math.max(86_400, minimum)) * 1000);
        const rotated = await rotatePlatformTokenKey({
          keys: store.platformKeys,
          sealer,
          clock,
          previousUntil: until,
          ...(platformHolder && config.keyCustody === 'pkcs11' ? { holder: platformHolder } : {}),
        });
        return {
          role: 'admin-token',
          rotatedAt: now.toISOString(),
          active: [rotated.activeKid],
          retired: [{ id: rotated.retiredKid, until: rotated.retiredUntil }],
        };
      },
      async close() {
        http.close();
        await vellum.recorder.flush();
        await store.close();
        await token?.close();
      },
    };
  } catch (error) {
    await store.close();
    await token?.close();
    throw error;
  }
}

/** The envelope sealer on the configured wrapping keys: the current one, the master key, and any label in the token. */
async function openEnvelope(
  config: ServerConfig,
  store: Store,
  master: Uint8Array,
  token: Pkcs11Token | undefined,
  { ids, clock }: { ids: ReturnType<typeof createNodeIds>; clock: typeof systemClock },
): Promise<EnvelopeSealer> {
  const masterWrapper = createMasterKeyWrapper(master, { random: ids.bytes });
  // The token's wrapping key is made on the first start that names it, and never leaves the token.
  const current =
    config.keyWrapping === 'pkcs11' && token && config.pkcs11 ? await createPkcs11KeyWrapper({ token, label: config.pkcs11.wrappingKeyLabel }) : masterWrapper;
  return createEnvelopeSealer({
    dataKeys: store.dataKeys,
    wrapping: {
      current,
      // Older wrapping keys stay usable for reading while any data key is under them: the master key
      // always, and any AES key of the token by its label.
      find: (id) => {
        if (id === current.id) return current;
        if (id === masterWrapper.id) return masterWrapper;
        return token && pkcs11KeyWrapperLabel(id) !== undefined ? findPkcs11KeyWrapper(token, id) : undefined;
      },
    },
    ...(config.keyRecoveryPublicKey ? { recovery: createRecoveryKey(config.keyRecoveryPublicKey) } : {}),
    ids,
    clock,
    random: ids.bytes,
  });
}

function keyWrappingUpkeep(config: ServerConfig, store: Store, sealer: ReturnType<typeof createSealer>, envelope: EnvelopeSealer): KeyWrappingUpkeep {
  const reseal = createKeyResealer({ keys: store.keys, sealer, envelope });
  const recoveryKeyId = config.keyRecoveryPublicKey ? createRecoveryKey(config.keyRecoveryPublicKey).id : undefined;
  return {
    async status() {
      return {
        wrapping: config.keyWrapping,
        wrappingKeyId: envelope.wrappingKeyId,
        ...(recoveryKeyId ? { recoveryKeyId } : {}),
        dataKeys: await store.dataKeys.countByWrapping(),
      };
    },
    rewrap: (limit) => envelope.rewrap(limit),
    async reseal(limit) {
      if (config.keyWrapping === 'off')
        throw new Error('VELLUM_KEY_WRAPPING is off: keys stay sealed under the master key (docs/key-custody.md "Envelope encryption")');
      return reseal(limit);
    },
    recover: (pem, limit) => envelope.recover(pem, limit),
  };
}

/** What an operator needs to call a tenant's API: printed by `tenants create` and the first start. */
export async function tenantCredentials(runtime: Runtime, config: ServerConfig, created: Awaited<ReturnType<TenantAdmin['createTenant']>>) {
  const tenantUrl = await runtime.vellum.addressing.publicOrigin(created.tenant);
  return {
    tenantId: created.tenant.id,
    tenantUrl,
    authUrl: config.authUrl,
    audience: tenantUrl,
    clientId: created.client.clientId,
    clientSecret: created.clientSecret,
  };
}
