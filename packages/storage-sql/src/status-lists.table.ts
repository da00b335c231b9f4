// Status lists on Kysely (core/src/status-lists/model.ts: StatusListRepository and
// StatusListConfigurationRepository): the row types, their mappings and the repositories.
// Migration 0016_status_lists creates the tables.
//
// Handing out positions is the hot, racy part: every issued credential takes one, from any number
// of servers sharing the database, and no two may get the same (IETF Token Status List §13.1: an
// index names one credential). `takePosition` is one conditional UPDATE … RETURNING, so the row lock
// (PostgreSQL) or the write lock (SQLite) orders the racers and each one's increment is its own.

import type {
  CredentialStatus,
  Duration,
  Repositories,
  StatusEntry,
  StatusListConfiguration,
  StatusListFormat,
  StatusListKind,
  StatusListRecord,
  StoredStatusToken,
} from '@vellum/core';
import { type Insertable, type Selectable, type SqlBool, sql } from 'kysely';
import { compiledOnce } from './compiled-once.ts';
import type { Executor, Seq, SqlDialectKind } from './database.ts';
import { refusingDuplicates } from './errors.ts';
import { allOwned, atomically, compiledFindOwned, compiledFindOwnedBy, deleteOwned, findOwned, findOwnedBy } from './queries.ts';

export interface StatusListConfigurationsTable {
  seq: Seq;
  id: string;
  tenant_id: string;
  /** Unique per tenant: one configuration per docType. */
  doc_type: string;
  /** JSON Duration. */
  time_to_live_duration: string;
  /** JSON Duration. */
  expiry_duration: string;
  format: string;
  created_at: string;
  updated_at: string;
}

export interface StatusListsTable {
  /** Creation order: the newest list of a kind is the one with the highest seq. */
  seq: Seq;
  id: string;
  tenant_id: string;
  kind: string;
  size: number;
  generation: number;
  /** How many positions were handed out; only ever incremented, by one statement. */
  taken: number;
  shuffle_key: string;
  /** Incremented with every change of an entry's status. */
  revision: number;
  created_at: string;
}

export interface StatusEntriesTable {
  list_id: string;
  idx: number;
  tenant_id: string;
  credential_id: string;
  status: string;
  updated_at: string;
}

export interface StatusListTokensTable {
  tenant_id: string;
  list_id: string;
  revision: number;
  /** The COSE_Sign1 bytes: a blob (SQLite) or bytea (PostgreSQL), read back as a Buffer by both drivers. */
  token: Uint8Array;
  issued_at: string;
  expires_at: string;
}

/** Maps a stored configuration row to the domain type. */
export function toStatusListConfiguration(row: Selectable<StatusListConfigurationsTable>): StatusListConfiguration {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    docType: row.doc_type,
    timeToLiveDuration: JSON.parse(row.time_to_live_duration) as Duration,
    expiryDuration: JSON.parse(row.expiry_duration) as Duration,
    format: row.format as StatusListFormat,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Maps a configuration to the row that stores it. */
export function toStatusListConfigurationRow(c: StatusListConfiguration): Insertable<StatusListConfigurationsTable> {
  return {
    id: c.id,
    tenant_id: c.tenantId,
    doc_type: c.docType,
    time_to_live_duration: JSON.stringify(c.timeToLiveDuration),
    expiry_duration: JSON.stringify(c.expiryDuration),
    format: c.format,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** Maps a stored list row to the domain type (PostgreSQL's integer columns come back as numbers). */
export function toStatusList(row: Selectable<StatusListsTable>): StatusListRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    kind: row.kind as StatusListKind,
    size: Number(row.size),
    generation: Number(row.generation),
    taken: Number(row.taken),
    shuffleKey: row.shuffle_key,
    revision: Number(row.revision),
    createdAt: row.created_at,
  };
}

/** Maps a new list to its row: taken 0 and revision 0, whatever the record says (the port's "Adds a list"). */
export function toStatusListRow(list: StatusListRecord): Insertable<StatusListsTable> {
  return {
    id: list.id,
    tenant_id: list.tenantId,
    kind: list.kind,
    size: list.size,
    generation: list.generation,
    taken: 0,
    shuffle_key: list.shuffleKey,
    revision: 0,
    created_at: list.createdAt,
  };
}

export function toStatusEntry(row: Selectable<StatusEntriesTable>): StatusEntry {
  return {
    tenantId: row.tenant_id,
    listId: row.list_id,
    idx: Number(row.idx),
    credentialId: row.credential_id,
    status: row.status as CredentialStatus,
    updatedAt: row.updated_at,
  };
}

export function toStatusEntryRow(entry: StatusEntry): Insertable<StatusEntriesTable> {
  return {
    list_id: entry.listId,
    idx: entry.idx,
    tenant_id: entry.tenantId,
    credential_id: entry.credentialId,
    status: entry.status,
    updated_at: entry.updatedAt,
  };
}

export function toStoredStatusToken(row: Selectable<StatusListTokensTable>): StoredStatusToken {
  return {
    tenantId: row.tenant_id,
    listId: row.list_id,
    revision: Number(row.revision),
    // A copy in a plain Uint8Array: callers get the domain type, not the driver's Buffer.
    token: new Uint8Array(row.token),
    issuedAt: row.issued_at,
    expiresAt: row.expires_at,
  };
}

export function toStatusListTokenRow(token: StoredStatusToken): Insertable<StatusListTokensTable> {
  return {
    tenant_id: token.tenantId,
    list_id: token.listId,
    revision: token.revision,
    // Both drivers bind a Buffer as bytes (better-sqlite3 as a blob, pg as bytea).
    token: Buffer.from(token.token.buffer, token.token.byteOffset, token.token.byteLength),
    issued_at: token.issuedAt,
    expires_at: token.expiresAt,
  };
}

/**
 * The position step, one statement: the subquery picks the tenant's newest list of the kind with
 * room, the outer UPDATE takes one position of it, and `taken < size` is checked again there.
 *
 * On PostgreSQL (read committed) the subquery runs once, on the statement's snapshot, and may pick a
 * list whose row another transaction is updating; the UPDATE then waits for that row's lock and
 * re-evaluates its WHERE on the newest row version (EvalPlanQual, "UPDATE" in the manual's §13.2.1),
 * so it increments the `taken` the other left, and the re-check refuses a list the others have just
 * filled. On SQLite the statement runs under the database's write lock, alone. Either way each
 * racer's RETURNING shows its own increment, and position = taken − 1 is its own. No row: the list
 * chosen is full, or there is none; the caller inserts a list and asks again.
 */
const takePositionUpdate = compiledOnce('statusLists.takePosition', (db, p: { tenantId: string; kind: string }) =>
  db
    .updateTable('status_lists')
    .set({ taken: sql<number>`taken + 1` })
    .where('tenant_id', '=', p.tenantId)
    .where('id', '=', (eb) =>
      eb
        .selectFrom('status_lists')
        .select('id')
        .where('tenant_id', '=', p.tenantId)
        .where('kind', '=', p.kind)
        .where(sql<SqlBool>`taken < size`)
        .orderBy('seq', 'desc')
        .limit(1),
    )
    .where(sql<SqlBool>`taken < size`)
    .returningAll(),
);

// Read on every token request and every issuance: compiled once (compiled-once.ts).
const listById = compiledFindOwned('statusLists.get', 'status_lists');

const insertEntry = compiledOnce('statusLists.insertEntry', (db, row: Insertable<StatusEntriesTable>) => db.insertInto('status_entries').values(row));

const entryByCredential = compiledFindOwnedBy('statusLists.entryOf', 'status_entries', 'credential_id');

const moveEntry = compiledOnce('statusLists.setStatus entry', (db, p: { tenantId: string; credentialId: string; from: string; to: string; at: string }) =>
  db
    .updateTable('status_entries')
    .set({ status: p.to, updated_at: p.at })
    .where('tenant_id', '=', p.tenantId)
    .where('credential_id', '=', p.credentialId)
    .where('status', '=', p.from)
    .returning('list_id'),
);

const bumpRevision = compiledOnce('statusLists.setStatus revision', (db, p: { tenantId: string; listId: string }) =>
  db.updateTable('status_lists').set({ revision: sql<number>`revision + 1` }).where('tenant_id', '=', p.tenantId).where('id', '=', p.listId),
);

// The literal `status <> 'valid'` is the partial index's own condition, so PostgreSQL uses it.
const nonValid = compiledOnce('statusLists.nonValidEntries', (db, p: { tenantId: string; listId: string }) =>
  db
    .selectFrom('status_entries')
    .select(['idx', 'status'])
    .where('list_id', '=', p.listId)
    .where('tenant_id', '=', p.tenantId)
    .where(sql<SqlBool>`status <> 'valid'`)
    .orderBy('idx'),
);

const tokenOf = compiledFindOwnedBy('statusLists.getToken', 'status_list_tokens', 'list_id');

const docTypeTaken = 'The tenant already has a status list configuration for this docType';

/** Builds the status list repositories on `db`, a Kysely instance or a transaction, for the given dialect. */
export function statusListRepositoriesOn(db: Executor, kind: SqlDialectKind): Pick<Repositories, 'statusLists' | 'statusListConfigurations'> {
  return {
    statusListConfigurations: {
      async insert(configuration) {
        // The unique indexes are the rules, so racing inserts for one docType get one Conflict.
        await refusingDuplicates(db.insertInto('status_list_configurations').values(toStatusListConfigurationRow(configuration)).execute(), (violated) =>
          violated.includes('doc_type') ? docTypeTaken : 'Status list configuration id exists',
        );
      },
      async get(tenantId, id) {
        return findOwned(db, 'status_list_configurations', tenantId, id, toStatusListConfiguration);
      },
      async findByDocType(tenantId, docType) {
        return findOwnedBy(db, 'status_list_configurations', tenantId, 'doc_type', docType, toStatusListConfiguration);
      },
      async list(tenantId) {
        return allOwned(db, 'status_list_configurations', tenantId, toStatusListConfiguration);
      },
      async update(configuration) {
        // The tenant, the id and the creation time stay as inserted.
        const { id: _id, tenant_id: _tenant, created_at: _created, ...columns } = toStatusListConfigurationRow(configuration);
        const result = await refusingDuplicates(
          db
            .updateTable('status_list_configurations')
            .set(columns)
            .where('tenant_id', '=', configuration.tenantId)
            .where('id', '=', configuration.id)
            .executeTakeFirst(),
          docTypeTaken,
        );
        return result.numUpdatedRows > 0n;
      },
      async delete(tenantId, id) {
        return deleteOwned(db, 'status_list_configurations', tenantId, id);
      },
    },

    statusLists: {
      async insert(list) {
        await refusingDuplicates(
          db.insertInto('status_lists').values(toStatusListRow(list)).execute(),
          'Status list id exists, or the tenant already has this generation of the kind',
        );
      },
      async get(tenantId, id) {
        const row = await listById.first(db, { tenantId, id });
        return row && toStatusList(row);
      },
      async list(tenantId, listKind) {
        let query = db.selectFrom('status_lists').selectAll().where('tenant_id', '=', tenantId);
        if (listKind !== undefined) query = query.where('kind', '=', listKind);
        return (await query.orderBy('seq').execute()).map(toStatusList);
      },
      async takePosition(tenantId, listKind) {
        // One statement. On SQLite it runs as a transaction so that a grouped commit takes it in
        // with the others (ImmediateSqliteDialect), as offers.redeem does.
        const take = (executor: Executor) => takePositionUpdate.first(executor, { tenantId, kind: listKind });
        const row = kind === 'sqlite' ? await atomically(db, take) : await take(db);
        if (row === undefined) return undefined;
        const list = toStatusList(row);
        return { list, position: list.taken - 1 };
      },
      async insertEntry(entry) {
        await refusingDuplicates(insertEntry.execute(db, toStatusEntryRow(entry)), (violated) =>
          violated.includes('credential_id') ? 'The credential already has a status entry' : 'The status list already has an entry at this index',
        );
      },
      async entryOf(tenantId, credentialId) {
        const row = await entryByCredential.first(db, { tenantId, value: credentialId });
        return row && toStatusEntry(row);
      },
      async setStatus(tenantId, credentialId, from, to, at) {
        // The entry moves only while it is still `from`: of racing moves from one status, the first
        // holds the entry's row (PostgreSQL) or the write lock (SQLite), and the others then find
        // another status and change nothing. The list's revision changes in the same transaction.
        return atomically(db, async (tx) => {
          const moved = await moveEntry.first(tx, { tenantId, credentialId, from, to, at });
          if (moved === undefined) return false;
          await bumpRevision.execute(tx, { tenantId, listId: moved.list_id });
          return true;
        });
      },
      async nonValidEntries(tenantId, listId) {
        const rows = await nonValid.rows(db, { tenantId, listId });
        return rows.map((r) => ({ idx: Number(r.idx), status: r.status as CredentialStatus }));
      },
      async getToken(tenantId, listId) {
        const row = await tokenOf.first(db, { tenantId, value: listId });
        return row && toStoredStatusToken(row);
      },
      async putToken(token) {
        const row = toStatusListTokenRow(token);
        // One statement, so two servers signing at once leave one whole row (the last write).
        await db
          .insertInto('status_list_tokens')
          .values(row)
          .onConflict((oc) =>
            oc
              .columns(['tenant_id', 'list_id'])
              .doUpdateSet({ revision: row.revision, token: row.token, issued_at: row.issued_at, expires_at: row.expires_at }),
          )
          .execute();
      },
    },
  };
}
