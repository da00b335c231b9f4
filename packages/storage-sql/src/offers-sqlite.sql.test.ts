import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeOffer, makeTenant, makeUser } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlStore } from './index.ts';

describe('SQLite with two connections (two servers on one file)', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vellum-offers-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an offer for an existing user is written whole even when another connection writes meanwhile', async () => {
    const file = join(dir, 'two.db');
    const a = await openSqlStore({ kind: 'sqlite', filename: file });
    const b = await openSqlStore({ kind: 'sqlite', filename: file, busyTimeoutMs: 50 });
    try {
      const tenant = makeTenant();
      await a.tenants.insert(tenant);
      const user = makeUser(tenant.id);
      await a.users.insert(user);
      let other: unknown;
      const offer = makeOffer(tenant.id, user.id);
      await a.transaction(async (tx) => {
        // No claims to persist: still the user is held (an offer for an existing user does this).
        await tx.users.mergeClaims(tenant.id, user.id, {}, new Date().toISOString());
        // Another server writes now. mergeClaims took the write lock with its first statement, so
        // this waits (here briefly, then gives up) instead of invalidating the transaction's snapshot
        // (in WAL mode a read-then-write transaction would fail with SQLITE_BUSY_SNAPSHOT).
        other = await b.users.insert(makeUser(tenant.id)).then(
          () => 'written',
          (e: { code?: string }) => e.code,
        );
        await tx.offers.insert(offer);
      });
      expect(other).toBe('SQLITE_BUSY');
      expect(await a.offers.get(tenant.id, offer.id)).toEqual(offer);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
