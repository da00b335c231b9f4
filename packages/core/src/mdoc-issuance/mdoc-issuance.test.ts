import { describe, expect, it } from 'vitest';
import { holderKey } from '../../test/credentials.ts';
import { secondServer, withTenant } from '../../test/harness.ts';
import { type FakeCertificateBody, fakeCertificatePem, fakeCsrBody, readFakeMdoc } from '../../test/kit.ts';
import { importedRoot, p256 } from '../../test/mdoc-pki.ts';
import type { MdocConfiguration } from '../configurations/model.ts';

const DAY = 86_400_000;
const NOW = '2026-05-01T12:00:00.000Z';
const NO_IACA = 'No active IACA: create or activate one at /v2/credentials/mobile/iacas';

function mdl(over: Partial<MdocConfiguration> = {}): MdocConfiguration {
  return {
    id: 'cfg-1',
    tenantId: 'set-below',
    format: 'mso_mdoc',
    type: 'org.iso.18013.5.1.mDL',
    expiresIn: { days: 365 },
    includeStatus: false,
    claimMappings: {
      'org.iso.18013.5.1': {
        family_name: { mapFrom: 'claims.familyName', required: true },
        birth_date: { mapFrom: 'claims.birthDate', type: 'date' },
        age_over_18: { mapFrom: 'claims.adult', type: 'boolean' },
        issuing_country: { defaultValue: 'US' },
      },
    },
    createdAt: NOW,
    updatedAt: NOW,
    ...over,
  };
}

const subject = { claims: { familyName: 'Turner', birthDate: '1990-05-15', adult: true } };

async function setup() {
  const h = await withTenant();
  const { tenant, ctx } = h;
  const configuration = mdl({ tenantId: tenant.id });
  const issue = (over: Partial<Parameters<typeof h.mdocIssuance.issue>[0]> = {}) =>
    h.mdocIssuance.issue({ tenant, configuration, subject, holderKey: holderKey(), ...over });
  /** A managed IACA, activated: ready to issue. */
  const activeIaca = async (input: Parameters<typeof h.iacas.create>[1] = { country: 'US' }) => {
    const iaca = await h.iacas.create(ctx, input);
    return h.iacas.update(ctx, iaca.id, { active: true });
  };
  return { ...h, tenant, ctx, configuration, issue, activeIaca };
}

describe('issuing mDocs through the core use case (issue 4 item 5)', () => {
  it('refuses with 400 when there is no active IACA, saying so (docs/decisions.md "mDoc PKI")', async () => {
    const { issue, iacas, ctx, mdocEngine } = await setup();
    await expect(issue()).rejects.toMatchObject({ code: 'BadRequest', message: NO_IACA });
    await iacas.create(ctx, { country: 'US' });
    await expect(issue()).rejects.toMatchObject({ code: 'BadRequest', message: NO_IACA });
    expect(mdocEngine.calls).toBe(0);
  });

  it('issues with typed claims, the holder key, validity now → now + expiresIn, under the active IACA’s document signer', async () => {
    const { issue, activeIaca, documentSigners, ctx, x509 } = await setup();
    const iaca = await activeIaca();
    const holder = holderKey();
    const issued = await issue({ holderKey: holder });
    const [signer] = (await documentSigners.list(ctx, {})).data;
    expect(issued).toEqual({
      credential: expect.any(String),
      docType: 'org.iso.18013.5.1.mDL',
      validFrom: NOW,
      validUntil: '2027-05-01T12:00:00.000Z',
      iacaId: iaca.id,
      documentSignerId: signer!.id,
    });
    const mdoc = readFakeMdoc(issued.credential);
    expect(mdoc.docType).toBe('org.iso.18013.5.1.mDL');
    expect(mdoc.deviceKey).toEqual(holder);
    expect(mdoc.validity).toEqual({ signed: NOW, validFrom: NOW, validUntil: '2027-05-01T12:00:00.000Z' });
    expect(mdoc.namespaces).toEqual({
      'org.iso.18013.5.1': {
        family_name: { type: 'string', value: 'Turner' },
        birth_date: { type: 'date', value: '1990-05-15' },
        age_over_18: { type: 'boolean', value: true },
        issuing_country: { type: 'string', value: 'US' },
      },
    });
    expect(mdoc.x5chain).toEqual([Buffer.from(x509.parseCertificate(signer!.certificatePem!).der).toString('base64')]);
  });

  it('gives an includeStatus mDoc its status list entry, and refuses it without an origin to name the list by', async () => {
    const { issue, activeIaca, configuration, mdocEngine } = await setup();
    await activeIaca();
    await expect(issue({ configuration: { ...configuration, includeStatus: true } })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'includeStatus' }],
    });
    expect(mdocEngine.calls).toBe(0);
    const issued = await issue({ configuration: { ...configuration, includeStatus: true }, origin: 'https://acme.eu01.vellum.test' });
    expect(issued.statusEntry).toEqual({ listId: expect.any(String), idx: expect.any(Number) });
    const status = readFakeMdoc(issued.credential).status;
    expect(status).toEqual({
      field: 'status',
      idx: issued.statusEntry?.idx,
      uri: `https://acme.eu01.vellum.test/v2/credentials/mobile/status-lists/${issued.statusEntry?.listId}/token`,
    });
  });

  it('refuses a credential that would already be expired (docs/decisions.md "Credential configurations")', async () => {
    const { issue, activeIaca, configuration } = await setup();
    await activeIaca({ country: 'US', notBefore: '2025-01-01T00:00:00Z' });
    await expect(issue({ now: new Date(Date.parse(NOW) - 366 * DAY) })).rejects.toMatchObject({
      code: 'BadRequest',
      message: expect.stringContaining('already be expired'),
      details: [{ param: 'expiresIn' }],
    });
    await expect(issue({ configuration: { ...configuration, expiresIn: {} } })).rejects.toMatchObject({
      message: expect.stringContaining('already be expired'),
    });
    await expect(issue({ now: new Date(Date.parse(NOW) - 364 * DAY) })).resolves.toMatchObject({ validUntil: '2026-05-02T12:00:00.000Z' });
  });

  it('refuses a credential without claims, a missing required claim and a value of the wrong type (OpenID4VCI 1.0 §8, docs/decisions.md "Credential configurations")', async () => {
    const { issue, activeIaca, configuration } = await setup();
    await activeIaca();
    const onlyOptional = { ...configuration, claimMappings: { ns: { a: { mapFrom: 'claims.a' } } } };
    await expect(issue({ configuration: onlyOptional })).rejects.toMatchObject({ code: 'BadRequest', message: expect.stringContaining('no claims') });
    await expect(issue({ subject: { claims: { adult: 'yes' } } })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [
        { param: 'org.iso.18013.5.1.family_name', msg: 'Required claim has no value' },
        { param: 'org.iso.18013.5.1.age_over_18', value: 'yes' },
      ],
    });
    await expect(issue({ configuration: { ...configuration, format: 'cwt' } as unknown as MdocConfiguration })).rejects.toMatchObject({
      details: [{ param: 'configuration.format' }],
    });
  });

  it('refuses a holder key that is not P-256', async () => {
    const { issue, activeIaca } = await setup();
    await activeIaca();
    await expect(issue({ holderKey: { kty: 'OKP', crv: 'Ed25519', x: 'abc' } })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'deviceKey' }],
    });
  });

  it('stops using a deactivated IACA at once, and uses the IACA activated last', async () => {
    const { issue, activeIaca, iacas, ctx } = await setup();
    const first = await activeIaca();
    expect((await issue()).iacaId).toBe(first.id);
    const second = await activeIaca();
    expect((await issue()).iacaId).toBe(second.id);
    await iacas.update(ctx, second.id, { active: false });
    expect((await issue()).iacaId).toBe(first.id);
    await iacas.update(ctx, first.id, { active: false });
    await expect(issue()).rejects.toMatchObject({ message: NO_IACA });
  });

  it('does not issue under an active IACA that has expired', async () => {
    const { issue, activeIaca, clock } = await setup();
    await activeIaca({ country: 'US', notAfter: '2026-08-01T00:00:00Z' });
    await expect(issue({ configuration: mdl({ expiresIn: { days: 30 } }) })).resolves.toBeDefined();
    clock.set('2026-08-01T00:00:01Z');
    await expect(issue()).rejects.toMatchObject({ code: 'BadRequest', message: expect.stringContaining('No active IACA') });
  });
});

describe('managed document signers: rotation (ISO/IEC 18013-5 Annex B validity)', () => {
  it('creates a signer valid 457 days within its IACA, and a new one when none stays valid for the credential’s lifetime', async () => {
    const { issue, activeIaca, documentSigners, ctx, clock, keys, tenant } = await setup();
    // An IACA valid since before now: the signer's certificate starts 5 minutes back, for slow verifier clocks.
    await activeIaca({ country: 'US', notBefore: '2026-01-01T00:00:00Z' });
    const a = await issue(); // 365-day credentials: a signer must stay valid 365 days more
    const signers = async () => (await documentSigners.list(ctx, {})).data;
    expect((await signers())[0]?.certificateData).toMatchObject({
      notBefore: '2026-05-01T11:55:00.000Z',
      notAfter: '2027-08-01T11:55:00.000Z',
      country: 'US',
      commonName: 'acme Document Signer',
    });

    clock.advance(92 * DAY - 600_000); // 365 days and 5 minutes left: still enough
    expect((await issue()).documentSignerId).toBe(a.documentSignerId);
    clock.advance(1 * DAY); // 364 days left: rotate
    const b = await issue();
    expect(b.documentSignerId).not.toBe(a.documentSignerId);
    expect((await signers()).map((s) => s.id)).toEqual([a.documentSignerId, b.documentSignerId]);
    expect((await issue()).documentSignerId).toBe(b.documentSignerId);
    // Every credential ends before the certificate of the signer that signed it.
    const [, bSigner] = await signers();
    expect(Date.parse(bSigner!.certificateData!.notAfter)).toBeGreaterThanOrEqual(Date.parse((await issue()).validUntil));

    clock.advance(365 * DAY); // a has expired, b has 92 days left
    expect((await issue({ configuration: mdl({ expiresIn: { days: 30 } }) })).documentSignerId).toBe(b.documentSignerId); // 30-day credentials need 90 days
    const c = await issue();
    expect(c.documentSignerId).not.toBe(b.documentSignerId);
    expect((await signers()).map((s) => s.id)).toEqual([b.documentSignerId, c.documentSignerId]);
    expect(keys.count(tenant.id)).toBe(3); // the IACA's, b's and c's: a's key went with it
    // Longer-lived credentials (up to 3620 days) need at most 427 days: a fresh signer (457) serves them.
    expect((await issue({ configuration: mdl({ type: 'org.example.card', expiresIn: { days: 3000 } }) })).documentSignerId).toBe(c.documentSignerId);
  });

  it('near its IACA’s end keeps the last signer, which ends with the IACA, instead of making one per credential', async () => {
    const { issue, activeIaca, documentSigners, ctx, clock } = await setup();
    await activeIaca({ country: 'US', notAfter: '2026-07-01T00:00:00Z' });
    const first = await issue({ configuration: mdl({ expiresIn: { days: 1 } }) });
    clock.advance(30 * DAY);
    expect((await issue({ configuration: mdl({ expiresIn: { days: 1 } }) })).documentSignerId).toBe(first.documentSignerId);
    expect((await documentSigners.list(ctx, {})).data).toEqual([
      expect.objectContaining({ certificateData: expect.objectContaining({ notAfter: '2026-07-01T00:00:00.000Z' }) }),
    ]);
  });

  it('replaces a revoked or deleted signer with a new one at the next credential', async () => {
    const { issue, activeIaca, documentSigners, ctx } = await setup();
    await activeIaca();
    const a = await issue();
    await documentSigners.revoke(ctx, a.documentSignerId);
    const b = await issue();
    expect(b.documentSignerId).not.toBe(a.documentSignerId);
    await documentSigners.delete(ctx, b.documentSignerId);
    expect((await issue()).documentSignerId).not.toBe(b.documentSignerId);
  });

  it('makes one signer for concurrent first credentials', async () => {
    const { issue, activeIaca, documentSigners, ctx, x509 } = await setup();
    const iaca = await activeIaca();
    const [signer] = (await documentSigners.list(ctx, {})).data;
    await documentSigners.delete(ctx, signer!.id);
    const made = x509.made.signers;
    const results = await Promise.all(Array.from({ length: 10 }, () => issue()));
    expect(new Set(results.map((r) => r.documentSignerId)).size).toBe(1);
    expect(x509.made.signers).toBe(made + 1);
    expect(results.every((r) => r.iacaId === iaca.id)).toBe(true);
  });
});

describe('imported IACAs at issuance', () => {
  it('needs an active document signer, and then signs with it', async () => {
    const { issue, iacas, documentSigners, ctx } = await setup();
    const root = importedRoot({ serialNumber: '01', subject: { commonName: 'Root', country: 'US' }, publicKey: p256('root-x', 'root-y') });
    const iaca = await iacas.create(ctx, { certificatePem: root });
    await iacas.update(ctx, iaca.id, { active: true });
    await expect(issue()).rejects.toMatchObject({
      code: 'BadRequest',
      message: expect.stringMatching(/^No active document signer for the active IACA .*\/v2\/credentials\/mobile\/document-signers/),
    });
    const signer = await documentSigners.create(ctx, { iacaId: iaca.id });
    const certificate: Omit<FakeCertificateBody, 'kind'> = {
      serialNumber: '02',
      subject: { commonName: 'DS', country: 'US' },
      issuer: iaca.certificateFingerprint,
      notBefore: '2026-04-01T00:00:00.000Z',
      notAfter: '2027-04-01T00:00:00.000Z',
      publicKey: fakeCsrBody(signer.csrPem!)!.publicKey,
      isCa: false,
      extendedKeyUsages: ['1.0.18013.5.1.2'],
    };
    await documentSigners.update(ctx, signer.id, { active: false, certificatePem: fakeCertificatePem(certificate) });
    await expect(issue()).rejects.toMatchObject({ message: expect.stringContaining('No active document signer') });
    await documentSigners.update(ctx, signer.id, { active: true });
    expect(await issue()).toMatchObject({ iacaId: iaca.id, documentSignerId: signer.id });
    await documentSigners.revoke(ctx, signer.id);
    await expect(issue()).rejects.toMatchObject({ message: expect.stringContaining('No active document signer') });
  });
});

describe('two servers sharing one store: the signing chain cache', () => {
  async function twoServers() {
    const a = await setup();
    return { a, b: secondServer(a, { linkedDataSigner: a.signer }) };
  }

  it('keeps issuing under an IACA another server deactivated for at most the cache bound (1 s)', async () => {
    const { a, b } = await twoServers();
    const iaca = await a.activeIaca();
    await a.issue();
    await b.iacas.update(a.ctx, iaca.id, { active: false });
    await expect(a.issue()).resolves.toMatchObject({ iacaId: iaca.id });
    a.clock.advance(1000);
    await expect(a.issue()).rejects.toMatchObject({ message: NO_IACA });
  });

  it('never signs with a signer another server revoked: its key is gone, so the chain is read again at once', async () => {
    const { a, b } = await twoServers();
    await a.activeIaca();
    const first = await a.issue();
    await b.documentSigners.revoke(a.ctx, first.documentSignerId);
    const next = await a.issue();
    expect(next.documentSignerId).not.toBe(first.documentSignerId);
  });
});
