import { describe, expect, it } from 'vitest';
import { contextFor, PLATFORM, secondServer, withTenant } from '../../test/harness.ts';
import { fakeClock } from '../../test/kit.ts';
import type { Tenant } from '../tenancy/model.ts';
import { cacheDidConfiguration, cacheLinkageCredentials } from './cached-configuration.ts';
import type { BuiltDidConfiguration, DidConfigurationBuilder, DomainLinkageCredential, LinkageCredentials } from './configuration.ts';
import type { DidRecord } from './model.ts';
import type { DidStamp } from './ports.ts';

const host = `acme.eu01.${PLATFORM}`;
const DAY = 86_400_000;

/** The DID configuration as createVellum composes it: the service inside both caches. */
async function setup() {
  const h = await withTenant();
  return { ...h, visitor: contextFor(h.tenant, null) };
}

describe('the DID configuration behind its caches', () => {
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
    const b = secondServer(a);
    const first = await a.dids.create(a.ctx, { method: 'key' });
    expect((await b.didConfiguration.get(a.visitor)).entries.map((e) => e.issuer)).toEqual([first.did]);
    const second = await b.dids.create(a.ctx, { method: 'key' });
    expect((await a.didConfiguration.get(a.visitor)).entries.map((e) => e.issuer)).toEqual([first.did, second.did]);
    await b.dids.delete(a.ctx, first.did);
    expect((await a.didConfiguration.get(a.visitor)).entries.map((e) => e.issuer)).toEqual([second.did]);
  });
});

const visitorOf = (id: string) => contextFor({ id, subdomain: id, region: 'eu01' } as Tenant, null);

/**
 * A service whose every build makes a new document and is counted; what a build answers, the
 * stamps and the origin are the test's to set, and `hold` keeps builds pending until released.
 */
function fakeBuilds(cachedTenants?: number) {
  const clock = fakeClock('2026-05-01T12:00:00.000Z');
  const state = {
    stamps: [{ did: 'did:key:a', revision: '1' }] as DidStamp[],
    origin: 'https://acme.example',
    renewAt: Number.POSITIVE_INFINITY,
    complete: true,
    hold: false,
  };
  const builds: { tenantId: string; release: () => void }[] = [];
  const service: DidConfigurationBuilder = {
    get: async (ctx) => (await service.build(ctx)).configuration,
    async build(ctx): Promise<BuiltDidConfiguration> {
      const { renewAt, complete, hold } = state;
      let release = () => {};
      const gate = hold ? new Promise<void>((resolve) => (release = resolve)) : undefined;
      builds.push({ tenantId: ctx.tenant.id, release: () => release() });
      if (gate) await gate;
      const entries = [{ issuer: `build-${builds.length}` } as DomainLinkageCredential];
      return {
        configuration: { '@context': 'https://identity.foundation/.well-known/did-configuration/v1', entries, linked_dids: entries },
        renewAt,
        complete,
      };
    },
  };
  const cached = cacheDidConfiguration(service, {
    stamps: async () => state.stamps,
    origin: async () => state.origin,
    clock,
    ...(cachedTenants ? { cachedTenants } : {}),
  });
  return {
    cached,
    state,
    builds,
    clock,
    visitor: visitorOf('acme'),
    other: visitorOf('other'),
    third: visitorOf('third'),
  };
}

describe('cacheDidConfiguration', () => {
  it('serves the same document while the stamps and the origin are unchanged, and builds again when either changes', async () => {
    const { cached, state, builds, visitor } = fakeBuilds();
    const first = await cached.get(visitor);
    expect(await cached.get(visitor)).toBe(first);
    expect(builds).toHaveLength(1);
    state.stamps = [{ did: 'did:key:a', revision: '2' }];
    const second = await cached.get(visitor);
    expect(second).not.toBe(first);
    expect(await cached.get(visitor)).toBe(second);
    state.origin = 'https://issuer.example.com';
    expect(await cached.get(visitor)).not.toBe(second);
    expect(builds).toHaveLength(3);
  });

  it('builds again once one of the document’s credentials is due to be signed again', async () => {
    const { cached, state, builds, clock, visitor } = fakeBuilds();
    state.renewAt = clock.now().getTime() + 1000;
    const first = await cached.get(visitor);
    clock.advance(999);
    expect(await cached.get(visitor)).toBe(first);
    clock.advance(1);
    expect(await cached.get(visitor)).not.toBe(first);
    expect(builds).toHaveLength(2);
  });

  it('keeps no document that left out a DID deleted while it was built', async () => {
    const { cached, state, builds, visitor } = fakeBuilds();
    state.complete = false;
    await cached.get(visitor);
    await cached.get(visitor);
    expect(builds).toHaveLength(2);
  });

  it('keeps a build under the stamps read before it began, so a change made meanwhile shows on the next request', async () => {
    const { cached, state, builds, visitor } = fakeBuilds();
    state.hold = true;
    const pending = cached.get(visitor);
    await new Promise((resolve) => setTimeout(resolve, 0));
    state.stamps = [...state.stamps, { did: 'did:key:b', revision: '1' }];
    state.hold = false;
    builds[0]?.release();
    const first = await pending;
    expect(await cached.get(visitor)).not.toBe(first);
    expect(builds).toHaveLength(2);
  });

  it('keeps each tenant’s document apart, and forgets the least recently served past its limit', async () => {
    const { cached, builds, visitor, other, third } = fakeBuilds(2);
    const mine = await cached.get(visitor);
    const theirs = await cached.get(other);
    expect(theirs).not.toBe(mine);
    expect(await cached.get(visitor)).toBe(mine);
    await cached.get(third);
    expect(await cached.get(visitor)).toBe(mine);
    expect(await cached.get(other)).not.toBe(theirs);
    expect(builds.map((b) => b.tenantId)).toEqual(['acme', 'other', 'third', 'other']);
  });
});

describe('cacheLinkageCredentials', () => {
  const record = (tenantId: string, did: string): DidRecord => ({
    tenantId,
    did,
    method: 'key',
    keys: [{ didDocumentKeyId: `${did}#0`, kmsKeyId: `key-${did}`, algorithm: 'Ed25519', publicJwk: { kty: 'OKP' } as DidRecord['keys'][number]['publicJwk'] }],
    createdAt: '2026-05-01T12:00:00.000Z',
  });
  /** Signs every DID it is given, and lists them; while `failing`, every signature fails. */
  function fakeLinkage() {
    const signed: string[] = [];
    const state = { failing: false };
    const inner: LinkageCredentials = {
      forDids: (_tenantId, records, origin, now) =>
        records.map((r) => {
          signed.push(r.did);
          const credential = { issuer: r.did, credentialSubject: { id: r.did, origin } } as DomainLinkageCredential;
          return {
            keyId: r.keys[0]!.kmsKeyId,
            credential: state.failing ? Promise.reject(new Error('KMS unavailable')) : Promise.resolve(credential),
            renewAt: now + DAY,
          };
        }),
    };
    return { inner, signed, state };
  }

  it('drops a failed signature, so the next call signs again', async () => {
    const { inner, signed, state } = fakeLinkage();
    const linkage = cacheLinkageCredentials(inner);
    const a = record('t1', 'did:key:a');
    state.failing = true;
    await expect(linkage.forDids('t1', [a], 'https://one.example', 0)[0]?.credential).rejects.toThrow('KMS unavailable');
    state.failing = false;
    await expect(linkage.forDids('t1', [a], 'https://one.example', 0)[0]?.credential).resolves.toMatchObject({ issuer: a.did });
    linkage.forDids('t1', [a], 'https://one.example', 0);
    expect(signed).toEqual([a.did, a.did]);
  });

  it('forgets a DID it is not given again, and the least recently signed-for tenant past its limit', async () => {
    const { inner, signed } = fakeLinkage();
    const linkage = cacheLinkageCredentials(inner, { cachedTenants: 1 });
    const [a, b] = [record('t1', 'did:key:a'), record('t1', 'did:key:b')];
    linkage.forDids('t1', [a, b], 'https://one.example', 0);
    linkage.forDids('t1', [a], 'https://one.example', 0);
    linkage.forDids('t1', [a, b], 'https://one.example', 0);
    expect(signed).toEqual(['did:key:a', 'did:key:b', 'did:key:b']);
    linkage.forDids('t2', [record('t2', 'did:key:c')], 'https://two.example', 0);
    linkage.forDids('t1', [a, b], 'https://one.example', 0);
    expect(signed).toEqual(['did:key:a', 'did:key:b', 'did:key:b', 'did:key:c', 'did:key:a', 'did:key:b']);
  });
});
