// What the memory store's repositories share: rows kept with their place in creation order, copied
// in and out, found within their tenant, and read a page at a time.
import { conflict, type PageRequest, type Slice } from '@vellum/core';

/** A stored value and its place in creation order. */
export interface Row<T> {
  seq: number;
  value: T;
}

// Values go in and out as copies, so a caller can never change stored state by mutating an object.
export const copy = <T>(v: T): T => structuredClone(v);

/** A page of `rows` (in creation order) after the page's cursor; newest first when `direction` is 'desc'. */
export function slice<T>(rows: Row<T>[], page: PageRequest, direction: 'asc' | 'desc' = 'asc'): Slice<T> {
  const after = page.after;
  const ordered = direction === 'asc' ? rows : [...rows].reverse();
  const past = after === undefined ? ordered : ordered.filter((r) => (direction === 'asc' ? r.seq > after : r.seq < after));
  const taken = past.slice(0, page.limit);
  const last = taken[taken.length - 1];
  return last ? { items: taken.map((r) => copy(r.value)), last: last.seq } : { items: [] };
}

/** The row of `rows` under `id`, when it is `tenantId`'s. */
export function ownedRow<T extends { tenantId: string }>(rows: Map<string, Row<T>>, tenantId: string, id: string): Row<T> | undefined {
  const r = rows.get(id);
  return r && r.value.tenantId === tenantId ? r : undefined;
}

/** Copies of `tenantId`'s values that `where` keeps, in creation order. */
export function tenantValues<T extends { tenantId: string }>(rows: Map<string, Row<T>>, tenantId: string, where: (value: T) => boolean = () => true): T[] {
  return [...rows.values()].filter((r) => r.value.tenantId === tenantId && where(r.value)).map((r) => copy(r.value));
}

/** A page of `tenantId`'s rows that `where` keeps, in creation order. */
export function tenantPage<T extends { tenantId: string }>(
  rows: Map<string, Row<T>>,
  tenantId: string,
  page: PageRequest,
  where: (value: T) => boolean = () => true,
): Slice<T> {
  return slice(
    [...rows.values()].filter((r) => r.value.tenantId === tenantId && where(r.value)),
    page,
  );
}

/**
 * Keeps a copy of `value` under `key` at the next place in creation order; Conflict with `message`
 * when the key is taken, or with `unique.message` when a stored value is `unique.taken` (the SQL
 * store's other unique index).
 */
export function insertRow<T>(
  rows: Map<string, Row<T>>,
  key: string,
  value: T,
  next: () => number,
  message: string,
  unique?: { taken: (stored: T) => boolean; message: string },
): void {
  if (rows.has(key)) throw conflict(message);
  if (unique && [...rows.values()].some((r) => unique.taken(r.value))) throw conflict(unique.message);
  rows.set(key, { seq: next(), value: copy(value) });
}

/** A copy of the value under `id`, when it is `tenantId`'s. */
export function ownedValue<T extends { tenantId: string }>(rows: Map<string, Row<T>>, tenantId: string, id: string): T | undefined {
  const r = ownedRow(rows, tenantId, id);
  return r && copy(r.value);
}

/** Deletes the row under `id` when it is `tenantId`'s: false when the tenant has no such row. */
export function deleteOwned<T extends { tenantId: string }>(rows: Map<string, Row<T>>, tenantId: string, id: string): boolean {
  return ownedRow(rows, tenantId, id) !== undefined && rows.delete(id);
}

/**
 * The insert and reads of a repository whose rows are keyed by their id and owned by a tenant:
 * insert (Conflict with `exists` when the id is taken), get within the tenant, and a page of the
 * tenant's rows in creation order. A repository spreads them and adds its own updates and deletes.
 */
export function ownedById<T extends { tenantId: string; id: string }>(rows: () => Map<string, Row<T>>, next: () => number, exists: string) {
  return {
    async insert(value: T): Promise<void> {
      insertRow(rows(), value.id, value, next, exists);
    },
    async get(tenantId: string, id: string): Promise<T | undefined> {
      return ownedValue(rows(), tenantId, id);
    },
    async list(tenantId: string, page: PageRequest): Promise<Slice<T>> {
      return tenantPage(rows(), tenantId, page);
    },
  };
}

/** Deletes up to `limit` entries of `map` that `due` picks, telling `forget` of each (to drop what indexes it); returns how many. */
export function purgeWhere<K, V>(map: Map<K, V>, limit: number, due: (value: V, key: K) => boolean, forget?: (value: V, key: K) => void): number {
  let removed = 0;
  for (const [key, value] of map) {
    if (removed >= limit) break;
    if (!due(value, key)) continue;
    map.delete(key);
    forget?.(value, key);
    removed += 1;
  }
  return removed;
}
