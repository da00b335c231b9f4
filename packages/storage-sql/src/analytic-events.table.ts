import type { AnalyticEvent } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import type { Seq } from './database.ts';

export interface AnalyticEventsTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  type: string;
  category: string;
  /** ISO 8601 in UTC, so text order is time order (PostgreSQL compares it with collation "C"). */
  timestamp: string;
  request_id: string;
  request_ip: string;
  client_id: string | null;
  user_agent: string | null;
  /** JSON text. */
  data: string | null;
}

/** Maps a stored event row to the domain type; null columns become absent fields. */
export function toAnalyticEvent(row: Selectable<AnalyticEventsTable>): AnalyticEvent {
  return {
    id: row.id,
    type: row.type,
    category: row.category,
    timestamp: row.timestamp,
    tenantId: row.tenant_id,
    requestId: row.request_id,
    requestIp: row.request_ip,
    ...(row.client_id === null ? {} : { clientId: row.client_id }),
    ...(row.user_agent === null ? {} : { userAgent: row.user_agent }),
    ...(row.data === null ? {} : { data: JSON.parse(row.data) as Record<string, unknown> }),
  };
}

/** Maps a domain event to the row that stores it. */
export function toAnalyticEventRow(e: AnalyticEvent): Insertable<AnalyticEventsTable> {
  return {
    id: e.id,
    tenant_id: e.tenantId,
    type: e.type,
    category: e.category,
    timestamp: e.timestamp,
    request_id: e.requestId,
    request_ip: e.requestIp,
    client_id: e.clientId ?? null,
    user_agent: e.userAgent ?? null,
    data: e.data === undefined ? null : JSON.stringify(e.data),
  };
}
