// Driver errors stay driver errors, except a unique violation, which is the store's way of
// saying Conflict (the unique indexes are the rules, so racing writers get the same answer).

import { conflict } from '@vellum/core';

// better-sqlite3 (our SQLite driver) names the extended result code; node:sqlite (an embedder's
// own Kysely may use it) reports ERR_SQLITE_ERROR with the number in `errcode`.
const SQLITE_UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);
const SQLITE_UNIQUE_ERRCODES = new Set([2067, 1555]);
const PG_UNIQUE_VIOLATION = '23505';

/**
 * For a unique violation, the driver's message, which names what was violated (SQLite:
 * `UNIQUE constraint failed: tenants.subdomain`; PostgreSQL: the index name, which spells its
 * columns). Undefined for any other error.
 */
export function uniqueViolation(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errcode, message } = error as { code?: unknown; errcode?: unknown; message?: unknown };
  const unique =
    (typeof code === 'string' && SQLITE_UNIQUE_CODES.has(code)) ||
    (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && SQLITE_UNIQUE_ERRCODES.has(errcode)) ||
    code === PG_UNIQUE_VIOLATION;
  return unique ? String(message) : undefined;
}

/**
 * Runs a write, turning a unique violation into Conflict with `message`, or with the message
 * `message` picks from what was violated. Racing writers get the same answer from the index.
 */
export async function refusingDuplicates<T>(write: Promise<T>, message: string | ((violated: string) => string)): Promise<T> {
  try {
    return await write;
  } catch (error) {
    const violated = uniqueViolation(error);
    if (violated === undefined) throw error;
    throw conflict(typeof message === 'string' ? message : message(violated));
  }
}
