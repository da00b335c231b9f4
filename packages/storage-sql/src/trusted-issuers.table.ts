// Trusted issuers on Kysely (ports.ts: TrustedIssuerRepository; docs/verification.md): the row type,
// its mapping and the repository. Migration 0027_trusted_issuers creates the table.

import type { CredentialFormat, Repositories, TrustedIssuer } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import type { Executor, Seq, SqlDialectKind } from './database.ts';
import { refusingDuplicates } from './errors.ts';
import { atomically, deleteOwned, findOwned, listOwned, lockTenant, updateOwned } from './queries.ts';

export interface TrustedIssuersTable {
  seq: Seq;
  tenant_id: string;
  id: string;
  name: string;
  /** JSON array of credential formats. */
  formats: string;
  /** JSON array of vcts or docTypes; null: any. */
  types: string | null;
  /** JSON of the one anchor: `{ certificates }` or `{ did }`. */
  anchors: string;
  created_at: string;
  updated_at: string;
}

type Anchors = Pick<TrustedIssuer, 'certificates' | 'did'>;

/** Maps a stored trusted issuer row to the domain type. */
export function toTrustedIssuer(row: Selectable<TrustedIssuersTable>): TrustedIssuer {
  const anchors = JSON.parse(row.anchors) as Anchors;
  return {
    tenantId: row.tenant_id,
    id: row.id,
    name: row.name,
    formats: JSON.parse(row.formats) as CredentialFormat[],
    ...(row.types !== null ? { types: JSON.parse(row.types) as string[] } : {}),
    ...(anchors.certificates ? { certificates: anchors.certificates } : {}),
    ...(anchors.did !== undefined ? { did: anchors.did } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps a domain trusted issuer to the row that stores it. */
export function toTrustedIssuerRow(t: TrustedIssuer): Insertable<TrustedIssuersTable> {
  const anchors: Anchors = { ...(t.certificates ? { certificates: t.certificates } : {}), ...(t.did !== undefined ? { did: t.did } : {}) };
  return {
    tenant_id: t.tenantId,
    id: t.id,
    name: t.name,
    formats: JSON.stringify(t.formats),
    types: t.types ? JSON.stringify(t.types) : null,
    anchors: JSON.stringify(anchors),
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
}

/** Builds the trusted issuer repository on `db`, a Kysely instance or a transaction. */
export function trustedIssuerRepositoriesOn(db: Executor, kind: SqlDialectKind): Pick<Repositories, 'trustedIssuers'> {
  return {
    trustedIssuers: {
      async insert(issuer, limit) {
        return refusingDuplicates(
          // The count and the insert under the tenant's lock, so racing creates never pass the limit together.
          atomically(db, async (tx) => {
            await lockTenant(tx, kind, issuer.tenantId);
            const { count } = await tx
              .selectFrom('trusted_issuers')
              .select((eb) => eb.fn.countAll().as('count'))
              .where('tenant_id', '=', issuer.tenantId)
              .executeTakeFirstOrThrow();
            if (Number(count) >= limit) return false;
            await tx.insertInto('trusted_issuers').values(toTrustedIssuerRow(issuer)).execute();
            return true;
          }),
          'Trusted issuer id exists',
        );
      },
      async get(tenantId, id) {
        return findOwned(db, 'trusted_issuers', tenantId, id, toTrustedIssuer);
      },
      async list(tenantId, page) {
        return listOwned(db, 'trusted_issuers', tenantId, page, toTrustedIssuer);
      },
      async update(issuer) {
        // The tenant, the id and the creation time never change.
        const { tenant_id, id, created_at, ...columns } = toTrustedIssuerRow(issuer);
        return updateOwned(db, 'trusted_issuers', tenant_id, id, columns);
      },
      async delete(tenantId, id) {
        return deleteOwned(db, 'trusted_issuers', tenantId, id);
      },
    },
  };
}
