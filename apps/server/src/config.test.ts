import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('VELLUM_WORKERS', () => {
  const workers = (value: string | undefined, cores = 8) => loadConfig(value === undefined ? {} : { VELLUM_WORKERS: value }, '/srv', () => cores).workers;

  it('defaults to 1: one process, no cluster', () => {
    expect(workers(undefined)).toBe(1);
    expect(workers('')).toBe(1);
  });

  it('takes a whole number, and auto is one per core the process may use', () => {
    expect(workers('1')).toBe(1);
    expect(workers('4')).toBe(4);
    expect(workers(' 3 ')).toBe(3);
    expect(workers('auto', 6)).toBe(6);
    expect(workers('AUTO', 2)).toBe(2);
    expect(workers('auto', 0)).toBe(1);
  });

  it.each(['0', '-2', '1.5', 'two', '1e3', '257', '0x2'])('refuses %j with an error that names the variable', (value) => {
    expect(() => workers(value)).toThrow(ConfigError);
    expect(() => workers(value)).toThrow(/VELLUM_WORKERS must be auto or a whole number from 1 to 256/);
  });
});

describe('VELLUM_SQLITE_SYNCHRONOUS, VELLUM_SQLITE_GROUP_COMMIT and VELLUM_READ_CACHE_TTL_MS', () => {
  const config = (env: Record<string, string>) => loadConfig(env, '/srv');

  it('default to normal, grouped commits and one second', () => {
    expect(config({}).sqliteSynchronous).toBe('normal');
    expect(config({}).sqliteGroupCommit).toBe(true);
    expect(config({}).readCacheTtlMs).toBe(1000);
  });

  it('turn group commit off with false or 0', () => {
    expect(config({ VELLUM_SQLITE_GROUP_COMMIT: 'false' }).sqliteGroupCommit).toBe(false);
    expect(config({ VELLUM_SQLITE_GROUP_COMMIT: '0' }).sqliteGroupCommit).toBe(false);
    expect(config({ VELLUM_SQLITE_GROUP_COMMIT: 'TRUE' }).sqliteGroupCommit).toBe(true);
  });

  it('take full, any case, and a time to live from 0 (no cache) to a minute', () => {
    expect(config({ VELLUM_SQLITE_SYNCHRONOUS: 'FULL' }).sqliteSynchronous).toBe('full');
    expect(config({ VELLUM_READ_CACHE_TTL_MS: '0' }).readCacheTtlMs).toBe(0);
    expect(config({ VELLUM_READ_CACHE_TTL_MS: '60000' }).readCacheTtlMs).toBe(60_000);
  });

  it('keep 1000 certificate path verdicts by default, 0 for none, and refuse a negative count', () => {
    expect(config({}).certificatePathCache).toBe(1000);
    expect(config({ VELLUM_CERTIFICATE_PATH_CACHE: '0' }).certificatePathCache).toBe(0);
    expect(() => config({ VELLUM_CERTIFICATE_PATH_CACHE: '-1' })).toThrow();
  });

  it.each([
    [{ VELLUM_SQLITE_SYNCHRONOUS: 'off' }, /VELLUM_SQLITE_SYNCHRONOUS must be one of normal, full/],
    [{ VELLUM_SQLITE_GROUP_COMMIT: 'sometimes' }, /VELLUM_SQLITE_GROUP_COMMIT must be true or false/],
    [{ VELLUM_READ_CACHE_TTL_MS: '60001' }, /VELLUM_READ_CACHE_TTL_MS must be a whole number from 0 to 60000/],
    [{ VELLUM_READ_CACHE_TTL_MS: '-1' }, /VELLUM_READ_CACHE_TTL_MS/],
  ])('refuses %j', (env, message) => {
    expect(() => config(env)).toThrow(ConfigError);
    expect(() => config(env)).toThrow(message);
  });
});

describe('VELLUM_RATE_LIMIT_* (hardening issue 5, docs/limits.md)', () => {
  const config = (env: Record<string, string>) => loadConfig(env, '/srv').rateLimits;

  it('default to 10 failed admin token requests per client id, 30 per IP, 30 wrong transaction codes per IP, 60 pushed requests per wallet client and IP, in 300 s windows', () => {
    expect(config({})).toEqual({ adminTokenPerClient: 10, adminTokenPerIp: 30, txCodePerIp: 30, parPerClientIp: 60, windowSeconds: 300 });
  });

  it('take 0 to turn a limit off, and a window from 1 s to a day', () => {
    expect(
      config({
        VELLUM_RATE_LIMIT_ADMIN_TOKEN_PER_CLIENT: '0',
        VELLUM_RATE_LIMIT_ADMIN_TOKEN_PER_IP: '5',
        VELLUM_RATE_LIMIT_TX_CODE_PER_IP: '0',
        VELLUM_RATE_LIMIT_PAR_PER_CLIENT_IP: '7',
        VELLUM_RATE_LIMIT_WINDOW: '60',
      }),
    ).toEqual({
      adminTokenPerClient: 0,
      adminTokenPerIp: 5,
      txCodePerIp: 0,
      parPerClientIp: 7,
      windowSeconds: 60,
    });
  });

  it.each([
    [{ VELLUM_RATE_LIMIT_ADMIN_TOKEN_PER_IP: 'ten' }, /VELLUM_RATE_LIMIT_ADMIN_TOKEN_PER_IP must be a whole number/],
    [{ VELLUM_RATE_LIMIT_TX_CODE_PER_IP: '-1' }, /VELLUM_RATE_LIMIT_TX_CODE_PER_IP/],
    [{ VELLUM_RATE_LIMIT_PAR_PER_CLIENT_IP: '1.5' }, /VELLUM_RATE_LIMIT_PAR_PER_CLIENT_IP must be a whole number/],
    [{ VELLUM_RATE_LIMIT_WINDOW: '0' }, /VELLUM_RATE_LIMIT_WINDOW must be a whole number from 1 to 86400/],
  ])('refuses %j', (env, message) => {
    expect(() => config(env)).toThrow(ConfigError);
    expect(() => config(env)).toThrow(message);
  });
});

describe('VELLUM_EVENT_QUEUE_MAX (hardening issue 2, docs/limits.md "Analytic events")', () => {
  const queueMax = (env: Record<string, string>) => loadConfig(env, '/srv').eventQueueMax;

  it('defaults to 10,000 waiting events and takes 100 to 10,000,000', () => {
    expect(queueMax({})).toBe(10_000);
    expect(queueMax({ VELLUM_EVENT_QUEUE_MAX: '500' })).toBe(500);
    for (const value of ['0', '99', 'lots']) expect(() => queueMax({ VELLUM_EVENT_QUEUE_MAX: value })).toThrow(ConfigError);
  });
});

describe('VELLUM_DPOP_NONCE_REQUIRED', () => {
  const required = (env: Record<string, string>) => loadConfig(env, '/srv').dpopNonceRequired;

  it('is off by default and turned on with true', () => {
    expect(required({})).toBe(false);
    expect(required({ VELLUM_DPOP_NONCE_REQUIRED: 'false' })).toBe(false);
    expect(required({ VELLUM_DPOP_NONCE_REQUIRED: 'true' })).toBe(true);
  });
});

describe('VELLUM_METRICS_PORT and VELLUM_METRICS_HOST (docs/metrics.md)', () => {
  const config = (env: Record<string, string>) => loadConfig(env, '/srv');

  it('are off by default: no metrics listener, and its address follows VELLUM_HOST', () => {
    expect(config({}).metricsPort).toBeUndefined();
    expect(config({}).metricsHost).toBe('127.0.0.1');
    expect(config({ VELLUM_HOST: '0.0.0.0' }).metricsHost).toBe('0.0.0.0');
  });

  it('take a port of its own and an address of its own', () => {
    expect(config({ VELLUM_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(config({ VELLUM_METRICS_PORT: '9464', VELLUM_HOST: '0.0.0.0', VELLUM_METRICS_HOST: '127.0.0.1' }).metricsHost).toBe('127.0.0.1');
  });

  it.each([
    [{ VELLUM_METRICS_PORT: '0' }, /VELLUM_METRICS_PORT must be a whole number from 1 to 65535/],
    [{ VELLUM_METRICS_PORT: '65536' }, /VELLUM_METRICS_PORT must be a whole number from 1 to 65535/],
    [{ VELLUM_METRICS_PORT: 'metrics' }, /VELLUM_METRICS_PORT/],
    [{ VELLUM_METRICS_PORT: '3000' }, /VELLUM_METRICS_PORT must differ from VELLUM_PORT \(3000\)/],
    [{ VELLUM_METRICS_PORT: '8080', VELLUM_PORT: '8080' }, /VELLUM_METRICS_PORT must differ from VELLUM_PORT \(8080\)/],
  ])('refuses %j', (env, message) => {
    expect(() => config(env)).toThrow(ConfigError);
    expect(() => config(env)).toThrow(message);
  });
});

describe('VELLUM_RETENTION_INTERVAL_MS (docs/retention.md)', () => {
  const config = (env: Record<string, string>) => loadConfig(env);

  it('defaults to an hour, takes 0 to turn the job off, and refuses less than a second or more than a week', () => {
    expect(config({}).retentionIntervalMs).toBe(3_600_000);
    expect(config({ VELLUM_RETENTION_INTERVAL_MS: '0' }).retentionIntervalMs).toBe(0);
    expect(config({ VELLUM_RETENTION_INTERVAL_MS: '60000' }).retentionIntervalMs).toBe(60_000);
    for (const bad of ['500', '604800001', '-1', 'hourly']) {
      expect(() => config({ VELLUM_RETENTION_INTERVAL_MS: bad }), bad).toThrow(/VELLUM_RETENTION_INTERVAL_MS/);
    }
  });
});

describe('VELLUM_LOG_FORMAT (issue 28)', () => {
  const format = (value: string | undefined) => loadConfig(value === undefined ? {} : { VELLUM_LOG_FORMAT: value }, '/srv', () => 1).logFormat;

  it('defaults to auto and takes json or pretty, any case', () => {
    expect(format(undefined)).toBe('auto');
    expect(format('JSON')).toBe('json');
    expect(format('pretty')).toBe('pretty');
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => format('yaml')).toThrow(/VELLUM_LOG_FORMAT must be one of auto, json, pretty; got "yaml"/);
  });
});

describe('VELLUM_KEY_CUSTODY and VELLUM_PKCS11_* (docs/key-custody.md)', () => {
  const config = (env: Record<string, string>) => loadConfig(env, '/srv');
  const token = { VELLUM_PKCS11_MODULE: '/usr/lib/softhsm/libsofthsm2.so', VELLUM_PKCS11_TOKEN_LABEL: 'issuer', VELLUM_PKCS11_PIN: '1234' };

  it('default to software keys and no token: nothing changes for who does not opt in', () => {
    expect(config({})).toMatchObject({ keyCustody: 'software', pkcs11: undefined, keyWrapping: 'off', keyRecoveryPublicKey: undefined });
  });

  it('take VELLUM_KEY_WRAPPING and the token’s wrapping key label (a default unless told; the recovery key file is read in key-wrapping.hsm.test.ts)', () => {
    expect(config({ VELLUM_KEY_WRAPPING: 'master' })).toMatchObject({ keyWrapping: 'master', pkcs11: undefined });
    expect(config({ ...token, VELLUM_KEY_WRAPPING: 'pkcs11' })).toMatchObject({ keyWrapping: 'pkcs11', pkcs11: { wrappingKeyLabel: 'vellum-wrapping-key' } });
    expect(config({ ...token, VELLUM_PKCS11_WRAPPING_KEY: 'wrap-2027' }).pkcs11?.wrappingKeyLabel).toBe('wrap-2027');
  });

  it('take a token by label or slot, with four sessions unless told, and make new keys in it with VELLUM_KEY_CUSTODY=pkcs11', () => {
    expect(config(token)).toMatchObject({
      keyCustody: 'software',
      pkcs11: { module: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: 'issuer', slot: undefined, pin: '1234', sessions: 4, threadPool: true },
    });
    const bySlot = config({
      VELLUM_PKCS11_MODULE: 'lib/hsm.so',
      VELLUM_PKCS11_SLOT: '7',
      VELLUM_PKCS11_PIN: '1234',
      VELLUM_PKCS11_SESSIONS: '16',
      VELLUM_KEY_CUSTODY: 'PKCS11',
      VELLUM_PKCS11_THREAD_POOL: 'false',
    });
    expect(bySlot).toMatchObject({
      keyCustody: 'pkcs11',
      pkcs11: { module: '/srv/lib/hsm.so', tokenLabel: undefined, slot: 7, sessions: 16, threadPool: false },
    });
  });

  it.each([
    [{ VELLUM_KEY_CUSTODY: 'pkcs11' }, /VELLUM_KEY_CUSTODY=pkcs11 needs a token/],
    [{ VELLUM_KEY_CUSTODY: 'vault' }, /VELLUM_KEY_CUSTODY must be one of software, pkcs11/],
    [{ VELLUM_PKCS11_PIN: '1234' }, /VELLUM_PKCS11_PIN is set but VELLUM_PKCS11_MODULE is not/],
    [{ ...token, VELLUM_PKCS11_SLOT: '1' }, /Set one of VELLUM_PKCS11_TOKEN_LABEL and VELLUM_PKCS11_SLOT/],
    [{ VELLUM_PKCS11_MODULE: '/hsm.so', VELLUM_PKCS11_PIN: '1' }, /Set one of VELLUM_PKCS11_TOKEN_LABEL and VELLUM_PKCS11_SLOT/],
    [{ VELLUM_PKCS11_MODULE: '/hsm.so', VELLUM_PKCS11_SLOT: 'one', VELLUM_PKCS11_PIN: '1' }, /VELLUM_PKCS11_SLOT must be a slot id/],
    [{ VELLUM_PKCS11_MODULE: '/hsm.so', VELLUM_PKCS11_TOKEN_LABEL: 'issuer' }, /Set one of VELLUM_PKCS11_PIN and VELLUM_PKCS11_PIN_FILE/],
    [{ ...token, VELLUM_PKCS11_PIN_FILE: '/run/secrets/pin' }, /Set one of VELLUM_PKCS11_PIN and VELLUM_PKCS11_PIN_FILE/],
    [{ ...token, VELLUM_PKCS11_SESSIONS: '0' }, /VELLUM_PKCS11_SESSIONS must be a whole number from 1 to 256/],
    [{ VELLUM_KEY_WRAPPING: 'pkcs11' }, /VELLUM_KEY_WRAPPING=pkcs11 needs a token/],
    [{ VELLUM_KEY_WRAPPING: 'kms' }, /VELLUM_KEY_WRAPPING must be one of off, master, pkcs11/],
    [{ VELLUM_PKCS11_WRAPPING_KEY: 'wrap' }, /VELLUM_PKCS11_WRAPPING_KEY is set but VELLUM_PKCS11_MODULE is not/],
    [{ VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE: '/etc/recovery.pem' }, /VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE needs VELLUM_KEY_WRAPPING/],
    [{ VELLUM_KEY_WRAPPING: 'master', VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE: '/nonexistent/r.pem' }, /VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE: cannot read/],
  ])('refuses %j with an error that says what to set', (env, message) => {
    expect(() => config(env as Record<string, string>)).toThrow(message);
  });

  it('reads the PIN from VELLUM_PKCS11_PIN_FILE and never puts it in an error', () => {
    const missing = { VELLUM_PKCS11_MODULE: '/hsm.so', VELLUM_PKCS11_TOKEN_LABEL: 'issuer', VELLUM_PKCS11_PIN_FILE: '/nonexistent/vellum-pin' };
    expect(() => config(missing)).toThrow(/VELLUM_PKCS11_PIN_FILE: cannot read \/nonexistent\/vellum-pin/);
  });
});
