// The PKCS#11 KeyManager on a real token (SoftHSM 2) and a real SQLite store: keys made and used
// inside the token, never readable out of it, found by every server on the same store and token.
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type KeyCustody, type KeyManager, routeKeysByCustody, type Store } from '@vellum/core';
import { createKeyManager, createSealer } from '@vellum/crypto';
import { createNodeIds, systemClock } from '@vellum/node';
import { openSqlStore } from '@vellum/storage-sql';
import { initSoftHsmToken, makeTenant, type SoftHsmToken, softHsmInstalled } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPkcs11KeyManager, openPkcs11Token, type Pkcs11Token, Pkcs11TokenError, pkcs11LabelOf } from './index.ts';

async function insertTenant(store: Store) {
  const tenant = makeTenant();
  await store.tenants.insert(tenant);
  return tenant;
}

async function expectDomainError(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: 'DomainError', code });
}

// Skipped only where Debian's softhsm2 is not installed (.ci/run installs it): there is no token to use.
describe.skipIf(!softHsmInstalled)('PKCS#11 key custody on SoftHSM 2', () => {
  let hsm: SoftHsmToken;
  let store: Store;
  let dbFile: string;
  let token: Pkcs11Token;
  let keys: KeyManager;
  const ids = createNodeIds();

  beforeAll(async () => {
    hsm = initSoftHsmToken({ label: 'vellum-keys' });
    dbFile = join(mkdtempSync(join(tmpdir(), 'vellum-pkcs11-')), 'store.db');
    store = await openSqlStore({ kind: 'sqlite', filename: dbFile });
    token = openPkcs11Token({ module: hsm.module, tokenLabel: hsm.label, pin: hsm.pin });
    keys = createPkcs11KeyManager({ token, keys: store.keys, ids, clock: systemClock });
  });
  afterAll(async () => {
    await token?.close();
    await store?.close();
  });

  const publicKeyOf = (jwk: object) => createPublicKey({ key: jwk as never, format: 'jwk' });

  it('makes a P-256 key in the token, keeps only its public half in the store, and signs ES256 (r‖s) that node:crypto verifies', async () => {
    const tenant = await insertTenant(store);
    const key = await keys.create(tenant.id, 'P-256');
    expect(key).not.toHaveProperty('custody');
    const row = await store.keys.get(tenant.id, key.id);
    expect(row).toMatchObject({ custody: 'pkcs11', sealed: '', publicJwk: key.publicJwk });
    const data = randomBytes(300);
    const signature = await keys.sign(tenant.id, key.id, data);
    expect(signature).toHaveLength(64);
    expect(verify('sha256', data, { key: publicKeyOf(key.publicJwk), dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
    expect(verify('sha256', randomBytes(300), { key: publicKeyOf(key.publicJwk), dsaEncoding: 'ieee-p1363' }, signature)).toBe(false);
  });

  it('makes an Ed25519 key and signs EdDSA that node:crypto verifies', async () => {
    const tenant = await insertTenant(store);
    const key = await keys.create(tenant.id, 'Ed25519');
    expect(key.publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    const data = randomBytes(120);
    const signature = await keys.sign(tenant.id, key.id, data);
    expect(verify(null, data, publicKeyOf(key.publicJwk), signature)).toBe(true);
  });

  it('marks the private half sensitive and never extractable: the token refuses to give its value', async () => {
    const tenant = await insertTenant(store);
    for (const algorithm of ['P-256', 'Ed25519'] as const) {
      const key = await keys.create(tenant.id, algorithm);
      expect(await token.protectionOf(key.id, pkcs11LabelOf(tenant.id, key.id))).toEqual({
        sensitive: true,
        extractable: false,
        alwaysSensitive: true,
        neverExtractable: true,
        valueRefused: true,
      });
    }
  });

  it('signs many at once through the session pool, each signature valid', async () => {
    const tenant = await insertTenant(store);
    const key = await keys.create(tenant.id, 'P-256');
    const messages = Array.from({ length: 40 }, () => randomBytes(64));
    const signatures = await Promise.all(messages.map((m) => keys.sign(tenant.id, key.id, m)));
    const publicKey = publicKeyOf(key.publicJwk);
    expect(signatures.every((s, i) => verify('sha256', messages[i] as Buffer, { key: publicKey, dsaEncoding: 'ieee-p1363' }, s))).toBe(true);
  });

  it('signs on the event loop too, when told not to use the thread pool (C_Sign)', async () => {
    const direct = openPkcs11Token({ module: hsm.module, tokenLabel: hsm.label, pin: hsm.pin, sessions: 1, threadPool: false });
    try {
      const manager = createPkcs11KeyManager({ token: direct, keys: store.keys, ids, clock: systemClock });
      const tenant = await insertTenant(store);
      for (const algorithm of ['P-256', 'Ed25519'] as const) {
        const key = await manager.create(tenant.id, algorithm);
        const messages = Array.from({ length: 5 }, () => randomBytes(64));
        const signatures = await Promise.all(messages.map((m) => manager.sign(tenant.id, key.id, m)));
        const publicKey = publicKeyOf(key.publicJwk);
        const valid = (m: Buffer, s: Uint8Array) =>
          algorithm === 'Ed25519' ? verify(null, m, publicKey, s) : verify('sha256', m, { key: publicKey, dsaEncoding: 'ieee-p1363' }, s);
        expect(signatures.every((s, i) => valid(messages[i] as Buffer, s))).toBe(true);
      }
    } finally {
      await direct.close();
    }
  });

  it('is found by another server on the same store and token (its own sessions and login)', async () => {
    const tenant = await insertTenant(store);
    const key = await keys.create(tenant.id, 'P-256');
    const otherStore = await openSqlStore({ kind: 'sqlite', filename: dbFile });
    const otherToken = openPkcs11Token({ module: hsm.module, tokenLabel: hsm.label, pin: hsm.pin, sessions: 1 });
    try {
      const other = createPkcs11KeyManager({ token: otherToken, keys: otherStore.keys, ids, clock: systemClock });
      const data = randomBytes(50);
      const signature = await other.sign(tenant.id, key.id, data);
      expect(verify('sha256', data, { key: publicKeyOf(key.publicJwk), dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
    } finally {
      await otherToken.close();
      await otherStore.close();
    }
  });

  it('sees a key another process made after this one opened the token, also when it makes a key of its own next', async () => {
    // SoftHSM's file store: making a key takes in the token's generation counter, so a process that
    // made a key without looking first would miss the keys others made before (token.ts, generate).
    const tenant = await insertTenant(store);
    await keys.create(tenant.id, 'P-256');
    const otherId = ids.uuid();
    const script = join(mkdtempSync(join(tmpdir(), 'vellum-pkcs11-other-')), 'make.mjs');
    writeFileSync(
      script,
      `import { openPkcs11Token } from ${JSON.stringify(join(import.meta.dirname, 'token.ts'))};
       const token = openPkcs11Token(${JSON.stringify({ module: hsm.module, tokenLabel: hsm.label, pin: hsm.pin, sessions: 1 })});
       console.log(JSON.stringify(await token.generate('P-256', ${JSON.stringify(otherId)}, ${JSON.stringify(pkcs11LabelOf(tenant.id, otherId))})));
       await token.close();`,
    );
    const publicJwk = JSON.parse(execFileSync(process.execPath, [script], { env: { ...process.env, ...hsm.env }, encoding: 'utf8' }).trim());
    await store.keys.insert({
      id: otherId,
      tenantId: tenant.id,
      algorithm: 'P-256',
      publicJwk,
      sealed: '',
      custody: 'pkcs11',
      createdAt: new Date().toISOString(),
    });
    // This process makes a key of its own first, then signs with the other process's.
    await keys.create(tenant.id, 'P-256');
    const data = randomBytes(32);
    const signature = await keys.sign(tenant.id, otherId, data);
    expect(verify('sha256', data, { key: publicKeyOf(publicJwk), dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
  });

  it('signs only for the tenant that owns the key: a row copied to another tenant finds nothing in the token', async () => {
    const owner = await insertTenant(store);
    const thief = await insertTenant(store);
    const key = await keys.create(owner.id, 'P-256');
    const row = await store.keys.get(owner.id, key.id);
    // The same key id under another tenant cannot be stored (ids are unique), so the copy is made
    // with the owner's row under a fresh store's tenant of the other id.
    const copyStore = await openSqlStore({ kind: 'sqlite', filename: join(mkdtempSync(join(tmpdir(), 'vellum-pkcs11-copy-')), 'copy.db') });
    try {
      await copyStore.tenants.insert(thief);
      await copyStore.keys.insert({ ...(row as NonNullable<typeof row>), tenantId: thief.id });
      const copied = createPkcs11KeyManager({ token, keys: copyStore.keys, ids, clock: systemClock });
      await expect(copied.sign(thief.id, key.id, randomBytes(10))).rejects.toThrow(/does not hold the key/);
    } finally {
      await copyStore.close();
    }
  });

  it('destroys both halves: the row is gone, the token holds nothing, and signing is NotFound', async () => {
    const tenant = await insertTenant(store);
    const key = await keys.create(tenant.id, 'Ed25519');
    expect(await keys.destroy(tenant.id, key.id)).toBe(true);
    expect(await store.keys.get(tenant.id, key.id)).toBeUndefined();
    expect(await token.protectionOf(key.id, pkcs11LabelOf(tenant.id, key.id))).toBeUndefined();
    await expectDomainError(keys.sign(tenant.id, key.id, randomBytes(10)), 'NotFound');
    expect(await keys.destroy(tenant.id, key.id)).toBe(false);
  });

  it('refuses plainly an algorithm the token is not set up for', async () => {
    const restricted = openPkcs11Token({ module: hsm.module, tokenLabel: hsm.label, pin: hsm.pin, sessions: 1, algorithms: ['P-256'] });
    try {
      const manager = createPkcs11KeyManager({ token: restricted, keys: store.keys, ids, clock: systemClock });
      const tenant = await insertTenant(store);
      await expectDomainError(manager.create(tenant.id, 'Ed25519'), 'BadRequest');
      expect((await manager.create(tenant.id, 'P-256')).algorithm).toBe('P-256');
    } finally {
      await restricted.close();
    }
  });

  it('refuses a wrong PIN or an unknown token without naming the PIN', async () => {
    // A login holds for the whole process (PKCS#11 logs in the application, not a session), and
    // this process is logged in: the wrong PIN is tried in a process of its own.
    const wrong = 'not-the-pin-4242';
    const script = join(mkdtempSync(join(tmpdir(), 'vellum-pkcs11-pin-')), 'open.mjs');
    writeFileSync(
      script,
      `import { openPkcs11Token } from ${JSON.stringify(join(import.meta.dirname, 'token.ts'))};
       try { openPkcs11Token(${JSON.stringify({ module: hsm.module, tokenLabel: hsm.label, pin: wrong })}); console.log('opened'); }
       catch (error) { console.log(JSON.stringify({ name: error.name, message: error.message })); }`,
    );
    const out = execFileSync(process.execPath, [script], { env: { ...process.env, ...hsm.env }, encoding: 'utf8' }).trim();
    const failure = JSON.parse(out) as { name: string; message: string };
    expect(failure.name).toBe('Pkcs11TokenError');
    expect(failure.message).toMatch(/^Login to the PKCS#11 token "vellum-keys" failed \(CKR_PIN_INCORRECT/);
    expect(failure.message).not.toContain(wrong);
    expect(() => openPkcs11Token({ module: hsm.module, tokenLabel: 'no-such-token', pin: hsm.pin })).toThrow(
      new Pkcs11TokenError('No PKCS#11 token is labelled "no-such-token"'),
    );
    // The library is still usable here after the refusal.
    const tenant = await insertTenant(store);
    expect((await keys.create(tenant.id, 'P-256')).algorithm).toBe('P-256');
  });

  it('keeps no private key material in the store: every row of a PKCS#11 key has nothing sealed', async () => {
    const tenant = await insertTenant(store);
    const made = [await keys.create(tenant.id, 'P-256'), await keys.create(tenant.id, 'Ed25519')];
    for (const key of made) {
      const row = await store.keys.get(tenant.id, key.id);
      expect(row?.sealed).toBe('');
      expect(JSON.stringify(row)).not.toMatch(/"d"/);
    }
  });

  describe('beside software keys (routeKeysByCustody)', () => {
    it('makes each tenant’s new keys where its custody says, and signs with every key where its row says', async () => {
      const software = createKeyManager({ keys: store.keys, sealer: createSealer(randomBytes(32)), ids, clock: systemClock });
      const custody = new Map<string, KeyCustody>();
      const routed = routeKeysByCustody({
        keys: store.keys,
        managers: { software, pkcs11: keys },
        custodyFor: (tenantId) => custody.get(tenantId) ?? 'software',
      });
      const tenant = await insertTenant(store);
      const before = await routed.create(tenant.id, 'P-256');
      custody.set(tenant.id, 'pkcs11');
      const after = await routed.create(tenant.id, 'P-256');
      expect((await store.keys.get(tenant.id, before.id))?.custody).toBeUndefined();
      expect((await store.keys.get(tenant.id, after.id))?.custody).toBe('pkcs11');
      for (const key of [before, after]) {
        const data = randomBytes(40);
        const signature = await routed.sign(tenant.id, key.id, data);
        expect(verify('sha256', data, { key: publicKeyOf(key.publicJwk), dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
      }
      expect(await routed.get(tenant.id, after.id)).toEqual(after);
      expect(await routed.destroy(tenant.id, after.id)).toBe(true);
      expect(await token.protectionOf(after.id, pkcs11LabelOf(tenant.id, after.id))).toBeUndefined();
      await expectDomainError(routed.sign(tenant.id, after.id, randomBytes(4)), 'NotFound');
    });

    it('says plainly when a tenant asks for a custody this server does not have', async () => {
      const software = createKeyManager({ keys: store.keys, sealer: createSealer(randomBytes(32)), ids, clock: systemClock });
      const routed = routeKeysByCustody({ keys: store.keys, managers: { software }, custodyFor: () => 'pkcs11' });
      const tenant = await insertTenant(store);
      await expectDomainError(routed.create(tenant.id, 'P-256'), 'ServiceUnavailable');
      // Asked for by a resource, a custody the server lacks is the caller's mistake: 400, naming the field.
      await expect(routed.create(tenant.id, 'P-256', { custody: 'pkcs11' })).rejects.toMatchObject({
        code: 'BadRequest',
        details: [{ param: 'keyCustody', msg: expect.stringContaining('no pkcs11 key custody; it has software') }],
      });
    });

    it('makes a key where a resource asks, whatever the tenant’s custody, and a CA’s signers where the CA’s key is (custody per resource)', async () => {
      const software = createKeyManager({ keys: store.keys, sealer: createSealer(randomBytes(32)), ids, clock: systemClock });
      const routed = routeKeysByCustody({ keys: store.keys, managers: { software, pkcs11: keys }, custodyFor: () => 'software' });
      const tenant = await insertTenant(store);
      const inToken = await routed.create(tenant.id, 'P-256', { custody: 'pkcs11' });
      const plain = await routed.create(tenant.id, 'Ed25519');
      expect((await store.keys.get(tenant.id, inToken.id))?.custody).toBe('pkcs11');
      expect((await store.keys.get(tenant.id, plain.id))?.custody).toBeUndefined();
      // A signer made under the CA follows the CA's key, not the tenant's custody.
      const follower = await routed.create(tenant.id, 'P-256', { sameCustodyAs: inToken.id });
      expect((await store.keys.get(tenant.id, follower.id))?.custody).toBe('pkcs11');
      const softFollower = await routed.create(tenant.id, 'P-256', { sameCustodyAs: plain.id });
      expect((await store.keys.get(tenant.id, softFollower.id))?.custody).toBeUndefined();
      const data = randomBytes(32);
      const signature = await routed.sign(tenant.id, follower.id, data);
      expect(verify('sha256', data, { key: publicKeyOf(follower.publicJwk), dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
    });
  });
});
