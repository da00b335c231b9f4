import { describe, expect, it } from 'vitest';
import { uniqueViolation } from './errors.ts';

describe('uniqueViolation', () => {
  it('recognises a unique violation from each driver, and nothing else', () => {
    const message = 'UNIQUE constraint failed: tenants.subdomain';
    expect(uniqueViolation(Object.assign(new Error(message), { code: 'ERR_SQLITE_ERROR', errcode: 2067 }))).toBe(message);
    expect(uniqueViolation(Object.assign(new Error(message), { code: 'ERR_SQLITE_ERROR', errcode: 1555 }))).toBe(message);
    expect(uniqueViolation(Object.assign(new Error(message), { code: 'SQLITE_CONSTRAINT_UNIQUE' }))).toBe(message);
    expect(uniqueViolation(Object.assign(new Error(message), { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' }))).toBe(message);
    const pg = 'duplicate key value violates unique constraint "tenants_subdomain_unique"';
    expect(uniqueViolation(Object.assign(new Error(pg), { code: '23505' }))).toBe(pg);

    expect(uniqueViolation(Object.assign(new Error('FOREIGN KEY constraint failed'), { code: 'ERR_SQLITE_ERROR', errcode: 787 }))).toBeUndefined();
    expect(uniqueViolation(Object.assign(new Error('violates foreign key'), { code: '23503' }))).toBeUndefined();
    expect(uniqueViolation(new Error('boom'))).toBeUndefined();
    expect(uniqueViolation('23505')).toBeUndefined();
    expect(uniqueViolation(null)).toBeUndefined();
  });
});
