import type { CustomDomain } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import { fromSqlBoolean, type Seq, type SqlBoolean, type SqlDialectKind, toSqlBoolean } from './database.ts';

export interface CustomDomainsTable {
  seq: Seq;
  tenant_id: string;
  domain: string;
  name: string | null;
  logo_url: string | null;
  verification_token: string;
  is_verified: SqlBoolean;
  verified_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Maps a stored custom domain row to the domain type; null columns become absent fields. */
export function toCustomDomain(row: Selectable<CustomDomainsTable>): CustomDomain {
  return {
    tenantId: row.tenant_id,
    ...(row.name === null ? {} : { name: row.name }),
    ...(row.logo_url === null ? {} : { logoUrl: row.logo_url }),
    domain: row.domain,
    verificationToken: row.verification_token,
    isVerified: fromSqlBoolean(row.is_verified),
    ...(row.verified_at === null ? {} : { verifiedAt: row.verified_at }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps a domain custom domain to the row that stores it, whole (an update replaces every column). */
export function toCustomDomainRow(d: CustomDomain, kind: SqlDialectKind): Insertable<CustomDomainsTable> {
  return {
    tenant_id: d.tenantId,
    domain: d.domain,
    name: d.name ?? null,
    logo_url: d.logoUrl ?? null,
    verification_token: d.verificationToken,
    is_verified: toSqlBoolean(kind, d.isVerified),
    verified_at: d.verifiedAt ?? null,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}
