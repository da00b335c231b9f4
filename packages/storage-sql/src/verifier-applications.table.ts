// Verifier applications on Kysely (ports.ts: VerifierApplicationRepository; docs/verification.md
// "Verifier applications"): the row type, its mapping and the repository. Migration
// 0028_verifier_applications creates the table.

import type { ClientIdPrefix, Repositories, VerifierApplication, VerifierX509 } from '@vellum/core';
import type { Insertable, Selectable } from 'kysely';
import type { Executor, Seq, SqlDialectKind } from './database.ts';
import { refusingDuplicates } from './errors.ts';
import { atomically, deleteOwned, findOwned, listOwned, lockTenant, updateOwned } from './queries.ts';

export interface VerifierApplicationsTable {
  seq: Seq;
  tenant_id: string;
  id: string;
  name: string;
  client_id_prefix: string;
  /** JSON of `{ responseModes, redirectUris, display?, did? }`. */
  settings: string;
  /** JSON of the x509_hash key id, CSR and chain; null for the other prefixes. */
  x509: string | null;
  created_at: string;
  updated_at: string;
}

type Settings = Pick<VerifierApplication, 'responseModes' | 'redirectUris' | 'display' | 'did'>;

/** Maps a stored verifier application row to the domain type. */
export function toVerifierApplication(row: Selectable<VerifierApplicationsTable>): VerifierApplication {
  const settings = JSON.parse(row.settings) as Settings;
  return {
    tenantId: row.tenant_id,
    id: row.id,
    name: row.name,
    clientIdPrefix: row.client_id_prefix as ClientIdPrefix,
    responseModes: settings.responseModes,
    redirectUris: settings.redirectUris,
    ...(settings.display ? { display: settings.display } : {}),
    ...(settings.did !== undefined ? { did: settings.did } : {}),
    ...(row.x509 !== null ? { x509: JSON.parse(row.x509) as VerifierX509 } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps a domain verifier application to the row that stores it. */
export function toVerifierApplicationRow(a: VerifierApplication): Insertable<VerifierApplicationsTable> {
  const settings: Settings = {
    responseModes: a.responseModes,
    redirectUris: a.redirectUris,
    ...(a.display ? { display: a.display } : {}),
    ...(a.did !== undefined ? { did: a.did } : {}),
  };
  return {
    tenant_id: a.tenantId,
    id: a.id,
    name: a.name,
    client_id_prefix: a.clientIdPrefix,
    settings: JSON.stringify(settings),
    x509: a.x509 ? JSON.stringify(a.x509) : null,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

/** Builds the verifier application repository on `db`, a Kysely instance or a transaction. */
export function verifierApplicationRepositoriesOn(db: Executor, kind: SqlDialectKind): Pick<Repositories, 'verifierApplications'> {
  return {
    verifierApplications: {
      async insert(application, limit) {
        return refusingDuplicates(
          // The count and the insert under the tenant's lock, so racing creates never pass the limit together.
          atomically(db, async (tx) => {
            await lockTenant(tx, kind, application.tenantId);
            const { count } = await tx
              .selectFrom('verifier_applications')
              .select((eb) => eb.fn.countAll().as('count'))
              .where('tenant_id', '=', application.tenantId)
              .executeTakeFirstOrThrow();
            if (Number(count) >= limit) return false;
            await tx.insertInto('verifier_applications').values(toVerifierApplicationRow(application)).execute();
            return true;
          }),
          'Verifier application id exists',
        );
      },
      async get(tenantId, id) {
        return findOwned(db, 'verifier_applications', tenantId, id, toVerifierApplication);
      },
      async list(tenantId, page) {
        return listOwned(db, 'verifier_applications', tenantId, page, toVerifierApplication);
      },
      async update(application) {
        // The tenant, the id and the creation time never change.
        const { tenant_id, id, created_at, ...columns } = toVerifierApplicationRow(application);
        return updateOwned(db, 'verifier_applications', tenant_id, id, columns);
      },
      async delete(tenantId, id) {
        return deleteOwned(db, 'verifier_applications', tenantId, id);
      },
    },
  };
}
