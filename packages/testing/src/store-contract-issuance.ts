// The Store contract for issued-credential records (ports.ts: IssuedCredentialRepository), run
// inside describeStoreContract against every adapter.
import type { IssuedCredentialRecord, Store } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, expectRolledBack, expectWriteRolledBack, inserting, tenantMakers, unique, uuid } from './store-contract-support.ts';
import { makeOffer } from './store-contract-offers.ts';

/** An issued-credential record of an mDoc unless told, valid for a year, with a unique notification id. */
export function makeIssuedCredential(tenantId: string, over: Partial<IssuedCredentialRecord> = {}): IssuedCredentialRecord {
  const issuedAt = new Date();
  return {
    id: uuid(),
    tenantId,
    format: 'mso_mdoc',
    credentialConfigurationId: uuid(),
    userId: uuid(),
    offerId: uuid(),
    issuedAt: issuedAt.toISOString(),
    validFrom: issuedAt.toISOString(),
    validUntil: new Date(issuedAt.getTime() + 365 * 86_400_000).toISOString(),
    status: 'valid',
    notificationId: unique('n'),
    ...over,
  };
}

export function describeIssuedCredentialContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);
  const issuedCredential = inserting(makeIssuedCredential, (i) => store().issuedCredentials.insert(i));

  describe('issued credentials', () => {
    it('inserts and reads back by id and by notification id, only within the tenant', async () => {
      const [a, b] = await tenants();
      // With the wallet client and attested instance it went to (issue 16), and without.
      const record = makeIssuedCredential(a.id, { clientId: 'wallet-app', clientInstanceId: unique('instance') });
      const bare = makeIssuedCredential(a.id);
      delete bare.offerId;
      await store().issuedCredentials.insert(record);
      await store().issuedCredentials.insert(bare);
      expect(await store().issuedCredentials.get(a.id, record.id)).toEqual(record);
      expect(await store().issuedCredentials.get(a.id, bare.id)).toEqual(bare);
      expect(await store().issuedCredentials.findByNotificationId(a.id, record.notificationId)).toEqual(record);
      expect(await store().issuedCredentials.get(b.id, record.id)).toBeUndefined();
      expect(await store().issuedCredentials.findByNotificationId(b.id, record.notificationId)).toBeUndefined();
      expect(await store().issuedCredentials.findByNotificationId(a.id, unique('none'))).toBeUndefined();
    });

    it('refuses a second record with the same id with Conflict; records may share a notification id (one batch response)', async () => {
      const [a, b] = await tenants();
      const record = await issuedCredential(a.id);
      await expectDomainError(store().issuedCredentials.insert(makeIssuedCredential(a.id, { id: record.id })), 'Conflict');
      // The credentials of one batch share their response's notification id (OpenID4VCI 1.0 §8.3).
      const sibling = makeIssuedCredential(a.id, { notificationId: record.notificationId });
      await store().issuedCredentials.insert(sibling);
      expect([record.id, sibling.id]).toContain((await store().issuedCredentials.findByNotificationId(a.id, record.notificationId))?.id);
      // Another tenant may hold the same notification id.
      await store().issuedCredentials.insert(makeIssuedCredential(b.id, { notificationId: record.notificationId }));
    });

    it('records a wallet notification on every record of a notification id, only in the tenant (recordNotificationFor)', async () => {
      const [a, b] = await tenants();
      const first = await issuedCredential(a.id);
      const second = await issuedCredential(a.id, { notificationId: first.notificationId });
      const alone = await issuedCredential(a.id);
      const elsewhere = await issuedCredential(b.id, { notificationId: first.notificationId });
      const accepted = { event: 'credential_accepted' as const, eventDescription: 'Stored', receivedAt: new Date().toISOString() };
      expect(await store().issuedCredentials.recordNotificationFor(a.id, first.notificationId, accepted)).toBe(2);
      expect(await store().issuedCredentials.get(a.id, first.id)).toEqual({ ...first, notification: accepted });
      expect(await store().issuedCredentials.get(a.id, second.id)).toEqual({ ...second, notification: accepted });
      expect(await store().issuedCredentials.get(a.id, alone.id)).toEqual(alone);
      expect(await store().issuedCredentials.get(b.id, elsewhere.id)).toEqual(elsewhere);
      expect(await store().issuedCredentials.recordNotificationFor(a.id, unique('none'), accepted)).toBe(0);
    });

    it('one credential per configuration per access token: an offer records each configuration its token issued once (markIssued)', async () => {
      const [a, b] = await tenants();
      const [offer, other] = [makeOffer(a.id, undefined), makeOffer(a.id, undefined)];
      for (const o of [offer, other]) await store().offers.insert(o);
      const configuration = uuid();
      expect(await store().offers.markIssued(a.id, offer.id, configuration, 10)).toBe(true);
      expect(await store().offers.markIssued(a.id, offer.id, configuration, 10)).toBe(false);
      // Another configuration of the same offer, or another offer: recorded.
      expect(await store().offers.markIssued(a.id, offer.id, uuid(), 10)).toBe(true);
      expect(await store().offers.markIssued(a.id, other.id, configuration, 10)).toBe(true);
      // An offer that does not exist, or one of another tenant: nothing to record.
      expect(await store().offers.markIssued(a.id, uuid(), configuration, 10)).toBe(false);
      expect(await store().offers.markIssued(b.id, other.id, uuid(), 10)).toBe(false);
      // The offer reads as before, with what its token issued, in order.
      expect(await store().offers.get(a.id, offer.id)).toEqual({ ...offer, issuedConfigurationIds: [configuration, expect.any(String)] });
      expect(await store().offers.get(a.id, other.id)).toEqual({ ...other, issuedConfigurationIds: [configuration] });
    });

    it('one credential per configuration per access token: of racing issuing transactions exactly one commits, the others leave nothing', async () => {
      const t = await tenant();
      const offer = makeOffer(t.id, undefined);
      await store().offers.insert(offer);
      const configuration = uuid();
      const expiresAt = new Date(Date.now() + 300_000).toISOString();
      const attempts = Array.from({ length: 6 }, (_, i) => ({
        nonce: { tenantId: t.id, nonce: unique(`n${i}-`), expiresAt },
        record: makeIssuedCredential(t.id, { offerId: offer.id, credentialConfigurationId: configuration }),
      }));
      // As the credential endpoint does: the nonce used up, the offer marked and the record written in one transaction.
      const outcomes = await Promise.allSettled(
        attempts.map(({ nonce, record }) =>
          store().transaction(async (tx) => {
            if (!(await tx.nonces.markUsed(nonce))) throw new Error('nonce used');
            if (!(await tx.offers.markIssued(t.id, offer.id, configuration, 10))) throw new Error('already issued');
            await tx.issuedCredentials.insert(record);
          }),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(String(o.reason)).toContain('already issued');
      const { items } = await store().issuedCredentials.list(t.id, { credentialConfigurationId: configuration }, { limit: 10 });
      expect(items).toHaveLength(1);
      // The losers' nonces were rolled back with them: still unused.
      const losers = attempts.filter(({ record }) => record.id !== items[0]?.id);
      for (const { nonce } of losers) expect(await store().nonces.markUsed(nonce)).toBe(true);
    });

    it('one credential per configuration per access token: a transaction that fails after marking leaves the configuration unmarked', async () => {
      const t = await tenant();
      const offer = makeOffer(t.id, undefined);
      await store().offers.insert(offer);
      const configuration = uuid();
      await expectRolledBack(store(), 'signing failed', async (tx) => {
        expect(await tx.offers.markIssued(t.id, offer.id, configuration, 10)).toBe(true);
      });
      expect(await store().offers.markIssued(t.id, offer.id, configuration, 10)).toBe(true);
    });

    it('lists in creation order across pages, with every filter AND-ed', async () => {
      const t = await tenant();
      const user = uuid();
      const configuration = uuid();
      const mine = [
        makeIssuedCredential(t.id, { userId: user, credentialConfigurationId: configuration }),
        makeIssuedCredential(t.id, { userId: user }),
        makeIssuedCredential(t.id, { userId: user, credentialConfigurationId: configuration, format: 'ldp_vc' }),
        makeIssuedCredential(t.id, { credentialConfigurationId: configuration }),
      ];
      for (const r of mine) await store().issuedCredentials.insert(r);
      const ids = async (filter: Parameters<Store['issuedCredentials']['list']>[1]) => {
        const all: string[] = [];
        let after: number | undefined;
        for (;;) {
          const slice = await store().issuedCredentials.list(t.id, filter, after === undefined ? { limit: 2 } : { limit: 2, after });
          if (slice.items.length === 0) return all;
          all.push(...slice.items.map((r) => r.id));
          after = slice.last;
        }
      };
      expect(await ids({})).toEqual(mine.map((r) => r.id));
      expect(await ids({ userId: user })).toEqual([mine[0]!.id, mine[1]!.id, mine[2]!.id]);
      expect(await ids({ credentialConfigurationId: configuration })).toEqual([mine[0]!.id, mine[2]!.id, mine[3]!.id]);
      expect(await ids({ userId: user, credentialConfigurationId: configuration, format: 'mso_mdoc' })).toEqual([mine[0]!.id]);
      expect(await ids({ format: 'ldp_vc' })).toEqual([mine[2]!.id]);
      expect(await ids({ userId: uuid() })).toEqual([]);
      const other = await tenant();
      expect(await store().issuedCredentials.list(other.id, {}, { limit: 10 })).toEqual({ items: [] });
    });

    it('records the last wallet notification, only on the tenant’s own record', async () => {
      const [a, b] = await tenants();
      const record = await issuedCredential(a.id);
      const accepted = { event: 'credential_accepted' as const, receivedAt: new Date().toISOString() };
      expect(await store().issuedCredentials.recordNotification(a.id, record.id, accepted)).toBe(true);
      expect((await store().issuedCredentials.get(a.id, record.id))?.notification).toEqual(accepted);
      const deleted = { event: 'credential_deleted' as const, eventDescription: 'The user removed it', receivedAt: new Date().toISOString() };
      expect(await store().issuedCredentials.recordNotification(a.id, record.id, deleted)).toBe(true);
      expect(await store().issuedCredentials.get(a.id, record.id)).toEqual({ ...record, notification: deleted });
      expect(await store().issuedCredentials.recordNotification(b.id, record.id, accepted)).toBe(false);
      expect(await store().issuedCredentials.recordNotification(a.id, uuid(), accepted)).toBe(false);
      expect((await store().issuedCredentials.get(a.id, record.id))?.notification).toEqual(deleted);
    });

    it('sets the revocation state, only on the tenant’s own record', async () => {
      const [a, b] = await tenants();
      const record = await issuedCredential(a.id);
      expect(await store().issuedCredentials.setStatus(a.id, record.id, 'suspended')).toBe(true);
      expect(await store().issuedCredentials.get(a.id, record.id)).toEqual({ ...record, status: 'suspended' });
      expect(await store().issuedCredentials.setStatus(b.id, record.id, 'invalid')).toBe(false);
      expect(await store().issuedCredentials.setStatus(a.id, uuid(), 'invalid')).toBe(false);
      expect((await store().issuedCredentials.get(a.id, record.id))?.status).toBe('suspended');
    });

    it('rolls back with the transaction that wrote it', async () => {
      const t = await tenant();
      const record = makeIssuedCredential(t.id);
      await expectWriteRolledBack(store(), 'the webhook outbox write failed', {
        write: (tx) => tx.issuedCredentials.insert(record),
        read: (r) => r.issuedCredentials.get(t.id, record.id),
      });
    });
  });
}
