import type { PlatformKeyRecord } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import type { Seq } from './database.ts';

export interface PlatformKeysTable {
  seq: Seq;
  name: string;
  sealed: string;
  created_at: string;
}

/** Maps a stored platform key row to the domain type. */
export function toPlatformKey(row: Selectable<PlatformKeysTable>): PlatformKeyRecord {
  return { name: row.name, sealed: row.sealed, createdAt: row.created_at };
}

/** Maps a platform key record to the row that stores it. */
export function toPlatformKeyRow(k: PlatformKeyRecord): Insertable<PlatformKeysTable> {
  return { name: k.name, sealed: k.sealed, created_at: k.createdAt };
}
