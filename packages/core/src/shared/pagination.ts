import { fromBase64Url, toBase64Url } from './encoding.ts';
import { invalidField } from './errors.ts';

/** docs/decisions.md "Pagination": `limit` is 1..1000 with 100 by default. */
export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;

/** The `limit` and `cursor` of a list operation's query, as the API takes them. */
export interface PageQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** What a repository receives: how many rows, and the position after which to start. */
export interface PageRequest {
  limit: number;
  /** The sequence number of the last row already seen; rows strictly past it are returned. */
  after?: number;
}

/** What a repository returns: rows in order, and the sequence number of the last one. */
export interface Slice<T> {
  items: T[];
  last?: number;
}

/** A page of results as the API renders it (docs/decisions.md "Pagination"). */
export interface Page<T> {
  data: T[];
  nextCursor?: string;
}

const CURSOR_PREFIX = 'v1.';

/** Cursors are opaque to clients; inside they carry the row's position in creation order. */
export function encodeCursor(seq: number): string {
  return toBase64Url(`${CURSOR_PREFIX}${seq.toString(36)}`);
}

export function decodeCursor(cursor: string): number {
  const text = cursor.length <= 40 ? (fromBase64Url(cursor) ?? '') : '';
  const body = text.startsWith(CURSOR_PREFIX) ? text.slice(CURSOR_PREFIX.length) : '';
  const seq = /^[0-9a-z]{1,11}$/.test(body) ? Number.parseInt(body, 36) : Number.NaN;
  if (!Number.isSafeInteger(seq) || seq < 0) throw invalidField('cursor', 'Malformed cursor', cursor, 'query');
  return seq;
}

/** Turns the `limit` and `cursor` query values into a repository page request, or a 400. */
export function parsePageQuery(query: PageQuery): PageRequest {
  const limit = query.limit ?? DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw invalidField('limit', `Must be an integer from 1 to ${MAX_PAGE_LIMIT}`, query.limit, 'query');
  }
  return query.cursor === undefined ? { limit } : { limit, after: decodeCursor(query.cursor) };
}

/**
 * Renders a repository slice as an API page. `nextCursor` names the last item only when the page is
 * full (as many items as `request.limit`): a shorter page is the last one, and carries none
 * (docs/decisions.md "Pagination"). A full page may still be the last; the page after it is empty.
 */
export function toPage<T, U>(slice: Slice<T>, request: PageRequest, render: (item: T) => U): Page<U> {
  const data = slice.items.map(render);
  return data.length >= request.limit && slice.last !== undefined ? { data, nextCursor: encodeCursor(slice.last) } : { data };
}
