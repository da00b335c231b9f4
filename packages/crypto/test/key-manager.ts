// The real KeyManager over the memory store, with one tenant in it: what the crypto tests sign
// with, and the formats tests after them (packages/formats/test/fixtures.ts).
import type { Clock } from '@vellum/core';
import { createMemoryStore } from '@vellum/storage-memory';
import { fakeClock, makeTenant } from '@vellum/testing';
import { createKeyManager } from '../src/key-manager.ts';
import { createSealer } from '../src/sealer.ts';

/** `masterByte` fills the 32-byte master key the private keys are sealed with. */
export async function memoryKeyManager(options: { clock?: Clock; masterByte?: number } = {}) {
  const store = createMemoryStore();
  const ids = { uuid: () => crypto.randomUUID(), token: () => 'unused', bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) };
  const sealer = createSealer(new Uint8Array(32).fill(options.masterByte ?? 9));
  const keys = createKeyManager({ keys: store.keys, sealer, ids, clock: options.clock ?? fakeClock() });
  const tenant = makeTenant();
  await store.tenants.insert(tenant);
  return { store, ids, sealer, keys, tenant };
}
