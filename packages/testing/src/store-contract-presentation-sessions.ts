// The Store contract for presentation sessions (ports.ts: PresentationSessionRepository, in
// core/src/verification/sessions/model.ts), run inside describeStoreContract against every adapter.
// Purges span tenants: those tests date their sessions in 1972, where no other test puts any.
import type { PresentationSession, SessionCompletion, Store } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, expectWriteRolledBack, iso, tenantMakers, uuid } from './store-contract-support.ts';

const OLD = '1972-01-01T00:00:00.000Z';
const CUTOFF = '1972-01-02T00:00:00.000Z';
const JUST_AFTER = '1972-01-02T00:00:00.001Z';

/** A pending direct_post.jwt session of `tenantId`, expiring in five minutes unless told otherwise. */
export function makePresentationSession(tenantId: string, over: Partial<PresentationSession> = {}): PresentationSession {
  const now = iso();
  return {
    tenantId,
    id: uuid(),
    applicationId: uuid(),
    clientId: 'x509_hash:5lVEqGHXd1Y3iWzkrmJ3KgjrJw4mNqJf4VFaLZ3HN7E',
    responseMode: 'direct_post.jwt',
    state: `state-${uuid()}`,
    nonce: `nonce-${uuid()}`,
    dcqlQuery: { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: ['urn:eudi:pid:1'] }, claims: [{ path: ['given_name'] }] }] },
    encryptionJwk: { kty: 'EC', crv: 'P-256', x: 'x-coordinate', y: 'y-coordinate', kid: 'k1', use: 'enc', alg: 'ECDH-ES' },
    sealedKey: 'sealed-private-key',
    status: 'pending',
    expiresAt: iso(300_000),
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

const completion = (status: SessionCompletion['status'] = 'verified', over: Partial<SessionCompletion> = {}): SessionCompletion => ({
  status,
  result: {
    verified: status === 'verified',
    credentials: { pid: { satisfied: true, claims: [{ given_name: 'Érika ✓' }], presentations: [], failures: [] } },
    failures: [],
    receivedAt: iso(),
  },
  responseCodeDigest: 'digest-of-code',
  completedAt: iso(),
  ...over,
});

/** The presentation session part of the Store contract; `store` is read when the tests run. */
export function describePresentationSessionContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);
  const sessions = () => store().presentationSessions;

  describe('presentation sessions', () => {
    it('stores a session as given, finds it within its tenant only, and leaves absent fields absent', async () => {
      const [a, b] = await tenants();
      const s = makePresentationSession(a.id, { redirectUri: 'https://rp.example/done' });
      await sessions().insert(s);
      expect(await sessions().get(a.id, s.id)).toEqual(s);
      expect(await sessions().get(b.id, s.id)).toBeUndefined();
      const { encryptionJwk: _j, sealedKey: _k, ...plain } = makePresentationSession(a.id, { responseMode: 'direct_post' });
      await sessions().insert(plain);
      const got = await sessions().get(a.id, plain.id);
      expect(got).toEqual(plain);
      expect(got).not.toHaveProperty('sealedKey');
      expect(got).not.toHaveProperty('redirectUri');
    });

    it('refuses an id that exists with Conflict', async () => {
      const t = await tenant();
      const s = makePresentationSession(t.id);
      await sessions().insert(s);
      await expectDomainError(sessions().insert({ ...s }), 'Conflict');
    });

    it('complete: ends a pending session once, with its result, and erases its sealed key; a second completion changes nothing', async () => {
      const t = await tenant();
      const s = makePresentationSession(t.id);
      await sessions().insert(s);
      const c = completion('verified');
      const done = await sessions().complete(t.id, s.id, c, iso());
      const { sealedKey: _gone, ...rest } = s;
      const expected = {
        ...rest,
        status: 'verified',
        result: c.result,
        responseCodeDigest: c.responseCodeDigest,
        completedAt: c.completedAt,
        updatedAt: c.completedAt,
      };
      expect(done).toEqual(expected);
      expect(await sessions().get(t.id, s.id)).toEqual(expected);
      expect(await sessions().complete(t.id, s.id, completion('failed'), iso())).toBeUndefined();
      expect(await sessions().get(t.id, s.id)).toEqual(expected);
    });

    it('complete: refuses an expired session, another tenant’s, and a missing one', async () => {
      const [a, b] = await tenants();
      const expired = makePresentationSession(a.id, { expiresAt: iso(-1) });
      const live = makePresentationSession(a.id);
      for (const s of [expired, live]) await sessions().insert(s);
      expect(await sessions().complete(a.id, expired.id, completion(), iso())).toBeUndefined();
      expect(await sessions().get(a.id, expired.id)).toEqual(expired);
      expect(await sessions().complete(b.id, live.id, completion(), iso())).toBeUndefined();
      expect(await sessions().complete(a.id, uuid(), completion(), iso())).toBeUndefined();
      expect((await sessions().get(a.id, live.id))?.status).toBe('pending');
    });

    it('complete: of racing completions exactly one wins', async () => {
      const t = await tenant();
      const s = makePresentationSession(t.id);
      await sessions().insert(s);
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => sessions().complete(t.id, s.id, completion(i % 2 ? 'failed' : 'verified'), iso())));
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    });

    it('complete rolls back with the transaction', async () => {
      const t = await tenant();
      const s = makePresentationSession(t.id);
      await sessions().insert(s);
      await expectWriteRolledBack(store(), 'boom', {
        write: (tx) => tx.presentationSessions.complete(t.id, s.id, completion(), iso()),
        read: async (r) => ((await r.presentationSessions.get(t.id, s.id))?.status === 'pending' ? undefined : 'completed'),
      });
      expect(await sessions().get(t.id, s.id)).toEqual(s);
    });

    it('eraseExpiredKeys and purgeExpired: keys of expired sessions go first, then the sessions past the cutoff, a batch at a time, across tenants', async () => {
      const [a, b] = await tenants();
      const gone = [
        makePresentationSession(a.id, { expiresAt: OLD }),
        makePresentationSession(b.id, { expiresAt: CUTOFF, status: 'failed' }),
        makePresentationSession(a.id, { expiresAt: OLD, responseMode: 'direct_post', encryptionJwk: undefined, sealedKey: undefined }),
      ].map((s) => JSON.parse(JSON.stringify(s)) as PresentationSession);
      const live = makePresentationSession(a.id, { expiresAt: JUST_AFTER });
      for (const s of [...gone, live]) await sessions().insert(s);
      // Keys: only the sessions expired by CUTOFF that hold one (two of the three).
      expect(await sessions().eraseExpiredKeys(CUTOFF, 1)).toBe(1);
      expect(await sessions().eraseExpiredKeys(CUTOFF, 5)).toBe(1);
      expect(await sessions().eraseExpiredKeys(CUTOFF, 5)).toBe(0);
      expect(await sessions().get(a.id, (gone[0] as PresentationSession).id)).not.toHaveProperty('sealedKey');
      expect((await sessions().get(a.id, live.id))?.sealedKey).toBe(live.sealedKey);
      expect(await sessions().purgeExpired(CUTOFF, 2)).toBe(2);
      expect(await sessions().purgeExpired(CUTOFF, 2)).toBe(1);
      expect(await sessions().purgeExpired(CUTOFF, 2)).toBe(0);
      for (const s of gone) expect(await sessions().get(s.tenantId, s.id)).toBeUndefined();
      expect(await sessions().get(a.id, live.id)).toEqual(live);
    });
  });
}
