import { describe, expect, it } from 'vitest';
import { contextFor, PLATFORM, withTenant } from '../../test/harness.ts';
import { createDidConfigurationService, createLinkageCredentials } from './configuration.ts';

const host = `acme.eu01.${PLATFORM}`;
const DAY = 86_400_000;

/** The service as the domain builds it, without the caches createVellum puts around it (cached-configuration.test.ts). */
async function setup() {
  const h = await withTenant();
  const linkage = createLinkageCredentials({ signer: h.signer });
  const didConfiguration = createDidConfigurationService({ store: h.store, clock: h.clock, addressing: h.addressing, linkage });
  return { ...h, didConfiguration, visitor: contextFor(h.tenant, null) };
}

describe('the DID configuration (DIF Well Known DID Configuration)', () => {
  it('holds one domain linkage credential per DID, for the tenant’s public origin, under entries and linked_dids', async () => {
    const { dids, didConfiguration, ctx, visitor } = await setup();
    const ed = await dids.create(ctx, { method: 'key' });
    const p256 = await dids.create(ctx, { method: 'key', options: { keyType: 'P-256' } });
    const web = await dids.create(ctx, { method: 'web', options: { url: host } });
    const configuration = await didConfiguration.get(visitor);
    expect(configuration['@context']).toBe('https://identity.foundation/.well-known/did-configuration/v1');
    expect(configuration.linked_dids).toEqual(configuration.entries);
    expect(configuration.entries.map((e) => e.issuer)).toEqual([ed.did, p256.did, web.did]);
    const [first, second, third] = configuration.entries;
    expect(first).toEqual({
      '@context': ['https://www.w3.org/2018/credentials/v1', 'https://identity.foundation/.well-known/did-configuration/v1'],
      issuer: ed.did,
      issuanceDate: '2026-05-01T12:00:00Z',
      expirationDate: '2027-05-01T12:00:00Z',
      type: ['VerifiableCredential', 'DomainLinkageCredential'],
      credentialSubject: { id: ed.did, origin: `https://${host}` },
      proof: {
        type: 'Ed25519Signature2018',
        created: '2026-05-01T12:00:00Z',
        verificationMethod: ed.localMetadata.keys[0]!.didDocumentKeyId,
        proofPurpose: 'assertionMethod',
        jws: expect.any(String),
      },
    });
    // P-256 keys sign with JsonWebSignature2020, whose context the credential then names.
    expect(second?.['@context']).toContain('https://w3id.org/security/suites/jws-2020/v1');
    expect(second?.proof).toMatchObject({ type: 'JsonWebSignature2020', verificationMethod: p256.localMetadata.keys[0]!.didDocumentKeyId });
    // A did:web signs with its Ed25519 key.
    expect(third?.proof).toMatchObject({ type: 'Ed25519Signature2018', verificationMethod: expect.stringMatching(/#z6Mk/) });
  });

  it('is empty for a tenant without DIDs, and never shows another tenant’s', async () => {
    const { dids, didConfiguration, ctx, tenants } = await setup();
    await dids.create(ctx, { method: 'key' });
    const { tenant: other } = await tenants.createTenant({ subdomain: 'other', region: 'us01' });
    expect(await didConfiguration.get(contextFor(other, null))).toEqual({
      '@context': 'https://identity.foundation/.well-known/did-configuration/v1',
      entries: [],
      linked_dids: [],
    });
  });

  it('reads and signs on every call: a new DID, a deleted one and a new origin show at once', async () => {
    const { dids, domains, dns, didConfiguration, ctx, visitor, signer } = await setup();
    const kept = await dids.create(ctx, { method: 'key' });
    const gone = await dids.create(ctx, { method: 'key' });
    await didConfiguration.get(visitor);
    expect(signer.calls).toBe(2);
    const added = await dids.create(ctx, { method: 'web', options: { url: host } });
    expect((await didConfiguration.get(visitor)).entries.map((e) => e.issuer)).toEqual([kept.did, gone.did, added.did]);
    expect(signer.calls).toBe(5);
    await dids.delete(ctx, gone.did);
    expect((await didConfiguration.get(visitor)).entries.map((e) => e.issuer)).toEqual([kept.did, added.did]);
    const domain = await domains.create(ctx, { domain: 'issuer.example.com' });
    dns.records['issuer.example.com'] = [domain.verificationToken];
    await domains.verify(ctx);
    expect((await didConfiguration.get(visitor)).entries.map((e) => e.credentialSubject.origin)).toEqual([
      'https://issuer.example.com',
      'https://issuer.example.com',
    ]);
    expect(signer.calls).toBe(9);
  });

  it('tells a cache when its credentials are due to be signed again: 30 days before they expire, never for none', async () => {
    const { dids, didConfiguration, ctx, visitor, clock } = await setup();
    expect((await didConfiguration.build(visitor)).renewAt).toBe(Number.POSITIVE_INFINITY);
    await dids.create(ctx, { method: 'key' });
    const built = await didConfiguration.build(visitor);
    expect(built.complete).toBe(true);
    expect(built.renewAt).toBe(clock.now().getTime() + 335 * DAY);
    expect(built.configuration.entries[0]?.expirationDate).toBe('2027-05-01T12:00:00Z');
  });

  it('leaves out a DID whose key is gone, and says the document is not complete', async () => {
    const { dids, didConfiguration, ctx, visitor, keys } = await setup();
    const kept = await dids.create(ctx, { method: 'key' });
    const doomed = await dids.create(ctx, { method: 'key' });
    // The DID's key is gone but its row is still listed: the race a concurrent delete makes.
    await keys.destroy(ctx.tenant.id, doomed.localMetadata.keys[0]!.kmsKeyId);
    const built = await didConfiguration.build(visitor);
    expect(built.configuration.entries.map((e) => e.issuer)).toEqual([kept.did]);
    expect(built.complete).toBe(false);
    expect((await didConfiguration.get(visitor)).entries.map((e) => e.issuer)).toEqual([kept.did]);
  });
});
