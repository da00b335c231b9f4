import { describe, expect, it, vi } from 'vitest';
import { recordedEvents } from '../../test/events.ts';
import { contextFor, harness, PLATFORM } from '../../test/harness.ts';
import { type FakeCertificateBody, fakeCertificatePem, fakeClock, fakeCsrBody } from '../../test/kit.ts';
import { importedRoot, p256 } from '../../test/mdoc-pki.ts';
import type { DocumentSignerRecord } from '../mdoc-pki/model.ts';
import { cacheIssuerSigners } from './cached-signers.ts';
import type { IssuerSigners, X509Signer } from './model.ts';
import { bestLeaf, leafCommonName, rotateManagedIssuerLeaves } from './signers.ts';

// docs/decisions.md "Issuer certificates (issue 29)": issuer CAs beside IACAs, their leaves, which
// leaf signs, the CSR flow of an imported issuer CA, and the cache in front of the choice.

const DAY = 86_400_000;
const HOST = `acme.eu01.${PLATFORM}`;
const ISSUER = `https://${HOST}`;
const NOW = '2026-05-01T12:00:00.000Z';

async function setup() {
  const h = harness();
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  return { ...h, tenant, ctx: contextFor(tenant), anonymous: contextFor(tenant, null) };
}

/** The JSON inside a fake certificate (see @vellum/testing's fakeX509Authority). */
const bodyOf = (pem: string) => JSON.parse(Buffer.from(pem.split('\n')[1] as string, 'base64').toString('utf8')) as FakeCertificateBody;
/** The certificate an x5c entry carries (standard base64 DER), as the fake's JSON. */
const x5cBody = (entry: string) => JSON.parse(Buffer.from(entry, 'base64').toString('utf8')) as FakeCertificateBody;

type Setup = Awaited<ReturnType<typeof setup>>;

/** A managed issuer CA of the tenant, active. */
async function activeManagedCa(h: Setup) {
  const ca = await h.issuerCas.create(h.ctx, { country: 'US' });
  await h.issuerCas.update(h.ctx, ca.id, { active: true });
  return ca;
}

describe('issuer CAs (docs/decisions.md "Issuer certificates")', () => {
  it('creates a managed issuer CA named after the tenant, with a CRL under the issuer CA path', async () => {
    const { issuerCas, ctx, keys, tenant } = await setup();
    const view = await issuerCas.create(ctx, { country: 'US' });
    expect(view).toMatchObject({ active: false, isManaged: true, certificateData: { notBefore: NOW, country: 'US', commonName: 'acme Issuer CA' } });
    expect(bodyOf(view.certificatePem)).toMatchObject({
      isCa: true,
      issuerAlternativeName: ISSUER,
      crlDistributionPointUri: `${ISSUER}/v2/credentials/issuer-cas/${view.id}/crl`,
    });
    expect(keys.count(tenant.id)).toBe(1);
    expect(await issuerCas.get(ctx, view.id)).toEqual(view);
  });

  it('imports a self-signed root as unmanaged, holding no key, and refuses the same one twice', async () => {
    const { issuerCas, ctx, keys, tenant } = await setup();
    const pem = importedRoot({ subject: { commonName: 'Acme Root CA', country: 'DE' } });
    const view = await issuerCas.create(ctx, { certificatePem: pem });
    expect(view).toMatchObject({ active: false, isManaged: false, certificatePem: pem, certificateData: { commonName: 'Acme Root CA', country: 'DE' } });
    expect(keys.count(tenant.id)).toBe(0);
    await expect(issuerCas.create(ctx, { certificatePem: pem })).rejects.toMatchObject({
      code: 'Conflict',
      message: 'The tenant already holds this certificate, as an IACA or an issuer CA',
      details: [{ param: 'certificatePem', msg: expect.stringContaining('fingerprint') }],
    });
    await expect(issuerCas.create(ctx, { certificatePem: importedRoot({ isCa: false }) })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'certificatePem', msg: expect.stringContaining('Not a CA') }],
    });
  });

  it('shows anyone the active issuer CAs only and an admin all, never an IACA', async () => {
    const { issuerCas, iacas, ctx, anonymous } = await setup();
    const managed = await issuerCas.create(ctx, { country: 'US' });
    const imported = await issuerCas.create(ctx, { certificatePem: importedRoot() });
    const iaca = await iacas.create(ctx, { country: 'US' });
    await iacas.update(ctx, iaca.id, { active: true });
    expect((await issuerCas.list(anonymous, {})).data).toEqual([]);
    const activated = await issuerCas.update(ctx, imported.id, { active: true });
    expect(activated).toEqual({ ...imported, active: true });
    expect((await issuerCas.list(anonymous, {})).data).toEqual([activated]);
    expect((await issuerCas.list(ctx, {})).data.map((c) => c.id)).toEqual([managed.id, imported.id]);
    // And the IACAs' lists never show an issuer CA.
    expect((await iacas.list(ctx, {})).data.map((c) => c.id)).toEqual([iaca.id]);
    expect((await iacas.list(anonymous, {})).data.map((c) => c.id)).toEqual([iaca.id]);
  });

  it('keeps IACAs and issuer CAs apart: the id of the other kind is 404 on get, update, delete and CRL', async () => {
    const { issuerCas, iacas, ctx, anonymous } = await setup();
    const ca = await issuerCas.create(ctx, { country: 'US' });
    const iaca = await iacas.create(ctx, { country: 'US' });
    for (const [service, id] of [
      [iacas, ca.id],
      [issuerCas, iaca.id],
    ] as const) {
      await expect(service.get(ctx, id)).rejects.toMatchObject({ code: 'NotFound' });
      await expect(service.update(ctx, id, { active: true })).rejects.toMatchObject({ code: 'NotFound' });
      await expect(service.delete(ctx, id)).rejects.toMatchObject({ code: 'NotFound' });
      await expect(service.crl(anonymous, id)).rejects.toMatchObject({ code: 'NotFound' });
    }
    // Nothing was changed through the other kind's routes.
    expect(await issuerCas.get(ctx, ca.id)).toMatchObject({ active: false });
    expect(await iacas.get(ctx, iaca.id)).toMatchObject({ active: false });
    await expect(issuerCas.crl(anonymous, ca.id)).resolves.toBeInstanceOf(Uint8Array);
  });

  it('counts the limit of 3 apart from IACAs: 3 of each are fine, a fourth issuer CA is 409 on issuerCas', async () => {
    const { issuerCas, iacas, ctx, keys, tenant } = await setup();
    for (let i = 0; i < 3; i++) await iacas.create(ctx, { country: 'US' });
    for (let i = 0; i < 3; i++) await issuerCas.create(ctx, { country: 'US' });
    await expect(issuerCas.create(ctx, { country: 'US' })).rejects.toMatchObject({
      code: 'Conflict',
      message: expect.stringContaining('at most 3 issuer CAs'),
      details: [{ param: 'issuerCas', value: 3 }],
    });
    await expect(iacas.create(ctx, { country: 'US' })).rejects.toMatchObject({ code: 'Conflict', details: [{ param: 'iacas' }] });
    expect(keys.count(tenant.id)).toBe(6);
  });

  it('activating a managed CA makes its credential leaf for the tenant’s public origin (one, the other uses when first needed), and an expired one is refused', async () => {
    const { issuerCas, issuerSigners, ctx, clock, x509, tenant, addressing } = await setup();
    const ca = await issuerCas.create(ctx, { country: 'US', notAfter: '2027-05-01T12:00:00Z' });
    expect(x509.made.signers).toBe(0);
    await expect(issuerCas.update(ctx, ca.id, { active: true })).resolves.toMatchObject({ active: true });
    expect(x509.made.signers).toBe(1);
    const origin = await addressing.publicOrigin(tenant);
    expect((await issuerSigners.list(ctx, {})).data).toEqual([
      expect.objectContaining({ issuerCaId: ca.id, use: 'credential', isManaged: true, active: true, subjectAltNames: [origin, new URL(origin).hostname] }),
    ]);
    // Activating it again makes no second one.
    await issuerCas.update(ctx, ca.id, { active: true });
    expect(x509.made.signers).toBe(1);
    clock.set('2027-06-01T00:00:00Z');
    await expect(issuerCas.update(ctx, ca.id, { active: true })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'active', msg: expect.stringContaining('The issuer CA certificate expired') }],
    });
  });

  it('deletes an inactive issuer CA with its leaves, destroying every key', async () => {
    const h = await setup();
    const ca = await activeManagedCa(h);
    await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    expect(h.keys.count(h.tenant.id)).toBe(2);
    await expect(h.issuerCas.delete(h.ctx, ca.id)).rejects.toMatchObject({ code: 'Conflict' });
    await h.issuerCas.update(h.ctx, ca.id, { active: false });
    await h.issuerCas.delete(h.ctx, ca.id);
    expect(h.keys.count(h.tenant.id)).toBe(0);
    expect((await h.issuerSigners.list(h.ctx, {})).data).toEqual([]);
  });

  it('records ISSUER_CA_* events in the x509 category', async () => {
    const { issuerCas, ctx, recorder, store, tenant } = await setup();
    const ca = await issuerCas.create(ctx, { country: 'US' });
    await issuerCas.get(ctx, ca.id);
    const events = (await recordedEvents({ recorder, store }, tenant.id)).reverse();
    expect(events.map((e) => [e.type, e.category])).toEqual([
      ['ISSUER_CA_CREATE_START', 'x509'],
      ['ISSUER_CA_CREATE_SUCCESS', 'x509'],
      ['ISSUER_CA_RETRIEVE_START', 'x509'],
      ['ISSUER_CA_RETRIEVE_SUCCESS', 'x509'],
    ]);
  });
});

describe('which leaf signs: issuerSigning.current (docs/decisions.md "Issuer certificates")', () => {
  it('refuses with a 400 naming the issuer CA collection when the tenant has no active issuer CA', async () => {
    const h = await setup();
    const refused = { code: 'BadRequest', message: expect.stringContaining('/v2/credentials/issuer-cas') };
    await expect(h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now())).rejects.toMatchObject(refused);
    // An active IACA is no issuer CA.
    const iaca = await h.iacas.create(h.ctx, { country: 'US' });
    await h.iacas.update(h.ctx, iaca.id, { active: true });
    const ca = await h.issuerCas.create(h.ctx, { country: 'US' });
    await expect(h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now())).rejects.toMatchObject(refused);
    expect(await h.issuerSigning.available(h.tenant, h.clock.now())).toBe(false);
    await h.issuerCas.update(h.ctx, ca.id, { active: true });
    expect(await h.issuerSigning.available(h.tenant, h.clock.now())).toBe(true);
    await h.issuerCas.update(h.ctx, ca.id, { active: false });
    await expect(h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now())).rejects.toMatchObject(refused);
  });

  it('makes a leaf naming the issuer (URI) and its host (DNS), no CA and no EKU, and x5c carries it alone', async () => {
    const h = await setup();
    const ca = await activeManagedCa(h);
    const signer = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    expect(signer).toMatchObject({ caId: ca.id, key: { tenantId: h.tenant.id }, publicJwk: { kty: 'EC', crv: 'P-256' }, x5c: [expect.any(String)] });
    const leaf = x5cBody(signer.x5c[0]!);
    expect(leaf).toMatchObject({
      subjectAltNames: [ISSUER, HOST],
      isCa: false,
      extendedKeyUsages: [],
      subject: { commonName: 'acme Credential Signer', country: 'US' },
      issuer: h.x509.parseCertificate(ca.certificatePem).fingerprint,
      publicKey: signer.publicJwk,
      crlDistributionPointUri: `${ISSUER}/v2/credentials/issuer-cas/${ca.id}/crl`,
      // From the CA's start (not backdated before it), for 457 days.
      notBefore: NOW,
      notAfter: new Date(Date.parse(NOW) + 457 * DAY).toISOString(),
    });
    expect(signer.notAfter.toISOString()).toBe(leaf.notAfter);
    expect(Buffer.from(signer.x5chain[0]!).toString('base64')).toBe(signer.x5c[0]);
    // The leaf signs with the key the certificate names.
    await expect(h.keys.sign(h.tenant.id, signer.key.keyId, new Uint8Array([1]))).resolves.toBeInstanceOf(Uint8Array);
    expect(await h.issuerSigners.get(h.ctx, signer.signerId)).toMatchObject({
      issuerCaId: ca.id,
      use: 'credential',
      active: true,
      isManaged: true,
      subjectAltNames: [ISSUER, HOST],
    });
  });

  it('keeps one leaf per use and per issuer identifier, and reuses it', async () => {
    const h = await setup();
    await activeManagedCa(h);
    const now = () => h.clock.now();
    const credential = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, now());
    h.clock.advance(5000); // past the cache, so the store is read again
    expect((await h.issuerSigning.current(h.tenant, 'credential', ISSUER, now())).signerId).toBe(credential.signerId);
    const status = await h.issuerSigning.current(h.tenant, 'status-list', ISSUER, now());
    expect(status.signerId).not.toBe(credential.signerId);
    expect(x5cBody(status.x5c[0]!).subject.commonName).toBe('acme Status List Signer');
    const custom = await h.issuerSigning.current(h.tenant, 'credential', 'https://id.acme.example', now());
    expect(custom.signerId).not.toBe(credential.signerId);
    expect(x5cBody(custom.x5c[0]!).subjectAltNames).toEqual(['https://id.acme.example', 'id.acme.example']);
    h.clock.advance(5000);
    expect((await h.issuerSigning.current(h.tenant, 'status-list', ISSUER, now())).signerId).toBe(status.signerId);
    expect((await h.issuerSigning.current(h.tenant, 'credential', 'https://id.acme.example', now())).signerId).toBe(custom.signerId);
    expect(h.x509.made.signers).toBe(3);
    const listed = (await h.issuerSigners.list(h.ctx, {})).data;
    expect(listed.map((l) => [l.id, l.use])).toEqual([
      [credential.signerId, 'credential'],
      [status.signerId, 'status-list'],
      [custom.signerId, 'credential'],
    ]);
    // Leaves are not document signers.
    expect((await h.documentSigners.list(h.ctx, {})).data).toEqual([]);
  });

  it('rotates a leaf when it would not last 90 more days, keeping the old one until it expires', async () => {
    const h = await setup();
    await activeManagedCa(h);
    const first = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    h.clock.advance(366 * DAY); // 91 days of the first leaf's 457 left
    expect((await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now())).signerId).toBe(first.signerId);
    h.clock.advance(2 * DAY); // 89 days left
    const second = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    expect(second.signerId).not.toBe(first.signerId);
    expect(second.notAfter.getTime()).toBeGreaterThan(first.notAfter.getTime());
    expect((await h.issuerSigners.list(h.ctx, {})).data.map((l) => l.id)).toEqual([first.signerId, second.signerId]);
  });

  it('rotates at once for a credential that would outlive the leaf (up to 427 days ahead)', async () => {
    const h = await setup();
    await activeManagedCa(h);
    const first = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    h.clock.advance(31 * DAY); // 426 days left
    expect((await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now(), 400 * DAY)).signerId).toBe(first.signerId);
    const long = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now(), 427 * DAY);
    expect(long.signerId).not.toBe(first.signerId);
    expect(long.notAfter.getTime()).toBeGreaterThanOrEqual(h.clock.now().getTime() + 427 * DAY);
  });

  it('never picks an expired leaf: past its end a new one signs, and the expired one is removed with its key', async () => {
    const h = await setup();
    await activeManagedCa(h);
    const first = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    expect(h.keys.count(h.tenant.id)).toBe(2);
    h.clock.set(first.notAfter);
    const next = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    expect(next.signerId).not.toBe(first.signerId);
    expect(next.notAfter.getTime()).toBeGreaterThan(h.clock.now().getTime());
    expect((await h.issuerSigners.list(h.ctx, {})).data.map((l) => l.id)).toEqual([next.signerId]);
    await expect(h.keys.sign(h.tenant.id, first.key.keyId, new Uint8Array([1]))).rejects.toMatchObject({ code: 'NotFound' });
    expect(h.keys.count(h.tenant.id)).toBe(2);
  });

  it('never picks a revoked leaf, nor one of a deactivated CA', async () => {
    const h = await setup();
    const ca = await activeManagedCa(h);
    const first = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    await h.issuerSigners.revoke(h.ctx, first.signerId);
    // Revoking tells the cache: the next call, within the cache's second, already has another leaf.
    const next = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    expect(next.signerId).not.toBe(first.signerId);
    await h.issuerCas.update(h.ctx, ca.id, { active: false });
    await expect(h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now())).rejects.toMatchObject({ code: 'BadRequest' });
  });

  it('makes one leaf for a burst of concurrent first calls, not one each', async () => {
    const h = await setup();
    await activeManagedCa(h);
    const signers = await Promise.all(Array.from({ length: 5 }, () => h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now())));
    expect(new Set(signers.map((s) => s.signerId)).size).toBe(1);
    expect(h.x509.made.signers).toBe(1);
    expect((await h.issuerSigners.list(h.ctx, {})).data).toHaveLength(1);
  });

  it('signs under the active issuer CA activated last', async () => {
    const h = await setup();
    const first = await activeManagedCa(h);
    h.clock.advance(1000);
    const second = await activeManagedCa(h);
    expect((await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now())).caId).toBe(second.id);
    await h.issuerCas.update(h.ctx, second.id, { active: false });
    expect((await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now())).caId).toBe(first.id);
  });

  it('bestLeaf takes the usable leaf of the use naming the issuer that lasts longest, never an expired, revoked, inactive or uncertified one', () => {
    const at = Date.parse(NOW);
    const leaf = (id: string, over: Partial<DocumentSignerRecord> = {}): DocumentSignerRecord => ({
      id,
      tenantId: 't',
      iacaId: 'ca',
      use: 'credential',
      subjectAltNames: [ISSUER, HOST],
      isManaged: true,
      active: true,
      keyId: `k-${id}`,
      publicJwk: p256(id),
      certificatePem: 'pem',
      certificateData: { notBefore: '2026-01-01T00:00:00.000Z', notAfter: '2026-09-01T00:00:00.000Z' },
      createdAt: NOW,
      updatedAt: NOW,
      ...over,
    });
    const later = { notBefore: '2026-01-01T00:00:00.000Z', notAfter: '2027-06-01T00:00:00.000Z' };
    const good = leaf('good');
    const candidates = [
      good,
      leaf('revoked', { certificateData: later, revokedAt: NOW }),
      leaf('inactive', { certificateData: later, active: false }),
      leaf('expired', { certificateData: { notBefore: '2025-01-01T00:00:00.000Z', notAfter: '2026-05-01T12:00:00.000Z' } }),
      leaf('future', { certificateData: { notBefore: '2026-05-02T00:00:00.000Z', notAfter: '2028-01-01T00:00:00.000Z' } }),
      leaf('uncertified', { certificateData: later, certificatePem: undefined }),
      leaf('status', { certificateData: later, use: 'status-list' }),
      leaf('other-issuer', { certificateData: later, subjectAltNames: ['https://other.example', 'other.example'] }),
      leaf('host-only', { certificateData: later, subjectAltNames: [HOST] }),
      leaf('mdoc', { certificateData: later, use: undefined, subjectAltNames: undefined }),
    ];
    expect(bestLeaf(candidates, 'credential', ISSUER, at)?.id).toBe('good');
    expect(bestLeaf([...candidates, leaf('longer', { certificateData: later })], 'credential', ISSUER, at)?.id).toBe('longer');
    expect(bestLeaf(candidates.slice(1), 'credential', ISSUER, at)).toBeUndefined();
  });

  it('names a leaf after its CA, with the use in place of a trailing "Issuer CA" or "CA"', () => {
    expect(leafCommonName('Acme Issuer CA', 'credential')).toBe('Acme Credential Signer');
    expect(leafCommonName('Acme Root CA', 'status-list')).toBe('Acme Root Status List Signer');
    expect(leafCommonName(undefined, 'credential')).toBe('Vellum Credential Signer');
    // Only a whole word "CA" goes: an imported root named "… IACA" keeps its name.
    expect(leafCommonName('State DMV IACA', 'credential')).toBe('State DMV IACA Credential Signer');
    expect(leafCommonName('x'.repeat(80), 'credential')).toHaveLength(64);
  });
});

describe('leaves of imported issuer CAs: the CSR flow (docs/decisions.md "Issuer certificates")', () => {
  async function withImported() {
    const h = await setup();
    const ca = await h.issuerCas.create(h.ctx, { certificatePem: importedRoot({ subject: { commonName: 'Acme Issuer CA', country: 'US' } }) });
    /** What the CA's owner answers a CSR with. */
    const certify = (csrPem: string, over: Partial<FakeCertificateBody> = {}) =>
      fakeCertificatePem({
        serialNumber: '0a11',
        subject: { commonName: 'Leaf', country: 'US' },
        issuer: ca.certificateFingerprint,
        notBefore: '2026-04-01T00:00:00.000Z',
        notAfter: '2027-04-01T00:00:00.000Z',
        publicKey: fakeCsrBody(csrPem)!.publicKey,
        isCa: false,
        extendedKeyUsages: [],
        subjectAltNames: [ISSUER, HOST],
        ...over,
      });
    return { ...h, ca, certify };
  }

  it('creates a key and its CSR for a use; the use is required, and only an imported issuer CA of the tenant takes one', async () => {
    const { issuerSigners, issuerCas, iacas, ctx, ca, keys, tenant } = await withImported();
    const created = await issuerSigners.create(ctx, { issuerCaId: ca.id, use: 'status-list' });
    expect(created).toEqual({ id: expect.any(String), issuerCaId: ca.id, use: 'status-list', active: false, isManaged: false, csrPem: expect.any(String) });
    expect(fakeCsrBody(created.csrPem!)).toMatchObject({ subject: { commonName: 'Acme Status List Signer', country: 'US' }, publicKey: { kty: 'EC' } });
    expect(keys.count(tenant.id)).toBe(1);
    await expect(issuerSigners.create(ctx, { issuerCaId: ca.id })).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'use' }] });
    await expect(issuerSigners.create(ctx, { issuerCaId: ca.id, use: 'mdoc' })).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'use' }] });
    const managed = await issuerCas.create(ctx, { country: 'US' });
    await expect(issuerSigners.create(ctx, { issuerCaId: managed.id, use: 'credential' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'issuerCaId', msg: expect.stringContaining('manages') }],
    });
    const iaca = await iacas.create(ctx, { certificatePem: importedRoot({ publicKey: p256('other', 'iaca') }) });
    await expect(issuerSigners.create(ctx, { issuerCaId: iaca.id, use: 'credential' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'issuerCaId', msg: 'The tenant has no such issuer CA' }],
    });
    await expect(issuerSigners.create(ctx, { issuerCaId: 'nothing', use: 'credential' })).rejects.toMatchObject({ details: [{ param: 'issuerCaId' }] });
    // The refusals made no key.
    expect(keys.count(tenant.id)).toBe(2);
  });

  it('activates with the certificate the CA issued, which then signs for the issuer', async () => {
    const { issuerSigners, issuerSigning, issuerCas, ctx, ca, tenant, clock, certify } = await withImported();
    await issuerCas.update(ctx, ca.id, { active: true });
    const created = await issuerSigners.create(ctx, { issuerCaId: ca.id, use: 'credential' });
    await expect(issuerSigners.update(ctx, created.id, { active: true })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'certificatePem', msg: expect.stringContaining('Required') }],
    });
    await expect(issuerSigning.current(tenant, 'credential', ISSUER, clock.now())).rejects.toMatchObject({
      code: 'BadRequest',
      message: expect.stringContaining('/v2/credentials/issuer-signers'),
    });
    const certificatePem = certify(created.csrPem!);
    const updated = await issuerSigners.update(ctx, created.id, { active: true, certificatePem });
    expect(updated).toMatchObject({
      id: created.id,
      active: true,
      certificatePem,
      subjectAltNames: [ISSUER, HOST],
      certificateData: { notBefore: '2026-04-01T00:00:00.000Z', notAfter: '2027-04-01T00:00:00.000Z', commonName: 'Leaf' },
    });
    const signer = await issuerSigning.current(tenant, 'credential', ISSUER, clock.now());
    expect(signer).toMatchObject({ signerId: created.id, caId: ca.id, x5c: [certificatePem.split('\n')[1]] });
    // Under an imported CA, Vellum makes nothing: the other use and another issuer have no leaf.
    await expect(issuerSigning.current(tenant, 'status-list', ISSUER, clock.now())).rejects.toMatchObject({ code: 'BadRequest' });
    await expect(issuerSigning.current(tenant, 'credential', 'https://id.acme.example', clock.now())).rejects.toMatchObject({ code: 'BadRequest' });
    // Once the certificate expires, the leaf is not used.
    clock.set('2027-04-01T00:00:00Z');
    await expect(issuerSigning.current(tenant, 'credential', ISSUER, clock.now())).rejects.toMatchObject({ code: 'BadRequest' });
  });

  it('refuses a certificate of another CA, for another key, a CA, not valid now, naming each', async () => {
    const { issuerSigners, ctx, ca, certify } = await withImported();
    const created = await issuerSigners.create(ctx, { issuerCaId: ca.id, use: 'credential' });
    const wrong = certify(created.csrPem!, { issuer: 'another-ca', publicKey: p256('other', 'key'), isCa: true, notAfter: '2026-04-30T00:00:00.000Z' });
    const error = (await issuerSigners.update(ctx, created.id, { active: true, certificatePem: wrong }).catch((e: unknown) => e)) as {
      details: Array<{ param: string; msg: string }>;
    };
    expect(error).toMatchObject({ code: 'BadRequest', message: 'Validation Error' });
    expect(error.details.every((d) => d.param === 'certificatePem')).toBe(true);
    expect(error.details.map((d) => d.msg)).toEqual([
      `Not issued by the issuer CA ${ca.id} (the issuer name, key identifier or signature does not match)`,
      expect.stringContaining('key'),
      'A CA certificate cannot be a signer',
      expect.stringContaining('Not valid now'),
    ]);
    // Not yet valid is not valid now either.
    await expect(
      issuerSigners.update(ctx, created.id, { active: true, certificatePem: certify(created.csrPem!, { notBefore: '2026-06-01T00:00:00.000Z' }) }),
    ).rejects.toMatchObject({ details: [{ msg: expect.stringContaining('Not valid now') }] });
    expect(await issuerSigners.get(ctx, created.id)).toMatchObject({ active: false });
    expect(await issuerSigners.get(ctx, created.id)).not.toHaveProperty('certificatePem');
  });

  it('refuses a certificate whose SAN does not name the tenant’s issuer identifier as a URI, naming the identifier', async () => {
    const { issuerSigners, ctx, ca, certify } = await withImported();
    const created = await issuerSigners.create(ctx, { issuerCaId: ca.id, use: 'credential' });
    for (const subjectAltNames of [[], [HOST], ['https://other.example', 'other.example'], [`${ISSUER}/`]]) {
      const error = (await issuerSigners
        .update(ctx, created.id, { active: true, certificatePem: certify(created.csrPem!, { subjectAltNames }) })
        .catch((e: unknown) => e)) as { code: string; details: Array<{ param: string; msg: string }> };
      expect(error.code, subjectAltNames.join()).toBe('BadRequest');
      expect(error.details, subjectAltNames.join()).toEqual([
        expect.objectContaining({ param: 'certificatePem', msg: expect.stringContaining(`the issuer identifier ${ISSUER} as a URI`) }),
      ]);
    }
    // The URI alone is enough.
    await expect(
      issuerSigners.update(ctx, created.id, { active: true, certificatePem: certify(created.csrPem!, { subjectAltNames: [ISSUER] }) }),
    ).resolves.toMatchObject({
      active: true,
    });
  });

  it('revokes for good: the key is destroyed, the CA’s revocations list it, and the leaf never signs again', async () => {
    const { issuerSigners, issuerSigning, issuerCas, ctx, ca, certify, keys, tenant, store, clock } = await withImported();
    await issuerCas.update(ctx, ca.id, { active: true });
    const created = await issuerSigners.create(ctx, { issuerCaId: ca.id, use: 'credential' });
    await issuerSigners.update(ctx, created.id, { active: true, certificatePem: certify(created.csrPem!) });
    expect((await issuerSigning.current(tenant, 'credential', ISSUER, clock.now())).signerId).toBe(created.id);
    const revoked = await issuerSigners.revoke(ctx, created.id);
    expect(revoked).toMatchObject({ active: false, revokedAt: NOW });
    const { keyId } = (await store.documentSigners.get(tenant.id, created.id))!;
    await expect(keys.sign(tenant.id, keyId, new Uint8Array([1]))).rejects.toMatchObject({ code: 'NotFound' });
    expect(await store.iacas.listRevocations(tenant.id, ca.id)).toEqual([{ serialNumber: '0a11', revokedAt: NOW, notAfter: '2027-04-01T00:00:00.000Z' }]);
    // Within the cache's second: revoking told it.
    await expect(issuerSigning.current(tenant, 'credential', ISSUER, clock.now())).rejects.toMatchObject({ code: 'BadRequest' });
    await expect(issuerSigners.revoke(ctx, created.id)).rejects.toMatchObject({ code: 'Conflict' });
    await expect(issuerSigners.update(ctx, created.id, { active: true })).rejects.toMatchObject({ code: 'Conflict' });
    await issuerSigners.delete(ctx, created.id);
    await expect(issuerSigners.get(ctx, created.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(issuerSigners.delete(ctx, created.id)).rejects.toMatchObject({ code: 'NotFound' });
    expect(await store.iacas.listRevocations(tenant.id, ca.id)).toHaveLength(1);
  });

  it('puts a revoked managed leaf on the managed CA’s CRL', async () => {
    const h = await setup();
    const ca = await activeManagedCa(h);
    const signer = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    await h.issuerSigners.revoke(h.ctx, signer.signerId);
    const crl = JSON.parse(Buffer.from(await h.issuerCas.crl(h.anonymous, ca.id)).toString('utf8')) as { revoked: Array<{ serialNumber: string }> };
    expect(crl.revoked.map((r) => r.serialNumber)).toEqual([x5cBody(signer.x5c[0]!).serialNumber]);
    // A managed leaf is Vellum's: it cannot be changed through the CSR flow.
    const next = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    await expect(h.issuerSigners.update(h.ctx, next.signerId, { active: false })).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'id' }] });
  });

  it('deletes a leaf and destroys its key; document signers and leaves are 404 on each other’s routes', async () => {
    const { issuerSigners, documentSigners, iacas, ctx, ca, keys, tenant } = await withImported();
    const leaf = await issuerSigners.create(ctx, { issuerCaId: ca.id, use: 'credential' });
    const iaca = await iacas.create(ctx, { certificatePem: importedRoot({ publicKey: p256('other', 'iaca') }) });
    const signer = await documentSigners.create(ctx, { iacaId: iaca.id });
    await expect(documentSigners.get(ctx, leaf.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(documentSigners.update(ctx, leaf.id, { active: false })).rejects.toMatchObject({ code: 'NotFound' });
    await expect(documentSigners.revoke(ctx, leaf.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(documentSigners.delete(ctx, leaf.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(issuerSigners.get(ctx, signer.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(issuerSigners.update(ctx, signer.id, { active: false })).rejects.toMatchObject({ code: 'NotFound' });
    await expect(issuerSigners.revoke(ctx, signer.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(issuerSigners.delete(ctx, signer.id)).rejects.toMatchObject({ code: 'NotFound' });
    expect((await issuerSigners.list(ctx, {})).data.map((l) => l.id)).toEqual([leaf.id]);
    expect((await documentSigners.list(ctx, {})).data.map((s) => s.id)).toEqual([signer.id]);
    expect(keys.count(tenant.id)).toBe(2);
    await issuerSigners.delete(ctx, leaf.id);
    expect(keys.count(tenant.id)).toBe(1);
    expect((await issuerSigners.list(ctx, {})).data).toEqual([]);
  });

  it('lists one CA’s leaves by issuerCaId; an id that is no UUID lists none and never reaches the store (PostgreSQL refuses NUL)', async () => {
    const { issuerSigners, documentSigners, ctx, ca, store } = await withImported();
    const leaf = await issuerSigners.create(ctx, { issuerCaId: ca.id, use: 'credential' });
    expect((await issuerSigners.list(ctx, { issuerCaId: ca.id })).data.map((l) => l.id)).toEqual([leaf.id]);
    expect((await issuerSigners.list(ctx, { issuerCaId: '00000000-0000-4000-8000-00000000ffff' })).data).toEqual([]);
    const list = vi.spyOn(store.documentSigners, 'list');
    expect((await issuerSigners.list(ctx, { issuerCaId: 'a\u0000b' })).data).toEqual([]);
    expect((await documentSigners.list(ctx, { iacaId: 'a\u0000b' })).data).toEqual([]);
    expect(list).not.toHaveBeenCalled();
  });

  it('counts requested leaves apart from requested document signers: 5 of each, the sixth leaf is 409', async () => {
    const { issuerSigners, documentSigners, iacas, ctx, ca } = await withImported();
    const iaca = await iacas.create(ctx, { certificatePem: importedRoot({ publicKey: p256('other', 'iaca') }) });
    for (let i = 0; i < 5; i++) await documentSigners.create(ctx, { iacaId: iaca.id });
    for (let i = 0; i < 5; i++) await issuerSigners.create(ctx, { issuerCaId: ca.id, use: i % 2 === 0 ? 'credential' : 'status-list' });
    await expect(issuerSigners.create(ctx, { issuerCaId: ca.id, use: 'credential' })).rejects.toMatchObject({
      code: 'Conflict',
      details: [{ param: 'issuerCaId', value: 5 }],
    });
    await expect(documentSigners.create(ctx, { iacaId: iaca.id })).rejects.toMatchObject({ code: 'Conflict' });
  });

  it('needs iacas:manage, and records ISSUER_SIGNER_* events in the x509 category', async () => {
    const { issuerSigners, ca, tenant, recorder, store } = await withImported();
    await expect(issuerSigners.list(contextFor(tenant, 'verifier'), {})).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(issuerSigners.create(contextFor(tenant, null), { issuerCaId: ca.id, use: 'credential' })).rejects.toMatchObject({ code: 'Unauthorized' });
    const created = await issuerSigners.create(contextFor(tenant, 'managed-issuer'), { issuerCaId: ca.id, use: 'credential' });
    const events = await recordedEvents({ recorder, store }, tenant.id, { types: ['ISSUER_SIGNER_CREATE_SUCCESS'] });
    expect(events.map((e) => [e.type, e.category])).toContainEqual(['ISSUER_SIGNER_CREATE_SUCCESS', 'x509']);
    expect(created.use).toBe('credential');
  });
});

describe('cacheIssuerSigners (docs/decisions.md "Issuer certificates")', () => {
  const tenant = { id: 't1' } as Parameters<IssuerSigners['current']>[0];
  const other = { id: 't2' } as Parameters<IssuerSigners['current']>[0];

  /** An inner chooser that makes a new signer on every call, lasting `lifeMs` from the clock's now. */
  function counting(clock: ReturnType<typeof fakeClock>, lifeMs = 400 * DAY) {
    const calls: string[] = [];
    const inner: IssuerSigners = {
      async current(t, use, issuer) {
        calls.push(`${t.id} ${use} ${issuer}`);
        return {
          caId: 'ca',
          signerId: `s${calls.length}`,
          key: { tenantId: t.id, keyId: `k${calls.length}` },
          publicJwk: p256(),
          x5c: [],
          x5chain: [],
          notAfter: new Date(clock.now().getTime() + lifeMs),
        } satisfies X509Signer;
      },
      available: async () => true,
      published: async () => [],
      invalidate: () => calls.push('invalidate'),
    };
    return { inner, calls };
  }

  it('reuses a signer per tenant, use and issuer within cacheMs, and asks again after it', async () => {
    const clock = fakeClock(NOW);
    const { inner, calls } = counting(clock);
    const cached = cacheIssuerSigners(inner, { cacheMs: 1000, clock });
    const first = await cached.current(tenant, 'credential', ISSUER, clock.now());
    clock.advance(999);
    expect(await cached.current(tenant, 'credential', ISSUER, clock.now())).toBe(first);
    expect((await cached.current(tenant, 'status-list', ISSUER, clock.now())).signerId).not.toBe(first.signerId);
    expect((await cached.current(tenant, 'credential', 'https://id.acme.example', clock.now())).signerId).not.toBe(first.signerId);
    expect((await cached.current(other, 'credential', ISSUER, clock.now())).signerId).not.toBe(first.signerId);
    expect(calls).toHaveLength(4);
    clock.advance(1);
    expect((await cached.current(tenant, 'credential', ISSUER, clock.now())).signerId).not.toBe(first.signerId);
    expect(calls).toHaveLength(5);
  });

  it('forgets a tenant on invalidate (and tells the inner chooser), keeping other tenants', async () => {
    const clock = fakeClock(NOW);
    const { inner, calls } = counting(clock);
    const cached = cacheIssuerSigners(inner, { cacheMs: 60_000, clock });
    const first = await cached.current(tenant, 'credential', ISSUER, clock.now());
    const theirs = await cached.current(other, 'credential', ISSUER, clock.now());
    cached.invalidate(tenant.id);
    expect(calls).toContain('invalidate');
    expect((await cached.current(tenant, 'credential', ISSUER, clock.now())).signerId).not.toBe(first.signerId);
    expect(await cached.current(other, 'credential', ISSUER, clock.now())).toBe(theirs);
  });

  it('does not keep a signer that would not last the lifetime asked (the rotation window included), nor cache with cacheMs 0', async () => {
    const clock = fakeClock(NOW);
    const { inner, calls } = counting(clock, 100 * DAY);
    const cached = cacheIssuerSigners(inner, { cacheMs: 60_000, clock });
    const first = await cached.current(tenant, 'credential', ISSUER, clock.now());
    expect(await cached.current(tenant, 'credential', ISSUER, clock.now())).toBe(first);
    // 100 days cover the 90-day window, but not a credential of 200 days.
    expect((await cached.current(tenant, 'credential', ISSUER, clock.now(), 200 * DAY)).signerId).not.toBe(first.signerId);
    const uncached = cacheIssuerSigners(inner, { cacheMs: 0, clock });
    const before = calls.length;
    await uncached.current(tenant, 'credential', ISSUER, clock.now());
    await uncached.current(tenant, 'credential', ISSUER, clock.now());
    expect(calls.length - before).toBe(2);
  });

  it('shares one choice among concurrent misses of a tenant, use and issuer, even with cacheMs 0', async () => {
    const clock = fakeClock(NOW);
    const { inner, calls } = counting(clock);
    const cached = cacheIssuerSigners(inner, { cacheMs: 0, clock });
    const burst = await Promise.all(Array.from({ length: 4 }, () => cached.current(tenant, 'credential', ISSUER, clock.now())));
    expect(new Set(burst.map((s) => s.signerId)).size).toBe(1);
    expect(calls).toHaveLength(1);
    // Done, the next call chooses again (cacheMs 0); another use is never shared with.
    const [again, status] = await Promise.all([
      cached.current(tenant, 'credential', ISSUER, clock.now()),
      cached.current(tenant, 'status-list', ISSUER, clock.now()),
    ]);
    expect(again.signerId).not.toBe(burst[0]!.signerId);
    expect(status.signerId).not.toBe(again.signerId);
    expect(calls).toHaveLength(3);
  });

  it('asks again when a shared choice does not last the longer credential a joining caller issues', async () => {
    const clock = fakeClock(NOW);
    const { inner, calls } = counting(clock, 100 * DAY);
    const cached = cacheIssuerSigners(inner, { cacheMs: 60_000, clock });
    const [short, long] = await Promise.all([
      cached.current(tenant, 'credential', ISSUER, clock.now(), 30 * DAY),
      cached.current(tenant, 'credential', ISSUER, clock.now(), 200 * DAY),
    ]);
    expect(calls).toHaveLength(2);
    expect(long.signerId).not.toBe(short.signerId);
  });

  it('does not cache what was loaded while the tenant was invalidated', async () => {
    const clock = fakeClock(NOW);
    const { inner } = counting(clock);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow: IssuerSigners = { ...inner, current: async (...args) => gate.then(() => inner.current(...args)) };
    const cached = cacheIssuerSigners(slow, { cacheMs: 60_000, clock });
    const pending = cached.current(tenant, 'credential', ISSUER, clock.now());
    cached.invalidate(tenant.id);
    release();
    const stale = await pending;
    expect((await cached.current(tenant, 'credential', ISSUER, clock.now())).signerId).not.toBe(stale.signerId);
  });
});

describe('forced rotation of managed issuer leaves (issue 32, point 4; docs/key-custody.md "Rotation")', () => {
  const CUSTOM = 'https://id.acme.example';
  const rotate = (h: Setup) => h.signerRotation.issuerLeaves(h.tenant, h.clock.now());
  const ids = (signers: ReadonlyArray<{ signerId: string } | { id: string }>) => signers.map((s) => ('signerId' in s ? s.signerId : s.id));

  it('gives each use and issuer in use a new leaf that signs at once, though made in the same millisecond; both are published, the new one first', async () => {
    const h = await setup();
    const ca = await activeManagedCa(h);
    // Chosen first, so the cache in front of the leaves holds the old ones.
    const credential = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    const status = await h.issuerSigning.current(h.tenant, 'status-list', ISSUER, h.clock.now());
    const custom = await h.issuerSigning.current(h.tenant, 'credential', CUSTOM, h.clock.now());
    const made = h.x509.made.signers;

    const { created, superseded } = await rotate(h);
    expect(ids(superseded)).toEqual([credential.signerId, status.signerId, custom.signerId]);
    expect(created.map((l) => [l.iacaId, l.use, l.subjectAltNames, l.createdAt])).toEqual([
      [ca.id, 'credential', [ISSUER, HOST], NOW],
      [ca.id, 'status-list', [ISSUER, HOST], NOW],
      [ca.id, 'credential', [CUSTOM, 'id.acme.example'], NOW],
    ]);
    expect(h.x509.made.signers).toBe(made + 3);
    for (const [i, old] of [credential, status, custom].entries()) {
      expect(created[i]!.keyId).not.toBe(old.key.keyId);
      expect(created[i]!.serialNumber).not.toBe(superseded[i]!.serialNumber);
      // Made at the same instant, the certificates tie on their end: the one made last signs.
      expect(created[i]!.certificateData?.notAfter).toBe(old.notAfter.toISOString());
    }
    const now = h.clock.now();
    expect((await h.issuerSigning.current(h.tenant, 'credential', ISSUER, now)).signerId).toBe(created[0]!.id);
    expect((await h.issuerSigning.current(h.tenant, 'status-list', ISSUER, now)).signerId).toBe(created[1]!.id);
    expect((await h.issuerSigning.current(h.tenant, 'credential', CUSTOM, now)).signerId).toBe(created[2]!.id);
    expect(ids(await h.issuerSigning.published(h.tenant, 'credential', ISSUER, now))).toEqual([created[0]!.id, credential.signerId]);
    expect(ids(await h.issuerSigning.published(h.tenant, 'status-list', ISSUER, now))).toEqual([created[1]!.id, status.signerId]);
    expect(ids(await h.issuerSigning.published(h.tenant, 'credential', CUSTOM, now))).toEqual([created[2]!.id, custom.signerId]);
  });

  it('keeps the superseded leaves active, unrevoked, with their keys and off the CA’s CRL', async () => {
    const h = await setup();
    const ca = await activeManagedCa(h);
    const old = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    await rotate(h);
    expect(await h.issuerSigners.get(h.ctx, old.signerId)).toMatchObject({ active: true });
    expect((await h.store.documentSigners.get(h.tenant.id, old.signerId))?.revokedAt).toBeUndefined();
    await expect(h.keys.sign(h.tenant.id, old.key.keyId, new Uint8Array([1]))).resolves.toBeInstanceOf(Uint8Array);
    expect(await h.store.iacas.listRevocations(h.tenant.id, ca.id)).toEqual([]);
  });

  it('supersedes the first rotation’s leaf at the second; every leaf stays published while valid, and leaves at its end', async () => {
    const h = await setup();
    await activeManagedCa(h);
    const first = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    h.clock.advance(DAY);
    const once = await rotate(h);
    h.clock.advance(DAY);
    const twice = await rotate(h);
    expect(ids(once.superseded)).toEqual([first.signerId]);
    expect(ids(twice.superseded)).toEqual(ids(once.created));
    expect(twice.created[0]!.id).not.toBe(once.created[0]!.id);
    expect((await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now())).signerId).toBe(twice.created[0]!.id);
    expect(ids(await h.issuerSigning.published(h.tenant, 'credential', ISSUER, h.clock.now()))).toEqual([
      twice.created[0]!.id,
      once.created[0]!.id,
      first.signerId,
    ]);
    // Past the first leaf's end (457 days), it is no longer published; the others, made a day and two later, are.
    h.clock.set(first.notAfter.toISOString());
    expect(ids(await h.issuerSigning.published(h.tenant, 'credential', ISSUER, h.clock.now()))).toEqual([twice.created[0]!.id, once.created[0]!.id]);
  });

  it('answers empty lists, making nothing, without an active issuer CA, and skips an imported one that signs', async () => {
    const h = await setup();
    expect(await rotate(h)).toEqual({ created: [], superseded: [] });
    const managed = await h.issuerCas.create(h.ctx, { country: 'US' });
    expect(await rotate(h)).toEqual({ created: [], superseded: [] });
    await h.issuerCas.update(h.ctx, managed.id, { active: true });
    const managedLeaf = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    // An imported CA activated later signs: its leaves come from the CSR flow, so a forced rotation there is a new CSR.
    const imported = await h.issuerCas.create(h.ctx, { certificatePem: importedRoot({ subject: { commonName: 'Acme Issuer CA', country: 'US' } }) });
    const requested = await h.issuerSigners.create(h.ctx, { issuerCaId: imported.id, use: 'credential' });
    await h.issuerSigners.update(h.ctx, requested.id, {
      active: true,
      certificatePem: fakeCertificatePem({
        serialNumber: '0a11',
        subject: { commonName: 'Leaf', country: 'US' },
        issuer: imported.certificateFingerprint,
        notBefore: '2026-04-01T00:00:00.000Z',
        notAfter: '2027-04-01T00:00:00.000Z',
        publicKey: fakeCsrBody(requested.csrPem!)!.publicKey,
        isCa: false,
        extendedKeyUsages: [],
        subjectAltNames: [ISSUER, HOST],
      }),
    });
    h.clock.advance(1000);
    await h.issuerCas.update(h.ctx, imported.id, { active: true });
    expect((await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now())).signerId).toBe(requested.id);
    const made = h.x509.made.signers;
    expect(await rotate(h)).toEqual({ created: [], superseded: [] });
    expect(h.x509.made.signers).toBe(made);
    expect((await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now())).signerId).toBe(requested.id);
    // Deactivated, the imported CA no longer signs: the managed one does, and is rotated.
    await h.issuerCas.update(h.ctx, imported.id, { active: false });
    expect(ids((await rotate(h)).superseded)).toEqual([managedLeaf.signerId]);
  });

  it('makes nothing for a use and issuer whose leaves cannot sign (revoked), and rotates the others', async () => {
    const h = await setup();
    await activeManagedCa(h);
    const credential = await h.issuerSigning.current(h.tenant, 'credential', ISSUER, h.clock.now());
    const status = await h.issuerSigning.current(h.tenant, 'status-list', ISSUER, h.clock.now());
    await h.issuerSigners.revoke(h.ctx, credential.signerId);
    const { created, superseded } = await rotate(h);
    expect(ids(superseded)).toEqual([status.signerId]);
    expect(created.map((l) => l.use)).toEqual(['status-list']);
  });

  it('invalidates the issuer signers it is given when it made a leaf, and only then', async () => {
    const h = await setup();
    const issuerSigners = { invalidate: vi.fn() };
    const deps = { store: h.store, keys: h.keys, x509: h.x509, ids: { uuid: () => crypto.randomUUID() }, issuerSigners };
    expect(await rotateManagedIssuerLeaves(deps, h.tenant, h.clock.now())).toEqual({ created: [], superseded: [] });
    expect(issuerSigners.invalidate).not.toHaveBeenCalled();
    await activeManagedCa(h);
    expect((await rotateManagedIssuerLeaves(deps, h.tenant, h.clock.now())).created).toHaveLength(1);
    expect(issuerSigners.invalidate).toHaveBeenCalledExactlyOnceWith(h.tenant.id);
  });
});
