import { createPublicKey, X509Certificate, verify } from 'node:crypto';
import type { PublicJwk, Role } from '@vellum/core';
import { children, documentSignerAwaitingCertificate, type Tlv, tlv } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';
import { foreignAuthority } from '../test/authority.ts';

// ----- reading DER (tlv, children: @vellum/testing): the test reads CSRs and CRLs with code that is not the issuer's -----

const pemBody = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'));

/** The public key a PKCS#10 request (RFC 2986) carries, as a JWK. */
function csrPublicJwk(csrPem: string): PublicJwk {
  const der = pemBody(csrPem);
  const info = children(der, tlv(der, 0))[0]!;
  const spki = children(der, info)[2]!;
  const jwk = createPublicKey({ key: Buffer.from(der.subarray(spki.start, spki.end)), format: 'der', type: 'spki' }).export({ format: 'jwk' });
  return { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
}

/** A CRL (RFC 5280 §5.1) read by hand: the signed part, its signature, the issuer and the revoked serial numbers. */
function readCrl(der: Uint8Array) {
  const [tbs, , signature] = children(der, tlv(der, 0)) as [Tlv, Tlv, Tlv];
  const fields = children(der, tbs);
  // version, signature algorithm, issuer, thisUpdate, nextUpdate, then revokedCertificates when any.
  const [version, , issuer] = fields as [Tlv, Tlv, Tlv];
  const revokedList = fields.find((f, i) => i > 4 && f.tag === 0x30);
  const serials = revokedList
    ? children(der, revokedList).map((entry) => Buffer.from(der.subarray(children(der, entry)[0]!.body, children(der, entry)[0]!.end)).toString('hex'))
    : [];
  return {
    version: der[version.body],
    issuer: Buffer.from(der.subarray(issuer.start, issuer.end)),
    tbs: der.subarray(tbs.start, tbs.end),
    signature: der.subarray(signature.body + 1, signature.end),
    serials,
  };
}

/** The subject Name of a certificate, as DER bytes. */
function subjectName(certificatePem: string): Buffer {
  const der = pemBody(certificatePem);
  const fields = children(der, children(der, tlv(der, 0))[0]!);
  return Buffer.from(der.subarray(fields[5]!.start, fields[5]!.end));
}

/** An IACA held by the test, as another authority's: its certificate to import and its key to certify CSRs with. */
async function foreignIaca(commonName: string) {
  const iaca = await foreignAuthority({ commonName, url: 'https://dmv.example.gov', days: 3650, stateOrProvinceName: 'US-CA' });
  const certify = async (publicJwk: PublicJwk) => (await iaca.certify(publicJwk, 'DMV Document Signer', 365)).pem;
  return { pem: iaca.certificate.pem, certify };
}

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('mDoc PKI over HTTP (%s; docs/decisions.md "mDoc PKI")', (mount) => {
  const t = useTestApp(mount);
  const fresh = freshTenants(t, 'm');
  const url = (path: string) => `${t.prefix}${path}`;
  const IACAS = '/v2/credentials/mobile/iacas';
  const SIGNERS = '/v2/credentials/mobile/document-signers';

  /** A fresh tenant whose calls carry a token of `role`, so each test sees only its own IACAs. */
  async function tenant(role?: Role) {
    const created = await fresh(role);
    const anonymous = (path: string, extra: Record<string, string> = {}) =>
      t.app.inject({ method: 'GET', url: url(path), headers: { host: created.host, ...extra } });
    return { ...created, anonymous };
  }

  it('creates a managed IACA (201): an Annex B CA certificate for the tenant, inactive', async () => {
    const { call, host } = await tenant();
    const res = await call('POST', IACAS, { commonName: 'Acme IACA', country: 'US', stateOrProvinceName: 'US-CA' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.any(String),
      active: false,
      isManaged: true,
      certificatePem: expect.stringMatching(/^-----BEGIN CERTIFICATE-----/),
      certificateFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      certificateData: { notBefore: expect.any(String), notAfter: expect.any(String), country: 'US', commonName: 'Acme IACA', stateOrProvinceName: 'US-CA' },
    });
    const certificate = new X509Certificate(body.certificatePem);
    expect(certificate.ca).toBe(true);
    expect(certificate.subject.split('\n')).toEqual(['C=US', 'ST=US-CA', 'CN=Acme IACA']);
    expect(certificate.checkIssued(certificate)).toBe(true);
    expect(certificate.fingerprint256.replaceAll(':', '').toLowerCase()).toBe(body.certificateFingerprint);
    // The CRL distribution point (and the issuer alternative name) name the tenant's origin.
    expect(certificate.raw.includes(Buffer.from(`https://${host}${IACAS}/${body.id}/crl`))).toBe(true);
  });

  it.each([
    [{}, { param: 'country', msg: expect.stringContaining('Required') }],
    [{ country: 'US', notAfter: 'tomorrow' }, { param: 'notAfter' }],
    [
      { country: 'US', extra: 1 },
      { param: 'extra', msg: 'Unknown field' },
    ],
    [{ certificatePem: 'not a certificate' }, { param: 'certificatePem' }],
  ])('refuses %j with 400 and details', async (payload, detail) => {
    const { call } = await tenant();
    const res = await call('POST', IACAS, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'BadRequest', message: 'Validation Error', details: [{ location: 'body', ...detail }] });
  });

  it('refuses a fourth IACA with 409 and details', async () => {
    const { call } = await tenant();
    for (let i = 0; i < 3; i++) expect((await call('POST', IACAS, { country: 'US' })).statusCode).toBe(201);
    const res = await call('POST', IACAS, { country: 'US' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'Conflict', details: [{ param: 'iacas', value: 3 }] });
  });

  it('lets managed-issuer read and update but not create IACAs (403)', async () => {
    const admin = await tenant();
    const created = (await admin.call('POST', IACAS, { country: 'US' })).json();
    const token = await t.token(admin.name, 'managed-issuer');
    const headers = { authorization: `Bearer ${token}`, host: admin.host };
    expect((await t.app.inject({ method: 'POST', url: url(IACAS), headers, payload: { country: 'US' } })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: url(`${IACAS}/${created.id}`), headers })).statusCode).toBe(200);
    const put = await t.app.inject({ method: 'PUT', url: url(`${IACAS}/${created.id}`), headers, payload: { active: true } });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ id: created.id, active: true });
  });

  it('lists active IACAs to anyone (the metadata’s mdoc_iacas_uri), and all of them with a token', async () => {
    const { call, anonymous, name, host } = await tenant();
    const first = (await call('POST', IACAS, { country: 'US' })).json();
    const second = (await call('POST', IACAS, { country: 'US' })).json();
    expect((await call('PUT', `${IACAS}/${second.id}`, { active: true })).statusCode).toBe(200);

    const open = await anonymous(IACAS);
    expect(open.statusCode).toBe(200);
    expect(open.headers['access-control-allow-origin']).toBe('*');
    expect(open.json()).toEqual({ data: [{ ...second, active: true }] });

    const all = await call('GET', IACAS);
    expect(all.json().data.map((i: { id: string }) => i.id)).toEqual([first.id, second.id]);
    // A token without iacas:manage sees what the public sees; a bad token is refused, not ignored.
    const verifier = await t.token(name, 'verifier');
    expect((await anonymous(IACAS, { authorization: `Bearer ${verifier}` })).json().data.map((i: { id: string }) => i.id)).toEqual([second.id]);
    const bad = await anonymous(IACAS, { authorization: 'Bearer nope' });
    expect(bad.statusCode).toBe(401);
    expect(bad.body).toBe('Unauthorized');
    expect((await t.app.inject({ method: 'GET', url: url(IACAS), headers: { host: `nobody.eu01.vellum.test` } })).statusCode).toBe(404);
    // Another tenant's public list is its own.
    const other = await tenant();
    expect((await other.anonymous(IACAS)).json()).toEqual({ data: [] });
    expect(host).not.toBe(other.host);
  });

  it('gets, deactivates and deletes an IACA; an active one cannot be deleted (409)', async () => {
    const { call } = await tenant();
    const created = (await call('POST', IACAS, { country: 'US' })).json();
    await call('PUT', `${IACAS}/${created.id}`, { active: true });
    expect((await call('DELETE', `${IACAS}/${created.id}`)).statusCode).toBe(409);
    expect((await call('PUT', `${IACAS}/${created.id}`, { active: false })).json()).toMatchObject({ active: false });
    expect((await call('PUT', `${IACAS}/${created.id}`, {})).statusCode).toBe(400);
    const deleted = await call('DELETE', `${IACAS}/${created.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await call('GET', `${IACAS}/${created.id}`)).statusCode).toBe(404);
    expect((await call('GET', `${SIGNERS}?iacaId=${created.id}`)).json()).toEqual({ data: [] });
  });

  it('serves a managed IACA’s CRL publicly as DER, signed by the IACA, listing revoked document signers', async () => {
    const { call, anonymous } = await tenant();
    const iaca = (await call('POST', IACAS, { country: 'US' })).json();
    await call('PUT', `${IACAS}/${iaca.id}`, { active: true });
    const [signer] = (await call('GET', SIGNERS)).json().data;
    expect(signer).toMatchObject({ iacaId: iaca.id, isManaged: true, active: true });
    const iacaCertificate = new X509Certificate(iaca.certificatePem);
    expect(new X509Certificate(signer.certificatePem).checkIssued(iacaCertificate)).toBe(true);

    const empty = await anonymous(`${IACAS}/${iaca.id}/crl`);
    expect(empty.statusCode).toBe(200);
    expect(empty.headers['content-type']).toBe('application/pkix-crl');
    const first = readCrl(empty.rawPayload);
    expect(first.version).toBe(1); // v2
    expect(first.issuer.equals(subjectName(iaca.certificatePem))).toBe(true);
    expect(verify('sha256', first.tbs, iacaCertificate.publicKey, first.signature)).toBe(true);
    expect(first.serials).toEqual([]);

    const revoked = await call('POST', `${SIGNERS}/${signer.id}/revoke`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ id: signer.id, active: false, revokedAt: expect.any(String) });
    const after = readCrl((await anonymous(`${IACAS}/${iaca.id}/crl`)).rawPayload);
    expect(after.serials).toEqual([new X509Certificate(signer.certificatePem).serialNumber.toLowerCase()]);
    expect(verify('sha256', after.tbs, iacaCertificate.publicKey, after.signature)).toBe(true);
    expect((await call('POST', `${SIGNERS}/${signer.id}/revoke`)).statusCode).toBe(409);
    expect((await anonymous(`${IACAS}/no-such-iaca/crl`)).statusCode).toBe(404);
  });

  it('runs the CSR flow for an imported IACA: key and CSR, the IACA’s certificate for it, then active', async () => {
    const { call, anonymous } = await tenant();
    const dmv = await foreignIaca('DMV IACA');
    const imported = await call('POST', IACAS, { certificatePem: dmv.pem });
    expect(imported.statusCode).toBe(201);
    const iaca = imported.json();
    expect(iaca).toMatchObject({ isManaged: false, active: false, certificateData: { commonName: 'DMV IACA', country: 'US', stateOrProvinceName: 'US-CA' } });
    expect((await anonymous(`${IACAS}/${iaca.id}/crl`)).statusCode).toBe(404);

    const created = await call('POST', SIGNERS, { iacaId: iaca.id });
    expect(created.statusCode).toBe(201);
    const signer = created.json();
    expect(signer).toEqual(documentSignerAwaitingCertificate(iaca.id));

    // A certificate from another IACA, for the same key: 400 naming why.
    const stranger = await foreignIaca('DMV IACA');
    const foreign = await call('PUT', `${SIGNERS}/${signer.id}`, { active: true, certificatePem: await stranger.certify(csrPublicJwk(signer.csrPem)) });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'certificatePem', msg: expect.stringContaining(`Not issued by the IACA ${iaca.id}`) }],
    });

    const certificatePem = await dmv.certify(csrPublicJwk(signer.csrPem));
    const activated = await call('PUT', `${SIGNERS}/${signer.id}`, { active: true, certificatePem });
    expect(activated.statusCode).toBe(200);
    expect(activated.json()).toMatchObject({
      id: signer.id,
      active: true,
      certificatePem: expect.stringMatching(/^-----BEGIN CERTIFICATE-----/),
      certificateData: { commonName: 'DMV Document Signer', country: 'US' },
    });
    expect((await call('GET', `${SIGNERS}/${signer.id}`)).json()).toEqual(activated.json());
    expect((await call('GET', `${SIGNERS}?iacaId=${iaca.id}`)).json().data.map((s: { id: string }) => s.id)).toEqual([signer.id]);

    expect((await call('DELETE', `${SIGNERS}/${signer.id}`)).statusCode).toBe(204);
    expect((await call('GET', `${SIGNERS}/${signer.id}`)).statusCode).toBe(404);
    // Ids that are no UUID (here with a NUL, which PostgreSQL cannot hold in text) name nothing: 404, not a store error.
    for (const path of [`${SIGNERS}/did:web:%00`, `${IACAS}/x%00y`, `${SIGNERS}/did:web:%00/revoke`]) {
      const res = await call(path.endsWith('/revoke') ? 'POST' : 'GET', path);
      expect(res.statusCode, path).toBe(404);
    }
  });

  it('refuses a sixth requested document signer with 409, and a signer for a managed IACA with 400', async () => {
    const { call } = await tenant();
    const dmv = await foreignIaca('DMV IACA');
    const iaca = (await call('POST', IACAS, { certificatePem: dmv.pem })).json();
    for (let i = 0; i < 5; i++) expect((await call('POST', SIGNERS, { iacaId: iaca.id })).statusCode).toBe(201);
    const sixth = await call('POST', SIGNERS, { iacaId: iaca.id });
    expect(sixth.statusCode).toBe(409);
    expect(sixth.json()).toMatchObject({ code: 'Conflict', details: [{ param: 'iacaId', value: 5 }] });
    const managed = (await call('POST', IACAS, { country: 'US' })).json();
    expect((await call('POST', SIGNERS, { iacaId: managed.id })).json()).toMatchObject({ code: 'BadRequest', details: [{ param: 'iacaId' }] });
  });

  it('needs a token with iacas:manage for document signers', async () => {
    const { host, name } = await tenant();
    expect((await t.app.inject({ method: 'GET', url: url(SIGNERS), headers: { host } })).statusCode).toBe(401);
    const auditor = await t.token(name, 'auditor');
    expect((await t.app.inject({ method: 'GET', url: url(SIGNERS), headers: { host, authorization: `Bearer ${auditor}` } })).statusCode).toBe(403);
  });
});
