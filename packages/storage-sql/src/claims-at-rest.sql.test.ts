// Claims at rest on both dialects beyond the Store contract (issue 26 point 4; docs/decisions.md
// "Claims at rest"): 0019_claims_at_rest over a database an earlier release wrote, whose offers and
// authorizations hold their claims in plaintext.
import { openClaims } from '@vellum/core';
import { fakeSecretBox, makeAuthorization, makeOffer, makeUser } from '@vellum/testing';
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import { toAuthorizationRow } from './authorizations.table.ts';
import { createSqlStoreFromKysely, migrateToLatest, type VellumDatabase } from './index.ts';
import { migrateTo } from './migrations.ts';
import { toOfferRow, toUserRow } from './users-offers.table.ts';
import { describeMigration, insertTenantRow } from '../test/migration-tests.ts';

const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();
const HOUR = 3_600_000;

/** 0019 erases the plaintext claims that can no longer be used and keeps the others readable, for an hour at most. */
async function migrationErasesOldClaims(db: Kysely<VellumDatabase>, kind: 'sqlite' | 'postgres'): Promise<void> {
  await migrateTo(db, '0017_issued_credential_clients', kind);
  const tenant = await insertTenantRow(db);
  const user = makeUser(tenant.id);
  await db.insertInto('users').values(toUserRow(user)).execute();
  // As an earlier release wrote them: the claims as JSON text.
  const plain = (claims: Record<string, unknown>) => ({ sealedClaims: JSON.stringify(claims) });
  const offers = {
    open: makeOffer(tenant.id, user.id, plain({ ssn: 'open' })),
    expired: makeOffer(tenant.id, user.id, { ...plain({ ssn: 'expired' }), expiresAt: iso(-1000) }),
    usedNow: makeOffer(tenant.id, user.id, { ...plain({ ssn: 'used now' }), status: 'used', usedAt: iso(-60_000), expiresAt: iso(-30_000) }),
    usedLongAgo: makeOffer(tenant.id, user.id, { ...plain({ ssn: 'used long ago' }), status: 'used', usedAt: iso(-2 * HOUR), expiresAt: iso(-2 * HOUR) }),
    locked: makeOffer(tenant.id, user.id, { ...plain({ ssn: 'locked' }), status: 'locked' }),
    deleted: makeOffer(tenant.id, user.id, { ...plain({ ssn: 'deleted' }), status: 'deleted' }),
    none: makeOffer(tenant.id, user.id, plain({})),
  };
  // The schema of 0017 has no wallet_requirements (0026).
  const rowOf = (o: (typeof offers)['open']) => {
    const { wallet_requirements: _, required_proofs: __, ...row } = toOfferRow(o, kind);
    return row;
  };
  for (const o of Object.values(offers)) await db.insertInto('offers').values(rowOf(o)).execute();
  const authorizations = {
    code: makeAuthorization(tenant.id, { ...plain({ member: 'code' }), stage: 'code', expiresAt: iso(60_000) }),
    // Before this release a redeemed authorization's expiry was its redemption.
    redeemedNow: makeAuthorization(tenant.id, { ...plain({ member: 'redeemed now' }), stage: 'redeemed', expiresAt: iso(-60_000) }),
    redeemedLongAgo: makeAuthorization(tenant.id, { ...plain({ member: 'long ago' }), stage: 'redeemed', expiresAt: iso(-2 * HOUR) }),
    failed: makeAuthorization(tenant.id, { ...plain({ member: 'failed' }), stage: 'failed', expiresAt: iso(60_000) }),
  };
  for (const a of Object.values(authorizations)) await db.insertInto('authorizations').values(toAuthorizationRow(a, kind)).execute();

  await migrateToLatest(db);
  const store = createSqlStoreFromKysely(db, kind);
  try {
    const offer = (o: { id: string }) => store.offers.get(tenant.id, o.id);
    for (const gone of [offers.expired, offers.usedLongAgo, offers.locked, offers.deleted, offers.none])
      expect(await offer(gone)).not.toHaveProperty('sealedClaims');
    // Still usable: read as they are (openClaims takes JSON text), until the sweep erases them within the hour.
    const open = await offer(offers.open);
    expect(openClaims(fakeSecretBox(), open?.sealedClaims, 'unused')).toEqual({ ssn: 'open' });
    expect(open?.expiresAt).toBe(offers.open.expiresAt);
    const used = await offer(offers.usedNow);
    expect(used?.sealedClaims).toBe(JSON.stringify({ ssn: 'used now' }));
    expect(Date.parse(used?.expiresAt as string)).toBeGreaterThan(Date.now() + HOUR - 60_000);
    const authorization = (a: { id: string }) => store.authorizations.get(tenant.id, a.id);
    for (const gone of [authorizations.redeemedLongAgo, authorizations.failed]) expect(await authorization(gone)).not.toHaveProperty('sealedClaims');
    expect((await authorization(authorizations.code))?.sealedClaims).toBe(JSON.stringify({ member: 'code' }));
    const redeemed = await authorization(authorizations.redeemedNow);
    expect(redeemed?.sealedClaims).toBe(JSON.stringify({ member: 'redeemed now' }));
    expect(Date.parse(redeemed?.expiresAt as string)).toBeGreaterThan(Date.now() + HOUR - 60_000);
    // The sweep, an hour and a bit later, leaves no plaintext behind.
    const later = iso(HOUR + 60_000);
    while ((await store.offers.eraseExpiredClaims(later, 100)) > 0);
    while ((await store.authorizations.eraseExpiredClaims(later, 100)) > 0);
    const left = [...(await db.selectFrom('offers').select('claims').execute()), ...(await db.selectFrom('authorizations').select('claims').execute())].filter(
      (r) => r.claims !== '',
    );
    expect(left).toEqual([]);
  } finally {
    await store.close();
  }
}

describeMigration(
  'claims at rest',
  '0019_claims_at_rest erases the plaintext claims an earlier release kept, except those still in use',
  migrationErasesOldClaims,
);
