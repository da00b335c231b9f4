import type { DidRecord } from '@vellum/core';
import type { ColumnType, Insertable, Selectable } from 'kysely';
import type { Seq } from './database.ts';

export interface DidsTable {
  seq: Seq;
  tenant_id: string;
  did: string;
  method: string;
  /** JSON array of the DID's keys: document key id, KeyManager id, algorithm, public JWK. */
  keys: string;
  created_at: string;
  /** How many times the keys were rotated (migration 0033): part of the DID's stamp. */
  keys_revision: ColumnType<number, number | undefined, number>;
}

/** Maps a stored DID row to the domain type. */
export function toDidRecord(row: Selectable<DidsTable>): DidRecord {
  return {
    tenantId: row.tenant_id,
    did: row.did,
    method: row.method as DidRecord['method'],
    keys: JSON.parse(row.keys) as DidRecord['keys'],
    createdAt: row.created_at,
  };
}

/** Maps a DID to the row that stores it. */
export function toDidRow(d: DidRecord): Insertable<DidsTable> {
  return { tenant_id: d.tenantId, did: d.did, method: d.method, keys: JSON.stringify(d.keys), created_at: d.createdAt };
}
