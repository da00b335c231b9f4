// What the retention job (docs/retention.md) needs of the database: leases that keep it to one
// runner at a time, and deletes in bounded batches that hold no lock for long.

import type { Repositories } from '@vellum/core';
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { Executor, VellumDatabase } from './database.ts';

export interface LeasesTable {
  name: string;
  /** Who holds the lease (a random id per process). */
  holder: string;
  /** When it ends unless renewed (ISO 8601). */
  expires_at: string;
}

/**
 * Deletes up to `limit` rows of `table` that `due` picks, in one statement: the rows a limited,
 * indexed select finds, by their key. `due` is checked again on the rows deleted, so a row changed
 * in the meantime (on PostgreSQL, a concurrent update the delete waited for) stays unless it is still due.
 */
export async function deleteBatch(db: Executor, table: keyof VellumDatabase, key: readonly string[], limit: number, due: Expression<SqlBool>): Promise<number> {
  // The table is one of ours and the key its own columns: a query over any of them, typed loosely here only.
  const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const picked = untyped.selectFrom(table).select(key).where(due).limit(limit);
  const keyOf = key.length === 1 ? sql.ref(key[0] as string) : sql`(${sql.join(key.map((k) => sql.ref(k)))})`;
  const result = await untyped.deleteFrom(table).where(sql<SqlBool>`${keyOf} in ${picked}`).where(due).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The lease repository on `db`, a Kysely instance or a transaction. */
export function leaseRepositoryOn(db: Executor): Pick<Repositories, 'leases'> {
  return {
    leases: {
      async acquire(name, holder, until, now) {
        // One statement: an insert, or an update of the row only while it is ours or has ended. On
        // PostgreSQL racing inserts wait on the key and then see the winner's row, which is neither.
        const row = await db
          .insertInto('leases')
          .values({ name, holder, expires_at: until })
          .onConflict((oc) =>
            oc
              .column('name')
              .doUpdateSet({ holder: (eb) => eb.ref('excluded.holder'), expires_at: (eb) => eb.ref('excluded.expires_at') })
              .where(sql<SqlBool>`${sql.ref('leases.holder')} = excluded.holder or ${sql.ref('leases.expires_at')} <= ${now}`),
          )
          .returning('holder')
          .executeTakeFirst();
        return row !== undefined;
      },
      async release(name, holder) {
        await db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
      },
    },
  };
}
