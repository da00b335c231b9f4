// The Store contract for authorizations, the runs of the Authorization Code flow (ports.ts:
// AuthorizationRepository, in core/src/oauth/authorization-model.ts), run inside
// describeStoreContract against every adapter.
import type { AuthorizationAdvance, AuthorizationRecord, AuthorizationStage, Store } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, expectRolledBack, inserting, iso, tenantMakers, unique, uuid } from './store-contract-support.ts';

/** A stand-in for a handle's SHA-256 digest: unique, and of the same form (base64url). */
const digest = () => unique('h-').padEnd(43, 'x');

/** A `pushed` authorization of `tenantId` (as PAR makes it), its handle open for a minute, optional fields left out unless given. */
export function makeAuthorization(tenantId: string, over: Partial<AuthorizationRecord> = {}): AuthorizationRecord {
  return {
    id: uuid(),
    tenantId,
    issuer: 'https://t.eu01.vellum.test',
    clientId: unique('wallet-'),
    redirectUri: 'https://wallet.example.com/cb?x=1',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    configurationIds: [uuid()],
    byAuthorizationDetails: false,
    forwardedParameters: {},
    stage: 'pushed',
    handleDigest: digest(),
    expiresAt: iso(60_000),
    issuedConfigurationIds: [],
    createdAt: iso(),
    ...over,
  };
}

/**
 * Races `racers` moves of `record` on from its stage with its handle to `stage`, each to a fresh
 * handle of its own and as user `user-<i>`, spread over `stores` in turn: checks that exactly one
 * lands and that the stored authorization is the winner's. Gives the fresh handles and the winner.
 */
export async function raceAdvances(
  stores: ReadonlyArray<Pick<Store, 'authorizations'>>,
  record: AuthorizationRecord,
  stage: AuthorizationStage,
  racers: number,
  handle: () => string = digest,
): Promise<{ handles: string[]; winner: number }> {
  const handles = Array.from({ length: racers }, handle);
  const racer = (i: number) => (stores[i % stores.length] as Pick<Store, 'authorizations'>).authorizations;
  const results = await Promise.all(
    handles.map((next, i) =>
      racer(i).advance(record.tenantId, record.id, record.stage, record.handleDigest as string, iso(), {
        stage,
        handleDigest: next,
        expiresAt: iso(60_000),
        userId: `user-${i}`,
      }),
    ),
  );
  const winners = results.flatMap((r, i) => (r ? [i] : []));
  expect(winners).toHaveLength(1);
  const winner = winners[0] as number;
  expect(await racer(0).get(record.tenantId, record.id)).toMatchObject({ stage, handleDigest: handles[winner], userId: `user-${winner}` });
  return { handles, winner };
}

/** The authorization part of the Store contract; `store` is read when the tests run. */
export function describeAuthorizationContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);
  const authorization = inserting(makeAuthorization, (a) => store().authorizations.insert(a));
  const repo = () => store().authorizations;

  describe('authorizations', () => {
    it('stores every field as given, found by id and by handle within the tenant only, absent fields absent', async () => {
      const [a, b] = await tenants();
      const plain = await authorization(a.id);
      const full = await authorization(a.id, {
        state: 'wallet “state” ✓ &=',
        configurationIds: [uuid(), uuid()],
        byAuthorizationDetails: true,
        offerId: uuid(),
        dpopJkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
        forwardedParameters: { login_hint: 'ada@example.com', prompt: 'login' },
        stage: 'authenticating',
        providerNonce: 'nonce-1',
        providerCodeVerifier: 'verifier-1',
        userId: uuid(),
        sealedClaims: 'v1.sealed-claims',
        issuedConfigurationIds: ['already-issued'],
      });
      const gotPlain = await repo().get(a.id, plain.id);
      expect(gotPlain).toEqual(plain);
      for (const key of ['state', 'offerId', 'dpopJkt', 'providerNonce', 'providerCodeVerifier', 'userId', 'sealedClaims'])
        expect(gotPlain).not.toHaveProperty(key);
      expect(await repo().get(a.id, full.id)).toEqual(full);
      expect(await repo().findByHandle(a.id, full.handleDigest as string)).toEqual(full);
      expect(await repo().get(b.id, full.id)).toBeUndefined();
      expect(await repo().findByHandle(b.id, full.handleDigest as string)).toBeUndefined();
      expect(await repo().get(a.id, uuid())).toBeUndefined();
      expect(await repo().findByHandle(a.id, digest())).toBeUndefined();
    });

    it('findByHandle finds the current handle whatever the stage or expiry', async () => {
      const t = await tenant();
      const expired = await authorization(t.id, { stage: 'code', expiresAt: iso(-60_000) });
      expect(await repo().findByHandle(t.id, expired.handleDigest as string)).toEqual(expired);
    });

    it('refuses an id or a handle digest the tenant already has with Conflict; another tenant may hold both', async () => {
      const [a, b] = await tenants();
      const first = await authorization(a.id);
      await expectDomainError(repo().insert(makeAuthorization(a.id, { id: first.id })), 'Conflict');
      await expectDomainError(repo().insert(makeAuthorization(a.id, { handleDigest: first.handleDigest as string })), 'Conflict');
      const twin = await authorization(b.id, { id: first.id, handleDigest: first.handleDigest as string });
      expect(await repo().get(a.id, first.id)).toEqual(first);
      expect(await repo().findByHandle(b.id, first.handleDigest as string)).toEqual(twin);
      // Authorizations with no open handle do not collide with each other.
      const { handleDigest: _a, ...closed } = makeAuthorization(a.id, { stage: 'failed' });
      const { handleDigest: _b, ...closedToo } = makeAuthorization(a.id, { stage: 'failed' });
      await repo().insert(closed);
      await repo().insert(closedToo);
      expect(await repo().get(a.id, closedToo.id)).toEqual(closedToo);
    });

    it('of racing inserts with one handle digest, exactly one wins', async () => {
      const t = await tenant();
      const handleDigest = digest();
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => repo().insert(makeAuthorization(t.id, { handleDigest }))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'Conflict' });
    });

    it('advance moves on only from the right stage, with the right handle, before expiry, within the tenant', async () => {
      const [a, b] = await tenants();
      const now = iso();
      const r = await authorization(a.id, { expiresAt: iso(60_000) });
      const handle = r.handleDigest as string;
      const to: AuthorizationAdvance = {
        stage: 'authenticating',
        handleDigest: digest(),
        expiresAt: iso(600_000),
        providerNonce: 'n',
        providerCodeVerifier: 'v',
      };
      expect(await repo().advance(a.id, r.id, 'authenticating', handle, now, to)).toBeUndefined();
      expect(await repo().advance(a.id, r.id, 'pushed', digest(), now, to)).toBeUndefined();
      expect(await repo().advance(a.id, r.id, 'pushed', handle, r.expiresAt, to)).toBeUndefined();
      expect(await repo().advance(a.id, r.id, 'pushed', handle, iso(120_000), to)).toBeUndefined();
      expect(await repo().advance(b.id, r.id, 'pushed', handle, now, to)).toBeUndefined();
      expect(await repo().advance(a.id, uuid(), 'pushed', handle, now, to)).toBeUndefined();
      // Nothing changed, and the new handle names nothing.
      expect(await repo().get(a.id, r.id)).toEqual(r);
      expect(await repo().findByHandle(a.id, to.handleDigest as string)).toBeUndefined();

      const moved = await repo().advance(a.id, r.id, 'pushed', handle, now, to);
      const expected = { ...r, stage: 'authenticating', handleDigest: to.handleDigest, expiresAt: to.expiresAt, providerNonce: 'n', providerCodeVerifier: 'v' };
      expect(moved).toEqual(expected);
      expect(await repo().get(a.id, r.id)).toEqual(expected);
      expect(await repo().findByHandle(a.id, to.handleDigest as string)).toEqual(expected);
      expect(await repo().findByHandle(a.id, handle)).toBeUndefined();
      // The spent handle works once.
      expect(await repo().advance(a.id, r.id, 'pushed', handle, now, to)).toBeUndefined();
    });

    it('advance keeps the fields `to` leaves out, replaces claims only when given, and clears the handle when none is given', async () => {
      const t = await tenant();
      const now = iso();
      const r = await authorization(t.id, { stage: 'authenticating', providerNonce: 'n1', providerCodeVerifier: 'v1', sealedClaims: 'v1.kept' });
      const interaction = await repo().advance(t.id, r.id, 'authenticating', r.handleDigest as string, now, {
        stage: 'interaction',
        handleDigest: digest(),
        expiresAt: iso(600_000),
        userId: 'user-1',
      });
      expect(interaction).toMatchObject({ stage: 'interaction', providerNonce: 'n1', providerCodeVerifier: 'v1', userId: 'user-1', sealedClaims: 'v1.kept' });
      const code = await repo().advance(t.id, r.id, 'interaction', interaction?.handleDigest as string, now, {
        stage: 'code',
        handleDigest: digest(),
        expiresAt: iso(60_000),
        sealedClaims: 'v1.replaced',
      });
      expect(code?.sealedClaims).toBe('v1.replaced');
      expect(code).toMatchObject({ stage: 'code', providerNonce: 'n1', userId: 'user-1' });
      const redeemed = await repo().advance(t.id, r.id, 'code', code?.handleDigest as string, now, { stage: 'redeemed', expiresAt: now });
      expect(redeemed).toEqual({ ...code, stage: 'redeemed', handleDigest: undefined, expiresAt: now });
      expect(redeemed).not.toHaveProperty('handleDigest');
      expect(await repo().get(t.id, r.id)).toEqual(redeemed);
      expect(await repo().findByHandle(t.id, code?.handleDigest as string)).toBeUndefined();
      // The cleared handle may be taken again by another authorization.
      await authorization(t.id, { handleDigest: code?.handleDigest as string });
    });

    it('advance to a handle digest another authorization of the tenant holds is Conflict and changes nothing', async () => {
      const t = await tenant();
      const [r, other] = [await authorization(t.id), await authorization(t.id)];
      await expectDomainError(
        repo().advance(t.id, r.id, 'pushed', r.handleDigest as string, iso(), {
          stage: 'authenticating',
          handleDigest: other.handleDigest as string,
          expiresAt: iso(60_000),
        }),
        'Conflict',
      );
      expect(await repo().get(t.id, r.id)).toEqual(r);
      expect(await repo().findByHandle(t.id, other.handleDigest as string)).toEqual(other);
    });

    it('racing advances with one handle: exactly one succeeds, and the stored handle is the winner’s', async () => {
      const t = await tenant();
      for (let round = 0; round < 3; round++) {
        const r = await authorization(t.id, { stage: 'authenticating' });
        const { handles, winner } = await raceAdvances([store()], r, 'interaction', 8);
        expect(await repo().findByHandle(t.id, handles[winner] as string)).toMatchObject({ id: r.id });
      }
    });

    it('markIssued is true once per configuration, in order, per authorization and tenant; false for an unknown one', async () => {
      const [a, b] = await tenants();
      const [r, other] = [await authorization(a.id), await authorization(a.id)];
      const configuration = uuid();
      expect(await repo().markIssued(a.id, r.id, configuration, 10)).toBe(true);
      expect(await repo().markIssued(a.id, r.id, configuration, 10)).toBe(false);
      expect(await repo().markIssued(a.id, other.id, configuration, 10)).toBe(true);
      // Ids that look like LIKE wildcards or the store's separators are each their own.
      for (const id of ['abc', 'a_c', 'a%c', 'a|c', 'a\\c', '|']) expect(await repo().markIssued(a.id, r.id, id, 10), id).toBe(true);
      for (const id of ['a_c', 'a%c', 'a|c', 'a\\c', '|']) expect(await repo().markIssued(a.id, r.id, id, 10), id).toBe(false);
      expect(await repo().markIssued(a.id, r.id, 'a', 10)).toBe(true);
      expect(await repo().markIssued(b.id, r.id, uuid(), 10)).toBe(false);
      expect(await repo().markIssued(a.id, uuid(), configuration, 10)).toBe(false);
      expect((await repo().get(a.id, r.id))?.issuedConfigurationIds).toEqual([configuration, 'abc', 'a_c', 'a%c', 'a|c', 'a\\c', '|', 'a']);
      expect((await repo().get(a.id, other.id))?.issuedConfigurationIds).toEqual([configuration]);
    });

    it('racing markIssued calls for one configuration: exactly one gets true', async () => {
      const t = await tenant();
      const r = await authorization(t.id, { stage: 'redeemed', issuedConfigurationIds: ['earlier'] });
      const configuration = uuid();
      const results = await Promise.all(Array.from({ length: 8 }, () => repo().markIssued(t.id, r.id, configuration, 10)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await repo().get(t.id, r.id))?.issuedConfigurationIds).toEqual(['earlier', configuration]);
    });

    it('a transaction that fails leaves no insert, advance or mark behind', async () => {
      const t = await tenant();
      const r = await authorization(t.id, { stage: 'code' });
      const fresh = makeAuthorization(t.id);
      const configuration = uuid();
      await expectRolledBack(store(), 'boom', async (tx) => {
        await tx.authorizations.insert(fresh);
        expect(await tx.authorizations.advance(t.id, r.id, 'code', r.handleDigest as string, iso(), { stage: 'redeemed', expiresAt: iso() })).toBeDefined();
        expect(await tx.authorizations.markIssued(t.id, r.id, configuration, 10)).toBe(true);
      });
      expect(await repo().get(t.id, fresh.id)).toBeUndefined();
      expect(await repo().findByHandle(t.id, fresh.handleDigest as string)).toBeUndefined();
      expect(await repo().get(t.id, r.id)).toEqual(r);
      expect(await repo().markIssued(t.id, r.id, configuration, 10)).toBe(true);
    });

    it('purgeExpired deletes authorizations of any tenant and stage expired at or before the cutoff, a batch at a time, and only those', async () => {
      // Purges span tenants: these rows are dated in 1971, where no other test puts any.
      const [a, b] = await tenants();
      const cutoff = '1971-01-02T00:00:00.000Z';
      const old = '1971-01-01T00:00:00.000Z';
      const gone = [
        await authorization(a.id, { expiresAt: old }),
        await authorization(a.id, { stage: 'code', expiresAt: cutoff }),
        await authorization(b.id, { stage: 'interaction', expiresAt: old }),
      ];
      const { handleDigest: _r, ...redeemed } = makeAuthorization(a.id, { stage: 'redeemed', expiresAt: old });
      await repo().insert(redeemed);
      const live = await authorization(a.id, { expiresAt: '1971-01-02T00:00:00.001Z' });

      expect(await repo().purgeExpired(cutoff, 3)).toBe(3);
      expect(await repo().purgeExpired(cutoff, 3)).toBe(1);
      expect(await repo().purgeExpired(cutoff, 3)).toBe(0);
      for (const r of gone) {
        expect(await repo().get(r.tenantId, r.id)).toBeUndefined();
        expect(await repo().findByHandle(r.tenantId, r.handleDigest as string)).toBeUndefined();
      }
      expect(await repo().get(a.id, redeemed.id)).toBeUndefined();
      expect(await repo().get(a.id, live.id)).toEqual(live);
      // A purged one's handle is free again.
      await authorization(a.id, { handleDigest: gone[0]?.handleDigest as string });
    });

    it('markIssued erases the claims with the last credential the token grants (issue 26 point 4; docs/decisions.md "Claims at rest")', async () => {
      const t = await tenant();
      const r = await authorization(t.id, { stage: 'redeemed', sealedClaims: 'v1.hook-claims' });
      expect(await repo().markIssued(t.id, r.id, 'first', 2)).toBe(true);
      expect((await repo().get(t.id, r.id))?.sealedClaims).toBe('v1.hook-claims');
      expect(await repo().markIssued(t.id, r.id, 'first', 1)).toBe(false);
      expect((await repo().get(t.id, r.id))?.sealedClaims).toBe('v1.hook-claims');
      expect(await repo().markIssued(t.id, r.id, 'second', 2)).toBe(true);
      expect(await repo().get(t.id, r.id)).toMatchObject({ issuedConfigurationIds: ['first', 'second'] });
      expect(await repo().get(t.id, r.id)).not.toHaveProperty('sealedClaims');
    });

    it('eraseExpiredClaims erases, across tenants and at most `limit` at a time, the claims of authorizations whose expiry has passed, and no others', async () => {
      const [a, b] = await tenants();
      const now = iso();
      const expired = [
        await authorization(a.id, { stage: 'code', sealedClaims: 'v1.a', expiresAt: iso(-1_000) }),
        await authorization(b.id, { stage: 'code', sealedClaims: 'v1.b', expiresAt: now }),
      ];
      const live = await authorization(a.id, { stage: 'code', sealedClaims: 'v1.live', expiresAt: iso(60_000) });
      expect(await repo().eraseExpiredClaims(now, 1)).toBe(1);
      while ((await repo().eraseExpiredClaims(now, 100)) > 0);
      for (const r of expired) expect(await repo().get(r.tenantId, r.id)).not.toHaveProperty('sealedClaims');
      expect((await repo().get(a.id, live.id))?.sealedClaims).toBe('v1.live');
      expect(await repo().eraseExpiredClaims(now, 100)).toBe(0);
    });

    it('values read are copies: changing one changes nothing stored', async () => {
      const t = await tenant();
      const r = await authorization(t.id, { forwardedParameters: { prompt: 'login' } });
      r.configurationIds.push('changed');
      const got = (await repo().get(t.id, r.id)) as AuthorizationRecord;
      expect(got.configurationIds).toHaveLength(1);
      got.forwardedParameters.prompt = 'none';
      got.issuedConfigurationIds.push('changed');
      expect(await repo().get(t.id, r.id)).toMatchObject({ forwardedParameters: { prompt: 'login' }, issuedConfigurationIds: [] });
    });
  });
}
