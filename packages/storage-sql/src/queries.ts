// Steps the repositories on Kysely take alike: paging in creation order, reading, updating and
// deleting a row a tenant owns (always by tenant_id as well as id), running work atomically, and
// serialising a check-then-write per tenant.

import type { PageRequest, Slice } from '@vellum/core';
import { type Selectable, type SelectQueryBuilder, sql, type Updateable } from 'kysely';
import { type Executor, seqOf, type SqlDialectKind, type VellumDatabase } from './database.ts';

/** Rows read in creation order as a page: their values, and the last one's position as the cursor. */
export function toSlice<R extends { seq: number | string }, T>(rows: R[], map: (row: R) => T): Slice<T> {
  const last = rows[rows.length - 1];
  return last === undefined ? { items: [] } : { items: rows.map(map), last: seqOf(last.seq) };
}

/** One page of `query` (of a table with a `seq` column) in creation order, after the page's cursor. */
export async function pageOf<TB extends keyof VellumDatabase, O extends { seq: number | string }, T>(
  query: SelectQueryBuilder<VellumDatabase, TB, O>,
  page: PageRequest,
  map: (row: O) => T,
): Promise<Slice<T>> {
  const seq = sql.ref<number>('seq');
  const after = page.after === undefined ? query : query.where(seq, '>', page.after);
  return toSlice((await after.orderBy(seq).limit(page.limit).execute()) as O[], map);
}

/** Runs `work` in a transaction, or in the one `db` already is. */
export function atomically<T>(db: Executor, work: (tx: Executor) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/**
 * Serialises a check-then-write per tenant (a count against a limit). PostgreSQL locks the tenant
 * row until the transaction ends; SQLite needs nothing: its transactions begin immediate, holding the
 * database's write lock from the start, so no other connection or process writes in between.
 */
export async function lockTenant(tx: Executor, kind: SqlDialectKind, tenantId: string): Promise<void> {
  if (kind === 'postgres') await tx.selectFrom('tenants').select('id').where('id', '=', tenantId).forUpdate().execute();
}

/** The tables whose rows a tenant owns under an `id`. */
type OwnedTable = { [T in keyof VellumDatabase]: VellumDatabase[T] extends { tenant_id: string; id: string } ? T : never }[keyof VellumDatabase];

/** The tenant's row `id` of `table`, if there is one. */
export function findOwned<T extends OwnedTable>(db: Executor, table: T, tenantId: string, id: string): Promise<Selectable<VellumDatabase[T]> | undefined> {
  return db
    .selectFrom(table as OwnedTable)
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst() as Promise<Selectable<VellumDatabase[T]> | undefined>;
}

/** Writes `columns` into the tenant's row `id` of `table`: false when the tenant has no such row. */
export async function updateOwned<T extends OwnedTable>(
  db: Executor,
  table: T,
  tenantId: string,
  id: string,
  columns: Updateable<VellumDatabase[T]>,
): Promise<boolean> {
  const result = await db
    .updateTable(table as OwnedTable)
    .set(columns)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes the tenant's row `id` of `table`: false when the tenant has no such row. */
export async function deleteOwned(db: Executor, table: OwnedTable, tenantId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom(table).where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
