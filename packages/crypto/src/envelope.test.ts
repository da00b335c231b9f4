import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataKeyRecord, KeyWrapper, Store } from '@vellum/core';
import { createMemoryStore } from '@vellum/storage-memory';
import { fakeClock, makeTenant } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEnvelopeSealer,
  createMasterKeyWrapper,
  createRecoveryKey,
  type EnvelopeSealerOptions,
  masterKeyFingerprint,
  openRecoveryCopy,
  sealedUnderDataKey,
} from './envelope.ts';
import { createKeyManager, createKeyResealer } from './key-manager.ts';
import { createSealer } from './sealer.ts';

const ids = { uuid: () => crypto.randomUUID(), token: () => 'unused', bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) };
const masterA = new Uint8Array(32).fill(1);
const masterB = new Uint8Array(32).fill(2);
const wrapperA = createMasterKeyWrapper(masterA);
const wrapperB = createMasterKeyWrapper(masterB);
const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);

/** A sealer on `store` whose current wrapping key is `current`, finding only the keys in `known`. */
function sealerOn(store: Store, current: KeyWrapper, known: KeyWrapper[] = [current], extra: Partial<EnvelopeSealerOptions> = {}) {
  return createEnvelopeSealer({
    dataKeys: store.dataKeys,
    wrapping: { current, find: (id) => known.find((w) => w.id === id) },
    ids,
    clock: fakeClock(),
    ...extra,
  });
}

async function storeWithTenants(count: number) {
  const store = createMemoryStore();
  const tenants = Array.from({ length: count }, () => makeTenant());
  for (const tenant of tenants) await store.tenants.insert(tenant);
  return { store, tenants };
}

describe('envelope encryption: data keys per tenant (issue 32, point 3)', () => {
  it('seals under the tenant’s own data key, kept only wrapped by the wrapping key', async () => {
    const { store, tenants } = await storeWithTenants(2);
    const [t1, t2] = tenants as [ReturnType<typeof makeTenant>, ReturnType<typeof makeTenant>];
    const sealer = sealerOn(store, wrapperA);
    const sealed = await sealer.seal(t1.id, bytes('private one'), 'ctx');
    expect(sealedUnderDataKey(sealed)).toBe(true);
    expect(text(await sealer.open(t1.id, sealed, 'ctx'))).toBe('private one');
    await sealer.seal(t2.id, bytes('private two'), 'ctx');
    const [r1, r2] = [await store.dataKeys.get(t1.id), await store.dataKeys.get(t2.id)] as [DataKeyRecord, DataKeyRecord];
    expect(r1.id).not.toBe(r2.id);
    expect(sealed.split('.')[1]).toBe(r1.id);
    expect(r1).toMatchObject({ wrappingKeyId: wrapperA.id, tenantId: t1.id });
    expect(r1.recoveryWrapped).toBeUndefined();
    // The data key opens with the wrapping key and nothing else; it is never stored in the clear.
    const raw = await wrapperA.unwrap(r1.wrapped, `vellum-data-key:${t1.id}:${r1.id}`);
    expect(raw).toHaveLength(32);
    expect(JSON.stringify(r1)).not.toContain(Buffer.from(raw).toString('base64url'));
    await expect(wrapperB.unwrap(r1.wrapped, `vellum-data-key:${t1.id}:${r1.id}`)).rejects.toThrow(/does not match/);
  });

  it('binds what it seals to its tenant and associated data', async () => {
    const { store, tenants } = await storeWithTenants(2);
    const [t1, t2] = tenants as [ReturnType<typeof makeTenant>, ReturnType<typeof makeTenant>];
    const sealer = sealerOn(store, wrapperA);
    await sealer.seal(t2.id, bytes('x'), 'ctx');
    const sealed = await sealer.seal(t1.id, bytes('secret'), 'ctx');
    await expect(sealer.open(t1.id, sealed, 'other')).rejects.toThrow(/does not match or the data is corrupt/);
    await expect(sealer.open(t2.id, sealed, 'ctx')).rejects.toThrow(/does not match or the data is corrupt/);
    const parts = sealed.split('.');
    const ciphertext = parts[3] as string;
    const flipped = [...parts.slice(0, 3), `${ciphertext[0] === 'A' ? 'B' : 'A'}${ciphertext.slice(1)}`, parts[4]].join('.');
    await expect(sealer.open(t1.id, flipped, 'ctx')).rejects.toThrow(/does not match/);
    for (const junk of ['', 'v1.a.b.c', 'v2.x.y', `v2.${parts[1]}.!!.b.c`]) await expect(sealer.open(t1.id, junk, 'ctx')).rejects.toThrow(/Cannot open/);
  });

  it('shares one data key between servers, even when both make it at once', async () => {
    const { store, tenants } = await storeWithTenants(1);
    const tenant = tenants[0] as ReturnType<typeof makeTenant>;
    const [a, b] = [sealerOn(store, wrapperA), sealerOn(store, wrapperA)];
    const [sa, sb] = await Promise.all([a.seal(tenant.id, bytes('from a'), 'c'), b.seal(tenant.id, bytes('from b'), 'c')]);
    expect(sa.split('.')[1]).toBe(sb.split('.')[1]);
    expect(text(await b.open(tenant.id, sa, 'c'))).toBe('from a');
    expect(text(await a.open(tenant.id, sb, 'c'))).toBe('from b');
  });

  it('changes the wrapping key by re-wrapping data keys, lazily on read and in passes, never re-sealing what they seal', async () => {
    const { store, tenants } = await storeWithTenants(3);
    const old = sealerOn(store, wrapperA);
    const sealed = new Map<string, string>();
    for (const t of tenants) sealed.set(t.id, await old.seal(t.id, bytes(`key of ${t.id}`), 'c'));
    const before = new Map(await Promise.all(tenants.map(async (t) => [t.id, (await store.dataKeys.get(t.id))?.wrapped] as const)));

    // The new server wraps under B and still has A to read older data keys with.
    const next = sealerOn(store, wrapperB, [wrapperB, wrapperA]);
    const [first, ...rest] = tenants as [ReturnType<typeof makeTenant>, ...ReturnType<typeof makeTenant>[]];
    expect(text(await next.open(first.id, sealed.get(first.id) as string, 'c'))).toBe(`key of ${first.id}`);
    expect((await store.dataKeys.get(first.id))?.wrappingKeyId).toBe(wrapperB.id);
    expect(await store.dataKeys.countByWrapping()).toEqual(
      expect.arrayContaining([
        { wrappingKeyId: wrapperA.id, count: 2 },
        { wrappingKeyId: wrapperB.id, count: 1 },
      ]),
    );

    // The job does the rest, a batch at a time.
    expect(await next.rewrap(1)).toEqual({ rewrapped: 1, failed: [], more: true });
    expect(await next.rewrap(10)).toEqual({ rewrapped: 1, failed: [], more: false });
    expect(await next.rewrap(10)).toEqual({ rewrapped: 0, failed: [], more: false });
    for (const t of rest) {
      const record = (await store.dataKeys.get(t.id)) as DataKeyRecord;
      expect(record.wrappingKeyId).toBe(wrapperB.id);
      expect(record.wrapped).not.toBe(before.get(t.id));
    }

    // A server without A at all reads every tenant's keys, sealed before the change and untouched.
    const only = sealerOn(store, wrapperB, [wrapperB]);
    for (const t of tenants) expect(text(await only.open(t.id, sealed.get(t.id) as string, 'c'))).toBe(`key of ${t.id}`);
  });

  it('says which wrapping key it lacks, and the job reports the row it cannot re-wrap', async () => {
    const { store, tenants } = await storeWithTenants(1);
    const tenant = tenants[0] as ReturnType<typeof makeTenant>;
    const sealed = await sealerOn(store, wrapperA).seal(tenant.id, bytes('k'), 'c');
    const lost = sealerOn(store, wrapperB, [wrapperB]);
    await expect(lost.open(tenant.id, sealed, 'c')).rejects.toThrow(`wrapped under ${wrapperA.id}, which this server does not have`);
    const report = await lost.rewrap(10);
    expect(report).toMatchObject({ rewrapped: 0, more: false, failed: [{ tenantId: tenant.id }] });
    expect(report.failed[0]?.reason).toContain(wrapperA.id);
  });

  it('names the master key by a fingerprint that reveals nothing of it', () => {
    expect(wrapperA.id).toBe(`master:${masterKeyFingerprint(masterA)}`);
    expect(masterKeyFingerprint(masterA)).toMatch(/^[0-9a-f]{16}$/);
    expect(masterKeyFingerprint(masterA)).not.toBe(masterKeyFingerprint(masterB));
    expect(masterKeyFingerprint(new Uint8Array(masterA))).toBe(masterKeyFingerprint(masterA));
  });
});

describe('envelope encryption: the recovery key', () => {
  let dir: string;
  let publicPem: string;
  let privatePem: string;
  beforeAll(() => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 3072 });
    publicPem = pair.publicKey.export({ format: 'pem', type: 'spki' }) as string;
    privatePem = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    dir = mkdtempSync(join(tmpdir(), 'vellum-recovery-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses anything but an RSA public key of 3072 bits or more', () => {
    const small = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'pem', type: 'spki' }) as string;
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'pem', type: 'spki' }) as string;
    for (const pem of [small, ec]) expect(() => createRecoveryKey(pem)).toThrow(/RSA public key of at least 3072 bits/);
    expect(() => createRecoveryKey('not a key')).toThrow(/not a PEM public key/);
    expect(createRecoveryKey(publicPem).id).toMatch(/^rsa:[0-9a-f]{16}$/);
  });

  it('brings the tenants’ keys back after the wrapping key is lost, and its copy opens with openssl alone', async () => {
    const { store, tenants } = await storeWithTenants(2);
    const recovery = createRecoveryKey(publicPem);
    const before = sealerOn(store, wrapperA, [wrapperA], { recovery });
    const sealed = new Map<string, string>();
    for (const t of tenants) sealed.set(t.id, await before.seal(t.id, bytes(`key of ${t.id}`), 'c'));
    const record = (await store.dataKeys.get((tenants[0] as ReturnType<typeof makeTenant>).id)) as DataKeyRecord;
    expect(record).toMatchObject({ recoveryKeyId: recovery.id, recoveryWrapped: expect.stringMatching(/^rsa-oaep-256\./) });

    // Someone else's code opens the copy: OpenSSL's RSA-OAEP with SHA-256 and the OAEP label.
    const copy = join(dir, 'copy.bin');
    const keyFile = join(dir, 'recovery.pem');
    writeFileSync(copy, Buffer.from((record.recoveryWrapped as string).split('.')[1] as string, 'base64url'));
    writeFileSync(keyFile, privatePem, { mode: 0o600 });
    const label = Buffer.from(`vellum-data-key:${record.tenantId}:${record.id}`).toString('hex');
    const byOpenSsl = execFileSync('openssl', [
      'pkeyutl',
      '-decrypt',
      '-inkey',
      keyFile,
      '-in',
      copy,
      '-pkeyopt',
      'rsa_padding_mode:oaep',
      '-pkeyopt',
      'rsa_oaep_md:sha256',
      '-pkeyopt',
      'rsa_mgf1_md:sha256',
      '-pkeyopt',
      `rsa_oaep_label:${label}`,
    ]);
    expect(new Uint8Array(byOpenSsl)).toEqual(await wrapperA.unwrap(record.wrapped, `vellum-data-key:${record.tenantId}:${record.id}`));

    // Wrapping key A is gone. A server on B cannot read, until recovery re-wraps from the copies.
    const after = sealerOn(store, wrapperB, [wrapperB], { recovery });
    const first = tenants[0] as ReturnType<typeof makeTenant>;
    await expect(after.open(first.id, sealed.get(first.id) as string, 'c')).rejects.toThrow(/does not have/);
    const otherPrivate = generateKeyPairSync('rsa', { modulusLength: 3072 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const wrong = await after.recover(otherPrivate, 10);
    expect(wrong.rewrapped).toBe(0);
    expect(wrong.failed).toHaveLength(2);
    expect(await after.recover(privatePem, 10)).toEqual({ rewrapped: 2, failed: [], more: false });
    for (const t of tenants) expect(text(await sealerOn(store, wrapperB).open(t.id, sealed.get(t.id) as string, 'c'))).toBe(`key of ${t.id}`);
    expect(() => openRecoveryCopy(privatePem, { ...record, recoveryWrapped: undefined })).toThrow(/has no recovery copy/);
  });

  it('gives data keys made before the recovery key their copy when the job passes', async () => {
    const { store, tenants } = await storeWithTenants(1);
    const tenant = tenants[0] as ReturnType<typeof makeTenant>;
    await sealerOn(store, wrapperA).seal(tenant.id, bytes('k'), 'c');
    expect((await store.dataKeys.get(tenant.id))?.recoveryKeyId).toBeUndefined();
    const recovery = createRecoveryKey(publicPem);
    expect(await sealerOn(store, wrapperA, [wrapperA], { recovery }).rewrap(10)).toEqual({ rewrapped: 1, failed: [], more: false });
    const record = (await store.dataKeys.get(tenant.id)) as DataKeyRecord;
    expect(record.recoveryKeyId).toBe(recovery.id);
    expect(openRecoveryCopy(privatePem, record)).toEqual(await wrapperA.unwrap(record.wrapped, `vellum-data-key:${tenant.id}:${record.id}`));
  });
});

describe('the KeyManager under data keys', () => {
  const sign = async (manager: ReturnType<typeof createKeyManager>, tenantId: string, keyId: string) => manager.sign(tenantId, keyId, bytes('hello'));

  it('seals new keys under the tenant’s data key when told to, and signs with them', async () => {
    const { store, tenants } = await storeWithTenants(1);
    const tenant = tenants[0] as ReturnType<typeof makeTenant>;
    const envelope = sealerOn(store, wrapperA);
    const manager = createKeyManager({ keys: store.keys, sealer: createSealer(masterA), envelope, sealUnderDataKeys: true, ids, clock: fakeClock() });
    const key = await manager.create(tenant.id, 'Ed25519');
    expect((await store.keys.get(tenant.id, key.id))?.sealed).toMatch(/^v2\./);
    expect(verify(null, bytes('hello'), { key: { ...key.publicJwk }, format: 'jwk' }, await sign(manager, tenant.id, key.id))).toBe(true);
    // Another server, with the envelope on or off for new keys, reads it; one without an envelope cannot.
    const reader = createKeyManager({ keys: store.keys, sealer: createSealer(masterA), envelope: sealerOn(store, wrapperA), ids, clock: fakeClock() });
    expect(verify(null, bytes('hello'), { key: { ...key.publicJwk }, format: 'jwk' }, await sign(reader, tenant.id, key.id))).toBe(true);
    const blind = createKeyManager({ keys: store.keys, sealer: createSealer(masterA), ids, clock: fakeClock() });
    await expect(sign(blind, tenant.id, key.id)).rejects.toThrow(/sealed under a data key/);
    expect(() => createKeyManager({ keys: store.keys, sealer: createSealer(masterA), sealUnderDataKeys: true, ids, clock: fakeClock() })).toThrow(/envelope/);
  });

  it('seals keys made under the master key alone again under data keys, keeping each key the same', async () => {
    const { store, tenants } = await storeWithTenants(2);
    const plain = createKeyManager({ keys: store.keys, sealer: createSealer(masterA), ids, clock: fakeClock() });
    const made = [];
    for (const t of tenants) for (const algorithm of ['P-256', 'Ed25519'] as const) made.push(await plain.create(t.id, algorithm));
    const envelope = sealerOn(store, wrapperA);
    const reseal = createKeyResealer({ keys: store.keys, sealer: createSealer(masterA), envelope });
    expect(await reseal(3)).toEqual({ resealed: 3, failed: [], more: true });
    expect(await reseal(3)).toEqual({ resealed: 1, failed: [], more: false });
    expect(await reseal(3)).toEqual({ resealed: 0, failed: [], more: false });
    const manager = createKeyManager({ keys: store.keys, sealer: createSealer(masterA), envelope, ids, clock: fakeClock() });
    for (const key of made) {
      expect((await store.keys.get(key.tenantId, key.id))?.sealed).toMatch(/^v2\./);
      const signature = await sign(manager, key.tenantId, key.id);
      const ok =
        key.algorithm === 'Ed25519'
          ? verify(null, bytes('hello'), { key: { ...key.publicJwk }, format: 'jwk' }, signature)
          : verify('sha256', bytes('hello'), { key: { ...key.publicJwk }, format: 'jwk', dsaEncoding: 'ieee-p1363' } as never, signature);
      expect(ok).toBe(true);
    }
    // The master key alone no longer opens them.
    await expect(sign(plain, made[0]!.tenantId, made[0]!.id)).rejects.toThrow(/sealed under a data key/);
  });
});
