import type { LoggingLevel, Region, Tenant } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import type { Seq } from './database.ts';

export interface TenantsTable {
  seq: Seq;
  id: string;
  subdomain: string;
  region: string;
  name: string;
  logging_level: number;
  created_at: string;
}

/** Maps a stored tenant row to the domain type. */
export function toTenant(row: Selectable<TenantsTable>): Tenant {
  return {
    id: row.id,
    subdomain: row.subdomain,
    // The core validated these before they were written; the schema does not repeat the lists.
    region: row.region as Region,
    name: row.name,
    loggingLevel: row.logging_level as LoggingLevel,
    createdAt: row.created_at,
  };
}

/** Maps a domain tenant to the row that stores it. */
export function toTenantRow(t: Tenant): Insertable<TenantsTable> {
  return { id: t.id, subdomain: t.subdomain, region: t.region, name: t.name, logging_level: t.loggingLevel, created_at: t.createdAt };
}
