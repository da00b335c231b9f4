import { createPublicKey, verify } from 'node:crypto';
import { fakeClock, fakeKeyManager } from '../../test/kit.ts';
import { describe, expect, it } from 'vitest';
import { formatsForMetadata } from '../../test/formats.ts';
import { contextFor, harness } from '../../test/harness.ts';
import type { IssuerSigners, X509Signer } from '../issuer-pki/model.ts';
import type { KeyManager } from '../keys/ports.ts';
import { SIGNER_ROTATION_DAYS } from '../mdoc-pki/model.ts';
import { DomainError } from '../shared/errors.ts';
import type { Tenant } from '../tenancy/model.ts';
import { cacheIssuerMetadata } from './cached-service.ts';
import { LIVE_ISSUANCE_FEATURES } from './issuer-metadata.ts';
import { createIssuerMetadataService } from './service.ts';
import { buildJwtVcIssuerMetadata, SIGNED_METADATA_TYP, signIssuerMetadata } from './signed-metadata.ts';

const DAY = 24 * 60 * 60 * 1000;
const ISSUER = 'https://acme.vellum.test';

/** A leaf of a P-256 KeyManager key; its "certificates" are placeholders, which nothing here parses. */
async function leaf(keys: KeyManager, tenantId: string, signerId: string, notAfter: Date): Promise<X509Signer> {
  const key = await keys.create(tenantId, 'P-256');
  const der = new TextEncoder().encode(`leaf ${signerId}`);
  return {
    caId: 'ca-1',
    signerId,
    key: { tenantId, keyId: key.id },
    publicJwk: key.publicJwk,
    x5c: [Buffer.from(der).toString('base64'), 'Q0E='],
    x5chain: [der],
    notAfter,
  };
}

function decode(jwt: string) {
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  const json = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  return { header: json(header), payload: json(payload), signingInput: `${header}.${payload}`, signature: Buffer.from(signature, 'base64url') };
}

/** Whether the JWS verifies (ES256, r‖s) with the leaf's public key. */
function verifies(jwt: string, signer: X509Signer): boolean {
  const { signingInput, signature } = decode(jwt);
  const key = createPublicKey({ key: { ...signer.publicJwk }, format: 'jwk' });
  return verify('sha256', Buffer.from(signingInput), { key, dsaEncoding: 'ieee-p1363' }, signature);
}

/** What the fake IssuerSigners answer; tests change it as they go. */
interface Leaves {
  current?: X509Signer | Error | undefined;
  published?: X509Signer[];
  available?: boolean;
}

/** IssuerSigners over leaves the test changes. */
function fakeSigners(leaves: Leaves): IssuerSigners {
  return {
    async current(_tenant: Tenant, use, issuer) {
      expect(use).toBe('credential');
      expect(issuer).toMatch(/^https:\/\//);
      if (leaves.current instanceof Error) throw leaves.current;
      if (!leaves.current) throw new DomainError('BadRequest', 'No issuer CA');
      return leaves.current;
    },
    published: async () => leaves.published ?? [],
    available: async () => leaves.available ?? leaves.current !== undefined,
    invalidate: () => {},
  };
}

describe('signIssuerMetadata (OpenID4VCI 1.0 §12.2.3)', () => {
  it('signs the metadata parameters as top-level claims with typ openidvci-issuer-metadata+jwt, x5c, sub, iat and exp', async () => {
    const keys = fakeKeyManager();
    const now = new Date('2026-11-28T10:00:00.400Z');
    const signer = await leaf(keys, 't1', 's1', new Date(now.getTime() + 365 * DAY));
    const metadata = { credential_issuer: ISSUER, credential_endpoint: `${ISSUER}/v1/openid/credential`, display: [{ name: 'Acmé', locale: 'fr' }] };
    const signed = await signIssuerMetadata({ keys, signer, issuer: ISSUER, metadata, now });
    if (!signed) throw new Error('not signed');
    const { header, payload } = decode(signed.jwt);
    expect(header).toEqual({ alg: 'ES256', typ: SIGNED_METADATA_TYP, x5c: signer.x5c });
    const iat = Math.floor(now.getTime() / 1000);
    expect(payload).toEqual({ ...metadata, iss: ISSUER, sub: ISSUER, iat, exp: iat + 86_400 });
    expect(verifies(signed.jwt, signer)).toBe(true);
    expect(signed).toMatchObject({ signerId: 's1', issuedAt: new Date(iat * 1000), expiresAt: new Date((iat + 86_400) * 1000) });
    // Renewed halfway, so that no answer is close to its expiry.
    expect(signed.renewAt).toEqual(new Date((iat + 43_200) * 1000));
  });

  it('never outlives the leaf certificate, and signs nothing with a leaf that has ended', async () => {
    const keys = fakeKeyManager();
    const now = new Date('2026-11-28T10:00:00Z');
    const soon = new Date(now.getTime() + 3_600_000);
    const signed = await signIssuerMetadata({ keys, signer: await leaf(keys, 't1', 's1', soon), issuer: ISSUER, metadata: {}, now });
    expect(decode(signed?.jwt ?? '').payload.exp).toBe(soon.getTime() / 1000);
    expect(await signIssuerMetadata({ keys, signer: await leaf(keys, 't1', 's2', now), issuer: ISSUER, metadata: {}, now })).toBeUndefined();
  });
});

describe('buildJwtVcIssuerMetadata (SD-JWT VC, JWT VC Issuer Metadata)', () => {
  it('names the issuer and lists each leaf’s key with its kid, alg and x5c chain', async () => {
    const keys = fakeKeyManager();
    const a = await leaf(keys, 't1', 'a', new Date('2027-01-01'));
    const b = await leaf(keys, 't1', 'b', new Date('2027-06-01'));
    expect(buildJwtVcIssuerMetadata(ISSUER, [b, a])).toEqual({
      issuer: ISSUER,
      jwks: {
        keys: [
          { ...b.publicJwk, kid: 'b', use: 'sig', alg: 'ES256', x5c: b.x5c },
          { ...a.publicJwk, kid: 'a', use: 'sig', alg: 'ES256', x5c: a.x5c },
        ],
      },
    });
  });
});

/** The metadata service over the core harness's store, with signing through `leaves`. */
async function serviceWith(leaves: Leaves) {
  const h = harness();
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  const clock = fakeClock('2026-11-28T10:00:00Z');
  const service = createIssuerMetadataService({
    store: h.store,
    features: LIVE_ISSUANCE_FEATURES,
    formats: formatsForMetadata(),
    signing: { signers: fakeSigners(leaves), keys: h.keys, clock },
  });
  return { h, tenant, clock, service, ctx: { ...contextFor(tenant, null), origin: ISSUER } };
}

describe('the issuer metadata service, signed (OpenID4VCI 1.0 §12.2.3) and as JWT VC Issuer Metadata', () => {
  it('signs exactly the JSON document with the current credential leaf', async () => {
    const leaves: Leaves = {};
    const { service, ctx, h } = await serviceWith(leaves);
    const signer = await leaf(h.keys, 'x', 's1', new Date('2027-11-28T00:00:00Z'));
    leaves.current = signer;
    const signed = await service.signedIssuerMetadata(ctx);
    if (!signed) throw new Error('not signed');
    const { payload } = decode(signed.jwt);
    const { iss, sub, iat, exp, ...claims } = payload;
    expect(claims).toEqual(await service.issuerMetadata(ctx));
    expect([iss, sub]).toEqual([ISSUER, ISSUER]);
    expect(verifies(signed.jwt, signer)).toBe(true);
  });

  it('has no signed form without an issuer CA, or when the CA has no leaf for this origin (a 400 for the operator)', async () => {
    expect(await (await serviceWith({})).service.signedIssuerMetadata((await serviceWith({})).ctx)).toBeUndefined();
    const noLeaf = await serviceWith({ available: true, current: new DomainError('BadRequest', 'No leaf names this host') });
    expect(await noLeaf.service.metadataSigner(noLeaf.ctx)).toBeUndefined();
    expect(await noLeaf.service.signedIssuerMetadata(noLeaf.ctx)).toBeUndefined();
    // Anything else is a failure, not a missing signer.
    const broken = await serviceWith({ available: true, current: new DomainError('ServiceUnavailable', 'KMS down') });
    await expect(broken.service.signedIssuerMetadata(broken.ctx)).rejects.toMatchObject({ code: 'ServiceUnavailable' });
    const h = harness();
    const unsigned = createIssuerMetadataService({ store: h.store, features: LIVE_ISSUANCE_FEATURES, formats: formatsForMetadata() });
    const { tenant } = await h.tenants.createTenant({ subdomain: 'plain', region: 'eu01' });
    expect(await unsigned.signedIssuerMetadata(contextFor(tenant, null))).toBeUndefined();
    await expect(unsigned.jwtVcIssuerMetadata(contextFor(tenant, null))).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('publishes the valid credential leaves as JWT VC Issuer Metadata, and answers 404 without any', async () => {
    const leaves: Leaves = {};
    const { service, ctx, h } = await serviceWith(leaves);
    const a = await leaf(h.keys, 'x', 'a', new Date('2027-01-01'));
    const b = await leaf(h.keys, 'x', 'b', new Date('2027-06-01'));
    Object.assign(leaves, { current: b, published: [b, a] });
    expect(await service.jwtVcIssuerMetadata(ctx, '/issuance')).toEqual(buildJwtVcIssuerMetadata(`${ISSUER}/issuance`, [b, a]));
    const none = await serviceWith({});
    await expect(none.service.jwtVcIssuerMetadata(none.ctx)).rejects.toMatchObject({ code: 'NotFound', message: expect.stringContaining('DID') });
    const noLeaf = await serviceWith({ available: true, published: [] });
    await expect(noLeaf.service.jwtVcIssuerMetadata(noLeaf.ctx)).rejects.toMatchObject({
      code: 'NotFound',
      message: expect.stringContaining('names this issuer'),
    });
  });
});

describe('cacheIssuerMetadata, signed form: signed once, again on a change of configuration or signer, or when due', () => {
  async function cached() {
    const leaves: Leaves = {};
    const s = await serviceWith(leaves);
    const keys = s.h.keys;
    const first = await leaf(keys, 'x', 's1', new Date('2027-11-28T00:00:00Z'));
    leaves.current = first;
    let signatures = 0;
    const counting = {
      ...s.service,
      signedIssuerMetadata: async (...args: Parameters<typeof s.service.signedIssuerMetadata>) => {
        signatures++;
        return s.service.signedIssuerMetadata(...args);
      },
    };
    const service = cacheIssuerMetadata(counting, { stamps: (tenantId) => s.h.store.credentialConfigurations.listStamps(tenantId), clock: s.clock });
    return { ...s, service, leaves, keys, first, signatures: () => signatures };
  }

  it('serves the same frozen JWT while nothing changes, and signs again after a configuration change', async () => {
    const { service, ctx, signatures, h, tenant } = await cached();
    const first = await service.signedIssuerMetadata(ctx);
    expect(await service.signedIssuerMetadata(ctx)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(signatures()).toBe(1);
    await h.configurations.create(contextFor(tenant), 'cwt', { type: 'Badge', expiresIn: { days: 30 }, claimMappings: { name: { mapFrom: 'claims.name' } } });
    const second = await service.signedIssuerMetadata(ctx);
    expect(second).not.toBe(first);
    expect(decode(second?.jwt ?? '').payload.scopes_supported).toEqual(['cwt:Badge']);
    expect(signatures()).toBe(2);
  });

  it('signs again when the issuer display changes, and carries it', async () => {
    const { service, ctx, signatures } = await cached();
    const first = await service.signedIssuerMetadata(ctx);
    const displayed = { ...ctx, tenant: { ...ctx.tenant, issuerDisplay: [{ name: 'Acme', locale: 'en' }] } };
    const second = await service.signedIssuerMetadata(displayed);
    expect(second).not.toBe(first);
    expect(decode(second?.jwt ?? '').payload.display).toEqual([{ name: 'Acme', locale: 'en' }]);
    expect(await service.signedIssuerMetadata(displayed)).toBe(second);
    expect(signatures()).toBe(2);
  });

  it('signs again when another leaf signs for the issuer, and halfway through the JWT’s life', async () => {
    const { service, ctx, signatures, leaves, keys, clock } = await cached();
    const first = await service.signedIssuerMetadata(ctx);
    const rotated = await leaf(keys, 'x', 's2', new Date('2028-01-01T00:00:00Z'));
    leaves.current = rotated;
    const second = await service.signedIssuerMetadata(ctx);
    expect(second?.signerId).toBe('s2');
    expect(verifies(second?.jwt ?? '', rotated)).toBe(true);
    expect(await service.signedIssuerMetadata(ctx)).toBe(second);
    clock.advance(12 * 60 * 60 * 1000 - 1);
    expect(await service.signedIssuerMetadata(ctx)).toBe(second);
    clock.advance(1);
    const renewed = await service.signedIssuerMetadata(ctx);
    expect(renewed).not.toBe(second);
    expect(renewed?.issuedAt.getTime()).toBe(clock.now().getTime());
    expect(signatures()).toBe(3);
    expect(first?.signerId).toBe('s1');
  });

  it('shares one signature among concurrent requests, and forgets the JWT once the tenant cannot sign', async () => {
    const { service, ctx, signatures, leaves } = await cached();
    const all = await Promise.all([1, 2, 3, 4].map(() => service.signedIssuerMetadata(ctx)));
    expect(new Set(all).size).toBe(1);
    expect(signatures()).toBe(1);
    leaves.current = undefined;
    expect(await service.signedIssuerMetadata(ctx)).toBeUndefined();
  });

  it('keeps the JSON form apart: it is the same frozen object as before, signed requests or not', async () => {
    const { service, ctx } = await cached();
    const json = await service.issuerMetadata(ctx);
    await service.signedIssuerMetadata(ctx);
    expect(await service.issuerMetadata(ctx)).toBe(json);
    expect(json).not.toHaveProperty('sub');
  });
});

describe('signed metadata and JWT VC Issuer Metadata through createVellum, over the issuer CA’s own leaves', () => {
  /** A tenant with an active managed issuer CA (the harness's fake X.509 authority). */
  async function withIssuerCa() {
    const h = harness();
    const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
    const admin = contextFor(tenant);
    const ca = await h.issuerCas.create(admin, { country: 'US', commonName: 'Acme Issuer CA' });
    await h.issuerCas.update(admin, ca.id, { active: true });
    return { h, tenant, admin, ca, wallet: contextFor(tenant, null) };
  }

  it('signs with the leaf made for the origin, and publishes that leaf, its SAN naming the issuer', async () => {
    const { h, wallet, ca } = await withIssuerCa();
    const signed = await h.metadata.signedIssuerMetadata(wallet);
    if (!signed) throw new Error('not signed');
    const signer = await h.issuerSigning.current(wallet.tenant, 'credential', wallet.origin, h.clock.now());
    expect(signed.signerId).toBe(signer.signerId);
    expect(signer.caId).toBe(ca.id);
    expect(decode(signed.jwt).header.x5c).toEqual(signer.x5c);
    expect(verifies(signed.jwt, signer)).toBe(true);
    expect(await h.metadata.jwtVcIssuerMetadata(wallet)).toEqual(buildJwtVcIssuerMetadata(wallet.origin, [signer]));
    // Another origin of the tenant (a mount path here) has no leaf yet: nothing to publish for it.
    await expect(h.metadata.jwtVcIssuerMetadata(wallet, '/elsewhere')).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('after a revocation: signs again with a new leaf and publishes only the leaves that can still sign', async () => {
    const { h, wallet, admin } = await withIssuerCa();
    const first = await h.metadata.signedIssuerMetadata(wallet);
    if (!first) throw new Error('not signed');
    await h.issuerSigners.revoke(admin, first.signerId);
    const second = await h.metadata.signedIssuerMetadata(wallet);
    expect(second?.signerId).toBeDefined();
    expect(second?.signerId).not.toBe(first.signerId);
    const published = (await h.metadata.jwtVcIssuerMetadata(wallet)) as { jwks: { keys: Array<{ kid: string }> } };
    expect(published.jwks.keys.map((k) => k.kid)).toEqual([second?.signerId]);
  });

  it('publishes every valid leaf, the current one first, and none past its end', async () => {
    const { h, wallet } = await withIssuerCa();
    const old = await h.issuerSigning.current(wallet.tenant, 'credential', wallet.origin, h.clock.now());
    // Within the rotation window a new leaf signs; the old one still verifies what it signed.
    h.clock.set(new Date(old.notAfter.getTime() - SIGNER_ROTATION_DAYS * DAY + 60_000));
    const fresh = await h.issuerSigning.current(wallet.tenant, 'credential', wallet.origin, h.clock.now());
    expect(fresh.signerId).not.toBe(old.signerId);
    const kids = async () => ((await h.metadata.jwtVcIssuerMetadata(wallet)) as { jwks: { keys: Array<{ kid: string }> } }).jwks.keys.map((k) => k.kid);
    expect(await kids()).toEqual([fresh.signerId, old.signerId]);
    // A status list leaf is never published as a credential key.
    await h.issuerSigning.current(wallet.tenant, 'status-list', wallet.origin, h.clock.now());
    expect(await kids()).toEqual([fresh.signerId, old.signerId]);
    h.clock.set(old.notAfter);
    expect(await kids()).toEqual([fresh.signerId]);
  });
});
