// Issue 32, point 3: envelope encryption, through the server's own wiring (runtime.ts) and the
// `vellum keys` commands run as child processes, on a SQLite file and a SoftHSM token. One tenant's
// keys live through every step an operator takes: made under the master key alone; then, with
// VELLUM_KEY_WRAPPING=pkcs11, under a data key wrapped by an AES key in the token; sealed again
// under it (`keys rewrap`); moved to a second wrapping key in the token (`keys rewrap`); and brought
// back from the offline recovery key after the token is lost (`keys recover`). After each, the
// tenant's access-token key still signs, and a verifier checks the signature with the public key.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMasterKeyWrapper, verifyCompactJws, publicKeyFromJwk } from '@vellum/crypto';
import { initSoftHsmToken, type SoftHsmToken, softHsmInstalled } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedRows } from '../test/backends.ts';
import { cli, serverEnv, tempDir } from '../test/process.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { openRuntime, type Runtime } from './runtime.ts';

const ISSUER = 'https://acme.vellum.test';

// Skipped only where Debian's softhsm2 is not installed (.ci/run installs it): there is no token.
describe.skipIf(!softHsmInstalled)('envelope encryption of software keys, wrapped in a PKCS#11 token (issue 32, point 3)', () => {
  let hsm: SoftHsmToken;
  let dir: string;
  let base: Record<string, string>;
  let token: Record<string, string>;
  let recoveryPrivateFile: string;
  const master = randomBytes(32);
  const tenants: string[] = [];

  beforeAll(() => {
    hsm = initSoftHsmToken({ label: 'vellum-wrap', pin: '135790' });
    dir = tempDir();
    const recovery = generateKeyPairSync('rsa', { modulusLength: 3072 });
    const recoveryPublicFile = join(dir, 'recovery.pub.pem');
    recoveryPrivateFile = join(dir, 'recovery.pem');
    writeFileSync(recoveryPublicFile, recovery.publicKey.export({ format: 'pem', type: 'spki' }));
    writeFileSync(recoveryPrivateFile, recovery.privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    base = serverEnv({
      VELLUM_DATA_DIR: join(dir, 'data'),
      VELLUM_MASTER_KEY: master.toString('base64'),
      VELLUM_PLATFORM_DOMAIN: 'vellum.test',
      VELLUM_DEFAULT_TENANT: '',
      VELLUM_LOG_LEVEL: 'silent',
    });
    token = {
      ...hsm.env,
      VELLUM_PKCS11_MODULE: hsm.module,
      VELLUM_PKCS11_TOKEN_LABEL: hsm.label,
      VELLUM_PKCS11_PIN: hsm.pin,
      VELLUM_KEY_WRAPPING: 'pkcs11',
      VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE: recoveryPublicFile,
    };
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (hsm) rmSync(hsm.dir, { recursive: true, force: true });
  });

  async function withRuntime<T>(env: Record<string, string>, work: (runtime: Runtime) => Promise<T>): Promise<T> {
    const runtime = await openRuntime(loadConfig(env), createLogger('silent'));
    try {
      return await work(runtime);
    } finally {
      await runtime.close();
    }
  }

  /** The tenant's access-token key signs a token here, and its published key verifies it. */
  async function expectSigns(runtime: Runtime, tenantId: string): Promise<void> {
    const tokens = runtime.vellum.walletTokens;
    const { token: jwt } = await tokens.issue({ tenantId, issuer: ISSUER, userId: 'u1', offerId: 'o1', configurationIds: ['c1'], scope: 'openid' }, 300);
    const [jwk] = (await tokens.jwks(tenantId)).keys as [Record<string, string>];
    expect(verifyCompactJws(jwt, publicKeyFromJwk({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as never), ['ES256'])).toBeDefined();
  }

  const keyRows = async () =>
    (await storedRows(base, 'select tenant_id, custody, sealed from keys')) as Array<{ tenant_id: string; custody: string; sealed: string }>;
  const dataKeyRows = async () =>
    (await storedRows(base, 'select tenant_id, id, wrapped, wrapping_key_id, recovery_key_id from data_keys')) as Array<{
      tenant_id: string;
      id: string;
      wrapped: string;
      wrapping_key_id: string;
      recovery_key_id: string | null;
    }>;
  const json = (r: ReturnType<typeof cli>) => {
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  it('makes keys under the master key alone while VELLUM_KEY_WRAPPING is off (the default)', async () => {
    await withRuntime(base, async (runtime) => {
      const created = await runtime.vellum.tenants.createTenant({ subdomain: 'before', region: 'eu01' });
      tenants.push(created.tenant.id);
      await expectSigns(runtime, created.tenant.id);
    });
    expect((await keyRows()).map((r) => r.sealed.split('.')[0])).toEqual(['v1']);
    expect(await dataKeyRows()).toEqual([]);
    expect(json(cli(['keys', 'wrapping'], base))).toMatchObject({ wrapping: 'off', dataKeys: [] });
  });

  it('with VELLUM_KEY_WRAPPING=pkcs11, seals new keys under a data key the token’s AES key wraps; older keys still sign', async () => {
    await withRuntime({ ...base, ...token }, async (runtime) => {
      const created = await runtime.vellum.tenants.createTenant({ subdomain: 'after', region: 'eu01' });
      tenants.push(created.tenant.id);
      await expectSigns(runtime, created.tenant.id);
      await expectSigns(runtime, tenants[0] as string);
    });
    const rows = await keyRows();
    expect(rows.find((r) => r.tenant_id === tenants[1])?.sealed).toMatch(/^v2\./);
    expect(rows.find((r) => r.tenant_id === tenants[0])?.sealed).toMatch(/^v1\./);
    const [dataKey] = await dataKeyRows();
    expect(dataKey).toMatchObject({ tenant_id: tenants[1], wrapping_key_id: 'pkcs11:vellum-wrapping-key', recovery_key_id: expect.stringMatching(/^rsa:/) });
    // The master key does not open the data key: only the token does.
    await expect(createMasterKeyWrapper(master).unwrap(dataKey?.wrapped as string, `vellum-data-key:${tenants[1]}:${dataKey?.id}`)).rejects.toThrow();
  });

  it('`vellum keys rewrap` seals the keys made before under their tenant’s data key', async () => {
    const before = (await keyRows()).find((r) => r.tenant_id === tenants[1])?.sealed;
    const report = json(cli(['keys', 'rewrap'], { ...base, ...token }));
    expect(report).toMatchObject({ wrapping: 'pkcs11', wrappingKeyId: 'pkcs11:vellum-wrapping-key', rewrapped: 0, resealed: 1, failed: [] });
    const rows = await keyRows();
    expect(rows.every((r) => r.custody === 'software' && r.sealed.startsWith('v2.'))).toBe(true);
    // A key sealed under its data key already is not touched.
    expect(rows.find((r) => r.tenant_id === tenants[1])?.sealed).toBe(before);
    expect((await dataKeyRows()).map((r) => r.wrapping_key_id)).toEqual(['pkcs11:vellum-wrapping-key', 'pkcs11:vellum-wrapping-key']);
    await withRuntime({ ...base, ...token }, async (runtime) => {
      for (const tenant of tenants) await expectSigns(runtime, tenant);
    });
  });

  it('moves every data key to a new wrapping key by re-wrapping one row per tenant, leaving the sealed keys as they are', async () => {
    const sealedBefore = (await keyRows()).map((r) => r.sealed).sort();
    const rotated = { ...base, ...token, VELLUM_PKCS11_WRAPPING_KEY: 'vellum-wrapping-2027' };
    const report = json(cli(['keys', 'rewrap', '--batch', '1'], rotated));
    expect(report).toMatchObject({ wrappingKeyId: 'pkcs11:vellum-wrapping-2027', rewrapped: 2, resealed: 0, failed: [] });
    expect(report.dataKeys).toEqual([{ wrappingKeyId: 'pkcs11:vellum-wrapping-2027', recoveryKeyId: expect.stringMatching(/^rsa:/), count: 2 }]);
    expect((await keyRows()).map((r) => r.sealed).sort()).toEqual(sealedBefore);
    await withRuntime(rotated, async (runtime) => {
      for (const tenant of tenants) await expectSigns(runtime, tenant);
    });
  });

  it('after the token is lost, `vellum keys recover` brings every tenant’s keys back from the recovery key', async () => {
    // No token at all now: data keys are wrapped under the master key from here on.
    const { VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE } = token as { VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE: string };
    const lost = { ...base, VELLUM_KEY_WRAPPING: 'master', VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE };
    rmSync(hsm.dir, { recursive: true, force: true });
    await withRuntime(lost, async (runtime) => {
      await expect(expectSigns(runtime, tenants[0] as string)).rejects.toThrow(/wrapped under pkcs11:vellum-wrapping-2027, which this server does not have/);
    });
    const refused = cli(['keys', 'rewrap'], lost);
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout).failed).toHaveLength(2);

    const report = json(cli(['keys', 'recover', '--recovery-key', recoveryPrivateFile], lost));
    const masterId = createMasterKeyWrapper(master).id;
    expect(report).toMatchObject({ wrapping: 'master', wrappingKeyId: masterId, recovered: 2, failed: [] });
    expect((await dataKeyRows()).map((r) => r.wrapping_key_id)).toEqual([masterId, masterId]);
    await withRuntime(lost, async (runtime) => {
      for (const tenant of tenants) await expectSigns(runtime, tenant);
    });
    // What the command printed and the server stored hold no private key.
    const text = JSON.stringify([report, await keyRows(), await dataKeyRows()]);
    expect(text).not.toMatch(/PRIVATE KEY/);
  });

  it('refuses settings that cannot work, before anything starts', () => {
    const noToken = cli(['keys', 'wrapping'], { ...base, VELLUM_KEY_WRAPPING: 'pkcs11' });
    expect(noToken.status).toBe(1);
    expect(noToken.stderr).toContain('VELLUM_KEY_WRAPPING=pkcs11 needs a token');
    const noWrapping = cli(['keys', 'wrapping'], { ...base, VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE: recoveryPrivateFile });
    expect(noWrapping.status).toBe(1);
    expect(noWrapping.stderr).toContain('VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE needs VELLUM_KEY_WRAPPING');
    const notPublic = cli(['keys', 'wrapping'], { ...base, VELLUM_KEY_WRAPPING: 'master', VELLUM_KEY_RECOVERY_PUBLIC_KEY_FILE: recoveryPrivateFile });
    expect(notPublic.status).toBe(1);
    expect(notPublic.stderr).toContain('holds no PEM public key');
    expect(notPublic.stderr).not.toContain('PRIVATE KEY');
    const batch = cli(['keys', 'rewrap', '--batch', '0'], base);
    expect(batch.status).toBe(1);
    expect(batch.stderr).toContain('--batch must be a whole number from 1 to 10000');
  });
});
