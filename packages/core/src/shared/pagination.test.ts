import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, parsePageQuery, toPage } from './pagination.ts';

// docs/decisions.md "Pagination": only a full page carries nextCursor.
describe('toPage', () => {
  const double = (n: number) => n * 2;

  it('gives a full page a cursor naming its last row', () => {
    const page = toPage({ items: [1, 2], last: 41 }, { limit: 2 }, double);
    expect(page).toEqual({ data: [2, 4], nextCursor: encodeCursor(41) });
    expect(decodeCursor(page.nextCursor ?? '')).toBe(41);
  });

  it('gives a page shorter than its limit no cursor: it is the last one', () => {
    expect(toPage({ items: [1], last: 7 }, { limit: 2 }, double)).toEqual({ data: [2] });
    expect(toPage({ items: [1, 2, 3], last: 9 }, parsePageQuery({}), double)).toEqual({ data: [2, 4, 6] });
  });

  it('gives an empty page no cursor', () => {
    expect(toPage({ items: [] }, { limit: 1 }, double)).toEqual({ data: [] });
  });
});
