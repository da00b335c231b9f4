// The Store contract for users, offers, nonces and tenant signing keys (ports.ts: UserRepository,
// OfferRepository, NonceRepository, TenantSigningKeyRepository), run inside describeStoreContract
// against every adapter.
import type { OfferRecord, RedeemAttempt, RedeemOutcome, Store, UserRecord } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, inserting, iso, tenantMakers, unique, uuid } from './store-contract-support.ts';

/** A user of `tenantId` with a few claims. */
export function makeUser(tenantId: string, over: Partial<UserRecord> = {}): UserRecord {
  const now = iso();
  return { id: uuid(), tenantId, claims: { givenName: 'Ada', born: '1815-12-10' }, createdAt: now, updatedAt: now, ...over };
}

/** An open pre-authorized offer for `userId`, expiring in 5 minutes, without a transaction code unless told. */
export function makeOffer(tenantId: string, userId: string | undefined, over: Partial<OfferRecord> = {}): OfferRecord {
  return {
    id: uuid(),
    tenantId,
    kind: 'pre-authorized',
    issuer: 'https://t.eu01.vellum.test',
    configurationIds: [uuid()],
    ...(userId !== undefined ? { userId } : {}),
    // Opaque to the store: the core seals the claims.
    ...(over.kind === 'authorization-code' ? {} : { sealedClaims: unique('v1.sealed-claims-') }),
    codeDigest: unique('code-'),
    byReference: false,
    status: 'open',
    failedTxAttempts: 0,
    expiresAt: iso(300_000),
    createdAt: iso(),
    ...over,
  };
}

/** A redeem attempt at `now` with the transaction code digest `digest` (or none); a redeemed offer then expires 10 minutes after the call. */
export function attempt(digest: string | undefined, now: string, claimsUntil = iso(600_000)): RedeemAttempt {
  return { ...(digest !== undefined ? { txCodeDigests: [digest] } : {}), now, maxTxAttempts: 3, claimsUntil };
}

/** The users, offers, nonces and signing key part of the Store contract; `store` is read when the tests run. */
export function describeOfferContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);
  const user = inserting(makeUser, (u) => store().users.insert(u));

  describe('users', () => {
    it('inserts, gets only within the tenant, and refuses a taken id with Conflict', async () => {
      const [a, b] = await tenants();
      const u = await user(a.id, { authenticationProvider: { url: 'https://idp.example', subjectId: 'sub-1' } });
      expect(await store().users.get(a.id, u.id)).toEqual(u);
      expect(await store().users.get(b.id, u.id)).toBeUndefined();
      await expectDomainError(store().users.insert(makeUser(b.id, { id: u.id })), 'Conflict');
    });

    it('lists in creation order across pages, only the tenant’s', async () => {
      const [a, b] = await tenants();
      const mine = [await user(a.id), await user(a.id), await user(a.id)];
      await user(b.id);
      const first = await store().users.list(a.id, { limit: 2 });
      expect(first.items.map((u) => u.id)).toEqual([mine[0]?.id, mine[1]?.id]);
      const rest = await store().users.list(a.id, { limit: 2, after: first.last as number });
      expect(rest.items.map((u) => u.id)).toEqual([mine[2]?.id]);
      expect((await store().users.list(a.id, { limit: 2, after: rest.last as number })).items).toEqual([]);
    });

    it('filters by claims with JSON equality (any depth, any key) and by provider subject', async () => {
      const t = await tenant();
      const claims = {
        email: 'ada@example.com',
        age: 36,
        active: true,
        gone: null,
        'a.b': 'dotted',
        'we"ird': 1.5,
        address: { city: 'London', lines: ['1', '2'] },
      };
      const ada = await user(t.id, { claims, authenticationProvider: { url: 'https://idp.example', subjectId: 'ada' } });
      const other = await user(t.id, { claims: { ...claims, email: 'other@example.com', age: '36' } });
      const ids = async (filter: Parameters<Store['users']['list']>[2]) => (await store().users.list(t.id, { limit: 10 }, filter)).items.map((u) => u.id);
      expect(await ids({ claims: { email: 'ada@example.com' } })).toEqual([ada.id]);
      expect(await ids({ claims: { age: 36 } })).toEqual([ada.id]);
      expect(await ids({ claims: { age: '36' } })).toEqual([other.id]);
      expect(await ids({ claims: { active: true, gone: null } })).toEqual([ada.id, other.id]);
      expect(await ids({ claims: { 'a.b': 'dotted', 'we"ird': 1.5 } })).toEqual([ada.id, other.id]);
      // Keys in another order are the same object; a different array order is not the same array.
      expect(await ids({ claims: { address: { lines: ['1', '2'], city: 'London' } } })).toEqual([ada.id, other.id]);
      expect(await ids({ claims: { address: { city: 'London', lines: ['2', '1'] } } })).toEqual([]);
      expect(await ids({ claims: { missing: null } })).toEqual([]);
      expect(await ids({ claims: { active: 1 } })).toEqual([]);
      expect(await ids({ subjectId: 'ada' })).toEqual([ada.id]);
      expect(await ids({ subjectId: 'ada', claims: { age: '36' } })).toEqual([]);
      expect(await ids({})).toEqual([ada.id, other.id]);
    });

    it('update replaces claims; false for an unknown or another tenant’s user', async () => {
      const [a, b] = await tenants();
      const u = await user(a.id);
      const replaced = { ...u, claims: { only: 'this' }, updatedAt: iso(1000) };
      expect(await store().users.update(replaced)).toBe(true);
      expect(await store().users.get(a.id, u.id)).toEqual(replaced);
      expect(await store().users.update({ ...replaced, tenantId: b.id })).toBe(false);
      expect(await store().users.update(makeUser(a.id))).toBe(false);
    });

    it('mergeClaims sets the named claims and keeps the others; nothing for no claims or an unknown user', async () => {
      const t = await tenant();
      const u = await user(t.id, { claims: { keep: 1, change: 'old' } });
      const later = iso(5000);
      const merged = await store().users.mergeClaims(t.id, u.id, { change: 'new', added: { x: [1] } }, later);
      expect(merged).toEqual({ ...u, claims: { keep: 1, change: 'new', added: { x: [1] } }, updatedAt: later });
      expect(await store().users.get(t.id, u.id)).toEqual(merged);
      expect(await store().users.mergeClaims(t.id, u.id, {}, iso(9000))).toEqual(merged);
      expect(await store().users.mergeClaims(t.id, uuid(), { a: 1 }, later)).toBeUndefined();
    });

    it('concurrent merges of different claims, inside transactions, lose none', async () => {
      const t = await tenant();
      const u = await user(t.id, { claims: {} });
      await Promise.all(Array.from({ length: 8 }, (_, i) => store().transaction((tx) => tx.users.mergeClaims(t.id, u.id, { [`c${i}`]: i }, iso()))));
      expect((await store().users.get(t.id, u.id))?.claims).toEqual(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`c${i}`, i])));
    });

    it('delete removes the user and its offers; false when already gone or another tenant’s', async () => {
      const [a, b] = await tenants();
      const u = await user(a.id);
      const offer = makeOffer(a.id, u.id);
      await store().offers.insert(offer);
      expect(await store().users.delete(b.id, u.id)).toBe(false);
      expect(await store().users.delete(a.id, u.id)).toBe(true);
      expect(await store().users.get(a.id, u.id)).toBeUndefined();
      expect(await store().offers.get(a.id, offer.id)).toBeUndefined();
      expect(await store().offers.findByCodeDigest(a.id, offer.codeDigest)).toBeUndefined();
      expect(await store().users.delete(a.id, u.id)).toBe(false);
    });
  });

  describe('offers', () => {
    it('round-trips both kinds, found by id and by code digest only within the tenant', async () => {
      const [a, b] = await tenants();
      const u = await user(a.id);
      const pre = makeOffer(a.id, u.id, { txCode: { digest: unique('tx-'), inputMode: 'numeric', length: 6, description: 'By SMS' }, byReference: true });
      const auth = makeOffer(a.id, undefined, {
        kind: 'authorization-code',
        requestParameters: { login_hint: 'ada', prompt: 'login' },
        expiresAt: iso(86_400_000),
      });
      await store().offers.insert(pre);
      await store().offers.insert(auth);
      expect(await store().offers.get(a.id, pre.id)).toEqual(pre);
      expect(await store().offers.get(a.id, auth.id)).toEqual(auth);
      expect(await store().offers.findByCodeDigest(a.id, pre.codeDigest)).toEqual(pre);
      expect(await store().offers.findByCodeDigest(a.id, auth.codeDigest)).toEqual(auth);
      expect(await store().offers.get(b.id, pre.id)).toBeUndefined();
      expect(await store().offers.findByCodeDigest(b.id, pre.codeDigest)).toBeUndefined();
      expect(await store().offers.findByCodeDigest(a.id, unique('none-'))).toBeUndefined();
    });

    it('keeps what an offer asks of the wallet (walletRequirements, keyAttestationsRequired), and nothing for an offer that asks nothing', async () => {
      const [a] = await tenants();
      const u = await user(a.id);
      const both = makeOffer(a.id, u.id, {
        walletRequirements: { walletAttestation: true, dpop: true },
        keyAttestationsRequired: { keyStorage: ['iso_18045_high'], userAuthentication: ['iso_18045_moderate'] },
      });
      const dpopOnly = makeOffer(a.id, undefined, { kind: 'authorization-code', walletRequirements: { dpop: true } });
      const none = makeOffer(a.id, u.id);
      for (const o of [both, dpopOnly, none]) await store().offers.insert(o);
      expect(await store().offers.get(a.id, both.id)).toEqual(both);
      expect(await store().offers.findByCodeDigest(a.id, dpopOnly.codeDigest)).toEqual(dpopOnly);
      const plain = await store().offers.get(a.id, none.id);
      expect(plain).not.toHaveProperty('walletRequirements');
      expect(plain).not.toHaveProperty('keyAttestationsRequired');
    });

    it('getWithUser gives the offer and the user as get gives them, each undefined when missing or another tenant’s', async () => {
      const [a, b] = await tenants();
      const u = await user(a.id, { authenticationProvider: { url: 'https://idp.example', subjectId: 'sub-1' } });
      const other = await user(a.id);
      const offer = makeOffer(a.id, u.id, { txCode: { digest: unique('tx-'), inputMode: 'numeric', length: 6 } });
      await store().offers.insert(offer);
      expect(await store().offers.getWithUser(a.id, offer.id, u.id)).toEqual({ offer, user: u });
      // The pair is read as asked, whichever user the offer names.
      expect(await store().offers.getWithUser(a.id, offer.id, other.id)).toEqual({ offer, user: other });
      expect(await store().offers.getWithUser(a.id, uuid(), u.id)).toEqual({ offer: undefined, user: u });
      expect(await store().offers.getWithUser(a.id, offer.id, uuid())).toEqual({ offer, user: undefined });
      expect(await store().offers.getWithUser(b.id, offer.id, u.id)).toEqual({ offer: undefined, user: undefined });
      expect(await store().offers.getWithUser(a.id, uuid(), uuid())).toEqual({ offer: undefined, user: undefined });
      // A deleted offer is still read (the credential endpoint says why it refuses).
      await store().offers.markDeleted(a.id, offer.id, 'pre-authorized');
      expect((await store().offers.getWithUser(a.id, offer.id, u.id)).offer).toMatchObject({ id: offer.id, status: 'deleted' });
    });

    it('refuses a taken id or a code digest the tenant already has (Conflict), and a user the tenant does not have (NotFound)', async () => {
      const [a, b] = await tenants();
      const ua = await user(a.id),
        ub = await user(b.id);
      const offer = makeOffer(a.id, ua.id);
      await store().offers.insert(offer);
      await expectDomainError(store().offers.insert(makeOffer(a.id, ua.id, { id: offer.id })), 'Conflict');
      await expectDomainError(store().offers.insert(makeOffer(a.id, ua.id, { codeDigest: offer.codeDigest })), 'Conflict');
      // The same digest in another tenant is another offer.
      await store().offers.insert(makeOffer(b.id, ub.id, { codeDigest: offer.codeDigest }));
      await expectDomainError(store().offers.insert(makeOffer(a.id, ub.id)), 'NotFound');
      await expectDomainError(store().offers.insert(makeOffer(a.id, uuid())), 'NotFound');
    });

    it('redeem: the right transaction code uses the offer once; a second redeem is not-open', async () => {
      const t = await tenant();
      const u = await user(t.id);
      const offer = makeOffer(t.id, u.id, { txCode: { digest: 'right', inputMode: 'numeric', length: 6 } });
      await store().offers.insert(offer);
      const now = iso();
      const claimsUntil = iso(600_000);
      const first = await store().offers.redeem(t.id, offer.codeDigest, attempt('right', now, claimsUntil));
      // Used, its claims kept (sealed) until its access token expires: its expiry moves there.
      expect(first).toEqual({ outcome: 'redeemed', offer: { ...offer, status: 'used', usedAt: now, expiresAt: claimsUntil } });
      expect(await store().offers.redeem(t.id, offer.codeDigest, attempt('right', iso()))).toEqual({ outcome: 'not-open' });
      expect(await store().offers.get(t.id, offer.id)).toMatchObject({ status: 'used', usedAt: now, failedTxAttempts: 0 });
    });

    it('redeem: an offer whose walletRequirements the attempt does not prove is not-open and counts no attempt; proven, it is redeemed', async () => {
      const t = await tenant();
      const u = await user(t.id);
      const both = makeOffer(t.id, u.id, {
        walletRequirements: { walletAttestation: true, dpop: true },
        txCode: { digest: 'right', inputMode: 'numeric', length: 6 },
      });
      const dpopOnly = makeOffer(t.id, u.id, { walletRequirements: { dpop: true } });
      for (const o of [both, dpopOnly]) await store().offers.insert(o);
      const now = iso();
      const proving = (proven: { walletAttestation: boolean; dpop: boolean }, digest?: string) => ({ ...attempt(digest, now), proven });
      expect(await store().offers.redeem(t.id, dpopOnly.codeDigest, attempt(undefined, now))).toEqual({ outcome: 'not-open' });
      expect(await store().offers.redeem(t.id, dpopOnly.codeDigest, proving({ walletAttestation: true, dpop: false }))).toEqual({ outcome: 'not-open' });
      // A wrong transaction code without the proofs counts for nothing either.
      expect(await store().offers.redeem(t.id, both.codeDigest, proving({ walletAttestation: false, dpop: true }, 'wrong'))).toEqual({ outcome: 'not-open' });
      expect(await store().offers.redeem(t.id, both.codeDigest, proving({ walletAttestation: true, dpop: false }, 'right'))).toEqual({ outcome: 'not-open' });
      expect(await store().offers.get(t.id, both.id)).toMatchObject({ status: 'open', failedTxAttempts: 0 });
      expect((await store().offers.redeem(t.id, dpopOnly.codeDigest, proving({ walletAttestation: false, dpop: true }))).outcome).toBe('redeemed');
      expect((await store().offers.redeem(t.id, both.codeDigest, proving({ walletAttestation: true, dpop: true }, 'right'))).outcome).toBe('redeemed');
    });

    it('redeem: an offer without a transaction code takes none; expired, deleted, foreign and Authorization Code offers are not-open', async () => {
      const [t, other] = [await tenant(), await tenant()];
      const u = await user(t.id);
      const plain = makeOffer(t.id, u.id);
      const expired = makeOffer(t.id, u.id, { expiresAt: iso(-1) });
      const deleted = makeOffer(t.id, u.id);
      const auth = makeOffer(t.id, undefined, { kind: 'authorization-code' });
      for (const o of [plain, expired, deleted, auth]) await store().offers.insert(o);
      expect(await store().offers.markDeleted(t.id, deleted.id, 'pre-authorized')).toBe(true);
      const now = iso();
      expect(await store().offers.redeem(other.id, plain.codeDigest, attempt(undefined, now))).toEqual({ outcome: 'not-open' });
      for (const o of [expired, deleted, auth])
        expect(await store().offers.redeem(t.id, o.codeDigest, attempt(undefined, now))).toEqual({ outcome: 'not-open' });
      // At the instant it expires, it is expired.
      expect(await store().offers.redeem(t.id, plain.codeDigest, attempt(undefined, plain.expiresAt))).toEqual({ outcome: 'not-open' });
      // A transaction code sent to an offer that takes none changes nothing.
      expect(await store().offers.redeem(t.id, plain.codeDigest, attempt('unasked', now))).toEqual({ outcome: 'not-open' });
      expect(await store().offers.get(t.id, plain.id)).toMatchObject({ status: 'open', failedTxAttempts: 0 });
      expect((await store().offers.redeem(t.id, plain.codeDigest, attempt(undefined, now))).outcome).toBe('redeemed');
    });

    it('redeem: wrong transaction codes count, and the third locks the offer for good', async () => {
      const t = await tenant();
      const u = await user(t.id);
      const offer = makeOffer(t.id, u.id, { txCode: { digest: 'right', inputMode: 'text', length: 8 } });
      await store().offers.insert(offer);
      const wrong = () => store().offers.redeem(t.id, offer.codeDigest, attempt('wrong', iso()));
      expect(await wrong()).toEqual({ outcome: 'wrong-tx-code', failedTxAttempts: 1, locked: false });
      // A missing code, for an offer that has one, counts for nothing: the caller says it is missing.
      expect(await store().offers.redeem(t.id, offer.codeDigest, attempt(undefined, iso()))).toEqual({ outcome: 'not-open' });
      expect(await store().offers.get(t.id, offer.id)).toMatchObject({ status: 'open', failedTxAttempts: 1 });
      expect(await wrong()).toEqual({ outcome: 'wrong-tx-code', failedTxAttempts: 2, locked: false });
      expect(await wrong()).toEqual({ outcome: 'wrong-tx-code', failedTxAttempts: 3, locked: true });
      expect(await store().offers.redeem(t.id, offer.codeDigest, attempt('right', iso()))).toEqual({ outcome: 'not-open' });
      expect(await store().offers.get(t.id, offer.id)).toMatchObject({ status: 'locked', failedTxAttempts: 3 });
    });

    it('redeem races: of many redeemers with the right code exactly one wins', async () => {
      const t = await tenant();
      const u = await user(t.id);
      for (let round = 0; round < 5; round++) {
        const offer = makeOffer(t.id, u.id, { txCode: { digest: 'right', inputMode: 'numeric', length: 6 } });
        await store().offers.insert(offer);
        const outcomes = await Promise.all(Array.from({ length: 10 }, () => store().offers.redeem(t.id, offer.codeDigest, attempt('right', iso()))));
        expect(outcomes.filter((o) => o.outcome === 'redeemed')).toHaveLength(1);
        expect(outcomes.filter((o) => o.outcome === 'not-open')).toHaveLength(9);
      }
    });

    it('redeem races: of many wrong guesses exactly three count, and a right one racing them wins only before the third', async () => {
      const t = await tenant();
      const u = await user(t.id);
      const offer = makeOffer(t.id, u.id, { txCode: { digest: 'right', inputMode: 'numeric', length: 6 } });
      await store().offers.insert(offer);
      const outcomes: RedeemOutcome[] = await Promise.all(
        Array.from({ length: 10 }, () => store().offers.redeem(t.id, offer.codeDigest, attempt('wrong', iso()))),
      );
      const counted = outcomes.flatMap((o) => (o.outcome === 'wrong-tx-code' ? [o.failedTxAttempts] : []));
      expect(counted.sort()).toEqual([1, 2, 3]);
      expect(outcomes.filter((o) => o.outcome === 'not-open')).toHaveLength(7);
      expect(await store().offers.get(t.id, offer.id)).toMatchObject({ status: 'locked', failedTxAttempts: 3 });

      const second = makeOffer(t.id, u.id, { txCode: { digest: 'right', inputMode: 'numeric', length: 6 } });
      await store().offers.insert(second);
      const mixed = await Promise.all(
        ['wrong', 'wrong', 'wrong', 'right', 'wrong'].map((d) => store().offers.redeem(t.id, second.codeDigest, attempt(d, iso()))),
      );
      const wins = mixed.filter((o) => o.outcome === 'redeemed');
      const wrongs = mixed.filter((o): o is Extract<RedeemOutcome, { outcome: 'wrong-tx-code' }> => o.outcome === 'wrong-tx-code');
      expect(wins.length).toBeLessThanOrEqual(1);
      // As if one after another: the right code wins only while fewer than three wrong ones have
      // counted (then none locks); otherwise the third wrong one locks and the right one is refused.
      if (wins.length === 1) expect(wrongs.some((w) => w.locked)).toBe(false);
      else expect(wrongs.filter((w) => w.locked)).toHaveLength(1);
    });

    it('markDeleted marks an offer of that kind once, whatever its state', async () => {
      const t = await tenant();
      const u = await user(t.id);
      const used = makeOffer(t.id, u.id);
      const auth = makeOffer(t.id, undefined, { kind: 'authorization-code' });
      await store().offers.insert(used);
      await store().offers.insert(auth);
      await store().offers.redeem(t.id, used.codeDigest, attempt(undefined, iso()));
      expect(await store().offers.markDeleted(t.id, auth.id, 'pre-authorized')).toBe(false);
      expect(await store().offers.markDeleted(t.id, used.id, 'pre-authorized')).toBe(true);
      expect(await store().offers.markDeleted(t.id, used.id, 'pre-authorized')).toBe(false);
      expect(await store().offers.markDeleted(t.id, uuid(), 'pre-authorized')).toBe(false);
      expect(await store().offers.get(t.id, used.id)).toMatchObject({ status: 'deleted' });
    });
  });

  describe('offer claims at rest (issue 26 point 4; docs/decisions.md "Claims at rest")', () => {
    it("redeem matches either stored form of the transaction code (the keyed digest, or an earlier release's), and nothing else", async () => {
      const t = await tenant();
      const u = await user(t.id);
      const [keyed, legacy] = [
        makeOffer(t.id, u.id, { txCode: { digest: 'k1.new', inputMode: 'numeric', length: 6 } }),
        makeOffer(t.id, u.id, { txCode: { digest: 'old', inputMode: 'numeric', length: 6 } }),
      ];
      for (const o of [keyed, legacy]) await store().offers.insert(o);
      const both = (o: OfferRecord, digests: string[]) => store().offers.redeem(t.id, o.codeDigest, { ...attempt(undefined, iso()), txCodeDigests: digests });
      expect(await both(keyed, ['k1.other', 'other'])).toMatchObject({ outcome: 'wrong-tx-code', failedTxAttempts: 1 });
      expect(await both(keyed, ['k1.new', 'old'])).toMatchObject({ outcome: 'redeemed' });
      expect(await both(legacy, ['k1.new', 'old'])).toMatchObject({ outcome: 'redeemed' });
    });

    it('the claims go in the write that locks or deletes the offer; redeeming keeps them', async () => {
      const t = await tenant();
      const u = await user(t.id);
      const [locked, deleted, used] = [
        makeOffer(t.id, u.id, { txCode: { digest: 'right', inputMode: 'numeric', length: 6 } }),
        makeOffer(t.id, u.id),
        makeOffer(t.id, u.id),
      ];
      for (const o of [locked, deleted, used]) await store().offers.insert(o);
      for (let i = 0; i < 2; i++) await store().offers.redeem(t.id, locked.codeDigest, attempt('wrong', iso()));
      expect((await store().offers.get(t.id, locked.id))?.sealedClaims).toBe(locked.sealedClaims);
      await store().offers.redeem(t.id, locked.codeDigest, attempt('wrong', iso()));
      const afterLock = await store().offers.get(t.id, locked.id);
      expect(afterLock).toMatchObject({ status: 'locked' });
      expect(afterLock).not.toHaveProperty('sealedClaims');
      await store().offers.markDeleted(t.id, deleted.id, 'pre-authorized');
      expect(await store().offers.get(t.id, deleted.id)).not.toHaveProperty('sealedClaims');
      await store().offers.redeem(t.id, used.codeDigest, attempt(undefined, iso()));
      expect(await store().offers.get(t.id, used.id)).toMatchObject({ status: 'used', sealedClaims: used.sealedClaims });
    });

    it('markIssued erases the claims with the last credential the token grants, not before; a rolled-back issue erases nothing', async () => {
      const t = await tenant();
      const u = await user(t.id);
      const offer = makeOffer(t.id, u.id);
      await store().offers.insert(offer);
      const [first, second] = [uuid(), uuid()];
      expect(await store().offers.markIssued(t.id, offer.id, first, 2)).toBe(true);
      expect((await store().offers.get(t.id, offer.id))?.sealedClaims).toBe(offer.sealedClaims);
      await expect(
        store().transaction(async (tx) => {
          expect(await tx.offers.markIssued(t.id, offer.id, second, 2)).toBe(true);
          throw new Error('signing failed');
        }),
      ).rejects.toThrow('signing failed');
      expect((await store().offers.get(t.id, offer.id))?.sealedClaims).toBe(offer.sealedClaims);
      // A repeat changes nothing, the claims included.
      expect(await store().offers.markIssued(t.id, offer.id, first, 1)).toBe(false);
      expect((await store().offers.get(t.id, offer.id))?.sealedClaims).toBe(offer.sealedClaims);
      expect(await store().offers.markIssued(t.id, offer.id, second, 2)).toBe(true);
      expect(await store().offers.get(t.id, offer.id)).not.toHaveProperty('sealedClaims');
    });

    it('eraseExpiredClaims erases, across tenants and at most `limit` at a time, the claims of offers whose expiry has passed, and no others', async () => {
      const [a, b] = await tenants();
      const [ua, ub] = [await user(a.id), await user(b.id)];
      const now = iso();
      const expired = [
        makeOffer(a.id, ua.id, { expiresAt: iso(-2_000) }),
        makeOffer(b.id, ub.id, { expiresAt: iso(-1_000) }),
        makeOffer(a.id, ua.id, { expiresAt: now }),
      ];
      const live = makeOffer(a.id, ua.id, { expiresAt: iso(60_000) });
      for (const o of [...expired, live]) await store().offers.insert(o);
      // Other tests' offers may be due as well: erase until none is left.
      expect(await store().offers.eraseExpiredClaims(now, 2)).toBe(2);
      while ((await store().offers.eraseExpiredClaims(now, 100)) > 0);
      for (const o of expired) expect(await store().offers.get(o.tenantId, o.id)).not.toHaveProperty('sealedClaims');
      expect((await store().offers.get(a.id, live.id))?.sealedClaims).toBe(live.sealedClaims);
      expect(await store().offers.eraseExpiredClaims(now, 100)).toBe(0);
    });
  });

  describe('used nonces', () => {
    it('markUsed is true the first time for a tenant’s nonce, false after; other tenants are apart', async () => {
      const [a, b] = await tenants();
      const nonce = unique('n-');
      expect(await store().nonces.markUsed({ tenantId: a.id, nonce, expiresAt: iso(300_000) })).toBe(true);
      expect(await store().nonces.markUsed({ tenantId: a.id, nonce, expiresAt: iso(300_000) })).toBe(false);
      // A repeat with another expiry is still a repeat: the key is (tenant, nonce).
      expect(await store().nonces.markUsed({ tenantId: a.id, nonce, expiresAt: iso(600_000) })).toBe(false);
      expect(await store().nonces.markUsed({ tenantId: b.id, nonce, expiresAt: iso(300_000) })).toBe(true);
      expect(await store().nonces.markUsed({ tenantId: b.id, nonce, expiresAt: iso(300_000) })).toBe(false);
      expect(await store().nonces.markUsed({ tenantId: a.id, nonce: unique('n-'), expiresAt: iso(300_000) })).toBe(true);
    });

    it('racing markUsed calls for one nonce: exactly one gets true', async () => {
      const t = await tenant();
      for (let round = 0; round < 5; round++) {
        const nonce = unique('race-');
        const results = await Promise.all(Array.from({ length: 10 }, () => store().nonces.markUsed({ tenantId: t.id, nonce, expiresAt: iso(300_000) })));
        expect(results.filter(Boolean)).toHaveLength(1);
      }
    });

    it('a repeat inside a transaction is false and leaves the transaction usable', async () => {
      const t = await tenant();
      const nonce = unique('tx-');
      await store().nonces.markUsed({ tenantId: t.id, nonce, expiresAt: iso(300_000) });
      const later = unique('tx-');
      const results = await store().transaction(async (tx) => [
        await tx.nonces.markUsed({ tenantId: t.id, nonce, expiresAt: iso(300_000) }),
        await tx.nonces.markUsed({ tenantId: t.id, nonce: later, expiresAt: iso(300_000) }),
      ]);
      expect(results).toEqual([false, true]);
      expect(await store().nonces.markUsed({ tenantId: t.id, nonce: later, expiresAt: iso(300_000) })).toBe(false);
    });

    it('purgeExpired deletes records of any tenant that expired at or before the cutoff, a batch at a time, and only those', async () => {
      // Purges span tenants: these records are dated in 1971, where no other test puts any.
      const [a, b] = await tenants();
      const cutoff = '1971-01-02T00:00:00.000Z';
      const live = unique('live-'),
        old1 = unique('old-'),
        old2 = unique('old-'),
        theirs = unique('theirs-');
      await store().nonces.markUsed({ tenantId: a.id, nonce: live, expiresAt: '1971-01-02T00:00:00.001Z' });
      await store().nonces.markUsed({ tenantId: a.id, nonce: old1, expiresAt: '1971-01-01T00:00:00.000Z' });
      await store().nonces.markUsed({ tenantId: a.id, nonce: old2, expiresAt: cutoff });
      await store().nonces.markUsed({ tenantId: b.id, nonce: theirs, expiresAt: '1971-01-01T00:00:00.000Z' });
      expect(await store().nonces.purgeExpired(cutoff, 2)).toBe(2);
      expect(await store().nonces.purgeExpired(cutoff, 2)).toBe(1);
      expect(await store().nonces.purgeExpired(cutoff, 2)).toBe(0);
      // The live record stays; the purged ones are gone, so they could be recorded again.
      expect(await store().nonces.markUsed({ tenantId: a.id, nonce: live, expiresAt: iso(300_000) })).toBe(false);
      expect(await store().nonces.markUsed({ tenantId: a.id, nonce: old1, expiresAt: iso(1000) })).toBe(true);
      expect(await store().nonces.markUsed({ tenantId: b.id, nonce: theirs, expiresAt: iso(1000) })).toBe(true);
    });
  });

  describe('tenant signing keys', () => {
    it('insertIfAbsent keeps the first record per tenant and purpose; racers all get it', async () => {
      const [a, b] = await tenants();
      const first = { tenantId: a.id, purpose: 'wallet-access-token', keyId: uuid(), createdAt: iso() };
      expect(await store().tenantSigningKeys.get(a.id, first.purpose)).toBeUndefined();
      const racers = await Promise.all(
        [first, ...Array.from({ length: 5 }, () => ({ ...first, keyId: uuid() }))].map((r) => store().tenantSigningKeys.insertIfAbsent(r)),
      );
      const stored = await store().tenantSigningKeys.get(a.id, first.purpose);
      // Never rotated: no previous key fields at all (not null, not undefined-valued).
      expect(stored).toStrictEqual({ ...first, keyId: expect.any(String) });
      for (const r of racers) expect(r).toStrictEqual(stored);
      expect(await store().tenantSigningKeys.get(b.id, first.purpose)).toBeUndefined();
      expect(await store().tenantSigningKeys.get(a.id, 'other')).toBeUndefined();
    });

    it('rotate replaces the key that signs once (compare-and-set), keeping the old one as previous until its overlap ends', async () => {
      const [a, b] = await tenants();
      const first = { tenantId: a.id, purpose: 'wallet-access-token', keyId: uuid(), createdAt: '2026-05-01T12:00:00.000Z' };
      await store().tenantSigningKeys.insertIfAbsent(first);
      const second = uuid();
      const rotated = await store().tenantSigningKeys.rotate(a.id, first.purpose, first.keyId, {
        keyId: second,
        previousUntil: '2026-05-02T12:00:00.000Z',
        rotatedAt: '2026-05-01T13:00:00.000Z',
      });
      const expected = {
        ...first,
        keyId: second,
        previousKeyId: first.keyId,
        previousUntil: '2026-05-02T12:00:00.000Z',
        createdAt: '2026-05-01T13:00:00.000Z',
      };
      expect(rotated).toEqual(expected);
      expect(await store().tenantSigningKeys.get(a.id, first.purpose)).toEqual(expected);
      // A rotation that read the old key lost: nothing changes.
      const stale = await store().tenantSigningKeys.rotate(a.id, first.purpose, first.keyId, { keyId: uuid(), previousUntil: iso(), rotatedAt: iso() });
      expect(stale).toBeUndefined();
      expect(await store().tenantSigningKeys.get(a.id, first.purpose)).toEqual(expected);
      expect(await store().tenantSigningKeys.insertIfAbsent(first)).toEqual(expected);
      // No record, no rotation: another tenant, another purpose.
      expect(
        await store().tenantSigningKeys.rotate(b.id, first.purpose, first.keyId, { keyId: uuid(), previousUntil: iso(), rotatedAt: iso() }),
      ).toBeUndefined();
      expect(await store().tenantSigningKeys.rotate(a.id, 'other', second, { keyId: uuid(), previousUntil: iso(), rotatedAt: iso() })).toBeUndefined();
      expect(await store().tenantSigningKeys.get(b.id, first.purpose)).toBeUndefined();
      // The next rotation moves the previous key along.
      const third = uuid();
      const again = await store().tenantSigningKeys.rotate(a.id, first.purpose, second, {
        keyId: third,
        previousUntil: '2026-05-03T12:00:00.000Z',
        rotatedAt: '2026-05-02T13:00:00.000Z',
      });
      expect(again).toEqual({
        ...expected,
        keyId: third,
        previousKeyId: second,
        previousUntil: '2026-05-03T12:00:00.000Z',
        createdAt: '2026-05-02T13:00:00.000Z',
      });
    });

    it('rotate lets one of several racing rotations win', async () => {
      const [a] = await tenants();
      const first = { tenantId: a.id, purpose: 'wallet-access-token', keyId: uuid(), createdAt: iso() };
      await store().tenantSigningKeys.insertIfAbsent(first);
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          store().tenantSigningKeys.rotate(a.id, first.purpose, first.keyId, { keyId: uuid(), previousUntil: iso(), rotatedAt: iso() }),
        ),
      );
      const winners = results.filter((r) => r !== undefined);
      expect(winners).toHaveLength(1);
      expect(await store().tenantSigningKeys.get(a.id, first.purpose)).toEqual(winners[0]);
    });
  });
}
