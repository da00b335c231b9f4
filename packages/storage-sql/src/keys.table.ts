import type { KeyCustody, StoredKey } from '@vellum/core';
import type { ColumnType, Insertable, Selectable } from 'kysely';
import type { Seq } from './database.ts';

export interface KeysTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  algorithm: string;
  public_jwk: string;
  sealed: string;
  /** `software` or `pkcs11` (migration 0030); `software` for rows from before it. */
  custody: ColumnType<string, string | undefined, string>;
  created_at: string;
}

/** Maps a stored key row to the domain type. */
export function toStoredKey(row: Selectable<KeysTable>): StoredKey {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    algorithm: row.algorithm as StoredKey['algorithm'],
    publicJwk: JSON.parse(row.public_jwk) as StoredKey['publicJwk'],
    sealed: row.sealed,
    ...(row.custody !== 'software' ? { custody: row.custody as KeyCustody } : {}),
    createdAt: row.created_at,
  };
}

/** Maps a key to the row that stores it. */
export function toKeyRow(k: StoredKey): Insertable<KeysTable> {
  return {
    id: k.id,
    tenant_id: k.tenantId,
    algorithm: k.algorithm,
    public_jwk: JSON.stringify(k.publicJwk),
    sealed: k.sealed,
    custody: k.custody ?? 'software',
    created_at: k.createdAt,
  };
}
