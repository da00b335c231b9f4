import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { DEFAULT_RATE_LIMITS, KEY_CUSTODIES, type KeyCustody, type RateLimitSettings } from '@vellum/core';
import { LOG_FORMATS, type LogFormat } from './logger.ts';

/** Every setting of the server, read from the environment (each is in the README). */
export interface ServerConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  masterKey: string | undefined;
  platformDomain: string;
  defaultTenant: string | undefined;
  publicUrl: string;
  authUrl: string;
  trustProxy: boolean;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  dnsServers: string | undefined;
  outboundAllowPrivate: boolean;
  /** VELLUM_DPOP_NONCE_REQUIRED: DPoP proofs must carry a nonce the server handed out (RFC 9449 §8). */
  dpopNonceRequired: boolean;
  logLevel: string;
  /** VELLUM_LOG_FORMAT: `auto` (pretty on a terminal, JSON otherwise), `json` or `pretty`. */
  logFormat: LogFormat;
  adminTokenTtl: number;
  eventFlushIntervalMs: number;
  /** At most this many analytic events wait in memory for the database; past it new ones are dropped and counted. */
  eventQueueMax: number;
  /** PEM file of extra CAs trusted for outbound https (webhook receivers), besides the system's. */
  outboundCaFile: string | undefined;
  /** docs/decisions.md "Webhooks": the first retry's backoff; it doubles after each failure. */
  webhookRetryBaseDelayMs: number;
  /** How often an idle delivery worker looks for due deliveries. */
  webhookPollIntervalMs: number;
  /** How long a claimed delivery is one server's before another may send it (a server that died mid-send). */
  webhookLeaseMs: number;
  /** How many processes `serve` runs (VELLUM_WORKERS): 1 is one process; more are cluster workers under a primary. */
  workers: number;
  /** SQLite only: `normal` syncs the WAL at checkpoints, `full` at every commit. */
  sqliteSynchronous: 'normal' | 'full';
  /** SQLite only: transactions of one event-loop turn share one commit (VELLUM_SQLITE_GROUP_COMMIT, default on). */
  sqliteGroupCommit: boolean;
  /** How long a tenant, custom domain, configuration or key row read from the store is reused (0: never). */
  readCacheTtlMs: number;
  /** How many certificate path verdicts the verifiers keep per process (VELLUM_CERTIFICATE_PATH_CACHE, default 1000; 0: none). */
  certificatePathCache: number;
  /** How long a client has to send a whole request, headers and body (VELLUM_REQUEST_TIMEOUT_MS); past it, 408. */
  requestTimeoutMs: number;
  /** How long a client has to send a request's headers (VELLUM_HEADERS_TIMEOUT_MS); at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open (VELLUM_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs: number;
  /** On SIGTERM, how long requests in flight may take before their connections are closed (VELLUM_SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
  /** Failed admin token requests per client id and per IP, wrong transaction codes per IP, per window (0: off; docs/limits.md). */
  rateLimits: RateLimitSettings;
  /** VELLUM_METRICS_PORT: the port of the separate listener that serves GET /metrics (docs/metrics.md); unset, metrics are off. */
  metricsPort: number | undefined;
  /** VELLUM_METRICS_HOST: the address the metrics listener binds (default VELLUM_HOST). */
  metricsHost: string;
  /** VELLUM_RETENTION_INTERVAL_MS: how often the retention job runs (docs/retention.md); 0 turns it off. */
  retentionIntervalMs: number;
  /** VELLUM_KEY_CUSTODY: where tenants' new keys are made, `software` (default) or `pkcs11` (docs/key-custody.md). */
  keyCustody: KeyCustody;
  /** The PKCS#11 token (VELLUM_PKCS11_*), when one is configured. */
  pkcs11: Pkcs11Config | undefined;
  /**
   * VELLUM_KEY_WRAPPING: how new software keys are sealed (docs/key-custody.md "Envelope encryption"):
   * `off` (default) directly under the master key; `master` or `pkcs11`, under per-tenant data keys
   * wrapped by the master key or by an AES key in the PKCS#11 token.
   */
  keyWrapping: KeyWrapping;
  /** VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE: the PEM of the RSA recovery key every data key is also encrypted to. */
  keyRecoveryPublicKey: string | undefined;
}

export const KEY_WRAPPINGS = ['off', 'master', 'pkcs11'] as const;
export type KeyWrapping = (typeof KEY_WRAPPINGS)[number];

/** VELLUM_PKCS11_*: the token that holds keys in `pkcs11` custody (docs/key-custody.md). */
export interface Pkcs11Config {
  /** VELLUM_PKCS11_MODULE: the token's PKCS#11 library. */
  module: string;
  /** VELLUM_PKCS11_TOKEN_LABEL. */
  tokenLabel: string | undefined;
  /** VELLUM_PKCS11_SLOT, when the token is named by its slot id instead. */
  slot: number | undefined;
  /** From VELLUM_PKCS11_PIN or the file VELLUM_PKCS11_PIN_FILE names; never logged. */
  pin: string;
  /** VELLUM_PKCS11_SESSIONS: sessions each process keeps open for signing (default 4). */
  sessions: number;
  /** VELLUM_PKCS11_THREAD_POOL: sign on libuv's thread pool (default true) or on the event loop. */
  threadPool: boolean;
  /** VELLUM_PKCS11_WRAPPING_KEY: the label of the token's AES key that wraps data keys (default `vellum-wrapping-key`). */
  wrappingKeyLabel: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function read(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}; got "${raw}"`);
  return n;
}

function oneOf<const T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}; got "${raw}"`);
  return raw as T;
}

function flag(env: Env, name: string): boolean {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new ConfigError(`${name} must be true or false; got "${raw}"`);
}

function origin(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL; got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${name} must use http or https; got "${raw}"`);
  if (url.pathname !== '/' || url.search || url.hash) throw new ConfigError(`${name} must be an origin without a path; got "${raw}"`);
  return url.origin;
}

/** VELLUM_PKCS11_*: all or nothing; the PIN from the environment or a file, not both. */
function pkcs11(env: Env, cwd: string): Pkcs11Config | undefined {
  const module = read(env, 'VELLUM_PKCS11_MODULE');
  const named = [
    'VELLUM_PKCS11_TOKEN_LABEL',
    'VELLUM_PKCS11_SLOT',
    'VELLUM_PKCS11_PIN',
    'VELLUM_PKCS11_PIN_FILE',
    'VELLUM_PKCS11_SESSIONS',
    'VELLUM_PKCS11_THREAD_POOL',
    'VELLUM_PKCS11_WRAPPING_KEY',
  ].filter((name) => read(env, name) !== undefined);
  if (module === undefined) {
    if (named.length > 0) throw new ConfigError(`${named[0]} is set but VELLUM_PKCS11_MODULE is not: name the token's PKCS#11 library`);
    return undefined;
  }
  const tokenLabel = read(env, 'VELLUM_PKCS11_TOKEN_LABEL');
  const slotRaw = read(env, 'VELLUM_PKCS11_SLOT');
  if ((tokenLabel === undefined) === (slotRaw === undefined)) {
    throw new ConfigError('Set one of VELLUM_PKCS11_TOKEN_LABEL and VELLUM_PKCS11_SLOT to name the token');
  }
  if (slotRaw !== undefined && !/^\d+$/.test(slotRaw)) throw new ConfigError(`VELLUM_PKCS11_SLOT must be a slot id (a whole number); got "${slotRaw}"`);
  const pinRaw = read(env, 'VELLUM_PKCS11_PIN');
  const pinFile = read(env, 'VELLUM_PKCS11_PIN_FILE');
  if ((pinRaw === undefined) === (pinFile === undefined)) throw new ConfigError('Set one of VELLUM_PKCS11_PIN and VELLUM_PKCS11_PIN_FILE');
  let pin = pinRaw;
  if (pinFile !== undefined) {
    const file = isAbsolute(pinFile) ? pinFile : resolve(cwd, pinFile);
    try {
      // The file's one line; a trailing newline is not part of the PIN.
      pin = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch {
      throw new ConfigError(`VELLUM_PKCS11_PIN_FILE: cannot read ${file}`);
    }
    if (pin === '') throw new ConfigError(`VELLUM_PKCS11_PIN_FILE: ${file} is empty`);
  }
  return {
    module: isAbsolute(module) ? module : resolve(cwd, module),
    tokenLabel,
    slot: slotRaw === undefined ? undefined : Number(slotRaw),
    pin: pin as string,
    sessions: integer(env, 'VELLUM_PKCS11_SESSIONS', 4, 1, 256),
    threadPool: read(env, 'VELLUM_PKCS11_THREAD_POOL') === undefined ? true : flag(env, 'VELLUM_PKCS11_THREAD_POOL'),
    wrappingKeyLabel: read(env, 'VELLUM_PKCS11_WRAPPING_KEY') ?? 'vellum-wrapping-key',
  };
}

/** VELLUM_OUTBOUND_CA_FILE: a readable PEM file with at least one certificate. */
function outboundCaFile(env: Env, cwd: string): string | undefined {
  const raw = read(env, 'VELLUM_OUTBOUND_CA_FILE');
  if (raw === undefined) return undefined;
  const file = isAbsolute(raw) ? raw : resolve(cwd, raw);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new ConfigError(`VELLUM_OUTBOUND_CA_FILE must name a readable PEM file; cannot read "${raw}"`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`VELLUM_OUTBOUND_CA_FILE must hold PEM certificates; "${raw}" has none`);
  return file;
}

/** Most workers VELLUM_WORKERS may ask for: far beyond any machine's cores, it only catches typos. */
const MAX_WORKERS = 256;

/** VELLUM_WORKERS: a whole number from 1, or `auto` for one per core the process may use. */
function workers(env: Env, cores: () => number): number {
  const raw = read(env, 'VELLUM_WORKERS');
  if (raw === undefined) return 1;
  if (raw.toLowerCase() === 'auto') return Math.max(1, Math.min(MAX_WORKERS, cores()));
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_WORKERS) {
    throw new ConfigError(`VELLUM_WORKERS must be auto or a whole number from 1 to ${MAX_WORKERS}; got "${raw}"`);
  }
  return Number(raw);
}

/** Most VELLUM_RETENTION_INTERVAL_MS may be: a week. */
const MAX_RETENTION_INTERVAL_MS = 604_800_000;

/** VELLUM_RETENTION_INTERVAL_MS: 0 (off) or from a second to a week; default an hour. */
function retentionInterval(env: Env): number {
  const ms = integer(env, 'VELLUM_RETENTION_INTERVAL_MS', 3_600_000, 0, MAX_RETENTION_INTERVAL_MS);
  if (ms !== 0 && ms < 1000) {
    throw new ConfigError(`VELLUM_RETENTION_INTERVAL_MS must be 0 (off) or a whole number from 1000 to ${MAX_RETENTION_INTERVAL_MS}; got "${ms}"`);
  }
  return ms;
}

/** VELLUM_METRICS_PORT: unset (metrics off) or a port other than the API's. */
function metricsPort(env: Env, apiPort: number): number | undefined {
  if (read(env, 'VELLUM_METRICS_PORT') === undefined) return undefined;
  const port = integer(env, 'VELLUM_METRICS_PORT', 0, 1, 65535);
  if (port === apiPort) throw new ConfigError(`VELLUM_METRICS_PORT must differ from VELLUM_PORT (${apiPort}): metrics have a listener of their own`);
  return port;
}

/** Reads and checks the configuration; a bad value throws a ConfigError that names the variable. */
export function loadConfig(env: Env = process.env, cwd = process.cwd(), cores: () => number = availableParallelism): ServerConfig {
  const port = integer(env, 'VELLUM_PORT', 3000, 0, 65535);
  const host = read(env, 'VELLUM_HOST') ?? '127.0.0.1';
  const dataDirRaw = read(env, 'VELLUM_DATA_DIR') ?? './data';
  const databaseUrl = read(env, 'DATABASE_URL');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite database)');
  }
  const platformDomain = (read(env, 'VELLUM_PLATFORM_DOMAIN') ?? 'vellum.localhost').toLowerCase();
  if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(platformDomain)) {
    throw new ConfigError(`VELLUM_PLATFORM_DOMAIN must be a domain name; got "${platformDomain}"`);
  }
  // Unset means the demo tenant; an explicit empty value turns single-tenant mode off.
  const defaultTenant = env.VELLUM_DEFAULT_TENANT === undefined ? 'demo' : read(env, 'VELLUM_DEFAULT_TENANT');
  if (defaultTenant !== undefined && !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(defaultTenant)) {
    throw new ConfigError(`VELLUM_DEFAULT_TENANT must be a tenant subdomain (a-z, 0-9, hyphens); got "${defaultTenant}"`);
  }
  const tlsCertFile = read(env, 'VELLUM_TLS_CERT_FILE');
  const tlsKeyFile = read(env, 'VELLUM_TLS_KEY_FILE');
  if ((tlsCertFile === undefined) !== (tlsKeyFile === undefined)) {
    throw new ConfigError('VELLUM_TLS_CERT_FILE and VELLUM_TLS_KEY_FILE must be set together');
  }
  const scheme = tlsCertFile ? 'https' : 'http';
  const publicUrl = origin('VELLUM_PUBLIC_URL', read(env, 'VELLUM_PUBLIC_URL') ?? `${scheme}://localhost:${port}`);
  const authUrl = origin('VELLUM_AUTH_URL', read(env, 'VELLUM_AUTH_URL') ?? publicUrl);
  const requestTimeoutMs = integer(env, 'VELLUM_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000);
  const headersTimeoutMs = integer(env, 'VELLUM_HEADERS_TIMEOUT_MS', Math.min(10_000, requestTimeoutMs), 100, 3_600_000);
  // Node refuses a headers timeout longer than the request timeout.
  if (headersTimeoutMs > requestTimeoutMs)
    throw new ConfigError(`VELLUM_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed VELLUM_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  const logLevel = read(env, 'VELLUM_LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`VELLUM_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevel}"`);
  return {
    port,
    host,
    dataDir: isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw),
    databaseUrl,
    masterKey: read(env, 'VELLUM_MASTER_KEY'),
    platformDomain,
    defaultTenant,
    publicUrl,
    authUrl,
    trustProxy: flag(env, 'VELLUM_TRUST_PROXY'),
    tlsCertFile,
    tlsKeyFile,
    dnsServers: read(env, 'VELLUM_DNS_SERVERS'),
    outboundAllowPrivate: flag(env, 'VELLUM_OUTBOUND_ALLOW_PRIVATE'),
    dpopNonceRequired: flag(env, 'VELLUM_DPOP_NONCE_REQUIRED'),
    logLevel,
    logFormat: oneOf(env, 'VELLUM_LOG_FORMAT', LOG_FORMATS, 'auto'),
    adminTokenTtl: integer(env, 'VELLUM_ADMIN_TOKEN_TTL', 3600, 60, 86_400),
    eventFlushIntervalMs: integer(env, 'VELLUM_EVENT_FLUSH_INTERVAL_MS', 250, 10, 600_000),
    eventQueueMax: integer(env, 'VELLUM_EVENT_QUEUE_MAX', 10_000, 100, 10_000_000),
    outboundCaFile: outboundCaFile(env, cwd),
    webhookRetryBaseDelayMs: integer(env, 'VELLUM_WEBHOOK_RETRY_BASE_DELAY_MS', 10_000, 1, 3_600_000),
    webhookPollIntervalMs: integer(env, 'VELLUM_WEBHOOK_POLL_INTERVAL_MS', 500, 10, 60_000),
    // At least the 3 s send timeout plus time to sign and record, so a live sender keeps its lease.
    webhookLeaseMs: integer(env, 'VELLUM_WEBHOOK_LEASE_MS', 30_000, 5_000, 3_600_000),
    workers: workers(env, cores),
    sqliteSynchronous: oneOf(env, 'VELLUM_SQLITE_SYNCHRONOUS', ['normal', 'full'] as const, 'normal'),
    sqliteGroupCommit: read(env, 'VELLUM_SQLITE_GROUP_COMMIT') === undefined ? true : flag(env, 'VELLUM_SQLITE_GROUP_COMMIT'),
    readCacheTtlMs: integer(env, 'VELLUM_READ_CACHE_TTL_MS', 1000, 0, 60_000),
    certificatePathCache: integer(env, 'VELLUM_CERTIFICATE_PATH_CACHE', 1000, 0, 1_000_000),
    requestTimeoutMs,
    headersTimeoutMs,
    // Longer than the idle timeout of common load balancers (60 s), as Fastify's default, so that
    // they never reuse a connection the server is closing.
    keepAliveTimeoutMs: integer(env, 'VELLUM_KEEP_ALIVE_TIMEOUT_MS', 72_000, 1_000, 3_600_000),
    shutdownTimeoutMs: integer(env, 'VELLUM_SHUTDOWN_TIMEOUT_MS', 10_000, 100, 3_600_000),
    rateLimits: {
      adminTokenPerClient: integer(env, 'VELLUM_RATE_LIMIT_ADMIN_TOKEN_PER_CLIENT', DEFAULT_RATE_LIMITS.adminTokenPerClient, 0, 1_000_000),
      adminTokenPerIp: integer(env, 'VELLUM_RATE_LIMIT_ADMIN_TOKEN_PER_IP', DEFAULT_RATE_LIMITS.adminTokenPerIp, 0, 1_000_000),
      txCodePerIp: integer(env, 'VELLUM_RATE_LIMIT_TX_CODE_PER_IP', DEFAULT_RATE_LIMITS.txCodePerIp, 0, 1_000_000),
      parPerClientIp: integer(env, 'VELLUM_RATE_LIMIT_PAR_PER_CLIENT_IP', DEFAULT_RATE_LIMITS.parPerClientIp, 0, 1_000_000),
      windowSeconds: integer(env, 'VELLUM_RATE_LIMIT_WINDOW', DEFAULT_RATE_LIMITS.windowSeconds, 1, 86_400),
    },
    metricsPort: metricsPort(env, port),
    metricsHost: read(env, 'VELLUM_METRICS_HOST') ?? host,
    retentionIntervalMs: retentionInterval(env),
    ...keyCustody(env, cwd),
  };
}

function keyCustody(env: Env, cwd: string): Pick<ServerConfig, 'keyCustody' | 'pkcs11' | 'keyWrapping' | 'keyRecoveryPublicKey'> {
  const token = pkcs11(env, cwd);
  const custody = oneOf(env, 'VELLUM_KEY_CUSTODY', KEY_CUSTODIES, 'software');
  if (custody === 'pkcs11' && !token) throw new ConfigError('VELLUM_KEY_CUSTODY=pkcs11 needs a token: set VELLUM_PKCS11_MODULE and the settings beside it');
  const wrapping = oneOf(env, 'VELLUM_KEY_WRAPPING', KEY_WRAPPINGS, 'off');
  if (wrapping === 'pkcs11' && !token) throw new ConfigError('VELLUM_KEY_WRAPPING=pkcs11 needs a token: set VELLUM_PKCS11_MODULE and the settings beside it');
  const recoveryFile = read(env, 'VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE');
  if (recoveryFile !== undefined && wrapping === 'off') {
    throw new ConfigError('VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE needs VELLUM_KEY_WRAPPING (master or pkcs11): the recovery key covers data keys');
  }
  let recovery: string | undefined;
  if (recoveryFile !== undefined) {
    const file = isAbsolute(recoveryFile) ? recoveryFile : resolve(cwd, recoveryFile);
    try {
      recovery = readFileSync(file, 'utf8');
    } catch {
      throw new ConfigError(`VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE: cannot read ${file}`);
    }
    if (!recovery.includes('-----BEGIN PUBLIC KEY-----')) throw new ConfigError(`VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE: ${file} holds no PEM public key`);
  }
  return { keyCustody: custody, pkcs11: token, keyWrapping: wrapping, keyRecoveryPublicKey: recovery };
}
