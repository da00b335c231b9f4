// The claims of offers and authorizations at rest (docs/decisions.md "Claims at rest"): the core
// seals them; the store erases them (sets the column to '') in the statement that makes them
// useless, and in batches once they have expired.

import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Executor } from './database.ts';
import { NO_CLAIMS } from './users-offers.table.ts';

/**
 * The claims column of a markIssued update that appends one `|id|` mark: erased when the marks
 * already there, with this one, make `granted` (each mark holds two `|`, and ids hold none).
 */
export function claimsAfterIssuing(granted: number): RawBuilder<string> {
  return sql<string>`case when (length(issued_configuration_ids) - length(replace(issued_configuration_ids, '|', ''))) / 2 + 1 >= ${granted} then ${NO_CLAIMS} else claims end`;
}

/**
 * Erases the claims of at most `limit` rows of `table` whose `expires_at` is at or before `now`,
 * returning how many; the partial indexes of migration 0018 find them. Across tenants: housekeeping.
 */
export async function eraseExpiredClaimsOf(db: Executor, table: 'offers' | 'authorizations', now: string, limit: number): Promise<number> {
  // The literal `claims <> ''` is the partial index's own condition, so PostgreSQL uses it.
  const due = db.selectFrom(table).select('seq').where(sql<SqlBool>`claims <> ''`).where('expires_at', '<=', now).limit(limit);
  const result = await db.updateTable(table).set({ claims: NO_CLAIMS }).where('seq', 'in', due).executeTakeFirst();
  return Number(result.numUpdatedRows);
}
