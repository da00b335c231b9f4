import { describe, expect, it, vi } from 'vitest';
import { holderKey } from '../../test/credentials.ts';
import { recordedEvents } from '../../test/events.ts';
import { contextFor, harness, PLATFORM } from '../../test/harness.ts';
import { documentSignerAwaitingCertificate, type FakeCertificateBody, fakeCertificatePem, fakeCsrBody } from '../../test/kit.ts';
import { importedRoot, p256 } from '../../test/mdoc-pki.ts';
import type { MdocConfiguration } from '../configurations/model.ts';
import type { Role } from '../tenancy/permissions.ts';
import { rotateManagedDocumentSigners } from './signers.ts';

const DAY = 86_400_000;
const ORIGIN = `https://acme.eu01.${PLATFORM}`;
const NOW = '2026-05-01T12:00:00.000Z';

async function setup(role: Role = 'admin') {
  const h = harness();
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  return { ...h, tenant, ctx: contextFor(tenant, role), anonymous: contextFor(tenant, null) };
}

/** The JSON inside a fake certificate (see @vellum/testing's fakeX509Authority). */
const bodyOf = (pem: string) => JSON.parse(Buffer.from(pem.split('\n')[1] as string, 'base64').toString('utf8')) as FakeCertificateBody;

describe('managed IACAs (docs/decisions.md "mDoc PKI", ISO/IEC 18013-5 Annex B)', () => {
  it('creates an inactive IACA with a held P-256 key, the tenant’s name and origin, and a CRL distribution point of its own', async () => {
    const { iacas, ctx, keys, tenant, x509 } = await setup();
    const view = await iacas.create(ctx, { country: 'US' });
    expect(view).toEqual({
      id: expect.any(String),
      active: false,
      isManaged: true,
      certificatePem: expect.stringMatching(/^-----BEGIN CERTIFICATE-----\n/),
      certificateFingerprint: x509.parseCertificate(view.certificatePem).fingerprint,
      certificateData: { notBefore: NOW, notAfter: '2031-05-01T12:00:00.000Z', country: 'US', commonName: 'acme IACA' },
    });
    const body = bodyOf(view.certificatePem);
    expect(body).toMatchObject({ isCa: true, issuerAlternativeName: ORIGIN, crlDistributionPointUri: `${ORIGIN}/v2/credentials/mobile/iacas/${view.id}/crl` });
    expect(keys.count(tenant.id)).toBe(1);
    expect(body.publicKey).toMatchObject({ kty: 'EC', crv: 'P-256' });
  });

  it('takes the name, state and validity asked for', async () => {
    const { iacas, ctx } = await setup();
    const view = await iacas.create(ctx, {
      commonName: 'Acme Roads IACA',
      country: 'NZ',
      stateOrProvinceName: 'Wellington',
      notBefore: '2026-06-01T00:00:00Z',
      notAfter: '2046-06-01T00:00:00Z',
    });
    expect(view.certificateData).toEqual({
      notBefore: '2026-06-01T00:00:00.000Z',
      notAfter: '2046-06-01T00:00:00.000Z',
      country: 'NZ',
      commonName: 'Acme Roads IACA',
      stateOrProvinceName: 'Wellington',
    });
  });

  it('requires the country, and names every problem at once, making no key', async () => {
    const { iacas, ctx, keys, tenant } = await setup();
    await expect(iacas.create(ctx, {})).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'country', msg: expect.stringContaining('Required') }],
    });
    const error = await iacas
      .create(ctx, { country: 'us', commonName: 'x'.repeat(65), notBefore: 'soon', notAfter: '2030-01-01T00:00:00Z' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BadRequest', message: 'Validation Error' });
    expect((error as { details: Array<{ param: string }> }).details.map((d) => d.param).sort()).toEqual(['commonName', 'country', 'notBefore']);
    await expect(iacas.create(ctx, { country: 'US', notAfter: '2047-05-01T12:00:01Z' })).rejects.toMatchObject({
      details: [{ param: 'notAfter', msg: expect.stringContaining('20 years') }],
    });
    await expect(iacas.create(ctx, { country: 'US', notBefore: '2020-01-01T00:00:00Z', notAfter: '2021-01-01T00:00:00Z' })).rejects.toMatchObject({
      details: [{ param: 'notAfter', msg: 'Must be in the future' }],
    });
    expect(keys.count(tenant.id)).toBe(0);
  });

  it('refuses a fourth IACA with 409 and details, and leaves no key behind (docs/decisions.md "mDoc PKI": at most 3)', async () => {
    const { iacas, ctx, keys, tenant } = await setup();
    for (let i = 0; i < 3; i++) await iacas.create(ctx, { country: 'US' });
    const error = await iacas.create(ctx, { country: 'US' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'Conflict',
      message: expect.stringContaining('at most 3 IACAs'),
      details: [{ param: 'iacas', value: 3, msg: expect.stringContaining('3 IACAs') }],
    });
    await expect(iacas.create(ctx, { certificatePem: importedRoot() })).rejects.toMatchObject({ code: 'Conflict' });
    expect(keys.count(tenant.id)).toBe(3);
  });

  it('lets admin and issuer create, but not managed-issuer (docs/decisions.md "Tenancy and admin authentication"), who may still read and update', async () => {
    const h = await setup();
    await expect(h.iacas.create(contextFor(h.tenant, 'issuer'), { country: 'US' })).resolves.toMatchObject({ isManaged: true });
    await expect(h.iacas.create(contextFor(h.tenant, 'managed-issuer'), { country: 'US' })).rejects.toMatchObject({ code: 'Forbidden' });
    const [made] = (await h.iacas.list(h.ctx, {})).data;
    await expect(h.iacas.get(contextFor(h.tenant, 'managed-issuer'), made!.id)).resolves.toMatchObject({ id: made!.id });
    await expect(h.iacas.update(contextFor(h.tenant, 'managed-issuer'), made!.id, { active: true })).resolves.toMatchObject({ active: true });
    await expect(h.iacas.get(contextFor(h.tenant, 'verifier'), made!.id)).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(h.iacas.get(h.anonymous, made!.id)).rejects.toMatchObject({ code: 'Unauthorized' });
  });
});

describe('imported IACAs (docs/decisions.md "mDoc PKI")', () => {
  it('refuses keyCustody with an imported certificate: Vellum holds no key of it (docs/key-custody.md "Custody per resource")', async () => {
    const { iacas, ctx } = await setup();
    await expect(iacas.create(ctx, { certificatePem: importedRoot(), keyCustody: 'pkcs11' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'keyCustody', msg: expect.stringContaining('Vellum holds no key of an imported CA') }],
    });
    await expect(iacas.create(ctx, { country: 'US', keyCustody: 'hsm' })).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'keyCustody' }] });
  });

  it('imports a self-signed P-256 CA certificate as unmanaged, inactive, with its own data', async () => {
    const { iacas, ctx, keys, tenant, x509 } = await setup();
    const pem = importedRoot();
    const view = await iacas.create(ctx, { certificatePem: pem });
    expect(view).toEqual({
      id: expect.any(String),
      active: false,
      isManaged: false,
      certificatePem: pem,
      certificateFingerprint: x509.parseCertificate(pem).fingerprint,
      certificateData: {
        notBefore: '2026-01-01T00:00:00.000Z',
        notAfter: '2036-01-01T00:00:00.000Z',
        country: 'US',
        commonName: 'State DMV IACA',
        stateOrProvinceName: 'US-CA',
      },
    });
    expect(keys.count(tenant.id)).toBe(0);
    await expect(iacas.create(ctx, { certificatePem: pem })).rejects.toMatchObject({ code: 'Conflict', details: [{ param: 'certificatePem' }] });
  });

  it('refuses a certificate that cannot be an IACA, naming every reason', async () => {
    const { iacas, ctx } = await setup();
    const bad = importedRoot({
      isCa: false,
      publicKey: { kty: 'EC', crv: 'P-384', x: 'a', y: 'b' },
      subject: { commonName: 'No country' },
      notAfter: '2026-02-01T00:00:00.000Z',
    });
    const error = (await iacas.create(ctx, { certificatePem: bad }).catch((e: unknown) => e)) as {
      code: string;
      details: Array<{ param: string; msg: string }>;
    };
    expect(error.code).toBe('BadRequest');
    expect(error.details.every((d) => d.param === 'certificatePem')).toBe(true);
    expect(error.details.map((d) => d.msg)).toEqual([
      expect.stringContaining('Not a CA certificate'),
      expect.stringContaining('EC P-256'),
      expect.stringContaining('no country'),
      expect.stringContaining('expired'),
    ]);
    await expect(iacas.create(ctx, { certificatePem: importedRoot({ issuer: 'someone-else' }) })).rejects.toMatchObject({
      details: [{ msg: expect.stringContaining('self-signed') }],
    });
    await expect(iacas.create(ctx, { certificatePem: 'not a certificate' })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'certificatePem' }],
    });
  });

  it('refuses fields the certificate already says', async () => {
    const { iacas, ctx } = await setup();
    await expect(iacas.create(ctx, { certificatePem: importedRoot(), country: 'US', notAfter: '2030-01-01T00:00:00Z' })).rejects.toMatchObject({
      details: [{ param: 'country' }, { param: 'notAfter' }],
    });
  });
});

describe('activation, the public list and deletion (docs/decisions.md "mDoc PKI")', () => {
  it('shows anyone the active IACAs only, and a caller with iacas:manage all of them', async () => {
    const { iacas, ctx, anonymous, tenant } = await setup();
    const first = await iacas.create(ctx, { country: 'US' });
    const second = await iacas.create(ctx, { certificatePem: importedRoot() });
    expect((await iacas.list(anonymous, {})).data).toEqual([]);
    const activated = await iacas.update(ctx, second.id, { active: true });
    expect(activated).toEqual({ ...second, active: true });
    expect((await iacas.list(anonymous, {})).data).toEqual([activated]);
    // A token whose role has no iacas:manage gets the public view, not a 403.
    expect((await iacas.list(contextFor(tenant, 'verifier'), {})).data.map((i) => i.id)).toEqual([second.id]);
    expect((await iacas.list(ctx, {})).data.map((i) => i.id)).toEqual([first.id, second.id]);
    const page = await iacas.list(ctx, { limit: 1 });
    expect((await iacas.list(ctx, { limit: 1, cursor: page.nextCursor })).data.map((i) => i.id)).toEqual([second.id]);
    await iacas.update(ctx, second.id, { active: false });
    expect((await iacas.list(anonymous, {})).data).toEqual([]);
  });

  it('gives a managed IACA its first document signer when activated, and refuses to activate an expired IACA', async () => {
    const { iacas, documentSigners, ctx, clock } = await setup();
    const iaca = await iacas.create(ctx, { country: 'US', notAfter: '2027-05-01T12:00:00Z' });
    await iacas.update(ctx, iaca.id, { active: true });
    const signers = (await documentSigners.list(ctx, {})).data;
    expect(signers).toEqual([expect.objectContaining({ iacaId: iaca.id, active: true, isManaged: true, certificatePem: expect.any(String) })]);
    // Activating again keeps the signer it has.
    await iacas.update(ctx, iaca.id, { active: true });
    expect((await documentSigners.list(ctx, {})).data).toHaveLength(1);
    clock.set('2027-06-01T00:00:00Z');
    await expect(iacas.update(ctx, iaca.id, { active: true })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'active', msg: expect.stringContaining('expired') }],
    });
    await expect(iacas.update(ctx, iaca.id, { active: 'yes' as unknown as boolean })).rejects.toMatchObject({ details: [{ param: 'active' }] });
  });

  it('deletes only an inactive IACA, destroying its key and its document signers’ keys', async () => {
    const { iacas, documentSigners, ctx, keys, tenant } = await setup();
    const iaca = await iacas.create(ctx, { country: 'US' });
    await iacas.update(ctx, iaca.id, { active: true });
    expect(keys.count(tenant.id)).toBe(2);
    await expect(iacas.delete(ctx, iaca.id)).rejects.toMatchObject({ code: 'Conflict', details: [{ param: 'active' }] });
    await iacas.update(ctx, iaca.id, { active: false });
    await iacas.delete(ctx, iaca.id);
    expect(keys.count(tenant.id)).toBe(0);
    expect((await documentSigners.list(ctx, {})).data).toEqual([]);
    await expect(iacas.get(ctx, iaca.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(iacas.delete(ctx, iaca.id)).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('keeps tenants apart', async () => {
    const { iacas, ctx, tenants } = await setup();
    const iaca = await iacas.create(ctx, { country: 'US' });
    await iacas.update(ctx, iaca.id, { active: true });
    const { tenant: other } = await tenants.createTenant({ subdomain: 'other', region: 'eu01' });
    await expect(iacas.get(contextFor(other), iaca.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(iacas.crl(contextFor(other, null), iaca.id)).rejects.toMatchObject({ code: 'NotFound' });
    expect((await iacas.list(contextFor(other, null), {})).data).toEqual([]);
  });

  it('records MOBILE_IACA_* events in the mobile-credential category, but none for the public list', async () => {
    const { iacas, ctx, anonymous, recorder, store, tenant } = await setup();
    const iaca = await iacas.create(ctx, { country: 'US' });
    await iacas.list(anonymous, {});
    await iacas.get(ctx, iaca.id);
    const events = (await recordedEvents({ recorder, store }, tenant.id)).reverse();
    expect(events.map((e) => [e.type, e.category])).toEqual([
      ['MOBILE_IACA_CREATE_START', 'mobile-credential'],
      ['MOBILE_IACA_CREATE_SUCCESS', 'mobile-credential'],
      ['MOBILE_IACA_RETRIEVE_START', 'mobile-credential'],
      ['MOBILE_IACA_RETRIEVE_SUCCESS', 'mobile-credential'],
    ]);
  });
});

describe('document signers of imported IACAs: the CSR flow (docs/decisions.md "mDoc PKI")', () => {
  async function withImported() {
    const h = await setup();
    const iaca = await h.iacas.create(h.ctx, { certificatePem: importedRoot() });
    /** What the IACA's owner answers a CSR with. */
    const certify = (csrPem: string, over: Partial<FakeCertificateBody> = {}) =>
      fakeCertificatePem({
        serialNumber: '0d5e',
        subject: { commonName: 'DS', country: 'US', stateOrProvinceName: 'US-CA' },
        issuer: iaca.certificateFingerprint,
        notBefore: '2026-04-01T00:00:00.000Z',
        notAfter: '2027-04-01T00:00:00.000Z',
        publicKey: fakeCsrBody(csrPem)!.publicKey,
        isCa: false,
        extendedKeyUsages: ['1.0.18013.5.1.2'],
        ...over,
      });
    return { ...h, iaca, certify };
  }

  it('creates a key and its CSR with the IACA’s country and state; the signer stays inactive until certified', async () => {
    const { documentSigners, ctx, iaca, keys, tenant } = await withImported();
    const created = await documentSigners.create(ctx, { iacaId: iaca.id });
    expect(created).toEqual(documentSignerAwaitingCertificate(iaca.id));
    expect(fakeCsrBody(created.csrPem!)).toMatchObject({
      subject: { commonName: 'State DMV Document Signer', country: 'US', stateOrProvinceName: 'US-CA' },
      publicKey: { kty: 'EC', crv: 'P-256' },
    });
    expect(keys.count(tenant.id)).toBe(1);
    await expect(documentSigners.update(ctx, created.id, { active: true })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'certificatePem', msg: expect.stringContaining('Required') }],
    });
  });

  it('activates with the certificate the IACA issued for the CSR', async () => {
    const { documentSigners, ctx, iaca, certify } = await withImported();
    const created = await documentSigners.create(ctx, { iacaId: iaca.id });
    const certificatePem = certify(created.csrPem!);
    const updated = await documentSigners.update(ctx, created.id, { active: true, certificatePem });
    expect(updated).toMatchObject({
      id: created.id,
      active: true,
      certificatePem,
      certificateData: { notBefore: '2026-04-01T00:00:00.000Z', notAfter: '2027-04-01T00:00:00.000Z', country: 'US', commonName: 'DS' },
    });
    expect(await documentSigners.get(ctx, created.id)).toEqual(updated);
    await expect(documentSigners.update(ctx, created.id, { active: false })).resolves.toMatchObject({ active: false, certificatePem });
  });

  it('refuses a certificate of another IACA, for another key, without the document signer EKU, a CA, or not valid now, naming each', async () => {
    const { documentSigners, ctx, iaca, certify } = await withImported();
    const created = await documentSigners.create(ctx, { iacaId: iaca.id });
    const wrong = certify(created.csrPem!, {
      issuer: 'another-iaca',
      publicKey: p256('other', 'key'),
      extendedKeyUsages: [],
      isCa: true,
      notAfter: '2026-04-30T00:00:00.000Z',
    });
    const error = (await documentSigners.update(ctx, created.id, { active: true, certificatePem: wrong }).catch((e: unknown) => e)) as {
      details: Array<{ param: string; msg: string }>;
    };
    expect(error).toMatchObject({ code: 'BadRequest', message: 'Validation Error' });
    expect(error.details.map((d) => d.msg)).toEqual([
      `Not issued by the IACA ${iaca.id} (the issuer name, key identifier or signature does not match)`,
      expect.stringContaining('key'),
      expect.stringContaining('1.0.18013.5.1.2'),
      'A CA certificate cannot be a document signer',
      expect.stringContaining('Not valid now'),
    ]);
    expect((await documentSigners.get(ctx, created.id)).active).toBe(false);
  });

  it('is only for imported IACAs, and for IACAs of the tenant', async () => {
    const { documentSigners, iacas, ctx } = await withImported();
    const managed = await iacas.create(ctx, { country: 'US' });
    await expect(documentSigners.create(ctx, { iacaId: managed.id })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'iacaId', msg: expect.stringContaining('manages') }],
    });
    await expect(documentSigners.create(ctx, { iacaId: 'no-such-iaca' })).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'iacaId' }] });
  });

  it('refuses a sixth requested signer with 409 and details, leaving no key behind (docs/decisions.md "mDoc PKI": at most 5)', async () => {
    const { documentSigners, ctx, iaca, keys, tenant } = await withImported();
    for (let i = 0; i < 5; i++) await documentSigners.create(ctx, { iacaId: iaca.id });
    await expect(documentSigners.create(ctx, { iacaId: iaca.id })).rejects.toMatchObject({
      code: 'Conflict',
      message: expect.stringContaining('at most 5'),
      details: [{ param: 'iacaId', value: 5 }],
    });
    expect(keys.count(tenant.id)).toBe(5);
    const [first] = (await documentSigners.list(ctx, {})).data;
    await documentSigners.delete(ctx, first!.id);
    await expect(documentSigners.create(ctx, { iacaId: iaca.id })).resolves.toMatchObject({ active: false });
  });

  it('revokes for good: the key is destroyed, nothing may change it, and deleting it destroys nothing more', async () => {
    const { documentSigners, ctx, iaca, certify, keys, tenant, store } = await withImported();
    const created = await documentSigners.create(ctx, { iacaId: iaca.id });
    await documentSigners.update(ctx, created.id, { active: true, certificatePem: certify(created.csrPem!) });
    const revoked = await documentSigners.revoke(ctx, created.id);
    expect(revoked).toMatchObject({ active: false, revokedAt: NOW });
    const { keyId } = (await store.documentSigners.get(tenant.id, created.id))!;
    await expect(keys.sign(tenant.id, keyId, new Uint8Array([1]))).rejects.toMatchObject({ code: 'NotFound' });
    await expect(documentSigners.revoke(ctx, created.id)).rejects.toMatchObject({ code: 'Conflict' });
    await expect(documentSigners.update(ctx, created.id, { active: true })).rejects.toMatchObject({ code: 'Conflict' });
    expect(await store.iacas.listRevocations(tenant.id, iaca.id)).toEqual([{ serialNumber: '0d5e', revokedAt: NOW, notAfter: '2027-04-01T00:00:00.000Z' }]);
    await documentSigners.delete(ctx, created.id);
    await expect(documentSigners.get(ctx, created.id)).rejects.toMatchObject({ code: 'NotFound' });
    // The revocation outlives the record, for the CRL.
    expect(await store.iacas.listRevocations(tenant.id, iaca.id)).toHaveLength(1);
  });

  it('needs iacas:manage: managed-issuer may, verifier may not', async () => {
    const { documentSigners, iaca, tenant } = await withImported();
    await expect(documentSigners.create(contextFor(tenant, 'managed-issuer'), { iacaId: iaca.id })).resolves.toMatchObject({ iacaId: iaca.id });
    await expect(documentSigners.list(contextFor(tenant, 'verifier'), {})).rejects.toMatchObject({ code: 'Forbidden' });
  });
});

describe('CRLs of managed IACAs (RFC 5280 §5, ISO/IEC 18013-5 Annex B)', () => {
  const crlOf = (bytes: Uint8Array) =>
    JSON.parse(Buffer.from(bytes).toString('utf8')) as { revoked: Array<{ serialNumber: string }>; thisUpdate: string; nextUpdate: string };

  it('lists the revoked document signers, is made again only when that changes or a day has passed, and is public', async () => {
    const { iacas, documentSigners, ctx, anonymous, x509, clock } = await setup();
    const iaca = await iacas.create(ctx, { country: 'US' });
    await iacas.update(ctx, iaca.id, { active: true });
    const empty = crlOf(await iacas.crl(anonymous, iaca.id));
    expect(empty).toMatchObject({ revoked: [], thisUpdate: NOW, nextUpdate: '2026-05-08T12:00:00.000Z' });
    await iacas.crl(anonymous, iaca.id);
    expect(x509.made.crls).toBe(1);
    const [signer] = (await documentSigners.list(ctx, {})).data;
    await documentSigners.revoke(ctx, signer!.id);
    const after = crlOf(await iacas.crl(anonymous, iaca.id));
    expect(after.revoked.map((r) => r.serialNumber)).toEqual([x509.parseCertificate(signer!.certificatePem!).serialNumber]);
    expect(x509.made.crls).toBe(2);
    clock.advance(DAY + 1);
    expect(crlOf(await iacas.crl(anonymous, iaca.id)).thisUpdate).toBe('2026-05-02T12:00:00.001Z');
    // Past the revoked certificate's own expiry, the entry leaves the CRL.
    clock.advance(460 * DAY);
    expect(crlOf(await iacas.crl(anonymous, iaca.id)).revoked).toEqual([]);
  });

  it('has none for an imported IACA, whose owner publishes it', async () => {
    const { iacas, ctx, anonymous } = await setup();
    const iaca = await iacas.create(ctx, { certificatePem: importedRoot() });
    await expect(iacas.crl(anonymous, iaca.id)).rejects.toMatchObject({ code: 'NotFound', message: expect.stringContaining('owner') });
    await expect(iacas.crl(anonymous, 'nothing')).rejects.toMatchObject({ code: 'NotFound' });
  });
});

describe('forced rotation of managed document signers (issue 32, point 4; docs/key-custody.md "Rotation")', () => {
  const mdl = (tenantId: string): MdocConfiguration => ({
    id: 'cfg-1',
    tenantId,
    format: 'mso_mdoc',
    type: 'org.iso.18013.5.1.mDL',
    expiresIn: { days: 30 },
    includeStatus: false,
    claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
    createdAt: NOW,
    updatedAt: NOW,
  });

  async function withIssuance() {
    const h = await setup();
    /** The document signer of the next mDoc, through the issuance service and the issuing chains' cache it uses. */
    const nextSigner = async () =>
      (
        await h.mdocIssuance.issue({
          tenant: h.tenant,
          configuration: mdl(h.tenant.id),
          subject: { claims: { familyName: 'Turner' } },
          holderKey: holderKey(),
        })
      ).documentSignerId;
    const rotate = () => h.signerRotation.documentSigners(h.tenant, h.clock.now());
    return { ...h, nextSigner, rotate };
  }

  it('gives the managed IACA a new signer (key, certificate) that signs the next mDoc at once, though made in the same millisecond as the old one', async () => {
    const h = await withIssuance();
    const iaca = await h.iacas.create(h.ctx, { country: 'US' });
    await h.iacas.update(h.ctx, iaca.id, { active: true });
    // Issued first, so the issuing chain with the old signer is cached.
    const before = await h.nextSigner();
    const old = (await h.store.documentSigners.get(h.tenant.id, before))!;
    const keysBefore = h.keys.count(h.tenant.id);

    const { created, superseded } = await h.rotate();
    expect(superseded.map((s) => s.id)).toEqual([before]);
    expect(created).toHaveLength(1);
    const made = created[0]!;
    expect(made).toMatchObject({ iacaId: iaca.id, isManaged: true, active: true, createdAt: NOW });
    expect(made.id).not.toBe(before);
    expect(made.keyId).not.toBe(old.keyId);
    expect(made.serialNumber).not.toBe(old.serialNumber);
    expect(made.fingerprint).not.toBe(old.fingerprint);
    // Made at the same instant, the two certificates tie on their end (and creation time): the one made last signs.
    expect(made.certificateData).toEqual(old.certificateData);
    expect(await h.nextSigner()).toBe(made.id);
    expect(h.keys.count(h.tenant.id)).toBe(keysBefore + 1);
  });

  it('keeps the superseded signer active, unrevoked, with its key, in the IACA’s signer list and off its CRL', async () => {
    const h = await withIssuance();
    const iaca = await h.iacas.create(h.ctx, { country: 'US' });
    await h.iacas.update(h.ctx, iaca.id, { active: true });
    const before = await h.nextSigner();
    const { created } = await h.rotate();
    const listed = (await h.documentSigners.list(h.ctx, { iacaId: iaca.id })).data;
    expect(listed.map((s) => [s.id, s.active])).toEqual([
      [before, true],
      [created[0]!.id, true],
    ]);
    const old = (await h.store.documentSigners.get(h.tenant.id, before))!;
    expect(old.revokedAt).toBeUndefined();
    await expect(h.keys.sign(h.tenant.id, old.keyId, new Uint8Array([1]))).resolves.toBeInstanceOf(Uint8Array);
    expect(await h.store.iacas.listRevocations(h.tenant.id, iaca.id)).toEqual([]);
    expect(JSON.parse(Buffer.from(await h.iacas.crl(h.anonymous, iaca.id)).toString('utf8')).revoked).toEqual([]);
  });

  it('supersedes the first rotation’s signer at the second, also when every signer ends with the IACA', async () => {
    const h = await withIssuance();
    // Ends within the 457 days of a signer: each signer's certificate ends with it, so all tie.
    const iaca = await h.iacas.create(h.ctx, { country: 'US', notAfter: '2027-05-01T12:00:00Z' });
    await h.iacas.update(h.ctx, iaca.id, { active: true });
    const first = await h.nextSigner();
    h.clock.advance(60_000);
    const once = await h.rotate();
    expect(once.superseded.map((s) => s.id)).toEqual([first]);
    expect(await h.nextSigner()).toBe(once.created[0]!.id);
    h.clock.advance(60_000);
    const twice = await h.rotate();
    expect(twice.superseded.map((s) => s.id)).toEqual([once.created[0]!.id]);
    expect(twice.created[0]!.id).not.toBe(once.created[0]!.id);
    expect(await h.nextSigner()).toBe(twice.created[0]!.id);
    const all = await h.store.documentSigners.listByIaca(h.tenant.id, iaca.id);
    expect(new Set(all.map((s) => s.certificateData?.notAfter))).toEqual(new Set(['2027-05-01T12:00:00.000Z']));
    expect(all.map((s) => s.id)).toEqual([first, once.created[0]!.id, twice.created[0]!.id]);
    expect(all.every((s) => s.active && s.revokedAt === undefined)).toBe(true);
  });

  it('rotates every active managed IACA, not only the one that signs', async () => {
    const h = await withIssuance();
    const a = await h.iacas.create(h.ctx, { country: 'US' });
    const b = await h.iacas.create(h.ctx, { country: 'NZ' });
    await h.iacas.update(h.ctx, a.id, { active: true });
    h.clock.advance(1000);
    await h.iacas.update(h.ctx, b.id, { active: true });
    const [oldA] = await h.store.documentSigners.listByIaca(h.tenant.id, a.id);
    const [oldB] = await h.store.documentSigners.listByIaca(h.tenant.id, b.id);
    const { created, superseded } = await h.rotate();
    expect(superseded.map((s) => s.id)).toEqual([oldA!.id, oldB!.id]);
    expect(created.map((s) => s.iacaId)).toEqual([a.id, b.id]);
    // b was activated last, so it signs, with its new signer.
    expect(await h.nextSigner()).toBe(created[1]!.id);
  });

  it('answers empty lists, making nothing, for a tenant without an active managed IACA, and skips an imported IACA', async () => {
    const h = await withIssuance();
    expect(await h.rotate()).toEqual({ created: [], superseded: [] });
    // A managed IACA that is not active has no signer in use.
    const managed = await h.iacas.create(h.ctx, { country: 'US' });
    expect(await h.rotate()).toEqual({ created: [], superseded: [] });
    // An imported IACA's signers come from the CSR flow: a forced rotation there is a new CSR, not made here.
    const imported = await h.iacas.create(h.ctx, { certificatePem: importedRoot() });
    const requested = await h.documentSigners.create(h.ctx, { iacaId: imported.id });
    await h.documentSigners.update(h.ctx, requested.id, {
      active: true,
      certificatePem: fakeCertificatePem({
        serialNumber: '0d5e',
        subject: { commonName: 'DS', country: 'US' },
        issuer: imported.certificateFingerprint,
        notBefore: '2026-04-01T00:00:00.000Z',
        notAfter: '2027-04-01T00:00:00.000Z',
        publicKey: fakeCsrBody(requested.csrPem!)!.publicKey,
        isCa: false,
        extendedKeyUsages: ['1.0.18013.5.1.2'],
      }),
    });
    await h.iacas.update(h.ctx, imported.id, { active: true });
    expect(await h.nextSigner()).toBe(requested.id);
    const keys = h.keys.count(h.tenant.id);
    expect(await h.rotate()).toEqual({ created: [], superseded: [] });
    expect(h.x509.made.signers).toBe(0);
    expect(h.keys.count(h.tenant.id)).toBe(keys);
    expect(await h.nextSigner()).toBe(requested.id);
    // Beside it, an active managed IACA is rotated, and only it.
    h.clock.advance(1000);
    await h.iacas.update(h.ctx, managed.id, { active: true });
    const [managedSigner] = await h.store.documentSigners.listByIaca(h.tenant.id, managed.id);
    const { created, superseded } = await h.rotate();
    expect(superseded.map((s) => s.id)).toEqual([managedSigner!.id]);
    expect(created.map((s) => s.iacaId)).toEqual([managed.id]);
  });

  it('makes nothing for an active managed IACA with no signer that can sign (its only one revoked): issuance makes one when needed', async () => {
    const h = await withIssuance();
    const iaca = await h.iacas.create(h.ctx, { country: 'US' });
    await h.iacas.update(h.ctx, iaca.id, { active: true });
    const [only] = await h.store.documentSigners.listByIaca(h.tenant.id, iaca.id);
    await h.documentSigners.revoke(h.ctx, only!.id);
    expect(await h.rotate()).toEqual({ created: [], superseded: [] });
    expect(h.x509.made.signers).toBe(1);
  });

  it('invalidates the chains it is given when it made a signer, and only then', async () => {
    const h = await withIssuance();
    const chains = { invalidate: vi.fn() };
    const deps = { store: h.store, keys: h.keys, x509: h.x509, ids: { uuid: () => crypto.randomUUID() }, chains };
    expect(await rotateManagedDocumentSigners(deps, h.tenant, h.clock.now())).toEqual({ created: [], superseded: [] });
    expect(chains.invalidate).not.toHaveBeenCalled();
    const iaca = await h.iacas.create(h.ctx, { country: 'US' });
    await h.iacas.update(h.ctx, iaca.id, { active: true });
    expect((await rotateManagedDocumentSigners(deps, h.tenant, h.clock.now())).created).toHaveLength(1);
    expect(chains.invalidate).toHaveBeenCalledExactlyOnceWith(h.tenant.id);
  });
});
