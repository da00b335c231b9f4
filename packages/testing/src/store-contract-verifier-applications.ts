// The Store contract for verifier applications (ports.ts: VerifierApplicationRepository, in
// core/src/verification/applications/model.ts), run inside describeStoreContract against every adapter.
import type { Store, VerifierApplication } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, expectWriteRolledBack, iso, tenantMakers, uuid } from './store-contract-support.ts';

/** A redirect_uri verifier application of `tenantId` unless told otherwise. */
export function makeVerifierApplication(tenantId: string, over: Partial<VerifierApplication> = {}): VerifierApplication {
  const now = iso();
  return {
    tenantId,
    id: uuid(),
    name: 'Test verifier',
    clientIdPrefix: 'redirect_uri',
    responseModes: ['direct_post.jwt'],
    redirectUris: [],
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

/** The verifier application part of the Store contract; `store` is read when the tests run. */
export function describeVerifierApplicationContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);
  const apps = () => store().verifierApplications;
  const x509 = {
    keyId: 'key-1',
    csrPem: '-----BEGIN CERTIFICATE REQUEST-----\nQ1NS\n-----END CERTIFICATE REQUEST-----\n',
    certificates: ['-----BEGIN CERTIFICATE-----\nTEVBRg==\n-----END CERTIFICATE-----\n'],
  };

  describe('verifier applications', () => {
    it('stores each prefix’s fields as given, finds it within the tenant only, and leaves absent fields absent', async () => {
      const [a, b] = await tenants();
      const signed = makeVerifierApplication(a.id, {
        name: 'Bank “Ünïcode” ✓',
        clientIdPrefix: 'x509_hash',
        responseModes: ['direct_post', 'direct_post.jwt'],
        redirectUris: ['https://bank.example/done', 'https://bank.example/other'],
        display: { name: 'Bank', logoUri: 'https://bank.example/logo.png' },
        x509,
      });
      const did = makeVerifierApplication(a.id, { clientIdPrefix: 'decentralized_identifier', did: 'did:web:bank.example', display: { name: 'Bank' } });
      const bare = makeVerifierApplication(a.id);
      for (const v of [signed, did, bare]) expect(await apps().insert(v, 10)).toBe(true);
      expect(await apps().get(a.id, signed.id)).toEqual(signed);
      expect(await apps().get(a.id, did.id)).toEqual(did);
      const got = await apps().get(a.id, bare.id);
      expect(got).toEqual(bare);
      for (const field of ['display', 'did', 'x509']) expect(got).not.toHaveProperty(field);
      expect(await apps().get(b.id, signed.id)).toBeUndefined();
      expect(await apps().get(a.id, uuid())).toBeUndefined();
    });

    it('refuses an id that exists with Conflict', async () => {
      const t = await tenant();
      const v = makeVerifierApplication(t.id);
      await apps().insert(v, 10);
      await expectDomainError(apps().insert({ ...v, name: 'Other' }, 10), 'Conflict');
    });

    it('refuses an insert past the tenant’s limit (false, nothing written); racing inserts never pass it; other tenants are not counted', async () => {
      const [a, b] = await tenants();
      expect(await apps().insert(makeVerifierApplication(a.id), 2)).toBe(true);
      const racing = await Promise.all(Array.from({ length: 5 }, () => apps().insert(makeVerifierApplication(a.id), 2)));
      expect(racing.filter(Boolean)).toHaveLength(1);
      expect((await apps().list(a.id, { limit: 10 })).items).toHaveLength(2);
      expect(await apps().insert(makeVerifierApplication(b.id), 2)).toBe(true);
    });

    it('lists in creation order across pages, only the tenant’s', async () => {
      const [a, b] = await tenants();
      const mine = [makeVerifierApplication(a.id), makeVerifierApplication(a.id), makeVerifierApplication(a.id)];
      for (const v of mine) await apps().insert(v, 10);
      await apps().insert(makeVerifierApplication(b.id), 10);
      const first = await apps().list(a.id, { limit: 2 });
      expect(first.items).toEqual([mine[0], mine[1]]);
      const rest = await apps().list(a.id, { limit: 2, after: first.last as number });
      expect(rest.items).toEqual([mine[2]]);
    });

    it('update replaces every field but tenant, id and creation time, absent ones removed; false when there is none', async () => {
      const [a, b] = await tenants();
      const v = makeVerifierApplication(a.id, { clientIdPrefix: 'x509_hash', display: { name: 'Old' }, x509: { keyId: 'k', csrPem: x509.csrPem } });
      await apps().insert(v, 10);
      const { display: _d, ...rest } = v;
      const replaced: VerifierApplication = {
        ...rest,
        name: 'Renamed',
        redirectUris: ['https://a.example/'],
        x509,
        createdAt: iso(60_000),
        updatedAt: iso(1000),
      };
      expect(await apps().update(replaced)).toBe(true);
      const got = await apps().get(a.id, v.id);
      expect(got).toEqual({ ...replaced, createdAt: v.createdAt });
      expect(got).not.toHaveProperty('display');
      expect(await apps().update({ ...replaced, tenantId: b.id })).toBe(false);
      expect(await apps().update(makeVerifierApplication(a.id))).toBe(false);
    });

    it('delete removes the tenant’s application only; false when there is none', async () => {
      const [a, b] = await tenants();
      const v = makeVerifierApplication(a.id);
      await apps().insert(v, 10);
      expect(await apps().delete(b.id, v.id)).toBe(false);
      expect(await apps().delete(a.id, v.id)).toBe(true);
      expect(await apps().delete(a.id, v.id)).toBe(false);
      expect(await apps().get(a.id, v.id)).toBeUndefined();
    });

    it('rolls back with the transaction', async () => {
      const t = await tenant();
      const v = makeVerifierApplication(t.id);
      await expectWriteRolledBack(store(), 'boom', {
        write: (tx) => tx.verifierApplications.insert(v, 10),
        read: (r) => r.verifierApplications.get(t.id, v.id),
      });
    });
  });
}
