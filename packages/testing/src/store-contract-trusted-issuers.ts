// The Store contract for trusted issuers (ports.ts: TrustedIssuerRepository, in
// core/src/verification/trusted-issuers/model.ts), run inside describeStoreContract against every adapter.
import type { Store, TrustedIssuer } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, expectWriteRolledBack, iso, tenantMakers, uuid } from './store-contract-support.ts';

/** A trusted issuer of `tenantId` for SD-JWT VC and mDocs, with one CA certificate unless told otherwise. */
export function makeTrustedIssuer(tenantId: string, over: Partial<TrustedIssuer> = {}): TrustedIssuer {
  const now = iso();
  return {
    tenantId,
    id: uuid(),
    name: 'Test trusted issuer',
    formats: ['dc+sd-jwt', 'mso_mdoc'],
    certificates: ['-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUdHJ1\n-----END CERTIFICATE-----\n'],
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

/** The trusted issuer part of the Store contract; `store` is read when the tests run. */
export function describeTrustedIssuerContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);
  const issuers = () => store().trustedIssuers;

  describe('trusted issuers', () => {
    it('stores each kind of anchor and the types as given, finds it within the tenant only, and leaves absent fields absent', async () => {
      const [a, b] = await tenants();
      const x509 = makeTrustedIssuer(a.id, { types: ['urn:eudi:pid:1', 'org.iso.18013.5.1.mDL'] });
      const { certificates: _none, ...bare } = makeTrustedIssuer(a.id, { name: 'Issuer “Ünïcode” ✓', formats: ['ldp_vc', 'cwt', 'cwt_vc'] });
      const did: TrustedIssuer = { ...bare, did: 'did:web:issuer.example.com' };
      for (const t of [x509, did]) expect(await issuers().insert(t, 10)).toBe(true);
      expect(await issuers().get(a.id, x509.id)).toEqual(x509);
      const gotDid = await issuers().get(a.id, did.id);
      expect(gotDid).toEqual(did);
      expect(gotDid).not.toHaveProperty('certificates');
      expect(gotDid).not.toHaveProperty('types');
      expect(await issuers().get(b.id, x509.id)).toBeUndefined();
      expect(await issuers().get(a.id, uuid())).toBeUndefined();
    });

    it('refuses an id that exists with Conflict', async () => {
      const t = await tenant();
      const i = makeTrustedIssuer(t.id);
      await issuers().insert(i, 10);
      await expectDomainError(issuers().insert({ ...i, name: 'Other' }, 10), 'Conflict');
    });

    it('refuses an insert past the tenant’s limit (false, nothing written); racing inserts never pass it; other tenants are not counted', async () => {
      const [a, b] = await tenants();
      expect(await issuers().insert(makeTrustedIssuer(a.id), 2)).toBe(true);
      const racing = await Promise.all(Array.from({ length: 5 }, () => issuers().insert(makeTrustedIssuer(a.id), 2)));
      expect(racing.filter(Boolean)).toHaveLength(1);
      expect((await issuers().list(a.id, { limit: 10 })).items).toHaveLength(2);
      expect(await issuers().insert(makeTrustedIssuer(b.id), 2)).toBe(true);
    });

    it('lists in creation order across pages, only the tenant’s', async () => {
      const [a, b] = await tenants();
      const mine = [makeTrustedIssuer(a.id), makeTrustedIssuer(a.id), makeTrustedIssuer(a.id)];
      for (const i of mine) await issuers().insert(i, 10);
      await issuers().insert(makeTrustedIssuer(b.id), 10);
      const first = await issuers().list(a.id, { limit: 2 });
      expect(first.items).toEqual([mine[0], mine[1]]);
      const rest = await issuers().list(a.id, { limit: 2, after: first.last as number });
      expect(rest.items).toEqual([mine[2]]);
    });

    it('update replaces every field but tenant, id and creation time, the kind of anchor and the types included; false when there is none', async () => {
      const [a, b] = await tenants();
      const i = makeTrustedIssuer(a.id, { types: ['urn:eudi:pid:1'] });
      await issuers().insert(i, 10);
      const { certificates: _old, types: _types, ...rest } = i;
      const replaced: TrustedIssuer = { ...rest, name: 'Renamed', formats: ['ldp_vc'], did: 'did:key:z6Mk', createdAt: iso(60_000), updatedAt: iso(1000) };
      expect(await issuers().update(replaced)).toBe(true);
      const got = await issuers().get(a.id, i.id);
      expect(got).toEqual({ ...replaced, createdAt: i.createdAt });
      expect(got).not.toHaveProperty('certificates');
      expect(got).not.toHaveProperty('types');
      expect(await issuers().update({ ...replaced, tenantId: b.id })).toBe(false);
      expect(await issuers().update(makeTrustedIssuer(a.id))).toBe(false);
    });

    it('delete removes the tenant’s issuer only; false when there is none', async () => {
      const [a, b] = await tenants();
      const i = makeTrustedIssuer(a.id);
      await issuers().insert(i, 10);
      expect(await issuers().delete(b.id, i.id)).toBe(false);
      expect(await issuers().delete(a.id, i.id)).toBe(true);
      expect(await issuers().delete(a.id, i.id)).toBe(false);
      expect(await issuers().get(a.id, i.id)).toBeUndefined();
    });

    it('rolls back with the transaction', async () => {
      const t = await tenant();
      const i = makeTrustedIssuer(t.id);
      await expectWriteRolledBack(store(), 'boom', { write: (tx) => tx.trustedIssuers.insert(i, 10), read: (r) => r.trustedIssuers.get(t.id, i.id) });
    });
  });
}
