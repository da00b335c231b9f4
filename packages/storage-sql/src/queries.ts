// Steps the repositories on Kysely take alike: paging in creation order, reading (by id, by a unique
// column, or all in order), updating and deleting rows a tenant owns (always by tenant_id as well),
// running work atomically, and serialising a check-then-write per tenant.

import type { PageRequest, Slice } from '@vellum/core';
import { type Selectable, type SelectQueryBuilder, sql, type Updateable } from 'kysely';
import { type CompiledOnce, compiledOnce } from './compiled-once.ts';
import { type Executor, type Seq, seqOf, type SqlDialectKind, type VellumDatabase } from './database.ts';

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

/** The tables whose rows a tenant owns. */
type TenantTable = { [T in keyof VellumDatabase]: VellumDatabase[T] extends { tenant_id: string } ? T : never }[keyof VellumDatabase];

/** The tables whose rows a tenant owns, kept in creation order (`seq`). */
type SequencedTable = { [T in keyof VellumDatabase]: VellumDatabase[T] extends { tenant_id: string; seq: Seq } ? T : never }[keyof VellumDatabase];

/** A row of `table` as it is read. */
type RowOf<T extends keyof VellumDatabase> = Selectable<VellumDatabase[T]>;

/** The parameters of a read by tenant and id. */
type OwnedId = { tenantId: string; id: string };

/** The query for the tenant's row `id` of `table`. */
function ownedById(db: Executor, table: OwnedTable, { tenantId, id }: OwnedId) {
  return db.selectFrom(table).selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
}

/** The tenant's row `id` of `table`, mapped by `map`, if there is one. */
export async function findOwned<T extends OwnedTable, R>(
  db: Executor,
  table: T,
  tenantId: string,
  id: string,
  map: (row: RowOf<T>) => R,
): Promise<R | undefined> {
  const row = (await ownedById(db, table, { tenantId, id }).executeTakeFirst()) as RowOf<T> | undefined;
  return row && map(row);
}

/** The read of `findOwned`, built and compiled once per Kysely instance (compiled-once.ts), for reads on every request of a flow. */
export function compiledFindOwned<T extends OwnedTable>(label: string, table: T): CompiledOnce<OwnedId, RowOf<T>> {
  return compiledOnce(label, (db, p: OwnedId) => ownedById(db, table, p)) as unknown as CompiledOnce<OwnedId, RowOf<T>>;
}

/** One page of the tenant's rows of `table` in creation order, mapped by `map`. */
export function listOwned<T extends SequencedTable, R>(
  db: Executor,
  table: T,
  tenantId: string,
  page: PageRequest,
  map: (row: RowOf<T>) => R,
): Promise<Slice<R>> {
  const query = db
    .selectFrom(table as SequencedTable)
    .selectAll()
    .where('tenant_id', '=', tenantId);
  return pageOf(query, page, map as (row: { seq: number | string }) => R);
}

/** A text column of `table`'s rows (nullable or not). */
type TextColumn<T extends TenantTable> = { [C in keyof RowOf<T>]: RowOf<T>[C] extends string | null ? C : never }[keyof RowOf<T>] & string;

/** The parameters of a read by tenant and a column's value. */
type OwnedValue = { tenantId: string; value: string };

/** The query for the tenant's rows of `table` whose `column` holds `value`. */
function ownedBy(db: Executor, table: TenantTable, column: string, { tenantId, value }: OwnedValue) {
  return db.selectFrom(table).selectAll().where('tenant_id', '=', tenantId).where(sql.ref<string>(column), '=', value);
}

/** The tenant's row of `table` whose `column` (unique per tenant) holds `value`, mapped by `map`, if there is one. */
export async function findOwnedBy<T extends TenantTable, R>(
  db: Executor,
  table: T,
  tenantId: string,
  column: TextColumn<T>,
  value: string,
  map: (row: RowOf<T>) => R,
): Promise<R | undefined> {
  const row = (await ownedBy(db, table, column, { tenantId, value }).executeTakeFirst()) as RowOf<T> | undefined;
  return row && map(row);
}

/** The read of `findOwnedBy`, built and compiled once per Kysely instance (compiled-once.ts). */
export function compiledFindOwnedBy<T extends TenantTable>(label: string, table: T, column: TextColumn<T>): CompiledOnce<OwnedValue, RowOf<T>> {
  return compiledOnce(label, (db, p: OwnedValue) => ownedBy(db, table, column, p)) as unknown as CompiledOnce<OwnedValue, RowOf<T>>;
}

/** Every one of the tenant's rows of `table` in creation order, or those whose `column` holds `value`, mapped by `map`. */
export async function allOwned<T extends SequencedTable, R>(
  db: Executor,
  table: T,
  tenantId: string,
  map: (row: RowOf<T>) => R,
  where?: { column: TextColumn<T>; value: string },
): Promise<R[]> {
  let query = db
    .selectFrom(table as SequencedTable)
    .selectAll()
    .where('tenant_id', '=', tenantId);
  if (where) query = query.where(sql.ref<string>(where.column), '=', where.value);
  const rows = await query.orderBy(sql.ref('seq')).execute();
  return (rows as RowOf<T>[]).map(map);
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
