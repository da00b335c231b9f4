import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { Problems } from './body-problems.ts';

// docs/decisions.md "One validation path": the one check every body schema runs through.
const Body = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 5, errorMessage: 'A name (1 to 5 characters)' }),
    tags: Type.Optional(Type.Array(Type.Union([Type.Literal('a'), Type.Literal('b')], { errorMessage: 'a or b' }), { maxItems: 2 })),
    password: Type.Optional(Type.String({ maxLength: 3, writeOnly: true })),
    count: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);

const check = (input: unknown, prefix?: string) => {
  const p = new Problems();
  const fits = p.checkShape(Body, input, prefix);
  return { fits, details: p.details };
};

describe('Problems.checkShape', () => {
  it('passes a body of the right shape and reports nothing', () => {
    expect(check({ name: 'x', tags: ['a'], count: 2 })).toEqual({ fits: true, details: [] });
  });

  it('names each field once, in the words of the nearest errorMessage on its path', () => {
    expect(check({ name: '', tags: ['a', 'c'] }).details).toEqual([
      { param: 'name', msg: 'A name (1 to 5 characters)', value: '', location: 'body' },
      { param: 'tags.1', msg: 'a or b', value: 'c', location: 'body' },
    ]);
  });

  it('says Required for a missing field without words of its own, TypeBox’s words otherwise', () => {
    const loose = Type.Object({ id: Type.String(), n: Type.Integer() });
    const p = new Problems();
    expect(p.checkShape(loose, { n: 1.5 })).toBe(false);
    expect(p.details).toEqual([
      { param: 'id', msg: 'Required', location: 'body' },
      { param: 'n', msg: 'Expected integer', value: 1.5, location: 'body' },
    ]);
  });

  it('reports unknown fields, leaving out the value of a writeOnly field and of a name that says secret', () => {
    const { fits, details } = check({ name: 'x', password: 'longer', colour: 'red', api_key: 'k-123' });
    expect(fits).toBe(false);
    expect(details).toContainEqual({ param: 'password', msg: 'Expected string length less or equal to 3', location: 'body' });
    expect(details).toContainEqual({ param: 'colour', msg: 'Unknown field', value: 'red', location: 'body' });
    expect(details).toContainEqual({ param: 'api_key', msg: 'Unknown field', location: 'body' });
    expect(JSON.stringify(details)).not.toMatch(/longer|k-123/);
  });

  it('calls a body that is no object "body", and puts a prefix before nested params', () => {
    expect(check(null).details).toEqual([{ param: 'body', msg: 'Expected object', value: null, location: 'body' }]);
    expect(check([]).details).toEqual([{ param: 'body', msg: 'Expected object', value: [], location: 'body' }]);
    expect(check({ name: 7 }, 'items.0.').details).toEqual([{ param: 'items.0.name', msg: 'A name (1 to 5 characters)', value: 7, location: 'body' }]);
  });

  it('orders shape and value problems by the schema’s fields when it throws, and knows which fields failed', () => {
    const p = new Problems();
    p.checkShape(Body, { tags: ['z'], name: 'toolongname' });
    p.add('count', 'a value rule');
    p.add('name', 'a second problem');
    expect(p.has('name')).toBe(true);
    expect(p.has('count')).toBe(true);
    expect(p.has('password')).toBe(false);
    expect(() => p.throwIfAny(Body)).toThrow(
      expect.objectContaining({
        details: [
          expect.objectContaining({ param: 'name', msg: 'A name (1 to 5 characters)' }),
          expect.objectContaining({ param: 'name', msg: 'a second problem' }),
          expect.objectContaining({ param: 'tags.0' }),
          expect.objectContaining({ param: 'count' }),
        ],
      }),
    );
  });
});
