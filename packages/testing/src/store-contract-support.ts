// What every part of the Store contract (ports.ts) shares: values unique within the process, so
// the parts can share one store, tenants to own the rows a test makes, fixtures written as they are
// made, and the checks for a refused write, a row only its tenant reaches and a rolled-back transaction.
import { DomainError, type Repositories, type Store, type Tenant } from '@vellum/core';
import { expect } from 'vitest';

let counter = 0;
/** The next number of a counter this process shares. */
export const nextNumber = () => (counter += 1);
/** A value unique within this process, so contract tests can share one store. */
export const unique = (p: string) => `${p}${Date.now().toString(36)}${nextNumber().toString(36)}`;
export const uuid = () => crypto.randomUUID();
/** Now, or `offsetMs` from now, as an ISO 8601 string. */
export const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

/** A tenant with a subdomain no other test uses. */
export function makeTenant(over: Partial<Tenant> = {}): Tenant {
  return { id: uuid(), subdomain: unique('t'), region: 'eu01', name: 'Test tenant', loggingLevel: 1, createdAt: iso(), ...over };
}

/** A fresh tenant, inserted into `store`. */
export async function insertTenant(store: Store, over: Partial<Tenant> = {}): Promise<Tenant> {
  const t = makeTenant(over);
  await store.tenants.insert(t);
  return t;
}

/** Two fresh tenants, inserted into `store`: one to own rows, one that must not see them. */
export async function insertTenants(store: Store): Promise<[Tenant, Tenant]> {
  return [await insertTenant(store), await insertTenant(store)];
}

/** Makers of fresh tenants in the store `store` returns when the tests run: one, or two. */
export function tenantMakers(store: () => Store): { tenant: () => Promise<Tenant>; tenants: () => Promise<[Tenant, Tenant]> } {
  return { tenant: () => insertTenant(store()), tenants: () => insertTenants(store()) };
}

/** `make`, then the value it made written with `insert`: a fixture that is already stored. */
export function inserting<A extends unknown[], T>(make: (...args: A) => T, insert: (value: T) => Promise<unknown>): (...args: A) => Promise<T> {
  return async (...args) => {
    const value = make(...args);
    await insert(value);
    return value;
  };
}

export async function expectDomainError(p: Promise<unknown>, code: string): Promise<void> {
  await expect(p).rejects.toBeInstanceOf(DomainError);
  await expect(p).rejects.toMatchObject({ code });
}

/** What `expectOwnedBy` reads and deletes through: rows a tenant owns under a key. */
interface TenantRows<T> {
  get(tenantId: string, key: string): Promise<T | undefined>;
  delete(tenantId: string, key: string): Promise<boolean>;
}

/** Checks that `row`, stored under `key`, is found by `owner` only, and that `other` cannot delete it. */
export async function expectOwnedBy<T>(rows: TenantRows<T>, [owner, other]: [Tenant, Tenant], key: string, row: T): Promise<void> {
  expect(await rows.get(owner.id, key)).toEqual(row);
  expect(await rows.get(other.id, key)).toBeUndefined();
  expect(await rows.delete(other.id, key)).toBe(false);
}

/** Runs `work` in a transaction of `store` that then fails with `message`, and checks that it failed. */
export async function expectRolledBack(store: Store, message: string, work: (tx: Repositories) => Promise<unknown>): Promise<void> {
  await expect(
    store.transaction(async (tx) => {
      await work(tx);
      throw new Error(message);
    }),
  ).rejects.toThrow(message);
}

/** Writes with `write` in a transaction of `store` that then fails with `message`, and checks that `read` finds nothing of it. */
export async function expectWriteRolledBack(
  store: Store,
  message: string,
  { write, read }: { write: (tx: Repositories) => Promise<unknown>; read: (repositories: Repositories) => Promise<unknown> },
): Promise<void> {
  await expectRolledBack(store, message, write);
  expect(await read(store)).toBeUndefined();
}
