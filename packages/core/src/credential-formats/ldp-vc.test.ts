import { describe, expect, it } from 'vitest';
import { holderKey, issuing, LDP_VC_SUBJECT, ldpVcConfiguration } from '../../test/credentials.ts';
import { itRefusesAsADidSigner, signingTenant } from '../../test/format-issuance.ts';
import { fakeIds, fakeLinkedDataSigner } from '../../test/kit.ts';
import { didKeyOf } from '../dids/did-key.ts';
import { createLdpVcFormat, LDP_CLAIM_VOCABULARY } from './ldp-vc.ts';
import type { LinkedDataSigner, LinkedDataSignInput } from './port.ts';

const NOW = new Date('2026-05-01T12:00:00.750Z');
const VC_V1 = 'https://www.w3.org/2018/credentials/v1';

async function setup() {
  const t = await signingTenant();
  // The fake signs what it is given; the test records each input to see the document and the key.
  const fake = fakeLinkedDataSigner(t.keys);
  const inputs: LinkedDataSignInput[] = [];
  const signer: LinkedDataSigner = { contexts: fake.contexts, sign: (input) => (inputs.push(structuredClone(input)), fake.sign(input)) };
  const handler = createLdpVcFormat({ store: t.store, ids: fakeIds(900), signer });
  const holder = holderKey();
  const issue = issuing(handler, { tenant: t.tenant, configuration: ldpVcConfiguration(t.tenant.id), subject: LDP_VC_SUBJECT, holderKey: holder, now: NOW });
  return { ...t, inputs, signed: inputs, handler, holder, issue };
}

describe('ldp_vc issuance (W3C VC Data Model 1.1, docs/formats/ldp-vc.md)', () => {
  it('current form: @context, type, issuer DID, whole-second issuanceDate/expirationDate and the holder’s did:key as credentialSubject.id', async () => {
    const { issue, inputs, ed25519Did, holder } = await setup();
    const did = await ed25519Did();
    const issued = await issue();
    expect(inputs).toHaveLength(1);
    expect(inputs[0]?.document).toEqual({
      '@context': [VC_V1, { '@vocab': 'https://schema.org/' }],
      id: 'urn:uuid:00000000-0000-4000-8000-000000000385',
      type: ['VerifiableCredential', 'UniversityDegreeCredential'],
      issuer: did.did,
      issuanceDate: '2026-05-01T12:00:00Z',
      expirationDate: '2027-05-01T12:00:00Z',
      credentialSubject: { id: didKeyOf(holder), givenName: 'Susan', degree: 'BSc Physics', graduationYear: 2024, honours: true, country: 'NZ' },
    });
    expect(issued).toEqual({
      credential: { ...inputs[0]?.document, proof: expect.objectContaining({ type: 'Ed25519Signature2018' }) },
      validFrom: '2026-05-01T12:00:00.000Z',
      validUntil: '2027-05-01T12:00:00.000Z',
    });
  });

  it('legacy form: the issuer object (id, name, logoUrl, iconUrl), credentialBranding, name and description are signed too', async () => {
    const { issue, inputs, ed25519Did } = await setup();
    const did = await ed25519Did();
    await issue({ form: 'legacy' });
    expect(inputs[0]?.document).toMatchObject({
      issuer: { id: did.did, name: 'Acme University', logoUrl: 'https://acme.example/logo.png', iconUrl: 'https://acme.example/icon.png' },
      credentialBranding: { backgroundColor: '#1a2b3c', watermarkImageUrl: 'https://acme.example/watermark.png' },
      name: 'University degree',
      description: 'A bachelor degree',
    });
  });

  it('legacy form leaves out what the configuration does not set', async () => {
    const { issue, inputs, ed25519Did, tenant } = await setup();
    const did = await ed25519Did();
    const { credentialBranding: _b, name: _n, description: _d, ...bare } = ldpVcConfiguration(tenant.id, { issuer: { name: 'Acme' } });
    await issue({ form: 'legacy', configuration: bare });
    const document = inputs[0]?.document as Record<string, unknown>;
    expect(document.issuer).toEqual({ id: did.did, name: 'Acme' });
    expect(['credentialBranding', 'name', 'description'].filter((member) => member in document)).toEqual([]);
  });

  it('puts the configuration’s contexts between credentials v1 and the claim vocabulary, and its additional types after its type', async () => {
    const { issue, inputs, ed25519Did, tenant } = await setup();
    await ed25519Did();
    await issue({
      configuration: ldpVcConfiguration(tenant.id, {
        contexts: ['https://schema.example/degree/v1'],
        additionalTypes: ['DegreeCredential', 'org.example:Diploma'],
      }),
    });
    expect(inputs[0]?.document['@context']).toEqual([VC_V1, 'https://schema.example/degree/v1', LDP_CLAIM_VOCABULARY]);
    expect(inputs[0]?.document.type).toEqual(['VerifiableCredential', 'UniversityDegreeCredential', 'DegreeCredential', 'org.example:Diploma']);
  });

  it('signs with the configuration’s proof type, the DID key as verificationMethod, for assertionMethod, created at the issuance second', async () => {
    const { issue, inputs, ed25519Did, tenant } = await setup();
    const did = await ed25519Did();
    await issue({ configuration: ldpVcConfiguration(tenant.id, { proofType: 'Ed25519Signature2020' }) });
    const key = did.localMetadata.keys[0];
    expect(inputs[0]).toMatchObject({
      tenantId: tenant.id,
      keyId: key?.kmsKeyId,
      type: 'Ed25519Signature2020',
      verificationMethod: key?.didDocumentKeyId,
      proofPurpose: 'assertionMethod',
      created: '2026-05-01T12:00:00Z',
    });
    expect(key?.didDocumentKeyId).toMatch(new RegExp(`^${did.did}#z6Mk`));
  });

  it('binds to a P-256 or an Ed25519 holder key by its did:key', async () => {
    const { issue, inputs, ed25519Did } = await setup();
    await ed25519Did();
    const ed = holderKey('Ed25519');
    await issue({ holderKey: ed });
    expect((inputs[0]?.document.credentialSubject as { id: string }).id).toBe(didKeyOf(ed));
    expect(didKeyOf(ed)).toMatch(/^did:key:z6Mk/);
    const p256 = holderKey('P-256');
    await issue({ holderKey: p256 });
    expect((inputs[1]?.document.credentialSubject as { id: string }).id).toMatch(/^did:key:zDn/);
  });

  it('signs with the Ed25519 key of the newest DID that has one (a did:web has one of each), skipping newer P-256-only DIDs', async () => {
    const { issue, inputs, ed25519Did, p256Did, dids, ctx } = await setup();
    await ed25519Did();
    const newest = await ed25519Did();
    await p256Did();
    await issue();
    expect(inputs[0]).toMatchObject({ keyId: newest.localMetadata.keys[0]?.kmsKeyId, document: { issuer: newest.did } });
    const web = await dids.create(ctx, { method: 'web', options: { url: 'acme.eu01.vellum.test' } });
    await p256Did();
    await issue();
    const webEd25519 = web.localMetadata.keys.find((k) => k.didDocumentKeyId === inputs[1]?.verificationMethod);
    expect(inputs[1]?.document.issuer).toBe(web.did);
    expect(webEd25519?.kmsKeyId).toBe(inputs[1]?.keyId);
  });

  it('signs with the DID that issuer.id pins, even when a newer one exists', async () => {
    const { issue, inputs, ed25519Did, tenant } = await setup();
    const pinned = await ed25519Did();
    await ed25519Did();
    await issue({ form: 'legacy', configuration: ldpVcConfiguration(tenant.id, { issuer: { id: pinned.did, name: 'Acme' } }) });
    expect(inputs[0]).toMatchObject({ keyId: pinned.localMetadata.keys[0]?.kmsKeyId, document: { issuer: { id: pinned.did, name: 'Acme' } } });
  });

  itRefusesAsADidSigner({
    keyType: 'Ed25519',
    requiredClaim: 'givenName',
    setup,
    configurationOf: ldpVcConfiguration,
    pin: (did) => ({ issuer: { id: did, name: 'Acme' } }),
  });
});
