import { createPrivateKey } from 'node:crypto';
import { fakeClock, makeTenant } from '@vellum/testing';
import { compactVerify, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { createKeyManager } from './key-manager.ts';
import { memoryKeyManager } from '../test/key-manager.ts';
import { createSealer } from './sealer.ts';

const b64u = (b: Uint8Array | string) => Buffer.from(b).toString('base64url');

async function setup() {
  const { store, keys: manager, tenant, ids } = await memoryKeyManager({ masterByte: 1 });
  return { store, manager, tenant, ids };
}

/** Builds a compact JWS with the KeyManager's signature, for a verifier we did not write to check. */
async function jws(manager: ReturnType<typeof createKeyManager>, tenantId: string, keyId: string, alg: 'EdDSA' | 'ES256') {
  const input = `${b64u(JSON.stringify({ alg }))}.${b64u('hello')}`;
  const signature = await manager.sign(tenantId, keyId, new TextEncoder().encode(input));
  return `${input}.${b64u(signature)}`;
}

describe('KeyManager (issue 3: keys held for tenants)', () => {
  it.each([
    ['Ed25519', 'EdDSA'],
    ['P-256', 'ES256'],
  ] as const)('creates %s keys whose signatures verify against the public JWK (%s)', async (algorithm, alg) => {
    const { manager, tenant } = await setup();
    const key = await manager.create(tenant.id, algorithm);
    expect(key).toMatchObject({ tenantId: tenant.id, algorithm, publicJwk: { crv: algorithm } });
    expect(key).not.toHaveProperty('sealed');
    const signature = await manager.sign(tenant.id, key.id, new Uint8Array([1, 2, 3]));
    expect(signature).toHaveLength(64);
    const verified = await compactVerify(await jws(manager, tenant.id, key.id, alg), await importJWK({ ...key.publicJwk }, alg));
    expect(new TextDecoder().decode(verified.payload)).toBe('hello');
  });

  it('keeps key ids stable: a second manager on the same store signs with the same key', async () => {
    const { store, manager, tenant, ids } = await setup();
    const key = await manager.create(tenant.id, 'P-256');
    const again = createKeyManager({ keys: store.keys, sealer: createSealer(new Uint8Array(32).fill(1)), ids, clock: fakeClock() });
    expect(await again.get(tenant.id, key.id)).toEqual(key);
    await compactVerify(await jws(again, tenant.id, key.id, 'ES256'), await importJWK({ ...key.publicJwk }, 'ES256'));
  });

  it('stores only a sealed private key: no form of the key appears in the stored row', async () => {
    const { store, manager, tenant } = await setup();
    const key = await manager.create(tenant.id, 'Ed25519');
    const row = await store.keys.get(tenant.id, key.id);
    expect(row?.sealed).toMatch(/^v1\./);
    // Open it the way the manager does, to know what the private key is, then look for it.
    const der = createSealer(new Uint8Array(32).fill(1)).open(row!.sealed, `vellum-key:${tenant.id}:${key.id}`);
    const d = createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' }).export({ format: 'jwk' }).d as string;
    const text = JSON.stringify(row);
    for (const form of [d, Buffer.from(d, 'base64url').toString('base64'), Buffer.from(der).toString('base64'), Buffer.from(der).toString('hex')]) {
      expect(text).not.toContain(form);
    }
  });

  it('refuses a wrong master key loudly', async () => {
    const { store, manager, tenant, ids } = await setup();
    const key = await manager.create(tenant.id, 'P-256');
    const wrong = createKeyManager({ keys: store.keys, sealer: createSealer(new Uint8Array(32).fill(9)), ids, clock: fakeClock() });
    await expect(wrong.sign(tenant.id, key.id, new Uint8Array([1]))).rejects.toThrow(/master key does not match/);
  });

  it('destroys keys for good, and never signs for another tenant', async () => {
    const { store, manager, tenant } = await setup();
    const other = makeTenant();
    await store.tenants.insert(other);
    const key = await manager.create(tenant.id, 'Ed25519');
    await expect(manager.sign(other.id, key.id, new Uint8Array([1]))).rejects.toMatchObject({ code: 'NotFound' });
    await manager.sign(tenant.id, key.id, new Uint8Array([1])); // warm the cache
    expect(await manager.destroy(tenant.id, key.id)).toBe(true);
    await expect(manager.sign(tenant.id, key.id, new Uint8Array([1]))).rejects.toMatchObject({ code: 'NotFound' });
    expect(await manager.get(tenant.id, key.id)).toBeUndefined();
    expect(await manager.destroy(tenant.id, key.id)).toBe(false);
  });
});
