import { describe, expect, it } from 'vitest';
import { contextFor, harness, PLATFORM } from '../../test/harness.ts';
import { fakeFormatSigners, fakeX509Authority } from '../../test/kit.ts';
import { fakeIdentityProvider, fakeSessionTokens } from '../../test/kit.ts';
import { fakeDigests, fakeWalletTokens } from '../../test/kit.ts';
import { fakeCredentialEncryption, fakeJwtProofVerifier, fakeProofVerifier } from '../../test/kit.ts';
import { fakeSecretBox } from '../../test/kit.ts';
import { createVellum } from '../compose.ts';

const host = `acme.eu01.${PLATFORM}`;
const DAY = 86_400_000;

async function setup() {
  const h = harness();
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  const ctx = contextFor(tenant);
  return { ...h, tenant, ctx, visitor: contextFor(tenant, null) };
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

  it('signs each credential once and serves it again, with the same dates, while it is fresh', async () => {
    const { dids, didConfiguration, ctx, visitor, signer, clock } = await setup();
    for (let i = 0; i < 3; i++) await dids.create(ctx, { method: 'key' });
    const first = await didConfiguration.get(visitor);
    expect(signer.calls).toBe(3);
    clock.advance(40 * DAY);
    const again = await didConfiguration.get(visitor);
    expect(signer.calls).toBe(3);
    expect(again).toEqual(first);
  });

  it('shows a new DID at once, signing only that one, and drops a deleted one at once', async () => {
    const { dids, didConfiguration, ctx, visitor, signer } = await setup();
    const kept = await dids.create(ctx, { method: 'key' });
    const gone = await dids.create(ctx, { method: 'key' });
    await didConfiguration.get(visitor);
    const added = await dids.create(ctx, { method: 'web', options: { url: host } });
    expect((await didConfiguration.get(visitor)).entries.map((e) => e.issuer)).toEqual([kept.did, gone.did, added.did]);
    expect(signer.calls).toBe(3);
    await dids.delete(ctx, gone.did);
    expect((await didConfiguration.get(visitor)).entries.map((e) => e.issuer)).toEqual([kept.did, added.did]);
    expect(signer.calls).toBe(3);
  });

  it('signs again once less than 30 days of the year’s validity remain', async () => {
    const { dids, didConfiguration, ctx, visitor, signer, clock } = await setup();
    await dids.create(ctx, { method: 'key' });
    const first = (await didConfiguration.get(visitor)).entries[0];
    clock.advance(334 * DAY);
    expect((await didConfiguration.get(visitor)).entries[0]).toEqual(first);
    clock.advance(2 * DAY);
    const renewed = (await didConfiguration.get(visitor)).entries[0];
    expect(signer.calls).toBe(2);
    expect(renewed?.issuanceDate).toBe('2027-04-02T12:00:00Z');
    expect(renewed?.expirationDate).toBe('2028-04-01T12:00:00Z');
    expect(Date.parse(renewed!.expirationDate)).toBeGreaterThan(Date.parse(first!.expirationDate));
  });

  it('follows the public origin: a verified custom domain gets freshly signed credentials', async () => {
    const { dids, domains, dns, didConfiguration, ctx, visitor, signer } = await setup();
    await dids.create(ctx, { method: 'key' });
    expect((await didConfiguration.get(visitor)).entries[0]?.credentialSubject.origin).toBe(`https://${host}`);
    const domain = await domains.create(ctx, { domain: 'issuer.example.com' });
    dns.records['issuer.example.com'] = [domain.verificationToken];
    await domains.verify(ctx);
    expect((await didConfiguration.get(visitor)).entries[0]?.credentialSubject.origin).toBe('https://issuer.example.com');
    expect(signer.calls).toBe(2);
  });

  it('never serves a credential signed by the keys of a deleted DID that was created again', async () => {
    const { dids, didConfiguration, ctx, visitor } = await setup();
    const before = await dids.create(ctx, { method: 'web', options: { url: host } });
    const old = (await didConfiguration.get(visitor)).entries[0];
    await dids.delete(ctx, before.did);
    const after = await dids.create(ctx, { method: 'web', options: { url: host } });
    expect(after.did).toBe(before.did);
    const renewed = (await didConfiguration.get(visitor)).entries[0];
    expect(renewed?.proof.jws).not.toBe(old?.proof.jws);
    expect(renewed?.proof.verificationMethod).toBe(after.localMetadata.keys[0]!.didDocumentKeyId);
  });

  it('signs each DID once when many requests arrive before the first signature is done', async () => {
    const { dids, didConfiguration, ctx, visitor, signer } = await setup();
    for (let i = 0; i < 4; i++) await dids.create(ctx, { method: 'key' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => didConfiguration.get(visitor)));
    expect(signer.calls).toBe(4);
    for (const answer of answers) expect(answer.entries).toHaveLength(4);
  });

  it('leaves out a DID deleted while its credential was being signed, and tries a failed signature again', async () => {
    const { dids, didConfiguration, ctx, visitor, store, keys, signer } = await setup();
    const kept = await dids.create(ctx, { method: 'key' });
    const doomed = await dids.create(ctx, { method: 'key' });
    // The DID's key is gone but its row is still listed: the race a concurrent delete makes.
    await keys.destroy(ctx.tenant.id, doomed.localMetadata.keys[0]!.kmsKeyId);
    expect((await didConfiguration.get(visitor)).entries.map((e) => e.issuer)).toEqual([kept.did]);
    await store.dids.delete(ctx.tenant.id, doomed.did);
    expect((await didConfiguration.get(visitor)).entries.map((e) => e.issuer)).toEqual([kept.did]);
    expect(signer.calls).toBe(2);
  });

  it('shows DIDs created and deleted through another server sharing the store at once', async () => {
    const a = await setup();
    // A second server: its own use cases and caches over the same database and keys.
    const b = createVellum({
      store: a.store,
      clock: a.clock,
      ids: { uuid: () => crypto.randomUUID(), token: () => 'x', bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) },
      hasher: { hash: async (s) => s, verify: async () => false },
      tokens: { sign: async () => '', verify: async () => undefined },
      dns: a.dns,
      keys: a.keys,
      ...fakeFormatSigners(a.keys),
      x509: fakeX509Authority(a.keys),
      platformDomain: PLATFORM,
      publicUrl: 'http://localhost:3000',
      adminTokenTtlSeconds: 60,
      digests: fakeDigests(),
      walletTokens: fakeWalletTokens(a.clock),
      proofVerifier: fakeProofVerifier(),
      jwtProofs: fakeJwtProofVerifier(),
      credentialEncryption: fakeCredentialEncryption(),
      nonceCodec: a.nonceCodec,
      secretBox: fakeSecretBox(),
      identityProvider: fakeIdentityProvider(),
      sessionTokens: fakeSessionTokens(a.clock),
    });
    const first = await a.dids.create(a.ctx, { method: 'key' });
    expect((await b.didConfiguration.get(a.visitor)).entries.map((e) => e.issuer)).toEqual([first.did]);
    const second = await b.dids.create(a.ctx, { method: 'key' });
    expect((await a.didConfiguration.get(a.visitor)).entries.map((e) => e.issuer)).toEqual([first.did, second.did]);
    await b.dids.delete(a.ctx, first.did);
    expect((await a.didConfiguration.get(a.visitor)).entries.map((e) => e.issuer)).toEqual([second.did]);
  });
});
