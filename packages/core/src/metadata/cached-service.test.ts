import { fakeClock } from '../../test/kit.ts';
import { describe, expect, it } from 'vitest';
import { contextFor, harness } from '../../test/harness.ts';
import type { ConfigurationStamp } from '../configurations/ports.ts';
import { cacheIssuerMetadata } from './cached-service.ts';
import type { IssuerMetadataService } from './service.ts';

/** A service that builds a new document on every call and counts them; stamps the test sets. */
async function setup(maxDocuments?: number) {
  const { tenant } = await harness().tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  let builds = 0;
  let stamps: ConfigurationStamp[] = [{ id: 'c1', revision: '1' }];
  const inner: IssuerMetadataService = {
    issuerMetadata: async (ctx, basePath = '') => ({ credential_issuer: `${ctx.origin}${basePath}`, build: ++builds, nested: { list: [1] } }),
    authorizationServerMetadata: async () => ({ issuer: 'as', build: ++builds }),
    metadataSigner: async () => undefined,
    signedIssuerMetadata: async () => undefined,
    jwtVcIssuerMetadata: async () => ({ issuer: 'jwt-vc', build: ++builds }),
    typeMetadata: async () => ({ body: '{}', integrity: 'sha256-' }),
  };
  const cached = cacheIssuerMetadata(inner, { stamps: async () => stamps, clock: fakeClock(), ...(maxDocuments ? { maxDocuments } : {}) });
  return {
    cached,
    ctx: contextFor(tenant, null),
    builds: () => builds,
    setStamps: (s: ConfigurationStamp[]) => void (stamps = s),
  };
}

describe('cacheIssuerMetadata', () => {
  it('serves the same frozen document while the stamps are unchanged, and rebuilds when one changes', async () => {
    const { cached, ctx, builds, setStamps } = await setup();
    const first = await cached.issuerMetadata(ctx);
    expect(await cached.issuerMetadata(ctx)).toBe(first);
    expect(builds()).toBe(1);
    expect(Object.isFrozen((first.nested as { list: number[] }).list)).toBe(true);
    setStamps([{ id: 'c1', revision: '2' }]);
    const second = await cached.issuerMetadata(ctx);
    expect(second).not.toBe(first);
    expect(second.build).toBe(2);
    setStamps([
      { id: 'c1', revision: '2' },
      { id: 'c2', revision: '1' },
    ]);
    expect((await cached.issuerMetadata(ctx)).build).toBe(3);
  });

  it('rebuilds when the tenant’s batch size changes, which comes with the tenant, not the stamps (issue 30)', async () => {
    const { cached, ctx } = await setup();
    const first = await cached.issuerMetadata(ctx);
    expect(await cached.issuerMetadata({ ...ctx, tenant: { ...ctx.tenant, batchSize: 1 } })).toBe(first);
    const batched = await cached.issuerMetadata({ ...ctx, tenant: { ...ctx.tenant, batchSize: 10 } });
    expect(batched.build).toBe(2);
    expect(await cached.issuerMetadata({ ...ctx, tenant: { ...ctx.tenant, batchSize: 10 } })).toBe(batched);
  });

  it('keeps one document per issuer identifier, and forgets the least recently served past its limit', async () => {
    const { cached, ctx, builds } = await setup(1);
    const root = await cached.issuerMetadata(ctx);
    const mounted = await cached.issuerMetadata(ctx, '/issuance');
    expect(mounted.credential_issuer).toBe(`${ctx.origin}/issuance`);
    expect(builds()).toBe(2);
    // Only one is kept: the root's document was dropped for the mounted one.
    expect(await cached.issuerMetadata(ctx)).not.toBe(root);
    expect(builds()).toBe(3);
  });

  it('passes the authorization server metadata and the JWT VC Issuer Metadata through uncached', async () => {
    const { cached, ctx } = await setup();
    expect((await cached.authorizationServerMetadata(ctx)).build).toBe(1);
    expect((await cached.authorizationServerMetadata(ctx)).build).toBe(2);
    expect((await cached.jwtVcIssuerMetadata(ctx)).build).toBe(3);
    expect((await cached.jwtVcIssuerMetadata(ctx)).build).toBe(4);
  });
});
