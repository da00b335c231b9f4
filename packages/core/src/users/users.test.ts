import { describe, expect, it } from 'vitest';
import { contextFor, withTenants } from '../../test/harness.ts';
import { refusal } from '../../test/refusal.ts';
import type { Tenant } from '../tenancy/model.ts';
import { canonicalJson, userMatches } from './model.ts';
import { MAX_CLAIM_DEPTH } from './rules.ts';

const setup = () => withTenants();

const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { x: nested(depth - 1) });

describe('users (docs/decisions.md "Users, offers, the token and nonce endpoints")', () => {
  it('creates a user with claims (or none), reads, lists, replaces and deletes it', async () => {
    const { users, ctx } = await setup();
    const ada = await users.create(ctx, { claims: { givenName: 'Ada', address: { city: 'London' } } });
    expect(ada).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      claims: { givenName: 'Ada', address: { city: 'London' } },
      createdAt: '2026-05-01T12:00:00.000Z',
      updatedAt: '2026-05-01T12:00:00.000Z',
    });
    const empty = await users.create(ctx, {});
    expect(empty.claims).toEqual({});
    expect(await users.get(ctx, ada.id)).toEqual(ada);

    const first = await users.list(ctx, { limit: 1 });
    expect(first).toEqual({ data: [ada], nextCursor: expect.any(String) });
    expect((await users.list(ctx, { cursor: first.nextCursor })).data).toEqual([empty]);

    const replaced = await users.update(ctx, ada.id, { claims: { familyName: 'Lovelace' } });
    expect(replaced).toEqual({ ...ada, claims: { familyName: 'Lovelace' } });
    expect(await users.update(ctx, ada.id, {})).toMatchObject({ claims: {} });

    await users.delete(ctx, ada.id);
    expect(await refusal(users.get(ctx, ada.id))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(users.delete(ctx, ada.id))).toMatchObject({ code: 'NotFound' });
  });

  it('keeps tenants apart and names a malformed id', async () => {
    const { users, ctx, other } = await setup();
    const u = await users.create(ctx, { claims: { a: 1 } });
    const theirs = contextFor(other);
    expect(await refusal(users.get(theirs, u.id))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(users.update(theirs, u.id, {}))).toMatchObject({ code: 'NotFound' });
    expect(await refusal(users.delete(theirs, u.id))).toMatchObject({ code: 'NotFound' });
    expect((await users.list(theirs, {})).data).toEqual([]);
    expect(await refusal(users.get(ctx, 'nope'))).toMatchObject({ code: 'BadRequest', details: [{ param: 'id', location: 'params', value: 'nope' }] });
  });

  it('refuses claims that are not an object, unnamed or too long names, and nesting deeper than the limit', async () => {
    const { users, ctx } = await setup();
    expect(await refusal(users.create(ctx, { claims: ['a'] }))).toMatchObject({ code: 'BadRequest', details: [{ param: 'claims' }] });
    expect(await refusal(users.create(ctx, { claims: { '': 1, ['x'.repeat(257)]: 2 } }))).toMatchObject({
      details: [{ param: 'claims', value: '' }, { param: 'claims' }],
    });
    expect(await refusal(users.create(ctx, { claims: { deep: nested(MAX_CLAIM_DEPTH) } }))).toMatchObject({
      details: [{ msg: expect.stringContaining('nest') }],
    });
    await expect(users.create(ctx, { claims: { deep: nested(MAX_CLAIM_DEPTH - 2) } })).resolves.toBeDefined();
    expect(await refusal(users.create(ctx, { claims: {}, extra: true }))).toMatchObject({ details: [{ param: 'extra', msg: 'Unknown field' }] });
    // A body nested far beyond any stack is refused, not walked recursively.
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(await refusal(users.create(ctx, { claims: { deep } }))).toMatchObject({ code: 'BadRequest' });
  });

  it('searches by claims (all must be equal) and by authentication provider subject, paging in the body', async () => {
    const { users, ctx, store, tenant } = await setup();
    const ada = await users.create(ctx, { claims: { email: 'ada@example.com', age: 36, address: { city: 'London', zip: 'N1' } } });
    const bob = await users.create(ctx, { claims: { email: 'bob@example.com', age: 36 } });
    await store.users.update({ ...(await store.users.get(tenant.id, bob.id))!, authenticationProvider: { url: 'https://idp.example', subjectId: 'bob-1' } });
    expect((await users.search(ctx, { claims: { age: 36 } })).data.map((u) => u.id)).toEqual([ada.id, bob.id]);
    expect((await users.search(ctx, { claims: { age: 36, email: 'ada@example.com' } })).data.map((u) => u.id)).toEqual([ada.id]);
    expect((await users.search(ctx, { claims: { address: { zip: 'N1', city: 'London' } } })).data.map((u) => u.id)).toEqual([ada.id]);
    expect((await users.search(ctx, { claims: { age: '36' } })).data).toEqual([]);
    const bySubject = await users.search(ctx, { authenticationProvider: { subjectId: 'bob-1' } });
    expect(bySubject.data).toEqual([{ ...bob, authenticationProvider: { url: 'https://idp.example', subjectId: 'bob-1' } }]);
    const page = await users.search(ctx, { claims: { age: 36 }, limit: 1 });
    expect(page.data.map((u) => u.id)).toEqual([ada.id]);
    expect((await users.search(ctx, { claims: { age: 36 }, limit: 1, cursor: page.nextCursor })).data.map((u) => u.id)).toEqual([bob.id]);
    expect(await refusal(users.search(ctx, { cursor: 'garbage!' }))).toMatchObject({ code: 'BadRequest', details: [{ param: 'cursor', location: 'body' }] });
    expect(await refusal(users.search(ctx, { limit: 0 }))).toMatchObject({ details: [{ param: 'limit', location: 'body' }] });
    expect(await refusal(users.search(ctx, { authenticationProvider: { subjectId: '' } }))).toMatchObject({ details: [{ param: 'authenticationProvider' }] });
    expect(await refusal(users.search(ctx, { claims: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`c${i}`, i])) }))).toMatchObject({
      details: [{ param: 'claims' }],
    });
  });

  it('needs the users permission (admin, issuer, managed-issuer)', async () => {
    const { users, tenant } = await setup();
    for (const role of ['admin', 'issuer', 'managed-issuer'] as const) await expect(users.create(contextFor(tenant, role), {})).resolves.toBeDefined();
    for (const role of ['verifier', 'auditor', 'dts-provider', 'dts-consumer'] as const) {
      expect(await refusal(users.list(contextFor(tenant, role), {})), role).toMatchObject({ code: 'Forbidden' });
    }
    expect(await refusal(users.create(contextFor(tenant, null), {}))).toMatchObject({ code: 'Unauthorized' });
  });

  it('records USER_* events (category user), with claims only at logging level 3', async () => {
    const { users, tenant, store, analytics } = await setup();
    const run = async (level: 1 | 2 | 3) => {
      await store.tenants.setLoggingLevel(tenant.id, level);
      const t: Tenant = { ...tenant, loggingLevel: level };
      const ctx = contextFor(t);
      const u = await users.create(ctx, { claims: { hobby: 'personal' } });
      await users.list(ctx, {});
      await users.get(ctx, u.id);
      await users.update(ctx, u.id, { claims: { b: 2 } });
      await users.search(ctx, { claims: { b: 2 } });
      await users.delete(ctx, u.id);
      await expect(users.get(ctx, u.id)).rejects.toBeDefined();
      const page = await analytics.listEvents(contextFor(t, 'auditor'), { categories: 'user', limit: 100 });
      return page.data.reverse();
    };
    const level1 = await run(1);
    expect(level1.map((e) => e.type)).toEqual([
      'USER_CREATE_START',
      'USER_CREATE_SUCCESS',
      'USER_LIST_START',
      'USER_LIST_SUCCESS',
      'USER_RETRIEVE_START',
      'USER_RETRIEVE_SUCCESS',
      'USER_UPDATE_START',
      'USER_UPDATE_SUCCESS',
      'USER_SEARCH_START',
      'USER_SEARCH_SUCCESS',
      'USER_DELETE_START',
      'USER_DELETE_SUCCESS',
      'USER_RETRIEVE_START',
      'USER_RETRIEVE_FAIL',
    ]);
    expect(JSON.stringify(level1)).not.toContain('personal');
    expect(level1.at(-1)?.data).toEqual({ errorCode: 'NotFound' });
    const level3 = (await run(3)).filter((e) => e.type === 'USER_CREATE_SUCCESS');
    expect(level3.at(-1)?.data).toMatchObject({ id: expect.any(String), payload: { request: { claims: { hobby: 'personal' } } } });
  });
});

describe('claim equality (the rule every store implements)', () => {
  it('compares JSON values whatever the key order, and tells types apart', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[1,{"c":2,"d":1}]}');
    const user = { id: 'u', tenantId: 't', claims: { n: 1, s: '1', o: { a: 1, b: 2 } }, createdAt: '', updatedAt: '' };
    expect(userMatches(user, { claims: { o: { b: 2, a: 1 }, n: 1 } })).toBe(true);
    expect(userMatches(user, { claims: { n: '1' } })).toBe(false);
    expect(userMatches(user, { claims: { missing: undefined } })).toBe(false);
    expect(userMatches(user, { subjectId: 'x' })).toBe(false);
  });
});
