// Verifier applications (docs/verification.md "Verifier applications"): the admin resource, the
// x509_hash CSR and certificate, and signerFor per prefix, over the memory store and the fake KeyManager and X.509.
import { describe, expect, it } from 'vitest';
import { contextFor, withTenants } from '../../../test/harness.ts';
import { recordedEvents } from '../../../test/events.ts';
import { badBodyField, refusal } from '../../../test/refusal.ts';
import { base64UrlToBytes } from '../../shared/encoding.ts';
import { MAX_VERIFIER_APPLICATIONS_PER_TENANT } from './model.ts';

const decode = (segment: string) => JSON.parse(new TextDecoder().decode(base64UrlToBytes(segment))) as Record<string, unknown>;
const hexToB64Url = (hex: string) => Buffer.from(hex, 'hex').toString('base64url');

async function setup() {
  const h = await withTenants();
  return { ...h, apps: h.verifierApplications };
}

/** A CA (fake certificates) and a leaf for `publicJwk` under it, valid around the harness clock. */
async function caAndLeaf(h: Awaited<ReturnType<typeof setup>>, publicJwk: Parameters<typeof h.x509.createDocumentSignerCertificate>[0]['subjectPublicJwk']) {
  const caKey = await h.keys.create(h.tenant.id, 'P-256');
  const common = {
    country: 'DE',
    notBefore: new Date('2026-01-01'),
    notAfter: new Date('2027-01-01'),
    issuerAlternativeName: 'https://ca.example',
    crlDistributionPointUri: 'https://ca.example/crl',
  };
  const ca = await h.x509.createIacaCertificate({ ...common, commonName: 'Test CA', key: caKey });
  const leaf = await h.x509.createDocumentSignerCertificate({
    ...common,
    commonName: 'Verifier',
    notAfter: new Date('2026-12-01'),
    issuer: { key: { tenantId: h.tenant.id, keyId: caKey.id }, certificatePem: ca.pem },
    subjectPublicJwk: publicJwk,
    subjectAltNames: ['https://verifier.example'],
  });
  return { ca, leaf };
}

describe('verifier applications', () => {
  it('creates with the defaults, lists by page, reads, replaces and deletes', async () => {
    const { apps, ctx } = await setup();
    const a = await apps.create(ctx, { name: 'Dev', clientIdPrefix: 'redirect_uri' });
    expect(a).toEqual({
      id: expect.any(String),
      name: 'Dev',
      clientIdPrefix: 'redirect_uri',
      responseModes: ['direct_post.jwt'],
      redirectUris: [],
      createdAt: a.createdAt,
      updatedAt: a.createdAt,
    });
    const b = await apps.create(ctx, {
      name: 'Shop',
      clientIdPrefix: 'redirect_uri',
      responseModes: ['direct_post', 'direct_post.jwt'],
      redirectUris: ['https://shop.example/done'],
      display: { name: 'Shop', logoUri: 'https://shop.example/logo.png' },
    });
    const first = await apps.list(ctx, { limit: 1 });
    expect(first.data.map((x) => x.id)).toEqual([a.id]);
    const rest = await apps.list(ctx, { limit: 1, cursor: first.nextCursor as string });
    expect(rest.data.map((x) => x.id)).toEqual([b.id]);
    expect(await apps.get(ctx, b.id)).toEqual(b);
    const replaced = await apps.update(ctx, b.id, { name: 'Shop 2', clientIdPrefix: 'redirect_uri' });
    expect(replaced).toMatchObject({ id: b.id, name: 'Shop 2', responseModes: ['direct_post.jwt'], redirectUris: [], createdAt: b.createdAt });
    expect(replaced).not.toHaveProperty('display');
    await apps.delete(ctx, b.id);
    expect((await refusal(apps.get(ctx, b.id))).code).toBe('NotFound');
    expect((await refusal(apps.delete(ctx, b.id))).code).toBe('NotFound');
  });

  it('refuses bad bodies with every problem named, and ids that are not UUIDs', async () => {
    const { apps, ctx } = await setup();
    const e = await refusal(
      apps.create(ctx, {
        name: 'X',
        clientIdPrefix: 'redirect_uri',
        responseModes: ['direct_post', 'direct_post'],
        redirectUris: ['https://a.example/', 'https://a.example/'],
        did: 'did:web:a.example',
      }),
    );
    expect(e).toMatchObject(badBodyField('responseModes.1', 'Listed twice'));
    expect(e).toMatchObject(badBodyField('redirectUris.1', 'Listed twice'));
    expect(e).toMatchObject(badBodyField('did'));
    for (const body of [
      { name: 'X', clientIdPrefix: 'x509_san_dns' },
      { name: '', clientIdPrefix: 'redirect_uri' },
      { name: 'X', clientIdPrefix: 'redirect_uri', redirectUris: ['http://a.example/'] },
      { name: 'X', clientIdPrefix: 'redirect_uri', display: { name: 'X', logoUri: 'https://user:pw@a.example/l.png' } },
      { name: 'X', clientIdPrefix: 'redirect_uri', responseModes: [] },
      { name: 'X', clientIdPrefix: 'redirect_uri', extra: 1 },
      { name: 'X', clientIdPrefix: 'decentralized_identifier' },
      { name: 'X', clientIdPrefix: 'x509_hash' },
      { name: 'X', clientIdPrefix: 'x509_hash', country: 'de' },
      { name: 'X', clientIdPrefix: 'redirect_uri', country: 'DE' },
      { name: 'X', clientIdPrefix: 'decentralized_identifier', did: 'did:web:not-ours.example' },
      null,
    ]) {
      expect((await refusal(apps.create(ctx, body))).code, JSON.stringify(body)).toBe('BadRequest');
    }
    expect(await refusal(apps.get(ctx, 'nope'))).toMatchObject({ code: 'BadRequest', details: [expect.objectContaining({ param: 'id', location: 'params' })] });
    const a = await apps.create(ctx, { name: 'X', clientIdPrefix: 'redirect_uri' });
    expect(await refusal(apps.update(ctx, a.id, { name: 'X', clientIdPrefix: 'x509_hash', country: 'DE' }))).toMatchObject(badBodyField('clientIdPrefix'));
  });

  it('keeps each tenant’s applications to itself, needs the verification permission, and stops at the limit', async () => {
    const { apps, ctx, other, tenant } = await setup();
    const a = await apps.create(ctx, { name: 'X', clientIdPrefix: 'redirect_uri' });
    expect((await refusal(apps.get(contextFor(other), a.id))).code).toBe('NotFound');
    expect((await refusal(apps.list(contextFor(tenant, 'issuer'), {}))).code).toBe('Forbidden');
    expect((await apps.list(contextFor(tenant, 'verifier'), {})).data).toHaveLength(1);
    for (let i = 1; i < MAX_VERIFIER_APPLICATIONS_PER_TENANT; i++) await apps.create(ctx, { name: `X${i}`, clientIdPrefix: 'redirect_uri' });
    expect(await refusal(apps.create(ctx, { name: 'one too many', clientIdPrefix: 'redirect_uri' }))).toMatchObject({ code: 'Conflict' });
    expect(await apps.create(contextFor(other), { name: 'X', clientIdPrefix: 'redirect_uri' })).toMatchObject({ name: 'X' });
  });

  it('records each operation’s start and success events', async () => {
    const h = await setup();
    const { apps, store, tenant } = h;
    await store.tenants.setLoggingLevel(tenant.id, 3);
    const ctx = contextFor({ ...tenant, loggingLevel: 3 });
    const a = await apps.create(ctx, { name: 'Bank', clientIdPrefix: 'x509_hash', country: 'DE' });
    await apps.get(ctx, a.id);
    await apps.delete(ctx, a.id);
    const types = (await recordedEvents(h, tenant.id)).map((e) => e.type).reverse();
    expect(types).toEqual([
      'VERIFIER_APPLICATION_CREATE_START',
      'VERIFIER_APPLICATION_CREATE_SUCCESS',
      'VERIFIER_APPLICATION_RETRIEVE_START',
      'VERIFIER_APPLICATION_RETRIEVE_SUCCESS',
      'VERIFIER_APPLICATION_DELETE_START',
      'VERIFIER_APPLICATION_DELETE_SUCCESS',
    ]);
  });

  it('redirect_uri: the session’s response URI is the client_id and nothing signs', async () => {
    const { apps, ctx, tenant, other, clock } = await setup();
    const a = await apps.create(ctx, { name: 'Dev', clientIdPrefix: 'redirect_uri' });
    const { application, signer } = await apps.signerFor(tenant, a.id, 'https://acme.example/v1/openid/presentations/s1/response', clock.now());
    expect(application.id).toBe(a.id);
    expect(signer).toEqual({ clientId: 'redirect_uri:https://acme.example/v1/openid/presentations/s1/response' });
    expect((await refusal(apps.signerFor(other, a.id, 'https://x.example/r', clock.now()))).code).toBe('NotFound');
  });

  it('decentralized_identifier: signs with the DID’s key, kid its verification method', async () => {
    const h = await setup();
    const did = await h.dids.create(h.ctx, { method: 'key', options: { keyType: 'P-256' } });
    const a = await h.apps.create(h.ctx, { name: 'DID verifier', clientIdPrefix: 'decentralized_identifier', did: did.did });
    expect(a.clientId).toBe(`decentralized_identifier:${did.did}`);
    const { signer } = await h.apps.signerFor(h.tenant, a.id, 'https://r.example/', h.clock.now());
    expect(signer.clientId).toBe(`decentralized_identifier:${did.did}`);
    const jws = await (signer.sign as NonNullable<typeof signer.sign>)({ client_id: signer.clientId, nonce: 'n' });
    const [header, payload] = jws.split('.') as [string, string, string];
    expect(decode(header)).toEqual({ alg: 'ES256', kid: did.localMetadata.keys[0]?.didDocumentKeyId, typ: 'oauth-authz-req+jwt' });
    expect(decode(payload)).toEqual({ client_id: signer.clientId, nonce: 'n' });
    // The DID gone: a 400 that says what to do.
    await h.dids.delete(h.ctx, did.did);
    expect(await refusal(h.apps.signerFor(h.tenant, a.id, 'https://r.example/', h.clock.now()))).toMatchObject({
      code: 'BadRequest',
      message: expect.stringContaining('DID'),
    });
  });

  it('x509_hash: a CSR for a held key; signs only once a chain for that key is set; x5c and the hash client_id', async () => {
    const h = await setup();
    const a = await h.apps.create(h.ctx, { name: 'Bank', clientIdPrefix: 'x509_hash', country: 'DE' });
    expect(a.csr).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----/);
    expect(a).not.toHaveProperty('clientId');
    const noCert = await refusal(h.apps.signerFor(h.tenant, a.id, 'https://r.example/', h.clock.now()));
    expect(noCert).toMatchObject({ code: 'BadRequest', message: expect.stringContaining(`/v2/presentations/applications/${a.id}/certificate`) });

    const stored = await h.store.verifierApplications.get(h.tenant.id, a.id);
    const key = await h.keys.get(h.tenant.id, stored?.x509?.keyId as string);
    const { ca, leaf } = await caAndLeaf(h, key!.publicJwk);
    const strangerKey = await h.keys.create(h.tenant.id, 'P-256');
    const { leaf: stranger } = await caAndLeaf(h, strangerKey.publicJwk);

    expect(await refusal(h.apps.setCertificate(h.ctx, a.id, { certificates: [stranger.pem] }))).toMatchObject(badBodyField('certificates.0'));
    expect(await refusal(h.apps.setCertificate(h.ctx, a.id, { certificates: [leaf.pem, leaf.pem] }))).toMatchObject(badBodyField('certificates.1'));
    expect(await refusal(h.apps.setCertificate(h.ctx, a.id, { certificates: ['not a pem'] }))).toMatchObject(badBodyField('certificates.0'));
    expect(await refusal(h.apps.setCertificate(h.ctx, a.id, { certificates: [] }))).toMatchObject({ code: 'BadRequest' });

    const set = await h.apps.setCertificate(h.ctx, a.id, { certificates: [leaf.pem, ca.pem] });
    const clientId = `x509_hash:${hexToB64Url(leaf.fingerprint)}`;
    expect(set).toMatchObject({ clientId, certificates: [leaf.pem, ca.pem], csr: a.csr });
    // A replace keeps the key and certificate.
    expect(await h.apps.update(h.ctx, a.id, { name: 'Bank 2', clientIdPrefix: 'x509_hash', country: 'DE' })).toMatchObject({ clientId, name: 'Bank 2' });

    const { signer } = await h.apps.signerFor(h.tenant, a.id, 'https://r.example/', h.clock.now());
    expect(signer.clientId).toBe(clientId);
    const jws = await (signer.sign as NonNullable<typeof signer.sign>)({ client_id: clientId });
    const [header] = jws.split('.') as [string];
    expect(decode(header)).toEqual({
      alg: 'ES256',
      typ: 'oauth-authz-req+jwt',
      // The self-signed CA uploaded last is the trust anchor: HAIP 1.0 §5 leaves it out of x5c.
      x5c: [Buffer.from(leaf.der).toString('base64')],
    });
    // Once the leaf ends, a 400 that says to upload another.
    h.clock.set(new Date('2026-12-02T00:00:00Z'));
    expect(await refusal(h.apps.signerFor(h.tenant, a.id, 'https://r.example/', h.clock.now()))).toMatchObject({
      code: 'BadRequest',
      message: expect.stringContaining('not valid now'),
    });
    // Another prefix takes no certificate; deleting destroys the key.
    const dev = await h.apps.create(h.ctx, { name: 'Dev', clientIdPrefix: 'redirect_uri' });
    expect((await refusal(h.apps.setCertificate(h.ctx, dev.id, { certificates: [leaf.pem] }))).code).toBe('BadRequest');
    await h.apps.delete(h.ctx, a.id);
    expect(await h.keys.get(h.tenant.id, stored?.x509?.keyId as string)).toBeUndefined();
  });

  it('rotates an x509_hash application’s key: the current key signs until a chain for the next one is uploaded, which switches to it (issue 32, point 4)', async () => {
    const h = await setup();
    const a = await h.apps.create(h.ctx, { name: 'Bank', clientIdPrefix: 'x509_hash', country: 'DE' });
    const stored = async () => (await h.store.verifierApplications.get(h.tenant.id, a.id))?.x509;
    const first = await h.keys.get(h.tenant.id, (await stored())?.keyId as string);
    const { ca, leaf } = await caAndLeaf(h, first!.publicJwk);
    await h.apps.setCertificate(h.ctx, a.id, { certificates: [leaf.pem, ca.pem] });
    const before = await h.apps.signerFor(h.tenant, a.id, 'https://r.example/', h.clock.now());

    const rotated = await h.signingKeys.rotate(h.ctx, 'verifier-applications', { applicationId: a.id });
    expect(rotated).toMatchObject({
      role: 'verifier-applications',
      active: [first!.id],
      retired: [],
      next: { id: expect.any(String), csr: expect.stringMatching(/^-----BEGIN CERTIFICATE REQUEST-----/) },
    });
    expect((await h.apps.get(h.ctx, a.id)).nextCsr).toBe(rotated.next?.csr);
    // Until a chain for the next key comes, the current one signs, under the same client_id.
    const meanwhile = await h.apps.signerFor(h.tenant, a.id, 'https://r.example/', h.clock.now());
    expect(meanwhile.signer.clientId).toBe(before.signer.clientId);
    // The next key's chain makes it the key that signs, with a new client_id; the old key is destroyed.
    const nextKey = await h.keys.get(h.tenant.id, rotated.next?.id as string);
    const { ca: ca2, leaf: leaf2 } = await caAndLeaf(h, nextKey!.publicJwk);
    const switched = await h.apps.setCertificate(h.ctx, a.id, { certificates: [leaf2.pem, ca2.pem] });
    expect(switched.csr).toBe(rotated.next?.csr);
    expect(switched).not.toHaveProperty('nextCsr');
    expect((await stored())?.keyId).toBe(nextKey!.id);
    expect(await h.keys.get(h.tenant.id, first!.id)).toBeUndefined();
    const after = await h.apps.signerFor(h.tenant, a.id, 'https://r.example/', h.clock.now());
    expect(after.signer.clientId).not.toBe(before.signer.clientId);
    // The old chain no longer fits the key that signs.
    expect(await refusal(h.apps.setCertificate(h.ctx, a.id, { certificates: [leaf.pem] }))).toMatchObject(badBodyField('certificates.0'));
  });

  it('replaces a next key no chain came for, and refuses the prefixes that have no key of their own', async () => {
    const h = await setup();
    const a = await h.apps.create(h.ctx, { name: 'Bank', clientIdPrefix: 'x509_hash', country: 'DE' });
    // No certificate yet: the CSR's country must be given.
    await expect(h.signingKeys.rotate(h.ctx, 'verifier-applications', { applicationId: a.id })).rejects.toMatchObject(badBodyField('country'));
    const one = await h.signingKeys.rotate(h.ctx, 'verifier-applications', { applicationId: a.id, country: 'FR' });
    const two = await h.signingKeys.rotate(h.ctx, 'verifier-applications', { applicationId: a.id, country: 'FR' });
    expect(two.next?.id).not.toBe(one.next?.id);
    expect(await h.keys.get(h.tenant.id, one.next?.id as string)).toBeUndefined();
    const dev = await h.apps.create(h.ctx, { name: 'Dev', clientIdPrefix: 'redirect_uri' });
    expect(await refusal(h.signingKeys.rotate(h.ctx, 'verifier-applications', { applicationId: dev.id }))).toMatchObject(badBodyField('applicationId'));
    await expect(h.signingKeys.rotate(h.ctx, 'verifier-applications', { applicationId: crypto.randomUUID() })).rejects.toMatchObject({ code: 'NotFound' });
    await expect(h.signingKeys.rotate(h.ctx, 'verifier-applications', {})).rejects.toMatchObject({ code: 'BadRequest' });
  });
});
