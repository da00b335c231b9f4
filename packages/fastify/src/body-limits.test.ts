// Hardening issue item 1: the nesting scanners that run before a body is parsed, and the bounding of
// values echoed in an error body's `details` (docs/limits.md).
import { describe, expect, it } from 'vitest';
import { boundDetails, boundDetailValue, jsonNestsDeeperThan, MAX_BODY_NESTING, MAX_DETAILS, xmlNestsDeeperThan } from './body-limits.ts';

describe('JSON nesting scanner', () => {
  const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

  it('allows exactly the limit and refuses one more level, of arrays or objects', () => {
    expect(jsonNestsDeeperThan(nested(MAX_BODY_NESTING))).toBe(false);
    expect(jsonNestsDeeperThan(nested(MAX_BODY_NESTING + 1))).toBe(true);
    expect(jsonNestsDeeperThan(`${'{"a":'.repeat(MAX_BODY_NESTING + 1)}1${'}'.repeat(MAX_BODY_NESTING + 1)}`)).toBe(true);
    expect(jsonNestsDeeperThan('{"a":[{"b":[1,2,{"c":{}}]}]}', 6)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":[{"b":[1,2,{"c":{}}]}]}', 5)).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const s = JSON.stringify({ a: `${'['.repeat(500)}"\\${'{'.repeat(500)}` });
    expect(jsonNestsDeeperThan(s, 2)).toBe(false);
    expect(jsonNestsDeeperThan(`[${s}]`, 1)).toBe(true);
  });

  it('closing brackets without openers do not hide a deep value later on', () => {
    expect(jsonNestsDeeperThan(`${']'.repeat(100)}${nested(MAX_BODY_NESTING + 1)}`)).toBe(true);
  });
});

describe('XML nesting scanner', () => {
  const nested = (n: number) => `${'<a>'.repeat(n)}${'</a>'.repeat(n)}`;

  it('allows exactly the limit and refuses one more element level', () => {
    expect(xmlNestsDeeperThan(nested(MAX_BODY_NESTING))).toBe(false);
    expect(xmlNestsDeeperThan(nested(MAX_BODY_NESTING + 1))).toBe(true);
    expect(xmlNestsDeeperThan(`${'</a>'.repeat(100)}${nested(MAX_BODY_NESTING + 1)}`)).toBe(true);
  });

  it('does not count self-closing elements, comments, CDATA, declarations, or `>` in attribute values', () => {
    const flat = `<?xml version="1.0"?><d x="1>2" y='<b>'><!-- <c><c><c> --><![CDATA[<e><e><e>]]>${'<f/>'.repeat(100)}<g>t</g></d>`;
    expect(xmlNestsDeeperThan(flat, 2)).toBe(false);
    expect(xmlNestsDeeperThan(flat, 1)).toBe(true);
  });
});

describe('bounded error detail values (docs/errors.md details, hardening issue item 1)', () => {
  it('cuts long strings to 200 characters', () => {
    expect(boundDetailValue('x'.repeat(5000))).toBe(`${'x'.repeat(200)}…`);
    expect(boundDetailValue('short')).toBe('short');
  });

  it('keeps scalars, keeps two levels of arrays and objects and summarises deeper ones', () => {
    expect(boundDetailValue(3)).toBe(3);
    expect(boundDetailValue(null)).toBe(null);
    expect(boundDetailValue({ a: { b: { c: 1 } }, l: [[1, [2, 3]]] })).toEqual({ a: { b: '{object of 1}' }, l: ['[array of 2]'] });
    expect(boundDetailValue([[[1, 2, 3]]])).toEqual([['[array of 3]']]);
  });

  it('keeps at most 10 items or entries and says how many were left out', () => {
    expect(boundDetailValue(Array.from({ length: 1000 }, (_, i) => i))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, '… 990 more']);
    const wide = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const bounded = boundDetailValue(wide) as Record<string, unknown>;
    expect(Object.keys(bounded)).toHaveLength(11);
    expect(bounded['…']).toBe('40 more');
  });

  it('makes any value serialisable and small: a 100,000-deep array, a huge string, a bigint', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const details = boundDetails([
      { value: deep, msg: 'Invalid', param: 'a', location: 'body' },
      { value: 'y'.repeat(1_000_000), msg: 'm'.repeat(1000), param: 'p'.repeat(1000), location: 'body' },
      { value: 10n, msg: 'Invalid', param: 'b', location: 'query' },
      { msg: 'Required', param: 'c', location: 'body' },
    ]);
    const text = JSON.stringify(details);
    expect(text.length).toBeLessThan(1000);
    expect(details[2]?.value).toBe('10');
    expect(details[3]).toEqual({ msg: 'Required', param: 'c', location: 'body' });
  });

  it(`keeps at most ${MAX_DETAILS} details`, () => {
    const many = Array.from({ length: 500 }, (_, i) => ({ msg: 'Unknown field', param: `f${i}`, location: 'body' as const }));
    expect(boundDetails(many)).toHaveLength(MAX_DETAILS);
  });
});
