// Issue 32, point 1: a tenant chooses where a key-holding resource's keys live when it creates it
// (`keyCustody` on IACAs, issuer CAs, DIDs and x509_hash verifier applications), whatever its own
// custody says; the signers Vellum makes under a CA follow the CA's key. Through the server's own
// wiring (runtime.ts) on a SQLite file and a SoftHSM token (docs/key-custody.md "Custody per resource").
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { type MdocConfiguration, PERMISSIONS, type RequestContext, type Tenant } from '@vellum/core';
import { initSoftHsmToken, type SoftHsmToken, softHsmInstalled } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedRows } from '../test/backends.ts';
import { serverEnv, tempDir } from '../test/process.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { openRuntime, type Runtime } from './runtime.ts';

// Skipped only where Debian's softhsm2 is not installed (.ci/run installs it): there is no token.
describe.skipIf(!softHsmInstalled)('key custody chosen per resource, on a SoftHSM token (issue 32, point 1)', () => {
  let hsm: SoftHsmToken;
  let dir: string;
  let env: Record<string, string>;
  let runtime: Runtime;
  let tenant: Tenant;
  let ctx: RequestContext;

  beforeAll(async () => {
    hsm = initSoftHsmToken({ label: 'vellum-per-resource', pin: '975310' });
    dir = tempDir();
    env = serverEnv({
      VELLUM_DATA_DIR: join(dir, 'data'),
      VELLUM_MASTER_KEY: randomBytes(32).toString('base64'),
      VELLUM_PLATFORM_DOMAIN: 'vellum.test',
      VELLUM_DEFAULT_TENANT: '',
      VELLUM_LOG_LEVEL: 'silent',
      ...hsm.env,
      VELLUM_PKCS11_MODULE: hsm.module,
      VELLUM_PKCS11_TOKEN_LABEL: hsm.label,
      VELLUM_PKCS11_PIN: hsm.pin,
      VELLUM_PKCS11_THREAD_POOL: 'false',
    });
    // The platform makes keys in software; resources ask for the token themselves.
    runtime = await openRuntime(loadConfig(env), createLogger('silent'));
    tenant = (await runtime.vellum.tenants.createTenant({ subdomain: 'acme', region: 'eu01' })).tenant;
    ctx = {
      tenant,
      origin: await runtime.vellum.addressing.publicOrigin(tenant),
      requestor: { clientId: 'test', role: 'admin', permissions: new Set(PERMISSIONS) },
      requestId: randomUUID(),
      ip: '127.0.0.1',
    };
  });
  afterAll(async () => {
    await runtime?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (hsm) rmSync(hsm.dir, { recursive: true, force: true });
  });

  const custodyOf = async (keyId: string) =>
    ((await storedRows(env, `select custody from keys where id = '${keyId}'`))[0] as { custody: string } | undefined)?.custody;

  it('makes an IACA’s key in the token when asked, and the document signer made under it there too', async () => {
    const iaca = await runtime.vellum.iacas.create(ctx, { country: 'US', keyCustody: 'pkcs11' });
    await runtime.vellum.iacas.update(ctx, iaca.id, { active: true });
    const record = await runtime.store.iacas.get(tenant.id, iaca.id);
    expect(await custodyOf(record?.keyId as string)).toBe('pkcs11');
    const configuration: MdocConfiguration = {
      id: randomUUID(),
      tenantId: tenant.id,
      format: 'mso_mdoc',
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 30 },
      includeStatus: false,
      claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    };
    const { x, y } = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const issued = await runtime.vellum.mdocIssuance.issue({
      tenant,
      configuration,
      subject: { claims: { familyName: 'Okafor' } },
      holderKey: { kty: 'EC', crv: 'P-256', x: x as string, y: y as string },
    });
    const signer = await runtime.store.documentSigners.get(tenant.id, issued.documentSignerId);
    expect(await custodyOf(signer?.keyId as string)).toBe('pkcs11');
    // A rotation's new signer follows the CA as well.
    const rotated = await runtime.vellum.signingKeys.rotate(ctx, 'document-signers');
    const next = await runtime.store.documentSigners.get(tenant.id, rotated.active[0] as string);
    expect(await custodyOf(next?.keyId as string)).toBe('pkcs11');
  });

  it('makes a did:web’s keys and a verifier application’s key where each asks; the tenant’s other keys stay in software', async () => {
    const web = await runtime.vellum.dids.create(ctx, { method: 'web', options: { url: 'acme.eu01.vellum.test' }, keyCustody: 'pkcs11' });
    for (const key of web.localMetadata.keys) expect(await custodyOf(key.kmsKeyId)).toBe('pkcs11');
    const rotated = await runtime.vellum.signingKeys.rotate(ctx, 'dids', { did: web.did });
    const after = await runtime.store.dids.get(tenant.id, web.did);
    for (const id of rotated.active) expect(await custodyOf(after?.keys.find((k) => k.didDocumentKeyId === id)?.kmsKeyId as string)).toBe('pkcs11');
    const plain = await runtime.vellum.dids.create(ctx, { method: 'key' });
    expect(await custodyOf(plain.localMetadata.keys[0]?.kmsKeyId as string)).toBe('software');
    const application = await runtime.vellum.verifierApplications.create(ctx, {
      name: 'Bank',
      clientIdPrefix: 'x509_hash',
      country: 'DE',
      keyCustody: 'pkcs11',
    });
    const stored = await runtime.store.verifierApplications.get(tenant.id, application.id);
    expect(await custodyOf(stored?.x509?.keyId as string)).toBe('pkcs11');
  });

  it('refuses keyCustody where it does not apply, or names what it does not know', async () => {
    await expect(runtime.vellum.dids.create(ctx, { method: 'key', keyCustody: 'vault' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'keyCustody' }],
    });
    await expect(runtime.vellum.verifierApplications.create(ctx, { name: 'Dev', clientIdPrefix: 'redirect_uri', keyCustody: 'pkcs11' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'keyCustody', msg: expect.stringContaining('Only when creating an x509_hash application') }],
    });
  });
});
