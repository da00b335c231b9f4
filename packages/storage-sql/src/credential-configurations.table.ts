import { randomUUID } from 'node:crypto';
import type { CredentialConfiguration } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import type { Seq } from './database.ts';

export interface CredentialConfigurationsTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  format: string;
  /** Unique per tenant and format: the rule is the index (tenant_id, format, type). */
  type: string;
  /** JSON of every other field of the configuration, which differ by format. */
  body: string;
  /** Random, new on every insert and update (ConfigurationStamp). */
  revision: string;
  created_at: string;
  updated_at: string;
}

type Columns = 'id' | 'tenantId' | 'format' | 'type' | 'createdAt' | 'updatedAt';

/** Maps a stored configuration row to the domain type. */
export function toCredentialConfiguration(row: Selectable<CredentialConfigurationsTable>): CredentialConfiguration {
  return {
    ...(JSON.parse(row.body) as Record<string, unknown>),
    id: row.id,
    tenantId: row.tenant_id,
    format: row.format,
    type: row.type,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  } as CredentialConfiguration;
}

/** Maps a configuration to the row that stores it, with a new revision. */
export function toCredentialConfigurationRow(c: CredentialConfiguration): Insertable<CredentialConfigurationsTable> {
  const { id, tenantId, format, type, createdAt, updatedAt, ...body } = c satisfies Record<Columns, unknown>;
  return { id, tenant_id: tenantId, format, type, body: JSON.stringify(body), revision: randomUUID(), created_at: createdAt, updated_at: updatedAt };
}
