// Before @peculiar/x509, as in the modules under test.
import 'reflect-metadata';
import { X509Certificate as NodeX509Certificate, webcrypto } from 'node:crypto';
import { X509CertificateGenerator } from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { managedPki } from '../../test/x509.ts';
import { createCsr, createIacaCertificate } from './certificates.ts';
import { parseCertificate, verifyIssuedBy } from './parse.ts';

const IACA = {
  commonName: 'Parse IACA',
  country: 'NZ',
  stateOrProvinceName: 'Wellington',
  notBefore: new Date('2026-01-01T00:00:00Z'),
  notAfter: new Date('2031-01-01T00:00:00Z'),
  issuerAlternativeName: 'https://issuer.example.nz',
  crlDistributionPointUri: 'https://issuer.example.nz/crl',
};

async function pki() {
  const made = await managedPki(IACA, {
    commonName: 'Parse DS',
    country: 'NZ',
    notBefore: new Date('2026-01-01T00:00:00Z'),
    notAfter: new Date('2027-01-01T00:00:00Z'),
    crlDistributionPointUri: 'https://issuer.example.nz/crl',
    issuerAlternativeName: 'https://issuer.example.nz',
  });
  // The same name under another key: what an impostor IACA would look like.
  const impostor = await createIacaCertificate({ ...IACA, key: await made.newKey() });
  return { ...made, impostor };
}

describe('parseCertificate (docs/decisions.md "mDoc PKI" certificateData)', () => {
  it('reads the same fields from PEM and from DER, agreeing with node:crypto', async () => {
    const { iaca, iacaKey } = await pki();
    const fromPem = parseCertificate(iaca.pem);
    const fromDer = parseCertificate(iaca.der);
    expect(fromDer).toEqual(fromPem);
    const node = new NodeX509Certificate(iaca.der);
    expect(fromPem).toMatchObject({
      commonName: 'Parse IACA',
      country: 'NZ',
      stateOrProvinceName: 'Wellington',
      isCa: true,
      subjectPublicJwk: { kty: 'EC', crv: 'P-256', x: iacaKey.publicJwk.x, y: iacaKey.publicJwk.y },
      serialNumber: node.serialNumber.toLowerCase(),
      fingerprintSha256: node.fingerprint256.replaceAll(':', '').toLowerCase(),
    });
    expect(fromPem.notBefore.toISOString()).toBe(node.validFromDate.toISOString());
    expect(fromPem.notAfter.toISOString()).toBe(node.validToDate.toISOString());
    expect(fromPem.subjectKeyIdentifier).toMatch(/^[0-9a-f]{40}$/);
    expect(Buffer.from(fromPem.der).equals(Buffer.from(iaca.der))).toBe(true);
    expect(fromPem.pem.trim()).toBe(iaca.pem.trim());
  });

  it('reads a document signer as no CA', async () => {
    const { ds, signerKey } = await pki();
    expect(parseCertificate(ds.pem)).toMatchObject({
      commonName: 'Parse DS',
      country: 'NZ',
      stateOrProvinceName: 'Wellington',
      isCa: false,
      subjectPublicJwk: { x: signerKey.publicJwk.x },
    });
  });

  it('reads an imported IACA made elsewhere on another curve (P-384)', async () => {
    const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const cert = await X509CertificateGenerator.createSelfSigned(
      { name: 'C=DE, CN=Elsewhere', keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-384' } },
      webcrypto as unknown as webcrypto.Crypto,
    );
    const parsed = parseCertificate(cert.toString('pem'));
    expect(parsed).toMatchObject({
      commonName: 'Elsewhere',
      country: 'DE',
      stateOrProvinceName: undefined,
      isCa: false,
      subjectPublicJwk: { kty: 'EC', crv: 'P-384' },
    });
  });

  it.each([
    ['text that is not PEM', 'hello'],
    ['two certificates', 'TWO'],
    ['a certificate request', 'CSR'],
    ['bytes that are not a certificate', new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01])],
  ])('refuses %s with a 400 on certificatePem', async (_name, input) => {
    const { iaca, ds, newKey } = await pki();
    const value =
      input === 'TWO' ? `${iaca.pem}\n${ds.pem}` : input === 'CSR' ? (await createCsr({ key: await newKey(), commonName: 'x', country: 'NZ' })).pem : input;
    let error: unknown;
    try {
      parseCertificate(value);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'BadRequest', details: [{ param: 'certificatePem' }] });
  });
});

describe('verifyIssuedBy (RFC 5280 §6 name chaining and signature)', () => {
  it('accepts a document signer under its IACA and an IACA under itself', async () => {
    const { iaca, ds } = await pki();
    expect(verifyIssuedBy(ds.der, iaca.der)).toBe(true);
    expect(verifyIssuedBy(ds.pem, iaca.pem)).toBe(true);
    expect(verifyIssuedBy(iaca.pem, iaca.pem)).toBe(true);
  });

  it('refuses an IACA with the same name but another key, and a document signer as an issuer', async () => {
    const { iaca, ds, impostor } = await pki();
    expect(verifyIssuedBy(ds.der, impostor.der)).toBe(false);
    expect(verifyIssuedBy(iaca.der, ds.der)).toBe(false);
    expect(verifyIssuedBy(ds.der, ds.der)).toBe(false);
  });
});
