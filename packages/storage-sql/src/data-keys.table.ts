import type { DataKeyRecord } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';

/** One row per tenant (migration 0031): its data key, wrapped, and encrypted to the recovery key when there is one. */
export interface DataKeysTable {
  tenant_id: string;
  id: string;
  wrapped: string;
  wrapping_key_id: string;
  recovery_wrapped: string | null;
  recovery_key_id: string | null;
  created_at: string;
  updated_at: string;
}

/** The wrapped forms of a data key as its columns: null for a recovery form it does not have. */
export function toDataKeyWrappingColumns(
  k: Pick<DataKeyRecord, 'wrapped' | 'wrappingKeyId' | 'recoveryWrapped' | 'recoveryKeyId' | 'updatedAt'>,
): Pick<DataKeysTable, 'wrapped' | 'wrapping_key_id' | 'recovery_wrapped' | 'recovery_key_id' | 'updated_at'> {
  return {
    wrapped: k.wrapped,
    wrapping_key_id: k.wrappingKeyId,
    recovery_wrapped: k.recoveryWrapped ?? null,
    recovery_key_id: k.recoveryKeyId ?? null,
    updated_at: k.updatedAt,
  };
}

/** Maps a stored data key row to the domain type. */
export function toDataKey(row: Selectable<DataKeysTable>): DataKeyRecord {
  return {
    tenantId: row.tenant_id,
    id: row.id,
    wrapped: row.wrapped,
    wrappingKeyId: row.wrapping_key_id,
    ...(row.recovery_wrapped !== null ? { recoveryWrapped: row.recovery_wrapped } : {}),
    ...(row.recovery_key_id !== null ? { recoveryKeyId: row.recovery_key_id } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps a data key record to the row that stores it. */
export function toDataKeyRow(k: DataKeyRecord): Insertable<DataKeysTable> {
  return { tenant_id: k.tenantId, id: k.id, ...toDataKeyWrappingColumns(k), created_at: k.createdAt };
}
