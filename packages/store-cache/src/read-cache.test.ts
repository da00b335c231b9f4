import { describe, expect, it } from 'vitest';
import type { Store, Tenant } from '@vellum/core';
import { createMemoryStore } from '@vellum/storage-memory';
import { cacheReads } from './read-cache.ts';

const tenant: Tenant = { id: 't1', subdomain: 'acme', region: 'eu01', name: 'Acme', loggingLevel: 1, createdAt: '2026-01-01T00:00:00.000Z' } as Tenant;

/** A memory store that counts the reads of tenants by subdomain that reach it. */
function countingStore() {
  const store = createMemoryStore();
  let reads = 0;
  const counted: Store = {
    ...store,
    tenants: {
      ...store.tenants,
      findBySubdomain: (subdomain) => {
        reads += 1;
        return store.tenants.findBySubdomain(subdomain);
      },
    },
  };
  return { store: counted, reads: () => reads };
}

function manualTime() {
  let t = 1000;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('cacheReads', () => {
  it('reads a tenant once within the time to live, and again after it', async () => {
    const { store, reads } = countingStore();
    await store.tenants.insert(tenant);
    const time = manualTime();
    const cached = cacheReads(store, { ttlMs: 1000, now: time.now });
    expect((await cached.tenants.findBySubdomain('acme'))?.id).toBe('t1');
    expect((await cached.tenants.findBySubdomain('acme'))?.id).toBe('t1');
    expect(reads()).toBe(1);
    time.advance(1001);
    await cached.tenants.findBySubdomain('acme');
    expect(reads()).toBe(2);
  });

  it('shows its own write at once, and another process’s only after the time to live', async () => {
    const { store } = countingStore();
    await store.tenants.insert(tenant);
    const time = manualTime();
    const here = cacheReads(store, { ttlMs: 1000, now: time.now });
    const elsewhere = cacheReads(store, { ttlMs: 1000, now: time.now });
    await here.tenants.findBySubdomain('acme');
    await elsewhere.tenants.findBySubdomain('acme');
    await here.tenants.setLoggingLevel('t1', 3);
    expect((await here.tenants.findBySubdomain('acme'))?.loggingLevel).toBe(3);
    expect((await elsewhere.tenants.findBySubdomain('acme'))?.loggingLevel).toBe(1);
    time.advance(1001);
    expect((await elsewhere.tenants.findBySubdomain('acme'))?.loggingLevel).toBe(3);
  });

  it('forgets what a transaction wrote once it commits', async () => {
    const { store } = countingStore();
    await store.tenants.insert(tenant);
    const cached = cacheReads(store, { ttlMs: 60_000, now: manualTime().now });
    await cached.tenants.findBySubdomain('acme');
    await cached.transaction((tx) => tx.tenants.setLoggingLevel('t1', 2));
    expect((await cached.tenants.findBySubdomain('acme'))?.loggingLevel).toBe(2);
  });

  it('counts any method it does not know as a read as a write: one added to a port later empties the cache too', async () => {
    const { store, reads } = countingStore();
    await store.tenants.insert(tenant);
    const withNewWrite = { ...store, tenants: { ...store.tenants, rename: async () => undefined } } as Store;
    const cached = cacheReads(withNewWrite, { ttlMs: 60_000, now: manualTime().now });
    await cached.tenants.findBySubdomain('acme');
    await (cached.tenants as typeof cached.tenants & { rename(): Promise<void> }).rename();
    await cached.tenants.findBySubdomain('acme');
    expect(reads()).toBe(2);
  });

  it('does not keep a row read before a write that finished while the read was on its way', async () => {
    const base = createMemoryStore();
    await base.tenants.insert(tenant);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const slow: Store = {
      ...base,
      tenants: {
        ...base.tenants,
        findBySubdomain: async (subdomain) => {
          const row = await base.tenants.findBySubdomain(subdomain);
          await gate;
          return row;
        },
      },
    };
    const cached = cacheReads(slow, { ttlMs: 60_000, now: manualTime().now });
    const stale = cached.tenants.findBySubdomain('acme');
    await cached.tenants.setLoggingLevel('t1', 3);
    release();
    expect((await stale)?.loggingLevel).toBe(1);
    // The stale row was not kept: the next read sees the write.
    expect((await cached.tenants.findBySubdomain('acme'))?.loggingLevel).toBe(3);
  });

  it('caches custom domains, configurations and keys, and forgets them on their writes', async () => {
    const store = createMemoryStore();
    await store.tenants.insert(tenant);
    const cached = cacheReads(store, { ttlMs: 60_000, now: manualTime().now });
    expect(await cached.keys.get('t1', 'k1')).toBeUndefined();
    await cached.keys.insert({
      id: 'k1',
      tenantId: 't1',
      algorithm: 'P-256',
      publicJwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' },
      sealed: 's',
      createdAt: tenant.createdAt,
    });
    expect((await cached.keys.get('t1', 'k1'))?.id).toBe('k1');
    await cached.keys.delete('t1', 'k1');
    expect(await cached.keys.get('t1', 'k1')).toBeUndefined();
    expect(await cached.customDomains.get('t1')).toBeUndefined();
    await cached.customDomains.insert({
      tenantId: 't1',
      domain: 'id.acme.test',
      verificationToken: 'v',
      isVerified: false,
      createdAt: tenant.createdAt,
      updatedAt: tenant.createdAt,
    });
    expect((await cached.customDomains.get('t1'))?.domain).toBe('id.acme.test');
  });

  it('caches the admin client behind a token: its own revocation shows at once, another server’s within the time to live', async () => {
    const store = createMemoryStore();
    await store.tenants.insert(tenant);
    const admin = { clientId: 'c1', tenantId: 't1', role: 'admin', name: 'one', secretHash: 'h', secretVersion: 1, createdAt: tenant.createdAt } as const;
    await store.clients.insert(admin);
    await store.clients.insert({ ...admin, clientId: 'c2', name: 'two' });
    const time = manualTime();
    const here = cacheReads(store, { ttlMs: 1000, now: time.now });
    const elsewhere = cacheReads(store, { ttlMs: 1000, now: time.now });
    expect((await here.clients.findByClientId('c2'))?.revokedAt).toBeUndefined();
    expect((await elsewhere.clients.findByClientId('c2'))?.revokedAt).toBeUndefined();
    expect(await here.clients.revoke('t1', 'c2', '2026-01-02T00:00:00.000Z')).toBe('revoked');
    expect((await here.clients.findByClientId('c2'))?.revokedAt).toBe('2026-01-02T00:00:00.000Z');
    expect((await elsewhere.clients.findByClientId('c2'))?.revokedAt).toBeUndefined();
    time.advance(1001);
    expect((await elsewhere.clients.findByClientId('c2'))?.revokedAt).toBe('2026-01-02T00:00:00.000Z');
  });

  it('hands out frozen rows, so one caller cannot change another’s', async () => {
    const store = createMemoryStore();
    await store.tenants.insert(tenant);
    const cached = cacheReads(store, { ttlMs: 60_000, now: manualTime().now });
    const row = (await cached.tenants.findById('t1')) as Tenant;
    expect(() => {
      (row as { name: string }).name = 'Changed';
    }).toThrow(TypeError);
  });

  it('keeps a row that holds bytes (which cannot be frozen) without failing the read', async () => {
    const store = createMemoryStore();
    const withBytes: Store = { ...store, tenants: { ...store.tenants, findById: async () => ({ ...tenant, logo: new Uint8Array([1, 2]) }) as Tenant } };
    const cached = cacheReads(withBytes, { ttlMs: 60_000, now: manualTime().now });
    const row = (await cached.tenants.findById('t1')) as Tenant & { logo: Uint8Array };
    expect(row.logo).toEqual(new Uint8Array([1, 2]));
    expect(Object.isFrozen(row)).toBe(true);
  });

  it('is the store itself when the time to live is 0', () => {
    const store = createMemoryStore();
    expect(cacheReads(store, { ttlMs: 0 })).toBe(store);
  });
});
