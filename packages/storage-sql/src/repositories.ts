// Every repository on one Kysely executor: the store's own instance for direct calls, or a
// transaction inside `store.transaction`. Tenant-owned tables are always queried by tenant_id,
// except the two lookups the ports define as global (client id, verified domain name).

import { presentationSessionRepositoriesOn } from './presentation-sessions.table.ts';
import { refreshTokenRepositoriesOn } from './refresh-tokens.table.ts';
import { type AnalyticEvent, notFound, type EventFilter, type PageRequest, type Repositories, type Slice } from '@vellum/core';
import { type Insertable, sql, type SqlBool } from 'kysely';
import { toAdminClient, toAdminClientRow } from './admin-clients.table.ts';
import { toAnalyticEvent, toAnalyticEventRow } from './analytic-events.table.ts';
import { compiledOnce } from './compiled-once.ts';
import { toCredentialConfiguration, toCredentialConfigurationRow } from './credential-configurations.table.ts';
import { toCustomDomain, toCustomDomainRow } from './custom-domains.table.ts';
import { toDataKey, toDataKeyRow, toDataKeyWrappingColumns } from './data-keys.table.ts';
import { type Executor, type SqlDialectKind, toSqlBoolean } from './database.ts';
import { toDidRecord, toDidRow } from './dids.table.ts';
import { type IssuedCredentialsTable, toIssuedCredential, toIssuedCredentialRow } from './issued-credentials.table.ts';
import { refusingDuplicates } from './errors.ts';
import {
  allOwned,
  atomically,
  compiledFindOwned,
  deleteOwned,
  findOwned,
  findOwnedBy,
  listOwned,
  lockTenant,
  pageOf,
  toSlice,
  updateOwned,
} from './queries.ts';
import { toKeyRow, toStoredKey } from './keys.table.ts';
import { toDocumentSignerRecord, toDocumentSignerRow, toIacaRecord, toIacaRevocation, toIacaRow } from './mdoc-pki.table.ts';
import { toPlatformKey, toPlatformKeyRow } from './platform-keys.table.ts';
import { toBatchSizeColumn, toIssuerDisplayColumn, toRetentionColumns, toTenant, toTenantRow } from './tenants.table.ts';
import { deleteBatch, leaseRepositoryOn } from './retention.table.ts';
import { webhookRepositoriesOn } from './webhook-repositories.ts';
import { offerRepositoriesOn } from './offer-repositories.ts';
import { walletClientRepositoriesOn } from './wallet-clients.table.ts';
import { walletProviderRepositoriesOn } from './wallet-providers.table.ts';
import { trustedIssuerRepositoriesOn } from './trusted-issuers.table.ts';
import { verifierApplicationRepositoriesOn } from './verifier-applications.table.ts';
import { authenticationRepositoriesOn } from './authentication-repositories.ts';
import { authorizationRepositoriesOn } from './authorizations.table.ts';
import { statusListRepositoriesOn } from './status-lists.table.ts';
import { deferredIssuanceRepositoriesOn } from './deferred-issuances.table.ts';

// Well under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters at 10 columns a row.
const EVENT_BATCH_ROWS = 500;

const isEmpty = (list: readonly string[] | undefined) => list !== undefined && list.length === 0;

const noIaca = () => notFound('The tenant has no such IACA');

// Written once per issued credential: built and compiled once per Kysely instance (compiled-once.ts).
const insertIssuedCredential = compiledOnce('issuedCredentials.insert', (db, row: Insertable<IssuedCredentialsTable>) =>
  db.insertInto('issued_credentials').values(row),
);

// Read on every admin request (a revoked or rotated client is refused at once): compiled once.
const adminClientById = compiledOnce('clients.findByClientId', (db, { clientId }: { clientId: string }) =>
  db.selectFrom('admin_clients').selectAll().where('client_id', '=', clientId),
);

// Read for every signature (the key's stored row, through the server's read cache) and for every
// DID-signed credential (the tenant's DIDs, to find the signing DID): compiled once, which took the
// key read from about 40 to 15 µs and the DID page from about 95 to 55 µs on SQLite
// (docs/performance.md, "Every format per core (issue 27)").
const keyById = compiledFindOwned('keys.get', 'keys');

const didsFirstPage = compiledOnce('dids.list (first page)', (db, p: { tenantId: string; limit: number }) =>
  db.selectFrom('dids').selectAll().where('tenant_id', '=', p.tenantId).orderBy('seq').limit(p.limit),
);

const didsPageAfter = compiledOnce('dids.list (a later page)', (db, p: { tenantId: string; after: number; limit: number }) =>
  db.selectFrom('dids').selectAll().where('tenant_id', '=', p.tenantId).where('seq', '>', p.after).orderBy('seq').limit(p.limit),
);

/** Builds the repositories on `db`, a Kysely instance or a transaction, for the given dialect. */
export function repositoriesOn(db: Executor, kind: SqlDialectKind): Repositories {
  return {
    ...webhookRepositoriesOn(db, kind),
    ...deferredIssuanceRepositoriesOn(db),
    ...offerRepositoriesOn(db, kind),
    ...walletClientRepositoriesOn(db),
    ...walletProviderRepositoriesOn(db, kind),
    ...trustedIssuerRepositoriesOn(db, kind),
    ...verifierApplicationRepositoriesOn(db, kind),
    ...presentationSessionRepositoriesOn(db),
    ...authenticationRepositoriesOn(db),
    ...authorizationRepositoriesOn(db, kind),
    ...refreshTokenRepositoriesOn(db, kind),
    ...statusListRepositoriesOn(db, kind),
    ...leaseRepositoryOn(db),
    iacas: {
      async insert(iaca, limit) {
        return refusingDuplicates(
          atomically(db, async (tx) => {
            await lockTenant(tx, kind, iaca.tenantId);
            const { count } = await tx
              .selectFrom('mdoc_iacas')
              .select((eb) => eb.fn.countAll().as('count'))
              .where('tenant_id', '=', iaca.tenantId)
              .where('profile', '=', iaca.profile ?? 'mdoc')
              .executeTakeFirstOrThrow();
            if (Number(count) >= limit) return false;
            await tx.insertInto('mdoc_iacas').values(toIacaRow(iaca, kind)).execute();
            return true;
          }),
          (violated) => (violated.includes('fingerprint') ? 'The tenant already holds this IACA certificate' : 'IACA id exists'),
        );
      },
      async get(tenantId, id) {
        return findOwned(db, 'mdoc_iacas', tenantId, id, toIacaRecord);
      },
      async list(tenantId, page, filter = {}) {
        let query = db
          .selectFrom('mdoc_iacas')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .where('profile', '=', filter.profile ?? 'mdoc');
        if (filter.activeOnly) query = query.where('active', '=', toSqlBoolean(kind, true));
        return pageOf(query, page, toIacaRecord);
      },
      async update(iaca) {
        return updateOwned(db, 'mdoc_iacas', iaca.tenantId, iaca.id, {
          active: toSqlBoolean(kind, iaca.active),
          activated_at: iaca.activatedAt ?? null,
          updated_at: iaca.updatedAt,
        });
      },
      async delete(tenantId, id) {
        // Its document signers and revocations go with it (foreign keys with on delete cascade).
        return deleteOwned(db, 'mdoc_iacas', tenantId, id);
      },
      async addRevocation(tenantId, iacaId, revocation) {
        await atomically(db, async (tx) => {
          let find = tx.selectFrom('mdoc_iacas').select('id').where('tenant_id', '=', tenantId).where('id', '=', iacaId);
          if (kind === 'postgres') find = find.forShare();
          if (!(await find.executeTakeFirst())) throw noIaca();
          await tx
            .insertInto('mdoc_iaca_revocations')
            .values({
              tenant_id: tenantId,
              iaca_id: iacaId,
              serial_number: revocation.serialNumber,
              revoked_at: revocation.revokedAt,
              not_after: revocation.notAfter,
            })
            .onConflict((oc) => oc.columns(['iaca_id', 'serial_number']).doNothing())
            .execute();
        });
      },
      async listRevocations(tenantId, iacaId) {
        return allOwned(db, 'mdoc_iaca_revocations', tenantId, toIacaRevocation, { column: 'iaca_id', value: iacaId });
      },
    },

    documentSigners: {
      async insert(signer, limit) {
        return refusingDuplicates(
          atomically(db, async (tx) => {
            if (limit !== undefined) await lockTenant(tx, kind, signer.tenantId);
            // On PostgreSQL the IACA row is share-locked, so it cannot be deleted before this insert commits.
            let find = tx.selectFrom('mdoc_iacas').select('id').where('tenant_id', '=', signer.tenantId).where('id', '=', signer.iacaId);
            if (kind === 'postgres') find = find.forShare();
            if (!(await find.executeTakeFirst())) throw noIaca();
            if (limit !== undefined) {
              const { count } = await tx
                .selectFrom('mdoc_document_signers')
                .select((eb) => eb.fn.countAll().as('count'))
                .where('tenant_id', '=', signer.tenantId)
                .where('is_managed', '=', toSqlBoolean(kind, false))
                .where('use', signer.use === undefined ? '=' : '<>', 'mdoc')
                .executeTakeFirstOrThrow();
              if (Number(count) >= limit) return false;
            }
            await tx.insertInto('mdoc_document_signers').values(toDocumentSignerRow(signer, kind)).execute();
            return true;
          }),
          'Document signer id exists',
        );
      },
      async get(tenantId, id) {
        return findOwned(db, 'mdoc_document_signers', tenantId, id, toDocumentSignerRecord);
      },
      async list(tenantId, page, filter = {}) {
        let query = db
          .selectFrom('mdoc_document_signers')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .where('use', filter.profile === 'issuer' ? '<>' : '=', 'mdoc');
        if (filter.iacaId !== undefined) query = query.where('iaca_id', '=', filter.iacaId);
        return pageOf(query, page, toDocumentSignerRecord);
      },
      async listByIaca(tenantId, iacaId) {
        return allOwned(db, 'mdoc_document_signers', tenantId, toDocumentSignerRecord, { column: 'iaca_id', value: iacaId });
      },
      async update(signer) {
        // The IACA, the key, the kind, the CSR and the creation time never change.
        const { id, tenant_id, iaca_id, is_managed, key_id, public_jwk, csr_pem, created_at, use, ...columns } = toDocumentSignerRow(signer, kind);
        return updateOwned(db, 'mdoc_document_signers', tenant_id, id, columns);
      },
      async delete(tenantId, id) {
        return deleteOwned(db, 'mdoc_document_signers', tenantId, id);
      },
    },

    tenants: {
      async insert(tenant) {
        await refusingDuplicates(db.insertInto('tenants').values(toTenantRow(tenant)).execute(), (violated) =>
          violated.includes('subdomain') ? `Subdomain ${tenant.subdomain} is taken` : 'Tenant id exists',
        );
      },
      async findById(id) {
        const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
        return row && toTenant(row);
      },
      async findBySubdomain(subdomain) {
        const row = await db.selectFrom('tenants').selectAll().where('subdomain', '=', subdomain).executeTakeFirst();
        return row && toTenant(row);
      },
      async list(page) {
        return pageOf(db.selectFrom('tenants').selectAll(), page, toTenant);
      },
      async setLoggingLevel(id, level) {
        const result = await db.updateTable('tenants').set({ logging_level: level }).where('id', '=', id).executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async setRetention(id, retention) {
        const result = await db.updateTable('tenants').set(toRetentionColumns(retention)).where('id', '=', id).executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async setIssuerDisplay(id, display) {
        const result = await db.updateTable('tenants').set(toIssuerDisplayColumn(display)).where('id', '=', id).executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async setBatchSize(id, batchSize) {
        const result = await db.updateTable('tenants').set(toBatchSizeColumn(batchSize)).where('id', '=', id).executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async setKeyCustody(id, custody) {
        const result = await db.updateTable('tenants').set({ key_custody: custody }).where('id', '=', id).executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
    },

    keys: {
      async insert(key) {
        await refusingDuplicates(db.insertInto('keys').values(toKeyRow(key)).execute(), 'Key id exists');
      },
      async get(tenantId, id) {
        const row = await keyById.first(db, { tenantId, id });
        return row && toStoredKey(row);
      },
      async delete(tenantId, id) {
        return deleteOwned(db, 'keys', tenantId, id);
      },
      async listSealedIn(format, limit) {
        // `\` escapes LIKE's wildcards in the format (the same in both dialects' string literals).
        // SQLite's LIKE ignores ASCII case; the formats (`v1`, `v2`) and the sealed forms are lower case.
        const prefix = `${format.replace(/[\\%_]/g, '\\$&')}.%`;
        const rows = await db
          .selectFrom('keys')
          .selectAll()
          .where('custody', '=', 'software')
          .where(sql<SqlBool>`sealed like ${prefix} escape '\\'`)
          .orderBy('seq')
          .limit(limit)
          .execute();
        return rows.map(toStoredKey);
      },
      async reseal(tenantId, id, from, to) {
        // Compare-and-set in one statement: of two servers sealing the key again, one writes.
        const result = await db
          .updateTable('keys')
          .set({ sealed: to })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .where('sealed', '=', from)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
    },

    dids: {
      async insert(record) {
        await refusingDuplicates(db.insertInto('dids').values(toDidRow(record)).execute(), 'The tenant already has this DID');
      },
      async get(tenantId, did) {
        return findOwnedBy(db, 'dids', tenantId, 'did', did, toDidRecord);
      },
      async list(tenantId, page) {
        const rows =
          page.after === undefined
            ? await didsFirstPage.rows(db, { tenantId, limit: page.limit })
            : await didsPageAfter.rows(db, { tenantId, after: page.after, limit: page.limit });
        return toSlice(rows, toDidRecord);
      },
      async delete(tenantId, did) {
        const result = await db.deleteFrom('dids').where('tenant_id', '=', tenantId).where('did', '=', did).executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
      async listStamps(tenantId) {
        // The row's position in creation order and its count of key rotations are its revision: a
        // DID created again gets a new row, a rotation a new count.
        const rows = await db.selectFrom('dids').select(['did', 'seq', 'keys_revision']).where('tenant_id', '=', tenantId).orderBy('seq').execute();
        return rows.map((r) => ({ did: r.did, revision: `${r.seq}.${r.keys_revision}` }));
      },
      async replaceKeys(tenantId, did, from, to) {
        // The stored JSON is what toDidRow wrote: the keys as they were read compare equal to it.
        const result = await db
          .updateTable('dids')
          .set((eb) => ({ keys: JSON.stringify(to), keys_revision: eb('keys_revision', '+', 1) }))
          .where('tenant_id', '=', tenantId)
          .where('did', '=', did)
          .where('keys', '=', JSON.stringify(from))
          .executeTakeFirst();
        return Number(result.numUpdatedRows) > 0;
      },
    },

    clients: {
      async insert(client) {
        await refusingDuplicates(db.insertInto('admin_clients').values(toAdminClientRow(client)).execute(), 'Client id exists');
      },
      async findByClientId(clientId) {
        const row = await adminClientById.first(db, { clientId });
        return row && toAdminClient(row);
      },
      async list(tenantId, page) {
        return listOwned(db, 'admin_clients', tenantId, page, toAdminClient);
      },
      async rotateSecret(tenantId, clientId, secretHash, rotatedAt) {
        // One statement: the version goes up exactly once per rotation, however many race.
        const row = await db
          .updateTable('admin_clients')
          .set((eb) => ({ secret_hash: secretHash, secret_version: eb('secret_version', '+', 1), rotated_at: rotatedAt }))
          .where('tenant_id', '=', tenantId)
          .where('client_id', '=', clientId)
          .where('revoked_at', 'is', null)
          .returningAll()
          .executeTakeFirst();
        return row && toAdminClient(row);
      },
      async revoke(tenantId, clientId, revokedAt) {
        return atomically(db, async (tx) => {
          // Serialises revocations per tenant, so two admins revoking each other cannot both pass the count.
          await lockTenant(tx, kind, tenantId);
          const client = await tx
            .selectFrom('admin_clients')
            .select(['role', 'revoked_at'])
            .where('tenant_id', '=', tenantId)
            .where('client_id', '=', clientId)
            .executeTakeFirst();
          if (!client) return 'not-found';
          if (client.revoked_at !== null) return 'already-revoked';
          if (client.role === 'admin') {
            const other = await tx
              .selectFrom('admin_clients')
              .select('client_id')
              .where('tenant_id', '=', tenantId)
              .where('role', '=', 'admin')
              .where('revoked_at', 'is', null)
              .where('client_id', '<>', clientId)
              .limit(1)
              .executeTakeFirst();
            if (!other) return 'last-admin';
          }
          await tx.updateTable('admin_clients').set({ revoked_at: revokedAt }).where('tenant_id', '=', tenantId).where('client_id', '=', clientId).execute();
          return 'revoked';
        });
      },
    },

    customDomains: {
      async get(tenantId) {
        const row = await db.selectFrom('custom_domains').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
        return row && toCustomDomain(row);
      },
      async insert(domain) {
        await refusingDuplicates(db.insertInto('custom_domains').values(toCustomDomainRow(domain, kind)).execute(), (violated) =>
          violated.includes('tenant_id') ? 'The tenant already has a custom domain' : 'This domain is verified by another tenant',
        );
      },
      async update(domain) {
        const { tenant_id, ...columns } = toCustomDomainRow(domain, kind);
        const result = await refusingDuplicates(
          db.updateTable('custom_domains').set(columns).where('tenant_id', '=', tenant_id).executeTakeFirst(),
          'This domain is verified by another tenant',
        );
        return result.numUpdatedRows > 0n;
      },
      async delete(tenantId) {
        const result = await db.deleteFrom('custom_domains').where('tenant_id', '=', tenantId).executeTakeFirst();
        return result.numDeletedRows > 0n;
      },
      async markVerified(tenantId, verifiedAt) {
        // No check for another owner first: the partial unique index on verified names refuses
        // the second tenant even when both verify at the same moment.
        const result = await refusingDuplicates(
          db
            .updateTable('custom_domains')
            .set({ is_verified: toSqlBoolean(kind, true), verified_at: verifiedAt })
            .where('tenant_id', '=', tenantId)
            .executeTakeFirst(),
          'This domain is verified by another tenant',
        );
        return result.numUpdatedRows > 0n;
      },
      async findVerified(domain) {
        // `is_verified` spelled as the partial index's predicate, so both planners use that index.
        const row = await db.selectFrom('custom_domains').selectAll().where('domain', '=', domain).where(sql.ref<SqlBool>('is_verified')).executeTakeFirst();
        return row && toCustomDomain(row);
      },
    },

    events: {
      async insertMany(events) {
        if (events.length === 0) return;
        const rows = events.map(toAnalyticEventRow);
        const write = async (on: Executor) => {
          for (let i = 0; i < rows.length; i += EVENT_BATCH_ROWS) {
            await on
              .insertInto('analytic_events')
              .values(rows.slice(i, i + EVENT_BATCH_ROWS))
              .execute();
          }
        };
        // A batch larger than one statement still lands whole or not at all.
        if (rows.length <= EVENT_BATCH_ROWS || db.isTransaction) await write(db);
        else await db.transaction().execute(write);
      },
      async purgeBefore(tenantId, before, limit) {
        // Reads the (tenant_id, timestamp) index.
        return deleteBatch(db, 'analytic_events', ['seq'], limit, sql<SqlBool>`tenant_id = ${tenantId} and ${sql.ref('timestamp')} < ${before}`);
      },
      async list(tenantId: string, filter: EventFilter, page: PageRequest): Promise<Slice<AnalyticEvent>> {
        // An empty list matches nothing (and `in ()` is not valid SQL).
        if ([filter.ids, filter.requestIds, filter.categories, filter.types].some(isEmpty)) return { items: [] };
        let query = db.selectFrom('analytic_events').selectAll().where('tenant_id', '=', tenantId);
        if (filter.ids) query = query.where('id', 'in', filter.ids);
        if (filter.requestIds) query = query.where('request_id', 'in', filter.requestIds);
        if (filter.categories) query = query.where('category', 'in', filter.categories);
        if (filter.types) query = query.where('type', 'in', filter.types);
        if (filter.dateFrom !== undefined) query = query.where('timestamp', '>=', filter.dateFrom);
        if (filter.dateTo !== undefined) query = query.where('timestamp', '<=', filter.dateTo);
        if (page.after !== undefined) query = query.where('seq', '<', page.after);
        return toSlice(await query.orderBy('seq', 'desc').limit(page.limit).execute(), toAnalyticEvent);
      },
    },

    credentialConfigurations: {
      async insert(configuration) {
        await refusingDuplicates(db.insertInto('credential_configurations').values(toCredentialConfigurationRow(configuration)).execute(), (violated) =>
          violated.includes('type') ? `The tenant already has a ${configuration.format} configuration of this type` : 'Configuration id exists',
        );
      },
      async get(tenantId, id) {
        return findOwned(db, 'credential_configurations', tenantId, id, toCredentialConfiguration);
      },
      async list(tenantId, filter, page) {
        let query = db.selectFrom('credential_configurations').selectAll().where('tenant_id', '=', tenantId).where('format', '=', filter.format);
        if (filter.type !== undefined) query = query.where('type', '=', filter.type);
        return pageOf(query, page, toCredentialConfiguration);
      },
      async listAll(tenantId) {
        return allOwned(db, 'credential_configurations', tenantId, toCredentialConfiguration);
      },
      async listStamps(tenantId) {
        return db.selectFrom('credential_configurations').select(['id', 'revision']).where('tenant_id', '=', tenantId).orderBy('seq').execute();
      },
      async update(configuration) {
        const { id, tenant_id, format, ...columns } = toCredentialConfigurationRow(configuration);
        const result = await refusingDuplicates(
          db
            .updateTable('credential_configurations')
            .set({ type: columns.type, body: columns.body, revision: columns.revision, updated_at: columns.updated_at })
            .where('tenant_id', '=', tenant_id)
            .where('id', '=', id)
            .where('format', '=', format)
            .executeTakeFirst(),
          `The tenant already has a ${configuration.format} configuration of this type`,
        );
        return result.numUpdatedRows > 0n;
      },
      async delete(tenantId, id) {
        return deleteOwned(db, 'credential_configurations', tenantId, id);
      },
    },

    issuedCredentials: {
      async insert(record) {
        await refusingDuplicates(insertIssuedCredential.execute(db, toIssuedCredentialRow(record)), 'Issued credential id exists');
      },
      async get(tenantId, id) {
        return findOwned(db, 'issued_credentials', tenantId, id, toIssuedCredential);
      },
      async list(tenantId, filter, page) {
        let query = db.selectFrom('issued_credentials').selectAll().where('tenant_id', '=', tenantId);
        if (filter.format !== undefined) query = query.where('format', '=', filter.format);
        if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
        if (filter.credentialConfigurationId !== undefined) query = query.where('credential_configuration_id', '=', filter.credentialConfigurationId);
        return pageOf(query, page, toIssuedCredential);
      },
      async findByNotificationId(tenantId, notificationId) {
        return findOwnedBy(db, 'issued_credentials', tenantId, 'notification_id', notificationId, toIssuedCredential);
      },
      async recordNotificationFor(tenantId, notificationId, notification) {
        const result = await db
          .updateTable('issued_credentials')
          .set({
            notification_event: notification.event,
            notification_description: notification.eventDescription ?? null,
            notification_at: notification.receivedAt,
          })
          .where('tenant_id', '=', tenantId)
          .where('notification_id', '=', notificationId)
          .executeTakeFirst();
        return Number(result.numUpdatedRows);
      },
      async recordNotification(tenantId, id, notification) {
        return updateOwned(db, 'issued_credentials', tenantId, id, {
          notification_event: notification.event,
          notification_description: notification.eventDescription ?? null,
          notification_at: notification.receivedAt,
        });
      },
      async setStatus(tenantId, id, status) {
        return updateOwned(db, 'issued_credentials', tenantId, id, { status });
      },
    },

    platformKeys: {
      async get(name) {
        const row = await db.selectFrom('platform_keys').selectAll().where('name', '=', name).executeTakeFirst();
        return row && toPlatformKey(row);
      },
      async insertIfAbsent(record) {
        // Insert-or-nothing, then read: whichever server's insert won, every racer reads the same row.
        await db
          .insertInto('platform_keys')
          .values(toPlatformKeyRow(record))
          .onConflict((oc) => oc.column('name').doNothing())
          .execute();
        const row = await db.selectFrom('platform_keys').selectAll().where('name', '=', record.name).executeTakeFirstOrThrow();
        return toPlatformKey(row);
      },
      async replace(expectedSealed, record) {
        const result = await db
          .updateTable('platform_keys')
          .set({ sealed: record.sealed, created_at: record.createdAt })
          .where('name', '=', record.name)
          .where('sealed', '=', expectedSealed)
          .executeTakeFirst();
        return Number(result.numUpdatedRows) > 0;
      },
    },

    dataKeys: {
      async get(tenantId) {
        const row = await db.selectFrom('data_keys').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
        return row && toDataKey(row);
      },
      async insertIfAbsent(record) {
        // As platformKeys: insert-or-nothing, then read, so racing servers all read the one row.
        await db
          .insertInto('data_keys')
          .values(toDataKeyRow(record))
          .onConflict((oc) => oc.column('tenant_id').doNothing())
          .execute();
        const row = await db.selectFrom('data_keys').selectAll().where('tenant_id', '=', record.tenantId).executeTakeFirstOrThrow();
        return toDataKey(row);
      },
      async listStale(current, limit) {
        const { wrappingKeyId, recoveryKeyId } = current;
        const rows = await db
          .selectFrom('data_keys')
          .selectAll()
          .where((eb) =>
            eb.or([
              eb('wrapping_key_id', '<>', wrappingKeyId),
              ...(recoveryKeyId === undefined ? [] : [eb('recovery_key_id', 'is', null), eb('recovery_key_id', '<>', recoveryKeyId)]),
            ]),
          )
          .orderBy('tenant_id')
          .limit(limit)
          .execute();
        return rows.map(toDataKey);
      },
      async replaceWrapping(tenantId, id, expected, next) {
        // Compare-and-set in one statement; no recovery key expected matches only a null one.
        const result = await db
          .updateTable('data_keys')
          .set(toDataKeyWrappingColumns(next))
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .where('wrapping_key_id', '=', expected.wrappingKeyId)
          .where('recovery_key_id', expected.recoveryKeyId === undefined ? 'is' : '=', expected.recoveryKeyId ?? null)
          .executeTakeFirst();
        return result.numUpdatedRows > 0n;
      },
      async countByWrapping() {
        const rows = await db
          .selectFrom('data_keys')
          .select((eb) => ['wrapping_key_id', 'recovery_key_id', eb.fn.countAll().as('count')])
          .groupBy(['wrapping_key_id', 'recovery_key_id'])
          .orderBy('wrapping_key_id')
          .orderBy('recovery_key_id')
          .execute();
        return rows.map((r) => ({
          wrappingKeyId: r.wrapping_key_id,
          ...(r.recovery_key_id !== null ? { recoveryKeyId: r.recovery_key_id } : {}),
          // PostgreSQL counts in bigint, which pg returns as a string.
          count: Number(r.count),
        }));
      },
    },
  };
}
