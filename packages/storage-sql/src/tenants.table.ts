import type { IssuerDisplay, KeyCustody, LoggingLevel, Region, Tenant, TenantRetention } from '@vellum/core';
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
  /** Null: the default (docs/retention.md). */
  event_retention_days: number | null;
  webhook_delivery_retention_days: number | null;
  /** The issuer display as JSON text (an array of { name, locale?, logo? }); null: none (migration 0021). */
  issuer_display: string | null;
  /** The batch size (2 to 100); null: 1, one proof per request (migration 0025). */
  batch_size: number | null;
  /** Where the tenant's new keys are made, `software` or `pkcs11`; null: the platform's choice (migration 0030). */
  key_custody: string | null;
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
    ...retentionOfRow(row),
    // The core checked the entries before they were written.
    ...(row.issuer_display !== null ? { issuerDisplay: JSON.parse(row.issuer_display) as IssuerDisplay[] } : {}),
    ...(row.batch_size !== null && row.batch_size > 1 ? { batchSize: Number(row.batch_size) } : {}),
    ...(row.key_custody !== null ? { keyCustody: row.key_custody as KeyCustody } : {}),
  };
}

/** The retention periods a row sets (absent where it holds null). */
function retentionOfRow(row: Pick<Selectable<TenantsTable>, 'event_retention_days' | 'webhook_delivery_retention_days'>): TenantRetention {
  return {
    ...(row.event_retention_days !== null ? { eventRetentionDays: row.event_retention_days } : {}),
    ...(row.webhook_delivery_retention_days !== null ? { webhookDeliveryRetentionDays: row.webhook_delivery_retention_days } : {}),
  };
}

/** The columns that store a tenant's retention periods (null: the default). */
export function toRetentionColumns(r: TenantRetention): Pick<TenantsTable, 'event_retention_days' | 'webhook_delivery_retention_days'> {
  return { event_retention_days: r.eventRetentionDays ?? null, webhook_delivery_retention_days: r.webhookDeliveryRetentionDays ?? null };
}

/** The column that stores a tenant's issuer display (null: none, as an empty list is). */
export function toIssuerDisplayColumn(display: readonly IssuerDisplay[] | undefined): Pick<TenantsTable, 'issuer_display'> {
  return { issuer_display: display && display.length > 0 ? JSON.stringify(display) : null };
}

/** The column that stores a tenant's batch size (null: 1, the default). */
export function toBatchSizeColumn(batchSize: number | undefined): Pick<TenantsTable, 'batch_size'> {
  return { batch_size: batchSize !== undefined && batchSize > 1 ? batchSize : null };
}

/** Maps a domain tenant to the row that stores it. */
export function toTenantRow(t: Tenant): Insertable<TenantsTable> {
  return {
    id: t.id,
    subdomain: t.subdomain,
    region: t.region,
    name: t.name,
    logging_level: t.loggingLevel,
    created_at: t.createdAt,
    ...toRetentionColumns(t),
    ...toIssuerDisplayColumn(t.issuerDisplay),
    ...toBatchSizeColumn(t.batchSize),
    key_custody: t.keyCustody ?? null,
  };
}
