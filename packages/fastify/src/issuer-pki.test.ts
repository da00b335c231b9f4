import { createPublicKey, X509Certificate } from 'node:crypto';
import type { PublicJwk } from '@vellum/core';
import { children, tlv } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';
import { foreignAuthority } from '../test/authority.ts';

// docs/decisions.md "Issuer certificates (issue 29)": the issuer CA and issuer signer routes over
// HTTP, with real certificates (the interop tests prove SD-JWT VCs signed under them).

const pemBody = (pem: string) => new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'));

/** The public key a PKCS#10 request (RFC 2986) carries, as a JWK. */
function csrPublicJwk(csrPem: string): PublicJwk {
  const der = pemBody(csrPem);
  const info = children(der, tlv(der, 0))[0]!;
  const spki = children(der, info)[2]!;
  const jwk = createPublicKey({ key: Buffer.from(der.subarray(spki.start, spki.end)), format: 'der', type: 'spki' }).export({ format: 'jwk' });
  return { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
}

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('issuer certificates over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  const fresh = freshTenants(t, 'x');
  const CAS = '/v2/credentials/issuer-cas';
  const SIGNERS = '/v2/credentials/issuer-signers';
  const IACAS = '/v2/credentials/mobile/iacas';

  async function tenant() {
    const created = await fresh();
    const anonymous = (path: string) => t.app.inject({ method: 'GET', url: `${t.prefix}${path}`, headers: { host: created.host } });
    return { ...created, anonymous, origin: `https://${created.host}` };
  }

  it('creates a managed issuer CA, lists the active ones to anyone, serves its CRL, and keeps IACA ids out', async () => {
    const { call, anonymous, host } = await tenant();
    const created = await call('POST', CAS, { country: 'US' });
    expect(created.statusCode).toBe(201);
    const ca = created.json();
    expect(ca).toMatchObject({ active: false, isManaged: true, certificateData: { commonName: expect.stringMatching(/ Issuer CA$/), country: 'US' } });
    const certificate = new X509Certificate(ca.certificatePem);
    expect(certificate.ca).toBe(true);
    expect(certificate.raw.includes(Buffer.from(`https://${host}${CAS}/${ca.id}/crl`))).toBe(true);

    expect((await anonymous(CAS)).json()).toEqual({ data: [] });
    expect((await call('PUT', `${CAS}/${ca.id}`, { active: true })).statusCode).toBe(200);
    const open = await anonymous(CAS);
    expect(open.headers['access-control-allow-origin']).toBe('*');
    expect(open.json()).toEqual({ data: [{ ...ca, active: true }] });

    const crl = await anonymous(`${CAS}/${ca.id}/crl`);
    expect(crl.statusCode).toBe(200);
    expect(crl.headers['content-type']).toBe('application/pkix-crl');

    const iaca = (await call('POST', IACAS, { country: 'US' })).json();
    expect((await call('GET', `${CAS}/${iaca.id}`)).statusCode).toBe(404);
    expect((await call('GET', `${IACAS}/${ca.id}`)).statusCode).toBe(404);
    expect((await anonymous(`${IACAS}/${ca.id}/crl`)).statusCode).toBe(404);
    expect((await call('DELETE', `${IACAS}/${ca.id}`)).statusCode).toBe(404);
    expect((await call('GET', IACAS)).json().data.map((i: { id: string }) => i.id)).toEqual([iaca.id]);
  });

  it('makes a dc+sd-jwt configuration x5c once an issuer CA is active, and lists the leaf it made with its SAN', async () => {
    const { call, host, origin } = await tenant();
    const ca = (await call('POST', CAS, { country: 'US' })).json();
    const body = { type: 'https://credentials.example.com/pid', expiresIn: { days: 30 }, claimMappings: { name: { mapFrom: 'claims.name' } } };
    expect((await call('POST', '/v2/credentials/sd-jwt/configurations', body)).json()).toMatchObject({ keyResolution: 'did' });
    expect((await call('PUT', `${CAS}/${ca.id}`, { active: true })).statusCode).toBe(200);
    const x5c = await call('POST', '/v2/credentials/sd-jwt/configurations', { ...body, type: 'https://credentials.example.com/other' });
    expect(x5c.statusCode).toBe(201);
    expect(x5c.json()).toMatchObject({ keyResolution: 'x5c' });
    const leaves = (await call('GET', `${SIGNERS}?issuerCaId=${ca.id}`)).json().data;
    expect(leaves).toEqual([expect.objectContaining({ issuerCaId: ca.id, use: 'credential', isManaged: true, active: true, subjectAltNames: [origin, host] })]);
    const leaf = new X509Certificate(leaves[0].certificatePem);
    expect(leaf.subjectAltName).toBe(`URI:${origin}, DNS:${host}`);
    expect(leaf.checkIssued(new X509Certificate(ca.certificatePem))).toBe(true);
    expect(leaf.verify(new X509Certificate(ca.certificatePem).publicKey)).toBe(true);
  });

  it('runs the CSR flow under an imported issuer CA: SAN checked against the tenant’s issuer identifier, then revocation', async () => {
    const { call, origin } = await tenant();
    const root = await foreignAuthority({ commonName: 'Acme Root CA', url: 'https://pki.acme.example', days: 3650 });
    const ca = (await call('POST', CAS, { certificatePem: root.certificate.pem })).json();
    expect(ca).toMatchObject({ isManaged: false, certificateData: { commonName: 'Acme Root CA' } });

    const noUse = await call('POST', SIGNERS, { issuerCaId: ca.id });
    expect(noUse.statusCode).toBe(400);
    expect(noUse.json()).toMatchObject({ code: 'BadRequest', details: [expect.objectContaining({ param: 'use', location: 'body' })] });

    const created = await call('POST', SIGNERS, { issuerCaId: ca.id, use: 'credential' });
    expect(created.statusCode).toBe(201);
    const signer = created.json();
    expect(signer).toMatchObject({
      issuerCaId: ca.id,
      use: 'credential',
      active: false,
      isManaged: false,
      csrPem: expect.stringContaining('CERTIFICATE REQUEST'),
    });
    const key = csrPublicJwk(signer.csrPem);

    const elsewhere = (await root.certify(key, 'Acme Credential Signer', 365, ['https://other.example', 'other.example'])).pem;
    const refused = await call('PUT', `${SIGNERS}/${signer.id}`, { active: true, certificatePem: elsewhere });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ details: [expect.objectContaining({ param: 'certificatePem', msg: expect.stringContaining(origin) })] });
    // A document signer certificate (an EKU, no SAN) is no issuer leaf either.
    const mdoc = (await root.certify(key, 'Acme Document Signer', 365)).pem;
    expect((await call('PUT', `${SIGNERS}/${signer.id}`, { active: true, certificatePem: mdoc })).statusCode).toBe(400);

    const good = (await root.certify(key, 'Acme Credential Signer', 365, [origin])).pem;
    const activated = await call('PUT', `${SIGNERS}/${signer.id}`, { active: true, certificatePem: good });
    expect(activated.statusCode).toBe(200);
    expect(activated.json()).toMatchObject({ active: true, subjectAltNames: [origin], certificateFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const revoked = await call('POST', `${SIGNERS}/${signer.id}/revoke`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ active: false, revokedAt: expect.any(String) });
    expect((await call('POST', `${SIGNERS}/${signer.id}/revoke`)).statusCode).toBe(409);
    expect((await call('DELETE', `${SIGNERS}/${signer.id}`)).statusCode).toBe(204);
    expect((await call('GET', `${SIGNERS}/${signer.id}`)).statusCode).toBe(404);
  });

  it('lists nothing for an issuerCaId that is no UUID, NUL included (200, not 500)', async () => {
    const { call } = await tenant();
    for (const id of ['%00', 'not-a-uuid']) {
      const res = await call('GET', `${SIGNERS}?issuerCaId=${id}`);
      expect(res.statusCode, id).toBe(200);
      expect(res.json(), id).toEqual({ data: [] });
    }
  });
});
