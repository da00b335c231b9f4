// @vellum/crypto depends on no other adapter, so its tests bring their own small doubles.
import type { PlatformKeyRecord, PlatformKeyRepository } from '@vellum/core';

/** A PlatformKeyRepository in a Map, which the test can read (`records`). */
export function memoryKeys(): PlatformKeyRepository & { records: Map<string, PlatformKeyRecord> } {
  const records = new Map<string, PlatformKeyRecord>();
  return {
    records,
    async get(name) {
      return records.get(name);
    },
    async insertIfAbsent(record) {
      const existing = records.get(record.name);
      if (existing) return existing;
      records.set(record.name, { ...record });
      return record;
    },
    async replace(expectedSealed, record) {
      if (records.get(record.name)?.sealed !== expectedSealed) return false;
      records.set(record.name, { ...record });
      return true;
    },
  };
}
