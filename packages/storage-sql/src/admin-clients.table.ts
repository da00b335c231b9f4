import type { AdminClient, Role } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import type { Seq } from './database.ts';

export interface AdminClientsTable {
  seq: Seq;
  client_id: string;
  tenant_id: string;
  role: string;
  name: string;
  secret_hash: string;
  created_at: string;
}

/** Maps a stored admin client row to the domain type. */
export function toAdminClient(row: Selectable<AdminClientsTable>): AdminClient {
  return {
    clientId: row.client_id,
    tenantId: row.tenant_id,
    role: row.role as Role,
    name: row.name,
    secretHash: row.secret_hash,
    createdAt: row.created_at,
  };
}

/** Maps a domain admin client to the row that stores it. */
export function toAdminClientRow(c: AdminClient): Insertable<AdminClientsTable> {
  return { client_id: c.clientId, tenant_id: c.tenantId, role: c.role, name: c.name, secret_hash: c.secretHash, created_at: c.createdAt };
}
