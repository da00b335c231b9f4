import { describe, expect, it } from 'vitest';
import { contextFor, harness, PLATFORM } from '../../test/harness.ts';
import { fakeCertificatePem, fakeCsrBody } from '../../test/kit.ts';
import { importedRoot } from '../../test/mdoc-pki.ts';
import { refusal } from '../../test/refusal.ts';
import type { CredentialConfigurationInput } from './model.ts';

// docs/decisions.md "Issuer certificates (issue 29)": a dc+sd-jwt configuration's keyResolution,
// its default (x5c on an https issuer with an active issuer CA, did otherwise) and its refusals.

const ISSUER = `https://acme.eu01.${PLATFORM}`;

/** acme is served over https; demo, the default tenant, at the harness's http://localhost:3000. */
async function setup(subdomain = 'acme') {
  const h = harness();
  const { tenant } = await h.tenants.createTenant({ subdomain, region: 'eu01' });
  return { ...h, tenant, ctx: contextFor(tenant) };
}

/** A dc+sd-jwt body; `keyResolution` is one of its own fields, which the common input type does not list. */
const pid = (over: Partial<CredentialConfigurationInput> & { keyResolution?: string } = {}): CredentialConfigurationInput => ({
  type: 'https://credentials.example.com/pid',
  expiresIn: { days: 30 },
  claimMappings: { given_name: { mapFrom: 'claims.givenName', required: true } },
  ...over,
});

/** The key resolution a configuration view shows (a dc+sd-jwt field). */
const resolutionOf = async (view: Promise<object> | object) => ((await view) as { keyResolution?: string }).keyResolution;

async function withActiveIssuerCa(subdomain?: string) {
  const h = await setup(subdomain);
  const ca = await h.issuerCas.create(h.ctx, { country: 'US' });
  await h.issuerCas.update(h.ctx, ca.id, { active: true });
  return { ...h, ca };
}

describe('the key resolution of a new dc+sd-jwt configuration', () => {
  it('is x5c on an https issuer with an active issuer CA, whose leaf for the issuer is then ready', async () => {
    const { configurations, issuerSigners, ctx } = await withActiveIssuerCa();
    const created = await configurations.create(ctx, 'dc+sd-jwt', pid());
    expect(await resolutionOf(created)).toBe('x5c');
    expect(await resolutionOf(configurations.get(ctx, 'dc+sd-jwt', created.id))).toBe('x5c');
    expect((await issuerSigners.list(ctx, {})).data).toEqual([
      expect.objectContaining({ use: 'credential', subjectAltNames: [ISSUER, `acme.eu01.${PLATFORM}`] }),
    ]);
  });

  it('is did without an issuer CA, with an inactive one, or with only an IACA', async () => {
    const { configurations, issuerCas, iacas, ctx } = await setup();
    expect(await resolutionOf(configurations.create(ctx, 'dc+sd-jwt', pid({ type: 'A' })))).toBe('did');
    await issuerCas.create(ctx, { country: 'US' });
    expect(await resolutionOf(configurations.create(ctx, 'dc+sd-jwt', pid({ type: 'B' })))).toBe('did');
    const iaca = await iacas.create(ctx, { country: 'US' });
    await iacas.update(ctx, iaca.id, { active: true });
    expect(await resolutionOf(configurations.create(ctx, 'dc+sd-jwt', pid({ type: 'C' })))).toBe('did');
  });

  it('is did on an http issuer, even with an active issuer CA', async () => {
    const { configurations, addressing, tenant, ctx } = await withActiveIssuerCa('demo');
    expect(await addressing.publicOrigin(tenant)).toMatch(/^http:\/\//);
    expect(await resolutionOf(configurations.create(ctx, 'dc+sd-jwt', pid()))).toBe('did');
  });

  it('is did when the body pins an issuer DID', async () => {
    const { configurations, dids, ctx } = await withActiveIssuerCa();
    const did = (await dids.create(ctx, { method: 'key', options: { keyType: 'P-256' } })).did;
    const pinned = await configurations.create(ctx, 'dc+sd-jwt', pid({ type: 'Pinned', issuer: { id: did } }));
    expect(pinned).toMatchObject({ keyResolution: 'did', issuer: { id: did } });
  });

  it('is x5c for revocable credentials too, whose status list a status list leaf of the same issuer CA then signs (issue 29 point 4)', async () => {
    const { configurations, issuerSigners, ctx } = await withActiveIssuerCa();
    const revocable = await configurations.create(ctx, 'dc+sd-jwt', pid({ type: 'Revocable', revocable: true }));
    expect(revocable).toMatchObject({ keyResolution: 'x5c', revocable: true });
    expect((await issuerSigners.list(ctx, {})).data.map((l) => l.use).sort()).toEqual(['credential', 'status-list']);
  });

  it('gives cwt and cwt_vc none unless asked: x5c there is an opt-in, checked like dc+sd-jwt', async () => {
    const { configurations, ctx } = await withActiveIssuerCa();
    expect(await configurations.create(ctx, 'cwt', pid({ type: 'Badge' }))).not.toHaveProperty('keyResolution');
    expect(await configurations.create(ctx, 'cwt_vc', pid({ type: 'Badge2', keyResolution: 'x5c' }))).toMatchObject({ keyResolution: 'x5c' });
    const pinned = await refusal(configurations.create(ctx, 'cwt', pid({ type: 'Badge3', keyResolution: 'x5c', issuer: { id: 'did:key:zDnaexample' } })));
    expect(pinned.details).toEqual(expect.arrayContaining([expect.objectContaining({ param: 'issuer.id' })]));
  });

  it('keeps a cwt configuration’s x5c when it is replaced by a body that names none', async () => {
    const { configurations, ctx } = await withActiveIssuerCa();
    const created = await configurations.create(ctx, 'cwt', pid({ type: 'Badge', keyResolution: 'x5c' }));
    const replaced = await configurations.update(ctx, 'cwt', created.id, pid({ type: 'Badge', name: 'Renamed' }));
    expect(replaced).toMatchObject({ name: 'Renamed', keyResolution: 'x5c' });
    const back = await configurations.update(ctx, 'cwt', created.id, pid({ type: 'Badge', keyResolution: 'did' }));
    expect(back).toMatchObject({ keyResolution: 'did' });
  });

  it('refuses x5c on cwt without an issuer CA', async () => {
    const { configurations, ctx } = await setup();
    const refused = await refusal(configurations.create(ctx, 'cwt', pid({ type: 'Badge', keyResolution: 'x5c' })));
    expect(refused.details).toEqual([expect.objectContaining({ param: 'keyResolution' })]);
  });
});

describe('replacing a dc+sd-jwt configuration', () => {
  it('keeps its key resolution when the body names none', async () => {
    const { configurations, issuerCas, ctx } = await setup();
    const older = await configurations.create(ctx, 'dc+sd-jwt', pid({ type: 'Old' }));
    expect(await resolutionOf(older)).toBe('did');
    const ca = await issuerCas.create(ctx, { country: 'US' });
    await issuerCas.update(ctx, ca.id, { active: true });
    // An issuer CA now active does not move an existing configuration to x5c.
    expect(await resolutionOf(configurations.update(ctx, 'dc+sd-jwt', older.id, pid({ type: 'Old', name: 'Renamed' })))).toBe('did');
    const newer = await configurations.create(ctx, 'dc+sd-jwt', pid({ type: 'New' }));
    expect(await resolutionOf(newer)).toBe('x5c');
    expect(await resolutionOf(configurations.update(ctx, 'dc+sd-jwt', newer.id, pid({ type: 'New', name: 'Renamed' })))).toBe('x5c');
    // Named, it changes.
    expect(await resolutionOf(configurations.update(ctx, 'dc+sd-jwt', newer.id, pid({ type: 'New', keyResolution: 'did' })))).toBe('did');
    expect(await resolutionOf(configurations.update(ctx, 'dc+sd-jwt', older.id, pid({ type: 'Old', keyResolution: 'x5c' })))).toBe('x5c');
  });

  it('keeps did for a configuration saved before the field existed', async () => {
    const { configurations, store, ctx, tenant, issuerCas } = await setup();
    const saved = await configurations.create(ctx, 'dc+sd-jwt', pid());
    const stored = (await store.credentialConfigurations.get(tenant.id, saved.id))!;
    const { keyResolution: _, ...before } = stored as typeof stored & { keyResolution?: string };
    await store.credentialConfigurations.update(before as typeof stored);
    const ca = await issuerCas.create(ctx, { country: 'US' });
    await issuerCas.update(ctx, ca.id, { active: true });
    expect(await resolutionOf(configurations.update(ctx, 'dc+sd-jwt', saved.id, pid({ name: 'Again' })))).toBe('did');
  });
});

describe('refusals of keyResolution x5c (400, nothing stored)', () => {
  it('without an issuer CA that can sign for the issuer: on keyResolution, saying where to create one', async () => {
    const { configurations, ctx } = await setup();
    const error = await refusal(configurations.create(ctx, 'dc+sd-jwt', pid({ keyResolution: 'x5c' })));
    expect(error).toMatchObject({
      code: 'BadRequest',
      details: [expect.objectContaining({ param: 'keyResolution', value: 'x5c', msg: expect.stringContaining('/v2/credentials/issuer-cas') })],
    });
    expect((await configurations.list(ctx, 'dc+sd-jwt', {})).data).toEqual([]);
  });

  it('under an imported issuer CA whose leaves do not name the issuer: on keyResolution, naming the issuer', async () => {
    const { configurations, issuerCas, issuerSigners, ctx } = await setup();
    const ca = await issuerCas.create(ctx, { certificatePem: importedRoot() });
    await issuerCas.update(ctx, ca.id, { active: true });
    const error = await refusal(configurations.create(ctx, 'dc+sd-jwt', pid({ keyResolution: 'x5c' })));
    expect(error.details).toEqual([expect.objectContaining({ param: 'keyResolution', msg: expect.stringContaining(ISSUER) })]);
    // With a certified leaf naming the issuer, the same body is taken.
    const leaf = await issuerSigners.create(ctx, { issuerCaId: ca.id, use: 'credential' });
    const certificatePem = fakeCertificatePem({
      serialNumber: '01',
      subject: { commonName: 'Leaf', country: 'US' },
      issuer: ca.certificateFingerprint,
      notBefore: '2026-04-01T00:00:00.000Z',
      notAfter: '2027-04-01T00:00:00.000Z',
      publicKey: fakeCsrBody(leaf.csrPem!)!.publicKey,
      isCa: false,
      extendedKeyUsages: [],
      subjectAltNames: [ISSUER],
    });
    await issuerSigners.update(ctx, leaf.id, { active: true, certificatePem });
    await expect(configurations.create(ctx, 'dc+sd-jwt', pid({ keyResolution: 'x5c' }))).resolves.toMatchObject({ keyResolution: 'x5c' });
  });

  it('beside a pinned issuer.id: on issuer.id', async () => {
    const { configurations, dids, ctx } = await withActiveIssuerCa();
    const did = (await dids.create(ctx, { method: 'key', options: { keyType: 'P-256' } })).did;
    const error = await refusal(configurations.create(ctx, 'dc+sd-jwt', pid({ keyResolution: 'x5c', issuer: { id: did } })));
    expect(error.details).toEqual([expect.objectContaining({ param: 'issuer.id', value: did, msg: expect.stringContaining('keyResolution x5c') })]);
  });

  it('with revocable: true under an imported issuer CA that has no status list leaf for the issuer: on keyResolution', async () => {
    const { configurations, issuerCas, issuerSigners, ctx } = await setup();
    const ca = await issuerCas.create(ctx, { certificatePem: importedRoot() });
    await issuerCas.update(ctx, ca.id, { active: true });
    const leaf = await issuerSigners.create(ctx, { issuerCaId: ca.id, use: 'credential' });
    const certificatePem = fakeCertificatePem({
      serialNumber: '02',
      subject: { commonName: 'Leaf', country: 'US' },
      issuer: ca.certificateFingerprint,
      notBefore: '2026-04-01T00:00:00.000Z',
      notAfter: '2027-04-01T00:00:00.000Z',
      publicKey: fakeCsrBody(leaf.csrPem!)!.publicKey,
      isCa: false,
      extendedKeyUsages: [],
      subjectAltNames: [ISSUER],
    });
    await issuerSigners.update(ctx, leaf.id, { active: true, certificatePem });
    // Its credentials could be signed, but their status list could not: refused, not issued unverifiable.
    const error = await refusal(configurations.create(ctx, 'dc+sd-jwt', pid({ keyResolution: 'x5c', revocable: true })));
    expect(error.details).toEqual([expect.objectContaining({ param: 'keyResolution', msg: expect.stringContaining('status-list') })]);
    await expect(configurations.create(ctx, 'dc+sd-jwt', pid({ keyResolution: 'x5c', revocable: false }))).resolves.toMatchObject({ keyResolution: 'x5c' });
  });

  it('with issuer null: a 400 on issuer, whatever the key resolution (never a 500)', async () => {
    const { configurations, ctx } = await withActiveIssuerCa();
    for (const over of [{}, { keyResolution: 'x5c' }, { keyResolution: 'did' }]) {
      const error = await refusal(configurations.create(ctx, 'dc+sd-jwt', pid({ ...over, issuer: null as never })));
      expect(error.code, JSON.stringify(over)).toBe('BadRequest');
      expect(error.details, JSON.stringify(over)).toEqual([expect.objectContaining({ param: 'issuer' })]);
    }
  });

  it('with a value that is neither x5c nor did', async () => {
    const { configurations, ctx } = await withActiveIssuerCa();
    const error = await refusal(configurations.create(ctx, 'dc+sd-jwt', pid({ keyResolution: 'jwks' as never })));
    expect(error.details).toEqual([expect.objectContaining({ param: 'keyResolution', msg: expect.stringContaining('x5c') })]);
  });
});
