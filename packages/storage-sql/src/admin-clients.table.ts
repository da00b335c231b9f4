import type { AdminClient, Role } from '@vellum/core';
import type { Generated, Insertable, Selectable } from 'kysely';
import type { Seq } from './database.ts';

export interface AdminClientsTable {
  seq: Seq;
  client_id: string;
  tenant_id: string;
  role: string;
  name: string;
  secret_hash: string;
  /** Migration 0012_admin_client_revocation; existing clients start at 1. */
  secret_version: Generated<number>;
  created_at: string;
  rotated_at: string | null;
  revoked_at: string | null;
}

/** Maps a stored admin client row to the domain type. */
export function toAdminClient(row: Selectable<AdminClientsTable>): AdminClient {
  return {
    clientId: row.client_id,
    tenantId: row.tenant_id,
    role: row.role as Role,
    name: row.name,
    secretHash: row.secret_hash,
    secretVersion: Number(row.secret_version),
    createdAt: row.created_at,
    ...(row.rotated_at !== null ? { rotatedAt: row.rotated_at } : {}),
    ...(row.revoked_at !== null ? { revokedAt: row.revoked_at } : {}),
  };
}

/** Maps a domain admin client to the row that stores it. */
export function toAdminClientRow(c: AdminClient): Insertable<AdminClientsTable> {
  return {
    client_id: c.clientId,
    tenant_id: c.tenantId,
    role: c.role,
    name: c.name,
    secret_hash: c.secretHash,
    secret_version: c.secretVersion,
    created_at: c.createdAt,
    rotated_at: c.rotatedAt ?? null,
    revoked_at: c.revokedAt ?? null,
  };
}
