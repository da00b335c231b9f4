// Issue 31 point 1: a request object signed by a verifier application's signer (signerFor, x509_hash)
// verifies with libraries we did not write: jose checks the JWS with the key of the x5c leaf (or of
// the DID's verification method, decentralized_identifier), and
// node:crypto's X509Certificate checks the chain and that the client_id is the SHA-256 of the leaf's
// DER (OpenID4VP 1.0 §5.9.3). Vellum signs request objects itself through its KeyManager, never with
// jose. The CA is another party's, made here with @vellum/crypto over a key store of its own.
import { createHash, X509Certificate } from 'node:crypto';
import { createEventRecorder, createVerifierApplicationService, type PublicJwk, type RequestContext, ROLE_PERMISSIONS } from '@vellum/core';
import { createDocumentSignerCertificate, createIacaCertificate, createKeyManager, createSealer, createX509Authority, managedSigningKey } from '@vellum/crypto';
import { createMemoryStore } from '@vellum/storage-memory';
import { fakeIds, makeTenant } from '@vellum/testing';
import { compactVerify, decodeProtectedHeader, importJWK, importX509 } from 'jose';
import { describe, expect, it } from 'vitest';

const DAY = 86_400_000;
const clock = { now: () => new Date() };

/** Another party's CA, and a leaf it issues for `subject`. */
async function foreignCa() {
  const store = createMemoryStore();
  const keys = createKeyManager({ keys: store.keys, sealer: createSealer(new Uint8Array(32).fill(9)), ids: fakeIds(), clock });
  const tenant = makeTenant();
  await store.tenants.insert(tenant);
  const key = managedSigningKey(keys, await keys.create(tenant.id, 'P-256'));
  const now = Date.now();
  const names = { country: 'DE', issuerAlternativeName: 'https://pki.bank.example', crlDistributionPointUri: 'https://pki.bank.example/crl' };
  const ca = await createIacaCertificate({ key, commonName: 'Bank Root CA', ...names, notBefore: new Date(now - DAY), notAfter: new Date(now + 3650 * DAY) });
  const certify = (subjectPublicJwk: PublicJwk) =>
    createDocumentSignerCertificate({
      iaca: { certificateDer: ca.der, key },
      subjectPublicJwk,
      commonName: 'Bank Verifier',
      ...names,
      subjectAltNames: ['https://bank.example'],
      notBefore: new Date(now - DAY / 2),
      notAfter: new Date(now + 365 * DAY),
    });
  return { ca, certify };
}

describe('verifier application request objects, verified with jose and node:crypto (issue 31)', () => {
  async function setup() {
    const store = createMemoryStore();
    const ids = fakeIds();
    const keys = createKeyManager({ keys: store.keys, sealer: createSealer(new Uint8Array(32).fill(3)), ids, clock });
    const x509 = createX509Authority({ keys });
    const events = createEventRecorder({ events: store.events, clock, ids });
    const apps = createVerifierApplicationService({ store, clock, ids, events, keys, x509 });
    const tenant = makeTenant();
    await store.tenants.insert(tenant);
    const ctx: RequestContext = {
      tenant,
      origin: 'https://acme.example',
      requestId: 'r1',
      ip: '192.0.2.1',
      requestor: { clientId: 'admin', role: 'admin', permissions: new Set(ROLE_PERMISSIONS.admin) },
    };
    return { store, keys, apps, tenant, ctx };
  }

  it('x509_hash: the JWS verifies with the x5c leaf key, the leaf chains to the CA left out of x5c, and the client_id is its hash', async () => {
    const { store, keys, apps, tenant, ctx } = await setup();

    const app = await apps.create(ctx, { name: 'Bank verifier', clientIdPrefix: 'x509_hash', country: 'DE' });
    const stored = await store.verifierApplications.get(tenant.id, app.id);
    const key = await keys.get(tenant.id, stored?.x509?.keyId as string);
    const { ca, certify } = await foreignCa();
    const leaf = await certify(key?.publicJwk as PublicJwk);
    await apps.setCertificate(ctx, app.id, { certificates: [leaf.pem, ca.pem] });

    const { signer } = await apps.signerFor(tenant, app.id, 'https://acme.example/v1/openid/presentations/s/response', new Date());
    const claims = { client_id: signer.clientId, response_type: 'vp_token', response_mode: 'direct_post.jwt', nonce: 'n-0S6_WzA2Mj', state: 's1' };
    const jws = await (signer.sign as NonNullable<typeof signer.sign>)(claims);

    const header = decodeProtectedHeader(jws);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'oauth-authz-req+jwt' });
    const x5c = header.x5c as string[];
    // The self-signed CA uploaded last is the trust anchor: HAIP 1.0 §5 leaves it out of x5c.
    expect(x5c).toHaveLength(1);
    const leafPem = `-----BEGIN CERTIFICATE-----\n${x5c[0]}\n-----END CERTIFICATE-----`;
    const verified = await compactVerify(jws, await importX509(leafPem, 'ES256'));
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(claims);
    // A changed payload does not verify.
    const [h, , s] = jws.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, nonce: 'other' })).toString('base64url')}.${s}`;
    await expect(compactVerify(forged, await importX509(leafPem, 'ES256'))).rejects.toThrow();

    const leafCert = new X509Certificate(Buffer.from(x5c[0] as string, 'base64'));
    const caCert = new X509Certificate(ca.pem);
    expect(leafCert.checkIssued(caCert)).toBe(true);
    expect(leafCert.verify(caCert.publicKey)).toBe(true);
    expect(signer.clientId).toBe(`x509_hash:${createHash('sha256').update(leafCert.raw).digest('base64url')}`);
  });

  it('decentralized_identifier: the JWS verifies with the key of the verification method its kid names', async () => {
    const { store, keys, apps, tenant, ctx } = await setup();
    const key = await keys.create(tenant.id, 'P-256');
    const did = 'did:web:verifier.example';
    const method = `${did}#key-1`;
    await store.dids.insert({
      tenantId: tenant.id,
      did,
      method: 'web',
      keys: [{ didDocumentKeyId: method, kmsKeyId: key.id, algorithm: 'P-256', publicJwk: key.publicJwk }],
      createdAt: new Date().toISOString(),
    });
    const app = await apps.create(ctx, { name: 'DID verifier', clientIdPrefix: 'decentralized_identifier', did });
    const { signer } = await apps.signerFor(tenant, app.id, 'https://acme.example/r', new Date());
    expect(signer.clientId).toBe(`decentralized_identifier:${did}`);
    const claims = { client_id: signer.clientId, nonce: 'n1' };
    const jws = await (signer.sign as NonNullable<typeof signer.sign>)(claims);
    expect(decodeProtectedHeader(jws)).toEqual({ alg: 'ES256', kid: method, typ: 'oauth-authz-req+jwt' });
    const verified = await compactVerify(jws, await importJWK({ ...key.publicJwk }, 'ES256'));
    expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(claims);
  });
});
