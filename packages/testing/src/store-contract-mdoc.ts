// The Store contract for the mDoc PKI repositories (ports.ts: IacaRepository, DocumentSignerRepository),
// run inside describeStoreContract against every adapter.
import type { DocumentSignerRecord, IacaRecord, Store } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { expectDomainError, tenantMakers, unique, uuid } from './store-contract-support.ts';

/** An IACA record (managed unless told), inactive, with a unique fingerprint. */
export function makeIaca(tenantId: string, over: Partial<IacaRecord> = {}): IacaRecord {
  const now = new Date().toISOString();
  return {
    id: uuid(),
    tenantId,
    active: false,
    isManaged: true,
    keyId: uuid(),
    certificatePem: '-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n',
    fingerprint: unique('fp'),
    certificateData: { notBefore: '2026-01-01T00:00:00.000Z', notAfter: '2031-01-01T00:00:00.000Z', country: 'US', commonName: 'Test IACA' },
    issuerAlternativeName: 'https://t.eu01.vellum.test',
    crlUri: 'https://t.eu01.vellum.test/v2/credentials/mobile/iacas/x/crl',
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

/** A document signer record of an IACA: requested with a CSR unless told (`isManaged`). */
export function makeDocumentSigner(tenantId: string, iacaId: string, over: Partial<DocumentSignerRecord> = {}): DocumentSignerRecord {
  const now = new Date().toISOString();
  return {
    id: uuid(),
    tenantId,
    iacaId,
    isManaged: false,
    active: false,
    keyId: uuid(),
    publicJwk: { kty: 'EC', crv: 'P-256', x: unique('x'), y: 'yy' },
    csrPem: '-----BEGIN CERTIFICATE REQUEST-----\nMA==\n-----END CERTIFICATE REQUEST-----\n',
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}

/** The mDoc PKI part of the Store contract; `store` is read when the tests run. */
export function describeMdocPkiContract(store: () => Store): void {
  const { tenant, tenants } = tenantMakers(store);

  describe('IACAs', () => {
    it('stores an IACA whole, and finds it within its tenant only', async () => {
      const [a, b] = await tenants();
      const managed = makeIaca(a.id, {
        activatedAt: '2026-02-01T00:00:00.000Z',
        active: true,
        certificateData: {
          notBefore: '2026-01-01T00:00:00.000Z',
          notAfter: '2031-01-01T00:00:00.000Z',
          country: 'NZ',
          commonName: 'N',
          stateOrProvinceName: 'Wellington',
        },
      });
      const imported = makeIaca(a.id, { isManaged: false, keyId: undefined, issuerAlternativeName: undefined, crlUri: undefined });
      delete imported.keyId;
      delete imported.issuerAlternativeName;
      delete imported.crlUri;
      expect(await store().iacas.insert(managed, 3)).toBe(true);
      expect(await store().iacas.insert(imported, 3)).toBe(true);
      expect(await store().iacas.get(a.id, managed.id)).toEqual(managed);
      expect(await store().iacas.get(a.id, imported.id)).toEqual(imported);
      expect(await store().iacas.get(b.id, managed.id)).toBeUndefined();
      expect(await store().iacas.get(a.id, uuid())).toBeUndefined();
      expect((await store().iacas.list(b.id, { limit: 10 })).items).toEqual([]);
    });

    it('refuses past the limit (false, nothing written), counting per tenant', async () => {
      const [a, b] = await tenants();
      for (let i = 0; i < 3; i++) expect(await store().iacas.insert(makeIaca(a.id), 3)).toBe(true);
      const fourth = makeIaca(a.id);
      expect(await store().iacas.insert(fourth, 3)).toBe(false);
      expect(await store().iacas.get(a.id, fourth.id)).toBeUndefined();
      expect((await store().iacas.list(a.id, { limit: 10 })).items).toHaveLength(3);
      expect(await store().iacas.insert(makeIaca(b.id), 3)).toBe(true);
    });

    it('never lets racing inserts pass the limit together', async () => {
      const t = await tenant();
      const results = await Promise.all(Array.from({ length: 6 }, () => store().iacas.insert(makeIaca(t.id), 3)));
      expect(results.filter(Boolean)).toHaveLength(3);
      expect((await store().iacas.list(t.id, { limit: 10 })).items).toHaveLength(3);
    });

    it('refuses the same certificate twice in a tenant with Conflict, and lets another tenant hold it', async () => {
      const [a, b] = await tenants();
      const first = makeIaca(a.id);
      await store().iacas.insert(first, 3);
      await expectDomainError(store().iacas.insert(makeIaca(a.id, { fingerprint: first.fingerprint }), 3), 'Conflict');
      await expectDomainError(store().iacas.insert(makeIaca(a.id, { id: first.id }), 3), 'Conflict');
      expect(await store().iacas.insert(makeIaca(b.id, { fingerprint: first.fingerprint }), 3)).toBe(true);
    });

    it('lists in creation order across pages, all or the active ones only', async () => {
      const t = await tenant();
      const made = [makeIaca(t.id, { active: true }), makeIaca(t.id), makeIaca(t.id, { active: true })];
      for (const i of made) await store().iacas.insert(i, 3);
      const first = await store().iacas.list(t.id, { limit: 2 });
      expect(first.items.map((i) => i.id)).toEqual([made[0]!.id, made[1]!.id]);
      const rest = await store().iacas.list(t.id, { limit: 2, after: first.last as number });
      expect(rest.items.map((i) => i.id)).toEqual([made[2]!.id]);
      expect((await store().iacas.list(t.id, { limit: 10 }, { activeOnly: true })).items.map((i) => i.id)).toEqual([made[0]!.id, made[2]!.id]);
    });

    it('updates active, activatedAt and updatedAt only, within the tenant', async () => {
      const [a, b] = await tenants();
      const iaca = makeIaca(a.id);
      await store().iacas.insert(iaca, 3);
      const on = {
        ...iaca,
        active: true,
        activatedAt: '2026-03-01T00:00:00.000Z',
        updatedAt: '2026-03-01T00:00:00.000Z',
        certificatePem: 'changed',
        fingerprint: 'changed',
      };
      expect(await store().iacas.update(on)).toBe(true);
      expect(await store().iacas.get(a.id, iaca.id)).toEqual({ ...iaca, active: true, activatedAt: on.activatedAt, updatedAt: on.updatedAt });
      expect(await store().iacas.update({ ...on, tenantId: b.id })).toBe(false);
      expect(await store().iacas.update({ ...on, id: uuid() })).toBe(false);
      const off = { ...on, active: false };
      expect(await store().iacas.update(off)).toBe(true);
      expect((await store().iacas.get(a.id, iaca.id))?.active).toBe(false);
    });

    it('keeps revocations in order, the first entry of a serial, and refuses an unknown IACA with NotFound', async () => {
      const [a, b] = await tenants();
      const iaca = makeIaca(a.id);
      await store().iacas.insert(iaca, 3);
      const one = { serialNumber: '0a', revokedAt: '2026-03-01T00:00:00.000Z', notAfter: '2027-01-01T00:00:00.000Z' };
      const two = { serialNumber: '0b', revokedAt: '2026-03-02T00:00:00.000Z', notAfter: '2027-01-02T00:00:00.000Z' };
      await store().iacas.addRevocation(a.id, iaca.id, one);
      await store().iacas.addRevocation(a.id, iaca.id, two);
      await store().iacas.addRevocation(a.id, iaca.id, { ...one, revokedAt: '2026-04-01T00:00:00.000Z' });
      expect(await store().iacas.listRevocations(a.id, iaca.id)).toEqual([one, two]);
      expect(await store().iacas.listRevocations(b.id, iaca.id)).toEqual([]);
      await expectDomainError(store().iacas.addRevocation(b.id, iaca.id, one), 'NotFound');
      await expectDomainError(store().iacas.addRevocation(a.id, uuid(), one), 'NotFound');
    });

    it('deletes an IACA with its document signers and revocations, within its tenant only', async () => {
      const [a, b] = await tenants();
      const iaca = makeIaca(a.id);
      const kept = makeIaca(a.id);
      await store().iacas.insert(iaca, 3);
      await store().iacas.insert(kept, 3);
      const signer = makeDocumentSigner(a.id, iaca.id);
      const other = makeDocumentSigner(a.id, kept.id);
      await store().documentSigners.insert(signer);
      await store().documentSigners.insert(other);
      await store().iacas.addRevocation(a.id, iaca.id, { serialNumber: '01', revokedAt: '2026-03-01T00:00:00.000Z', notAfter: '2027-01-01T00:00:00.000Z' });
      expect(await store().iacas.delete(b.id, iaca.id)).toBe(false);
      expect(await store().iacas.delete(a.id, iaca.id)).toBe(true);
      expect(await store().iacas.get(a.id, iaca.id)).toBeUndefined();
      expect(await store().documentSigners.get(a.id, signer.id)).toBeUndefined();
      expect(await store().iacas.listRevocations(a.id, iaca.id)).toEqual([]);
      expect(await store().documentSigners.get(a.id, other.id)).toEqual(other);
      expect(await store().iacas.delete(a.id, iaca.id)).toBe(false);
    });
  });

  describe('document signers', () => {
    it('stores a signer whole, within its tenant only, and only under one of the tenant’s IACAs', async () => {
      const [a, b] = await tenants();
      const iaca = makeIaca(a.id);
      await store().iacas.insert(iaca, 3);
      const signer = makeDocumentSigner(a.id, iaca.id);
      expect(await store().documentSigners.insert(signer)).toBe(true);
      expect(await store().documentSigners.get(a.id, signer.id)).toEqual(signer);
      expect(await store().documentSigners.get(b.id, signer.id)).toBeUndefined();
      await expectDomainError(store().documentSigners.insert(makeDocumentSigner(b.id, iaca.id)), 'NotFound');
      await expectDomainError(store().documentSigners.insert(makeDocumentSigner(a.id, uuid())), 'NotFound');
      await expectDomainError(store().documentSigners.insert({ ...signer }), 'Conflict');
    });

    it('counts only requested (not managed) signers against the limit, atomically', async () => {
      const [a, b] = await tenants();
      const imported = makeIaca(a.id, { isManaged: false });
      const managed = makeIaca(a.id);
      await store().iacas.insert(imported, 3);
      await store().iacas.insert(managed, 3);
      for (let i = 0; i < 3; i++)
        expect(await store().documentSigners.insert(makeDocumentSigner(a.id, managed.id, { isManaged: true, active: true }))).toBe(true);
      const results = await Promise.all(Array.from({ length: 7 }, () => store().documentSigners.insert(makeDocumentSigner(a.id, imported.id), 5)));
      expect(results.filter(Boolean)).toHaveLength(5);
      expect(await store().documentSigners.insert(makeDocumentSigner(a.id, managed.id, { isManaged: true }))).toBe(true);
      const bIaca = makeIaca(b.id, { isManaged: false });
      await store().iacas.insert(bIaca, 3);
      expect(await store().documentSigners.insert(makeDocumentSigner(b.id, bIaca.id), 5)).toBe(true);
      expect((await store().documentSigners.list(a.id, { limit: 100 })).items).toHaveLength(9);
    });

    it('lists in creation order across pages, by IACA when asked', async () => {
      const t = await tenant();
      const [x, y] = [makeIaca(t.id), makeIaca(t.id)];
      await store().iacas.insert(x, 3);
      await store().iacas.insert(y, 3);
      const made = [makeDocumentSigner(t.id, x.id), makeDocumentSigner(t.id, y.id), makeDocumentSigner(t.id, x.id)];
      for (const s of made) await store().documentSigners.insert(s);
      const first = await store().documentSigners.list(t.id, { limit: 2 });
      expect(first.items).toEqual(made.slice(0, 2));
      expect((await store().documentSigners.list(t.id, { limit: 2, after: first.last as number })).items).toEqual([made[2]]);
      expect((await store().documentSigners.list(t.id, { limit: 10 }, { iacaId: x.id })).items).toEqual([made[0], made[2]]);
      expect(await store().documentSigners.listByIaca(t.id, x.id)).toEqual([made[0], made[2]]);
      expect(await store().documentSigners.listByIaca(t.id, uuid())).toEqual([]);
    });

    it('updates the mutable fields only, within the tenant, and deletes for good', async () => {
      const [a, b] = await tenants();
      const iaca = makeIaca(a.id, { isManaged: false });
      await store().iacas.insert(iaca, 3);
      const signer = makeDocumentSigner(a.id, iaca.id);
      await store().documentSigners.insert(signer);
      const certified: DocumentSignerRecord = {
        ...signer,
        active: true,
        certificatePem: '-----BEGIN CERTIFICATE-----\nMQ==\n-----END CERTIFICATE-----\n',
        fingerprint: 'ab',
        serialNumber: '0c',
        certificateData: { notBefore: '2026-01-01T00:00:00.000Z', notAfter: '2027-01-01T00:00:00.000Z', country: 'US' },
        updatedAt: '2026-05-01T00:00:00.000Z',
      };
      expect(await store().documentSigners.update({ ...certified, iacaId: uuid(), keyId: 'other', isManaged: true })).toBe(true);
      expect(await store().documentSigners.get(a.id, signer.id)).toEqual(certified);
      const revoked = { ...certified, active: false, revokedAt: '2026-06-01T00:00:00.000Z' };
      expect(await store().documentSigners.update(revoked)).toBe(true);
      expect(await store().documentSigners.get(a.id, signer.id)).toEqual(revoked);
      expect(await store().documentSigners.update({ ...revoked, tenantId: b.id })).toBe(false);
      expect(await store().documentSigners.delete(b.id, signer.id)).toBe(false);
      expect(await store().documentSigners.delete(a.id, signer.id)).toBe(true);
      expect(await store().documentSigners.get(a.id, signer.id)).toBeUndefined();
      expect(await store().documentSigners.delete(a.id, signer.id)).toBe(false);
    });
  });

  // docs/decisions.md "Issuer certificates": issuer CAs beside IACAs (`profile`), their leaves beside
  // document signers (`use`), each kind listed and limited apart.
  describe('issuer CAs and their leaves', () => {
    const SANS = ['https://t.eu01.vellum.test', 't.eu01.vellum.test'];
    const issuerCa = (tenantId: string, over: Partial<IacaRecord> = {}) => makeIaca(tenantId, { profile: 'issuer', ...over });
    const leaf = (tenantId: string, caId: string, over: Partial<DocumentSignerRecord> = {}) =>
      makeDocumentSigner(tenantId, caId, { use: 'credential', ...over });

    it('stores an issuer CA whole with its profile, and lists IACAs and issuer CAs apart', async () => {
      const t = await tenant();
      const iaca = makeIaca(t.id, { active: true });
      const ca = issuerCa(t.id, { active: true });
      const inactive = issuerCa(t.id);
      for (const r of [iaca, ca, inactive]) expect(await store().iacas.insert(r, 3)).toBe(true);
      expect(await store().iacas.get(t.id, ca.id)).toEqual(ca);
      expect(await store().iacas.get(t.id, iaca.id)).not.toHaveProperty('profile');
      expect((await store().iacas.list(t.id, { limit: 10 })).items).toEqual([iaca]);
      expect((await store().iacas.list(t.id, { limit: 10 }, { profile: 'mdoc' })).items).toEqual([iaca]);
      expect((await store().iacas.list(t.id, { limit: 10 }, { profile: 'issuer' })).items).toEqual([ca, inactive]);
      expect((await store().iacas.list(t.id, { limit: 10 }, { profile: 'issuer', activeOnly: true })).items).toEqual([ca]);
    });

    it('counts the limit per profile: 3 IACAs and 3 issuer CAs fit, a fourth of either does not', async () => {
      const t = await tenant();
      for (let i = 0; i < 3; i++) expect(await store().iacas.insert(makeIaca(t.id), 3)).toBe(true);
      for (let i = 0; i < 3; i++) expect(await store().iacas.insert(issuerCa(t.id), 3)).toBe(true);
      const fourth = issuerCa(t.id);
      expect(await store().iacas.insert(fourth, 3)).toBe(false);
      expect(await store().iacas.get(t.id, fourth.id)).toBeUndefined();
      expect(await store().iacas.insert(makeIaca(t.id), 3)).toBe(false);
      const racing = await tenant();
      const results = await Promise.all(Array.from({ length: 5 }, () => store().iacas.insert(issuerCa(racing.id), 3)));
      expect(results.filter(Boolean)).toHaveLength(3);
    });

    it('never changes an issuer CA’s profile on update', async () => {
      const t = await tenant();
      const ca = issuerCa(t.id);
      await store().iacas.insert(ca, 3);
      const { profile: _, ...asIaca } = ca;
      expect(await store().iacas.update({ ...asIaca, active: true, activatedAt: '2026-03-01T00:00:00.000Z' })).toBe(true);
      expect(await store().iacas.get(t.id, ca.id)).toMatchObject({ profile: 'issuer', active: true });
      expect((await store().iacas.list(t.id, { limit: 10 })).items).toEqual([]);
    });

    it('stores a leaf whole with its use and subject alternative names, and lists leaves and document signers apart', async () => {
      const t = await tenant();
      const iaca = makeIaca(t.id);
      const ca = issuerCa(t.id);
      await store().iacas.insert(iaca, 3);
      await store().iacas.insert(ca, 3);
      const signer = makeDocumentSigner(t.id, iaca.id);
      const credential = leaf(t.id, ca.id, {
        isManaged: true,
        active: true,
        subjectAltNames: SANS,
        certificatePem: '-----BEGIN CERTIFICATE-----\nMQ==\n-----END CERTIFICATE-----\n',
        fingerprint: 'cd',
        serialNumber: '0d',
        certificateData: { notBefore: '2026-01-01T00:00:00.000Z', notAfter: '2027-01-01T00:00:00.000Z', country: 'US' },
      });
      const status = leaf(t.id, ca.id, { use: 'status-list' });
      for (const r of [signer, credential, status]) await store().documentSigners.insert(r);
      expect(await store().documentSigners.get(t.id, credential.id)).toEqual(credential);
      expect(await store().documentSigners.get(t.id, status.id)).toEqual(status);
      expect(await store().documentSigners.get(t.id, signer.id)).toEqual(signer);
      expect((await store().documentSigners.list(t.id, { limit: 10 })).items).toEqual([signer]);
      expect((await store().documentSigners.list(t.id, { limit: 10 }, { profile: 'mdoc' })).items).toEqual([signer]);
      expect((await store().documentSigners.list(t.id, { limit: 10 }, { profile: 'issuer' })).items).toEqual([credential, status]);
      expect((await store().documentSigners.list(t.id, { limit: 10 }, { profile: 'issuer', iacaId: iaca.id })).items).toEqual([]);
      expect((await store().documentSigners.list(t.id, { limit: 1 }, { profile: 'issuer', iacaId: ca.id })).items).toEqual([credential]);
      expect(await store().documentSigners.listByIaca(t.id, ca.id)).toEqual([credential, status]);
    });

    it('counts requested signers per family: 5 leaves and 5 document signers fit, a sixth of either does not', async () => {
      const t = await tenant();
      const iaca = makeIaca(t.id, { isManaged: false });
      const ca = issuerCa(t.id, { isManaged: false });
      await store().iacas.insert(iaca, 3);
      await store().iacas.insert(ca, 3);
      for (let i = 0; i < 5; i++) expect(await store().documentSigners.insert(makeDocumentSigner(t.id, iaca.id), 5)).toBe(true);
      const results = await Promise.all(
        Array.from({ length: 7 }, (_, i) => store().documentSigners.insert(leaf(t.id, ca.id, { use: i % 2 === 0 ? 'credential' : 'status-list' }), 5)),
      );
      expect(results.filter(Boolean)).toHaveLength(5);
      expect(await store().documentSigners.insert(makeDocumentSigner(t.id, iaca.id), 5)).toBe(false);
      // Managed leaves (inserted without a limit) are never counted.
      const other = await tenant();
      const managedCa = issuerCa(other.id);
      const importedCa = issuerCa(other.id, { isManaged: false });
      await store().iacas.insert(managedCa, 3);
      await store().iacas.insert(importedCa, 3);
      for (let i = 0; i < 6; i++) expect(await store().documentSigners.insert(leaf(other.id, managedCa.id, { isManaged: true }))).toBe(true);
      expect(await store().documentSigners.insert(leaf(other.id, importedCa.id), 5)).toBe(true);
      expect((await store().documentSigners.list(t.id, { limit: 100 }, { profile: 'issuer' })).items).toHaveLength(5);
    });

    it('updates a leaf’s certificate and subject alternative names, but never its use', async () => {
      const t = await tenant();
      const ca = issuerCa(t.id, { isManaged: false });
      await store().iacas.insert(ca, 3);
      const requested = leaf(t.id, ca.id, { use: 'status-list' });
      await store().documentSigners.insert(requested);
      const certified: DocumentSignerRecord = {
        ...requested,
        active: true,
        subjectAltNames: SANS,
        certificatePem: '-----BEGIN CERTIFICATE-----\nMQ==\n-----END CERTIFICATE-----\n',
        fingerprint: 'ef',
        serialNumber: '0e',
        certificateData: { notBefore: '2026-01-01T00:00:00.000Z', notAfter: '2027-01-01T00:00:00.000Z', country: 'US' },
        updatedAt: '2026-05-01T00:00:00.000Z',
      };
      expect(await store().documentSigners.update({ ...certified, use: 'credential' })).toBe(true);
      expect(await store().documentSigners.get(t.id, requested.id)).toEqual(certified);
      const { use: _, ...withoutUse } = certified;
      expect(await store().documentSigners.update(withoutUse)).toBe(true);
      expect(await store().documentSigners.get(t.id, requested.id)).toEqual(certified);
      // A document signer does not become a leaf either.
      const iaca = makeIaca(t.id);
      await store().iacas.insert(iaca, 3);
      const signer = makeDocumentSigner(t.id, iaca.id);
      await store().documentSigners.insert(signer);
      expect(await store().documentSigners.update({ ...signer, use: 'credential', updatedAt: '2026-05-02T00:00:00.000Z' })).toBe(true);
      expect(await store().documentSigners.get(t.id, signer.id)).not.toHaveProperty('use');
      expect((await store().documentSigners.list(t.id, { limit: 10 }, { profile: 'issuer' })).items.map((l) => l.id)).toEqual([requested.id]);
    });
  });
}
