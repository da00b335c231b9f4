// The Store contract for status lists (core/src/status-lists/model.ts: StatusListRepository and
// StatusListConfigurationRepository), run inside describeStoreContract against every adapter.
// What matters most: a list hands out each position once, however many callers race for one
// (IETF Token Status List §13.1: an index names one credential), and a status moves only from the
// status the caller saw, with the list's revision, so the next token shows the change.
import {
  STATUS_LIST_SIZE,
  type StatusEntry,
  type StatusListConfiguration,
  type StatusListKind,
  type StatusListRecord,
  type Store,
  type StoredStatusToken,
} from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, expectRolledBack, inserting, iso, nextNumber, tenantMakers, unique, uuid } from './store-contract-support.ts';

const kindOf = (format: 'draft-14' | 'legacy' = 'draft-14'): StatusListKind => `mdoc:${format}:${unique('org.example.')}`;

/**
 * An empty list of a fresh kind (a draft 14 mDoc one unless told), 500,000 entries, a random
 * shuffle key, and a generation no other fixture has (so lists of one kind never collide on it).
 */
export function makeStatusList(tenantId: string, over: Partial<StatusListRecord> = {}): StatusListRecord {
  return {
    id: uuid(),
    tenantId,
    kind: kindOf(),
    size: STATUS_LIST_SIZE,
    generation: nextNumber(),
    taken: 0,
    shuffleKey: Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64url'),
    revision: 0,
    createdAt: iso(),
    ...over,
  };
}

/** A draft 14 configuration for a fresh docType. */
export function makeStatusListConfiguration(tenantId: string, over: Partial<StatusListConfiguration> = {}): StatusListConfiguration {
  const now = iso();
  return {
    id: uuid(),
    tenantId,
    docType: unique('org.example.'),
    timeToLiveDuration: { hours: 12 },
    expiryDuration: { days: 1 },
    format: 'draft-14',
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

function makeEntry(list: StatusListRecord, idx: number, over: Partial<StatusEntry> = {}): StatusEntry {
  return { tenantId: list.tenantId, listId: list.id, idx, credentialId: uuid(), status: 'valid', updatedAt: iso(), ...over };
}

function makeToken(list: StatusListRecord, over: Partial<StoredStatusToken> = {}): StoredStatusToken {
  return {
    tenantId: list.tenantId,
    listId: list.id,
    revision: list.revision,
    // Bytes of every value, a zero among them: the store keeps bytes, not text.
    token: Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256),
    issuedAt: iso(),
    expiresAt: iso(86_400_000),
    ...over,
  };
}

/** The status list part of the Store contract; `store` is read when the tests run. */
export function describeStatusListContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);
  const list = inserting(makeStatusList, (l) => store().statusLists.insert(l));
  const entry = inserting(makeEntry, (e) => store().statusLists.insertEntry(e));
  const configurations = () => store().statusListConfigurations;
  const lists = () => store().statusLists;

  describe('status list configurations', () => {
    it('stores every field, found by id and by docType within the tenant only', async () => {
      const [a, b] = await tenants();
      const c = makeStatusListConfiguration(a.id, { format: 'legacy', timeToLiveDuration: { minutes: 30, seconds: 15 }, expiryDuration: { weeks: 2 } });
      await configurations().insert(c);
      expect(await configurations().get(a.id, c.id)).toEqual(c);
      expect(await configurations().findByDocType(a.id, c.docType)).toEqual(c);
      expect(await configurations().get(b.id, c.id)).toBeUndefined();
      expect(await configurations().findByDocType(b.id, c.docType)).toBeUndefined();
      expect(await configurations().get(a.id, uuid())).toBeUndefined();
      expect(await configurations().findByDocType(a.id, unique('org.example.'))).toBeUndefined();
    });

    it('lists the tenant’s configurations in creation order', async () => {
      const [a, b] = await tenants();
      const made = [makeStatusListConfiguration(a.id), makeStatusListConfiguration(a.id, { format: 'legacy' }), makeStatusListConfiguration(a.id)];
      for (const c of made) await configurations().insert(c);
      await configurations().insert(makeStatusListConfiguration(b.id));
      expect(await configurations().list(a.id)).toEqual(made);
      expect(await configurations().list((await tenant()).id)).toEqual([]);
    });

    it('refuses a second configuration for a docType of the tenant, or an id that exists, with Conflict; another tenant may have the docType', async () => {
      const [a, b] = await tenants();
      const c = makeStatusListConfiguration(a.id);
      await configurations().insert(c);
      await expectDomainError(configurations().insert(makeStatusListConfiguration(a.id, { docType: c.docType, format: 'legacy' })), 'Conflict');
      await expectDomainError(configurations().insert(makeStatusListConfiguration(a.id, { id: c.id })), 'Conflict');
      const theirs = makeStatusListConfiguration(b.id, { docType: c.docType });
      await configurations().insert(theirs);
      expect(await configurations().findByDocType(b.id, c.docType)).toEqual(theirs);
      expect(await configurations().list(a.id)).toEqual([c]);
    });

    it('of racing inserts for one docType, exactly one wins', async () => {
      const t = await tenant();
      const docType = unique('org.example.');
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => configurations().insert(makeStatusListConfiguration(t.id, { docType }))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'Conflict' });
      expect(await configurations().list(t.id)).toHaveLength(1);
    });

    it('update replaces the tenant’s configuration, false when there is none, Conflict (nothing changed) when the docType is another’s', async () => {
      const [a, b] = await tenants();
      const [c, other] = [makeStatusListConfiguration(a.id), makeStatusListConfiguration(a.id)];
      await configurations().insert(c);
      await configurations().insert(other);
      const changed: StatusListConfiguration = {
        ...c,
        docType: unique('org.example.'),
        format: 'legacy',
        timeToLiveDuration: { days: 1 },
        expiryDuration: { days: 7 },
        updatedAt: iso(1000),
      };
      expect(await configurations().update(changed)).toBe(true);
      expect(await configurations().get(a.id, c.id)).toEqual(changed);
      expect(await configurations().findByDocType(a.id, changed.docType)).toEqual(changed);
      expect(await configurations().findByDocType(a.id, c.docType)).toBeUndefined();
      // Keeping its own docType is no conflict.
      expect(await configurations().update({ ...changed, format: 'draft-14' })).toBe(true);
      expect((await configurations().get(a.id, c.id))?.format).toBe('draft-14');

      await expectDomainError(configurations().update({ ...changed, docType: other.docType }), 'Conflict');
      expect((await configurations().get(a.id, c.id))?.docType).toBe(changed.docType);
      expect(await configurations().get(a.id, other.id)).toEqual(other);

      expect(await configurations().update({ ...changed, tenantId: b.id })).toBe(false);
      expect(await configurations().update(makeStatusListConfiguration(a.id))).toBe(false);
      expect(await configurations().get(b.id, c.id)).toBeUndefined();
    });

    it('delete removes the tenant’s configuration only, freeing its docType', async () => {
      const [a, b] = await tenants();
      const c = makeStatusListConfiguration(a.id);
      await configurations().insert(c);
      expect(await configurations().delete(b.id, c.id)).toBe(false);
      expect(await configurations().get(a.id, c.id)).toEqual(c);
      expect(await configurations().delete(a.id, c.id)).toBe(true);
      expect(await configurations().delete(a.id, c.id)).toBe(false);
      expect(await configurations().get(a.id, c.id)).toBeUndefined();
      expect(await configurations().findByDocType(a.id, c.docType)).toBeUndefined();
      await configurations().insert(makeStatusListConfiguration(a.id, { docType: c.docType }));
    });
  });

  describe('status lists', () => {
    it('insert adds a list with taken 0 and revision 0, found by id within the tenant only', async () => {
      const [a, b] = await tenants();
      const l = await list(a.id, { kind: kindOf('legacy'), size: 1234 });
      expect(await lists().get(a.id, l.id)).toEqual(l);
      expect(await lists().get(b.id, l.id)).toBeUndefined();
      expect(await lists().get(a.id, uuid())).toBeUndefined();
      // Whatever the record says, a list starts empty and unchanged.
      const odd = makeStatusList(a.id, { taken: 7, revision: 3 });
      await lists().insert(odd);
      expect(await lists().get(a.id, odd.id)).toEqual({ ...odd, taken: 0, revision: 0 });
    });

    it('refuses an id that exists with Conflict', async () => {
      const t = await tenant();
      const l = await list(t.id);
      await expectDomainError(lists().insert(makeStatusList(t.id, { id: l.id })), 'Conflict');
      expect(await lists().get(t.id, l.id)).toEqual(l);
    });

    it('refuses a second list of one kind and generation with Conflict; another kind, generation or tenant is fine', async () => {
      const [a, b] = await tenants();
      const l = await list(a.id, { generation: 0 });
      await expectDomainError(lists().insert(makeStatusList(a.id, { kind: l.kind, generation: 0 })), 'Conflict');
      expect(await lists().list(a.id, l.kind)).toEqual([l]);
      await lists().insert(makeStatusList(a.id, { kind: l.kind, generation: 1 }));
      await lists().insert(makeStatusList(a.id, { generation: 0 }));
      await lists().insert(makeStatusList(b.id, { kind: l.kind, generation: 0 }));
      expect(await lists().list(a.id, l.kind)).toHaveLength(2);
    });

    it('of concurrent inserts of one generation, exactly one is kept', async () => {
      const t = await tenant();
      const kind = kindOf();
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => lists().insert(makeStatusList(t.id, { kind, generation: 0 }))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(await lists().list(t.id, kind)).toHaveLength(1);
    });

    it('lists the tenant’s lists of one kind, or of every kind, in creation order', async () => {
      const [a, b] = await tenants();
      const kind = kindOf();
      const first = await list(a.id, { kind });
      const legacy = await list(a.id, { kind: kindOf('legacy') });
      const rest = [await list(a.id, { kind, size: 3 }), await list(a.id, { kind })];
      await list(b.id, { kind });
      expect(await lists().list(a.id, kind)).toEqual([first, ...rest]);
      expect(await lists().list(a.id, legacy.kind)).toEqual([legacy]);
      expect(await lists().list(a.id)).toEqual([first, legacy, ...rest]);
      expect(await lists().list(a.id, kindOf())).toEqual([]);
      expect(await lists().list((await tenant()).id)).toEqual([]);
    });

    it('takePosition hands out 0, 1, 2 of a list of 3, then nothing', async () => {
      const t = await tenant();
      const l = await list(t.id, { size: 3 });
      for (const position of [0, 1, 2]) {
        const took = await lists().takePosition(t.id, l.kind);
        expect(took).toEqual({ list: { ...l, taken: position + 1 }, position });
      }
      expect(await lists().takePosition(t.id, l.kind)).toBeUndefined();
      expect(await lists().takePosition(t.id, l.kind)).toBeUndefined();
      expect(await lists().get(t.id, l.id)).toEqual({ ...l, taken: 3 });
    });

    it('takePosition takes from the newest list of the kind with room, of the tenant only', async () => {
      const [a, b] = await tenants();
      const kind = kindOf();
      expect(await lists().takePosition(a.id, kind)).toBeUndefined();
      const older = await list(a.id, { kind, size: 3 });
      expect((await lists().takePosition(a.id, kind))?.list.id).toBe(older.id);
      // A list of another kind, or of another tenant, is never taken from.
      await list(a.id, { kind: kindOf(), size: 3 });
      await list(b.id, { kind, size: 3 });
      const newer = await list(a.id, { kind, size: 2 });
      expect(await lists().takePosition(a.id, kind)).toEqual({ list: { ...newer, taken: 1 }, position: 0 });
      expect(await lists().takePosition(a.id, kind)).toEqual({ list: { ...newer, taken: 2 }, position: 1 });
      // The newer one is full: the newest with room is the older one again.
      expect(await lists().takePosition(a.id, kind)).toEqual({ list: { ...older, taken: 2 }, position: 1 });
      expect(await lists().takePosition(a.id, kind)).toEqual({ list: { ...older, taken: 3 }, position: 2 });
      expect(await lists().takePosition(a.id, kind)).toBeUndefined();
      expect(await lists().takePosition(b.id, kind)).toMatchObject({ position: 0 });
    });

    it('of 50 concurrent takePosition calls on one list, each gets a different position', async () => {
      const t = await tenant();
      const l = await list(t.id);
      const took = await Promise.all(Array.from({ length: 50 }, () => lists().takePosition(t.id, l.kind)));
      const positions = took.map((x) => x?.position);
      expect(new Set(positions).size).toBe(50);
      expect([...positions].sort((x, y) => (x as number) - (y as number))).toEqual(Array.from({ length: 50 }, (_, i) => i));
      for (const x of took) expect(x?.list.id).toBe(l.id);
      expect((await lists().get(t.id, l.id))?.taken).toBe(50);
    });

    it('of concurrent takePosition calls on a list with less room, only as many as it holds get a position', async () => {
      const t = await tenant();
      const l = await list(t.id, { size: 5 });
      const took = await Promise.all(Array.from({ length: 20 }, () => lists().takePosition(t.id, l.kind)));
      const positions = took.flatMap((x) => (x ? [x.position] : []));
      expect(positions.sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4]);
      expect((await lists().get(t.id, l.id))?.taken).toBe(5);
    });

    it('insertEntry records an entry, found by credential within the tenant only', async () => {
      const [a, b] = await tenants();
      const l = await list(a.id);
      const e = await entry(l, 499_999, { status: 'suspended' });
      expect(await lists().entryOf(a.id, e.credentialId)).toEqual(e);
      expect(await lists().entryOf(b.id, e.credentialId)).toBeUndefined();
      expect(await lists().entryOf(a.id, uuid())).toBeUndefined();
    });

    it('insertEntry refuses an index the list holds, or a credential that has an entry, with Conflict', async () => {
      const [a, b] = await tenants();
      const [l, other] = [await list(a.id), await list(a.id)];
      const e = await entry(l, 17);
      await expectDomainError(lists().insertEntry(makeEntry(l, 17)), 'Conflict');
      await expectDomainError(lists().insertEntry(makeEntry(other, 3, { credentialId: e.credentialId })), 'Conflict');
      expect(await lists().entryOf(a.id, e.credentialId)).toEqual(e);
      // The same index of another list, and the same credential id in another tenant, are fine.
      await entry(other, 17);
      const theirs = await entry(await list(b.id), 17, { credentialId: e.credentialId });
      expect(await lists().entryOf(b.id, e.credentialId)).toEqual(theirs);
    });

    it('setStatus moves an entry from `from` to `to` and changes its list’s revision, together', async () => {
      const t = await tenant();
      const [l, other] = [await list(t.id, { kind: kindOf('legacy') }), await list(t.id)];
      const [e, untouched] = [await entry(l, 5), await entry(other, 5)];
      const at = iso(5000);
      expect(await lists().setStatus(t.id, e.credentialId, 'valid', 'suspended', at)).toBe(true);
      expect(await lists().entryOf(t.id, e.credentialId)).toEqual({ ...e, status: 'suspended', updatedAt: at });
      const suspended = (await lists().get(t.id, l.id))?.revision;
      expect(suspended).not.toBe(l.revision);
      expect(await lists().get(t.id, other.id)).toEqual(other);
      expect(await lists().entryOf(t.id, untouched.credentialId)).toEqual(untouched);

      expect(await lists().setStatus(t.id, e.credentialId, 'suspended', 'valid', iso(6000))).toBe(true);
      const reinstated = (await lists().get(t.id, l.id))?.revision;
      expect(reinstated).not.toBe(suspended);
      const revoked = iso(7000);
      expect(await lists().setStatus(t.id, e.credentialId, 'valid', 'invalid', revoked)).toBe(true);
      expect((await lists().get(t.id, l.id))?.revision).not.toBe(reinstated);
      expect(await lists().entryOf(t.id, e.credentialId)).toEqual({ ...e, status: 'invalid', updatedAt: revoked });
    });

    it('setStatus is false, and changes nothing, when the status is no longer `from`, the credential has no entry, or the entry is another tenant’s', async () => {
      const [a, b] = await tenants();
      const l = await list(a.id);
      const e = await entry(l, 9, { status: 'invalid' });
      expect(await lists().setStatus(a.id, e.credentialId, 'valid', 'invalid', iso())).toBe(false);
      expect(await lists().setStatus(a.id, e.credentialId, 'suspended', 'valid', iso())).toBe(false);
      expect(await lists().setStatus(b.id, e.credentialId, 'invalid', 'valid', iso())).toBe(false);
      expect(await lists().setStatus(a.id, uuid(), 'valid', 'invalid', iso())).toBe(false);
      expect(await lists().entryOf(a.id, e.credentialId)).toEqual(e);
      expect(await lists().get(a.id, l.id)).toEqual(l);
    });

    it('of racing setStatus calls from one status, exactly one moves the entry', async () => {
      const t = await tenant();
      const l = await list(t.id);
      for (let round = 0; round < 3; round++) {
        const e = await entry(l, round);
        const stamps = Array.from({ length: 8 }, (_, i) => iso(i * 1000));
        const results = await Promise.all(stamps.map((at, i) => lists().setStatus(t.id, e.credentialId, 'valid', i % 2 === 0 ? 'invalid' : 'suspended', at)));
        const winners = results.flatMap((won, i) => (won ? [i] : []));
        expect(winners).toHaveLength(1);
        const winner = winners[0] as number;
        expect(await lists().entryOf(t.id, e.credentialId)).toEqual({ ...e, status: winner % 2 === 0 ? 'invalid' : 'suspended', updatedAt: stamps[winner] });
      }
    });

    it('nonValidEntries gives the list’s entries that are not valid, in index order, of the tenant only', async () => {
      const [a, b] = await tenants();
      const [l, other] = [await list(a.id, { kind: kindOf('legacy') }), await list(a.id)];
      expect(await lists().nonValidEntries(a.id, l.id)).toEqual([]);
      const made = new Map<number, StatusEntry>();
      for (const idx of [400_000, 7, 0, 123_456, 8, 499_999, 42]) made.set(idx, await entry(l, idx));
      await entry(other, 1, { status: 'invalid' });
      expect(await lists().nonValidEntries(a.id, l.id)).toEqual([]);

      const credentialOf = (idx: number) => (made.get(idx) as StatusEntry).credentialId;
      for (const idx of [499_999, 0, 123_456, 42]) expect(await lists().setStatus(a.id, credentialOf(idx), 'valid', 'invalid', iso())).toBe(true);
      expect(await lists().setStatus(a.id, credentialOf(7), 'valid', 'suspended', iso())).toBe(true);
      expect(await lists().setStatus(a.id, credentialOf(42), 'invalid', 'valid', iso())).toBe(true);
      // An entry inserted as not valid counts too.
      await entry(l, 3, { status: 'suspended' });
      expect(await lists().nonValidEntries(a.id, l.id)).toEqual([
        { idx: 0, status: 'invalid' },
        { idx: 3, status: 'suspended' },
        { idx: 7, status: 'suspended' },
        { idx: 123_456, status: 'invalid' },
        { idx: 499_999, status: 'invalid' },
      ]);
      expect(await lists().nonValidEntries(b.id, l.id)).toEqual([]);
      expect(await lists().nonValidEntries(a.id, other.id)).toEqual([{ idx: 1, status: 'invalid' }]);
      expect(await lists().nonValidEntries(a.id, uuid())).toEqual([]);
    });

    it('keeps one token per list: putToken replaces it, getToken reads it within the tenant only', async () => {
      const [a, b] = await tenants();
      const [l, other] = [await list(a.id), await list(a.id)];
      expect(await lists().getToken(a.id, l.id)).toBeUndefined();
      const first = makeToken(l);
      await lists().putToken(first);
      const got = await lists().getToken(a.id, l.id);
      expect(got).toEqual(first);
      expect(got?.token).toBeInstanceOf(Uint8Array);
      expect(await lists().getToken(b.id, l.id)).toBeUndefined();
      expect(await lists().getToken(a.id, other.id)).toBeUndefined();

      const second = makeToken(l, { revision: 4, token: Uint8Array.from([0xd2, 0x84, 0x00, 0xff]), issuedAt: iso(1000), expiresAt: iso(2000) });
      await lists().putToken(second);
      expect(await lists().getToken(a.id, l.id)).toEqual(second);
      const otherToken = makeToken(other, { token: new Uint8Array(0) });
      await lists().putToken(otherToken);
      expect(await lists().getToken(a.id, other.id)).toEqual(otherToken);
      expect(await lists().getToken(a.id, l.id)).toEqual(second);
    });

    it('a transaction that fails leaves no list, position, entry, status change or token behind', async () => {
      const t = await tenant();
      const l = await list(t.id, { size: 10 });
      const e = await entry(l, 1);
      const fresh = makeStatusList(t.id, { kind: l.kind });
      const c = makeStatusListConfiguration(t.id);
      const newEntry = makeEntry(l, 2);
      await expectRolledBack(store(), 'boom', async (tx) => {
        await tx.statusListConfigurations.insert(c);
        expect(await tx.statusLists.takePosition(t.id, l.kind)).toMatchObject({ position: 0 });
        await tx.statusLists.insert(fresh);
        await tx.statusLists.insertEntry(newEntry);
        expect(await tx.statusLists.setStatus(t.id, e.credentialId, 'valid', 'invalid', iso())).toBe(true);
        await tx.statusLists.putToken(makeToken(l));
      });
      expect(await configurations().get(t.id, c.id)).toBeUndefined();
      expect(await lists().get(t.id, fresh.id)).toBeUndefined();
      expect(await lists().get(t.id, l.id)).toEqual(l);
      expect(await lists().entryOf(t.id, newEntry.credentialId)).toBeUndefined();
      expect(await lists().entryOf(t.id, e.credentialId)).toEqual(e);
      expect(await lists().nonValidEntries(t.id, l.id)).toEqual([]);
      expect(await lists().getToken(t.id, l.id)).toBeUndefined();
      expect(await lists().takePosition(t.id, l.kind)).toEqual({ list: { ...l, taken: 1 }, position: 0 });
    });

    it('values read are copies: changing one changes nothing stored', async () => {
      const t = await tenant();
      const l = await list(t.id);
      const token = makeToken(l);
      await lists().putToken(token);
      token.token[0] = 99;
      const got = (await lists().getToken(t.id, l.id)) as StoredStatusToken;
      expect(got.token[0]).toBe(0);
      got.token[1] = 99;
      expect((await lists().getToken(t.id, l.id))?.token[1]).toBe(7);
      const c = makeStatusListConfiguration(t.id);
      await configurations().insert(c);
      c.timeToLiveDuration.hours = 1;
      const read = (await configurations().get(t.id, c.id)) as StatusListConfiguration;
      expect(read.timeToLiveDuration).toEqual({ hours: 12 });
      read.expiryDuration.days = 99;
      expect((await configurations().get(t.id, c.id))?.expiryDuration).toEqual({ days: 1 });
    });
  });
}
