// Before @peculiar/x509, as in the modules under test.
import 'reflect-metadata';
import { createHash, createPublicKey, X509Certificate as NodeX509Certificate, verify as nodeVerify } from 'node:crypto';
import type { PublicJwk } from '@vellum/core';
import { children, type Tlv, tlv } from '@vellum/testing';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  CRLDistributionPointsExtension,
  ExtendedKeyUsageExtension,
  IssuerAlternativeNameExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  Pkcs10CertificateRequest,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509Crl,
} from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { managedKeys, managedPki } from '../../test/x509.ts';
import { createCrl, createCsr, createDocumentSignerCertificate, createIacaCertificate, type CreateIacaCertificateInput } from './certificates.ts';
import { parseCertificate } from './parse.ts';

// ----- reading DER (tlv, children: @vellum/testing), so extensions and signatures are checked by code that is not @peculiar's -----

function oid(der: Uint8Array, node: Tlv): string {
  const bytes = der.subarray(node.body, node.end);
  const parts = [Math.floor((bytes[0] as number) / 40), (bytes[0] as number) % 40];
  let value = 0;
  for (const b of bytes.subarray(1)) {
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

/** The three parts of any signed X.509 structure (certificate, CRL, CSR): what was signed, the algorithm, the DER signature. */
function signedParts(der: Uint8Array) {
  const [tbs, algorithm, signature] = children(der, tlv(der, 0)) as [Tlv, Tlv, Tlv];
  return {
    tbs: der.subarray(tbs.start, tbs.end),
    tbsNode: tbs,
    algorithm: oid(der, children(der, algorithm)[0]!),
    signature: der.subarray(signature.body + 1, signature.end),
  };
}

/** Extensions of a certificate by OID, with their criticality, read straight from the DER. */
function extensionsOf(der: Uint8Array): Map<string, { critical: boolean; value: Uint8Array }> {
  const { tbsNode } = signedParts(der);
  const explicit = children(der, tbsNode).find((node) => node.tag === 0xa3)!;
  const out = new Map<string, { critical: boolean; value: Uint8Array }>();
  for (const extension of children(der, children(der, explicit)[0]!)) {
    const parts = children(der, extension);
    const critical = parts.length === 3 && der[parts[1]!.body] === 0xff;
    const value = parts[parts.length - 1]!;
    out.set(oid(der, parts[0]!), { critical, value: der.subarray(value.body, value.end) });
  }
  return out;
}

const OID = {
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  issuerAltName: '2.5.29.18',
  basicConstraints: '2.5.29.19',
  crlDistributionPoints: '2.5.29.31',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  crlNumber: '2.5.29.20',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
};

// ----- fixtures -----

const notBefore = new Date('2026-01-01T00:00:00.000Z');
const notAfter = new Date('2036-01-01T00:00:00.000Z');

const IACA = {
  commonName: 'Vellum Test IACA',
  country: 'US',
  stateOrProvinceName: 'US-CA',
  notBefore,
  notAfter,
  issuerAlternativeName: 'https://issuer.example.com',
  crlDistributionPointUri: 'https://issuer.example.com/v2/credentials/mobile/iacas/1/crl',
};

const DOCUMENT_SIGNER = {
  commonName: 'Vellum Test Document Signer',
  country: 'US',
  notBefore: new Date('2026-02-01T00:00:00.000Z'),
  notAfter: new Date('2027-02-01T00:00:00.000Z'),
  crlDistributionPointUri: 'https://issuer.example.com/v2/credentials/mobile/iacas/1/crl',
  issuerAlternativeName: 'https://issuer.example.com',
};

const iacaInput = (key: CreateIacaCertificateInput['key'], over: Partial<CreateIacaCertificateInput> = {}): CreateIacaCertificateInput => ({
  key,
  ...IACA,
  ...over,
});

const pki = () => managedPki(IACA, DOCUMENT_SIGNER);

const jwkOf = (der: Uint8Array) =>
  createPublicKey({ key: Buffer.from(new NodeX509Certificate(der).publicKey.export({ format: 'der', type: 'spki' })), format: 'der', type: 'spki' }).export({
    format: 'jwk',
  });
const pointSha1 = (jwk: PublicJwk) =>
  createHash('sha1')
    .update(Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y!, 'base64url')]))
    .digest('hex');
// countryName (2.5.4.6) as a PrintableString (tag 0x13).
const printableCountry = (c: string) => Buffer.concat([Buffer.from('0603550406130' + '2', 'hex'), Buffer.from(c)]);

describe('IACA certificate (ISO/IEC 18013-5 Annex B, Tables B.1 and B.2)', () => {
  it('is self-signed with ecdsa-with-SHA256 over the held P-256 key, and node:crypto accepts it as its own issuer', async () => {
    const newKey = await managedKeys();
    const key = await newKey();
    const { der, pem } = await createIacaCertificate(iacaInput(key));
    const node = new NodeX509Certificate(der);
    expect(node.signatureAlgorithmOid).toBe(OID.ecdsaWithSha256);
    expect(node.subject).toBe(node.issuer);
    expect(node.subject.split('\n')).toEqual(['C=US', 'ST=US-CA', 'CN=Vellum Test IACA']);
    expect(node.checkIssued(node)).toBe(true);
    expect(node.verify(createPublicKey({ key: { ...key.publicJwk }, format: 'jwk' }))).toBe(true);
    expect(node.ca).toBe(true);
    expect(jwkOf(der)).toMatchObject({ kty: 'EC', crv: 'P-256', x: key.publicJwk.x, y: key.publicJwk.y });
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n?$/);
    expect(Buffer.from(der).indexOf(printableCountry('US'))).toBeGreaterThan(0);
    // @peculiar/x509 reads the same signature back.
    const peculiar = new X509Certificate(der);
    expect(await peculiar.verify({ signatureOnly: true })).toBe(true);
  });

  it('carries exactly the Annex B extensions with the right criticality', async () => {
    const newKey = await managedKeys();
    const key = await newKey();
    const { der } = await createIacaCertificate(iacaInput(key));
    const raw = extensionsOf(der);
    expect(new Map([...raw].map(([id, { critical }]) => [id, critical]))).toEqual(
      new Map([
        [OID.subjectKeyIdentifier, false],
        [OID.keyUsage, true],
        [OID.issuerAltName, false],
        [OID.basicConstraints, true],
        [OID.crlDistributionPoints, false],
      ]),
    );
    // BasicConstraints SEQUENCE { cA TRUE, pathLenConstraint 0 }.
    expect(Buffer.from(raw.get(OID.basicConstraints)!.value).toString('hex')).toBe('30060101ff020100');
    const cert = new X509Certificate(der);
    expect(cert.getExtension(BasicConstraintsExtension)).toMatchObject({ ca: true, pathLength: 0, critical: true });
    expect(cert.getExtension(KeyUsagesExtension)!.usages).toBe(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign);
    expect(cert.getExtension(SubjectKeyIdentifierExtension)!.keyId).toBe(pointSha1(key.publicJwk));
    expect(cert.getExtension(IssuerAlternativeNameExtension)!.names.toJSON()).toEqual([{ type: 'url', value: 'https://issuer.example.com' }]);
    const [point] = cert.getExtension(CRLDistributionPointsExtension)!.distributionPoints;
    expect(point!.distributionPoint!.fullName![0]!.uniformResourceIdentifier).toBe('https://issuer.example.com/v2/credentials/mobile/iacas/1/crl');
    expect(point!.reasons).toBeUndefined();
    expect(point!.cRLIssuer).toBeUndefined();
  });

  it('uses a positive random serial number of 16 octets (at least 63 random bits, at most 20 octets)', async () => {
    const newKey = await managedKeys();
    const key = await newKey();
    const serials = await Promise.all([1, 2, 3].map(async () => new NodeX509Certificate((await createIacaCertificate(iacaInput(key))).der).serialNumber));
    for (const serial of serials) expect(serial).toMatch(/^[4-7][0-9A-F]{31}$/);
    expect(new Set(serials).size).toBe(3);
    const fixed = await createIacaCertificate(iacaInput(key, { serialNumber: '7f01020304050607' }));
    expect(new NodeX509Certificate(fixed.der).serialNumber).toBe('7F01020304050607');
  });

  it('keeps the requested validity (to the second) and writes an e-mail alternative name as rfc822Name', async () => {
    const newKey = await managedKeys();
    const { der } = await createIacaCertificate(
      iacaInput(await newKey(), {
        notBefore: new Date('2026-01-01T00:00:00.750Z'),
        issuerAlternativeName: 'pki@issuer.example.com',
        stateOrProvinceName: undefined,
      }),
    );
    const node = new NodeX509Certificate(der);
    expect(node.validFromDate.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(node.validToDate.toISOString()).toBe(notAfter.toISOString());
    expect(node.subject.split('\n')).toEqual(['C=US', 'CN=Vellum Test IACA']);
    expect(new X509Certificate(der).getExtension(IssuerAlternativeNameExtension)!.names.toJSON()).toEqual([{ type: 'email', value: 'pki@issuer.example.com' }]);
  });

  it.each([
    ['a validity over 20 years', { notAfter: new Date('2046-01-01T00:00:01Z') }, 'notAfter'],
    ['notAfter before notBefore', { notAfter: new Date('2025-01-01T00:00:00Z') }, 'notAfter'],
    ['a lower-case country', { country: 'us' }, 'country'],
    ['an empty common name', { commonName: ' ' }, 'commonName'],
    ['a CRL URI that is not http(s)', { crlDistributionPointUri: 'ldap://x.example/crl' }, 'crlDistributionPointUri'],
    ['an alternative name that is neither URI nor e-mail', { issuerAlternativeName: 'issuer' }, 'issuerAlternativeName'],
    ['a serial number of 21 octets', { serialNumber: '01'.repeat(21) }, 'serialNumber'],
    ['a zero serial number', { serialNumber: '00' }, 'serialNumber'],
  ])('refuses %s with a 400 naming the field', async (_name, over, param) => {
    const newKey = await managedKeys();
    const error = await createIacaCertificate(iacaInput(await newKey(), over)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BadRequest', details: [{ param }] });
  });

  it('refuses to return a certificate when the held key that signs is not the key it certifies', async () => {
    const newKey = await managedKeys();
    const [key, other] = [await newKey(), await newKey()];
    const error = await createIacaCertificate(iacaInput({ publicJwk: key.publicJwk, sign: other.sign })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'InternalServerError' });
  });
});

describe('Document signer certificate (ISO/IEC 18013-5 Annex B, Tables B.3 and B.4)', () => {
  it('chains to its IACA for node:crypto (names, key identifiers, signature) and for @peculiar/x509', async () => {
    const { iaca, ds, signerKey } = await pki();
    const [root, leaf] = [new NodeX509Certificate(iaca.der), new NodeX509Certificate(ds.der)];
    expect(leaf.issuer).toBe(root.subject);
    expect(leaf.checkIssued(root)).toBe(true);
    expect(leaf.verify(root.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.signatureAlgorithmOid).toBe(OID.ecdsaWithSha256);
    expect(leaf.keyUsage).toEqual(['1.0.18013.5.1.2']);
    expect(leaf.subject.split('\n')).toEqual(['C=US', 'ST=US-CA', 'CN=Vellum Test Document Signer']); // the IACA's state, inherited
    expect(jwkOf(ds.der)).toMatchObject({ x: signerKey.publicJwk.x, y: signerKey.publicJwk.y });
    expect(await new X509Certificate(ds.der).verify({ publicKey: new X509Certificate(iaca.der).publicKey, signatureOnly: true })).toBe(true);
    // The issuer name is the IACA subject byte for byte.
    const issuerOf = (der: Uint8Array, index: number) => {
      const node = children(der, signedParts(der).tbsNode)[index]!;
      return Buffer.from(der.subarray(node.start, node.end)).toString('hex');
    };
    expect(issuerOf(ds.der, 3)).toBe(issuerOf(iaca.der, 5));
  });

  it('carries exactly the Annex B extensions with the right criticality, AKI = the IACA’s SKI', async () => {
    const { iaca, ds, signerKey, iacaKey } = await pki();
    const raw = extensionsOf(ds.der);
    expect(new Map([...raw].map(([id, { critical }]) => [id, critical]))).toEqual(
      new Map([
        [OID.authorityKeyIdentifier, false],
        [OID.subjectKeyIdentifier, false],
        [OID.keyUsage, true],
        [OID.issuerAltName, false],
        [OID.extKeyUsage, true],
        [OID.crlDistributionPoints, false],
      ]),
    );
    // KeyUsage BIT STRING with digitalSignature (bit 0) only.
    expect(Buffer.from(raw.get(OID.keyUsage)!.value).toString('hex')).toBe('03020780');
    const cert = new X509Certificate(ds.der);
    expect(cert.getExtension(AuthorityKeyIdentifierExtension)!.keyId).toBe(new X509Certificate(iaca.der).getExtension(SubjectKeyIdentifierExtension)!.keyId);
    expect(cert.getExtension(AuthorityKeyIdentifierExtension)!.keyId).toBe(pointSha1(iacaKey.publicJwk));
    expect(cert.getExtension(SubjectKeyIdentifierExtension)!.keyId).toBe(pointSha1(signerKey.publicJwk));
    expect(cert.getExtension(ExtendedKeyUsageExtension)!.usages).toEqual(['1.0.18013.5.1.2']);
    expect(cert.getExtension(KeyUsagesExtension)!.usages).toBe(KeyUsageFlags.digitalSignature);
    expect(cert.getExtension(BasicConstraintsExtension)).toBeNull();
  });

  it.each([
    ['valid before its IACA', { notBefore: new Date('2025-12-31T00:00:00Z') }, 'notBefore'],
    ['valid after its IACA', { notBefore: new Date('2035-06-01T00:00:00Z'), notAfter: new Date('2036-06-01T00:00:00Z') }, 'notAfter'],
    ['valid longer than 457 days', { notAfter: new Date('2027-05-05T00:00:00Z') }, 'notAfter'],
    ['of another country than its IACA', { country: 'NZ' }, 'country'],
    ['of another state than its IACA', { stateOrProvinceName: 'US-NY' }, 'stateOrProvinceName'],
  ])('refuses a document signer %s', async (_name, over, param) => {
    const { newKey, iacaKey, iaca } = await pki();
    const error = await createDocumentSignerCertificate({
      ...DOCUMENT_SIGNER,
      iaca: { certificateDer: iaca.der, key: iacaKey },
      subjectPublicJwk: (await newKey()).publicJwk,
      ...over,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BadRequest', details: [{ param }] });
  });
});

describe('Document signer CSR (PKCS#10, RFC 2986) for IACAs Vellum does not hold', () => {
  it('names the subject, carries the held public key and is signed by it (checked by @peculiar/x509 and node:crypto)', async () => {
    const newKey = await managedKeys();
    const key = await newKey();
    const { der, pem } = await createCsr({ key, commonName: 'Vellum DS', country: 'NZ', stateOrProvinceName: 'Wellington' });
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE REQUEST-----\n/);
    const csr = new Pkcs10CertificateRequest(pem);
    expect(csr.subject).toBe('C=NZ, ST=Wellington, CN=Vellum DS');
    expect(await csr.verify()).toBe(true);
    const jwk = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: 'der', type: 'spki' }).export({ format: 'jwk' });
    expect(jwk).toMatchObject({ x: key.publicJwk.x, y: key.publicJwk.y });
    const { tbs, algorithm, signature } = signedParts(der);
    expect(algorithm).toBe(OID.ecdsaWithSha256);
    expect(nodeVerify('sha256', tbs, createPublicKey({ key: { ...key.publicJwk }, format: 'jwk' }), signature)).toBe(true);
  });
});

describe('IACA CRL (RFC 5280 §5, ISO/IEC 18013-5 Annex B)', () => {
  it('lists revoked serial numbers with their dates, carries AKI and CRLNumber, and verifies under the IACA key', async () => {
    const { iaca, iacaKey, ds } = await pki();
    const serial = new NodeX509Certificate(ds.der).serialNumber.toLowerCase();
    const der = await createCrl({
      iaca: { certificateDer: iaca.der, key: iacaKey },
      revoked: [{ serialNumber: serial, revokedAt: new Date('2026-03-01T12:00:00.500Z') }],
      thisUpdate: new Date('2026-03-02T00:00:00Z'),
      nextUpdate: new Date('2026-03-09T00:00:00Z'),
    });
    const crl = new X509Crl(der);
    expect(crl.issuer).toBe(new X509Certificate(iaca.der).subject);
    expect(crl.thisUpdate.toISOString()).toBe('2026-03-02T00:00:00.000Z');
    expect(crl.nextUpdate?.toISOString()).toBe('2026-03-09T00:00:00.000Z');
    expect(crl.entries.map((e) => [e.serialNumber.toLowerCase(), e.revocationDate.toISOString()])).toEqual([[serial, '2026-03-01T12:00:00.000Z']]);
    expect(crl.findRevoked(new X509Certificate(ds.der))).not.toBeNull();
    expect(await crl.verify({ publicKey: new X509Certificate(iaca.der).publicKey })).toBe(true);
    expect(crl.getExtension(AuthorityKeyIdentifierExtension)!.keyId).toBe(pointSha1(iacaKey.publicJwk));
    const crlNumber = crl.extensions.find((e) => e.type === OID.crlNumber)!;
    expect(crlNumber.critical).toBe(false);
    // INTEGER 1772409600 (thisUpdate in seconds), the default CRL number.
    expect(Buffer.from(crlNumber.value).toString('hex')).toBe('020469a4d300');
    const { tbs, algorithm, signature } = signedParts(der);
    expect(algorithm).toBe(OID.ecdsaWithSha256);
    expect(nodeVerify('sha256', tbs, new NodeX509Certificate(iaca.der).publicKey, signature)).toBe(true);
  });

  it('issues an empty CRL when nothing is revoked, and refuses nextUpdate before thisUpdate', async () => {
    const { iaca, iacaKey } = await pki();
    const der = await createCrl({
      iaca: { certificateDer: iaca.der, key: iacaKey },
      revoked: [],
      thisUpdate: new Date('2026-03-02T00:00:00Z'),
      nextUpdate: new Date('2026-03-03T00:00:00Z'),
      crlNumber: 7,
    });
    expect(new X509Crl(der).entries).toEqual([]);
    const error = await createCrl({
      iaca: { certificateDer: iaca.der, key: iacaKey },
      revoked: [],
      thisUpdate: new Date('2026-03-02T00:00:00Z'),
      nextUpdate: new Date('2026-03-01T00:00:00Z'),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BadRequest', details: [{ param: 'nextUpdate' }] });
  });
});

describe('Issuer CA leaf certificate (docs/decisions.md "Issuer certificates", HAIP 1.0, SD-JWT VC §3.5)', () => {
  const ISSUER = 'https://acme.eu01.vellum.example';
  const HOST = 'acme.eu01.vellum.example';
  const LEAF = {
    ...DOCUMENT_SIGNER,
    commonName: 'Vellum Test Credential Signer',
    crlDistributionPointUri: 'https://issuer.example.com/v2/credentials/issuer-cas/1/crl',
    subjectAltNames: [ISSUER, HOST],
  };
  const SAN = '2.5.29.17';

  it('chains to its CA for node:crypto and names the issuer as a URI and its host as a dNSName', async () => {
    const { iaca, ds, signerKey } = await managedPki(IACA, LEAF);
    const [root, leaf] = [new NodeX509Certificate(iaca.der), new NodeX509Certificate(ds.der)];
    expect(leaf.checkIssued(root)).toBe(true);
    expect(leaf.verify(root.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.subjectAltName).toBe(`URI:${ISSUER}, DNS:${HOST}`);
    expect(jwkOf(ds.der)).toMatchObject({ x: signerKey.publicJwk.x, y: signerKey.publicJwk.y });
    // Read from the DER: GeneralNames with [6] uniformResourceIdentifier then [2] dNSName, in the order given.
    const value = extensionsOf(ds.der).get(SAN)!.value;
    const names = children(value, tlv(value, 0)).map((n) => [n.tag, Buffer.from(value.subarray(n.body, n.end)).toString('utf8')]);
    expect(names).toEqual([
      [0x86, ISSUER],
      [0x82, HOST],
    ]);
  });

  it('carries KeyUsage digitalSignature (critical), AKI = the CA’s SKI, SAN, and no extended key usage', async () => {
    const { iaca, ds, signerKey } = await managedPki(IACA, LEAF);
    const raw = extensionsOf(ds.der);
    expect(new Map([...raw].map(([id, { critical }]) => [id, critical]))).toEqual(
      new Map([
        [OID.authorityKeyIdentifier, false],
        [OID.subjectKeyIdentifier, false],
        [OID.keyUsage, true],
        [OID.issuerAltName, false],
        [SAN, false],
        [OID.crlDistributionPoints, false],
      ]),
    );
    expect(raw.has(OID.extKeyUsage)).toBe(false);
    expect(new NodeX509Certificate(ds.der).keyUsage).toBeUndefined();
    expect(Buffer.from(raw.get(OID.keyUsage)!.value).toString('hex')).toBe('03020780');
    const cert = new X509Certificate(ds.der);
    expect(cert.getExtension(AuthorityKeyIdentifierExtension)!.keyId).toBe(new X509Certificate(iaca.der).getExtension(SubjectKeyIdentifierExtension)!.keyId);
    expect(cert.getExtension(SubjectKeyIdentifierExtension)!.keyId).toBe(pointSha1(signerKey.publicJwk));
    expect(cert.getExtension(CRLDistributionPointsExtension)!.distributionPoints[0]!.distributionPoint!.fullName![0]!.uniformResourceIdentifier).toBe(
      LEAF.crlDistributionPointUri,
    );
    expect(cert.getExtension(BasicConstraintsExtension)).toBeNull();
  });

  it.each([
    ['no name', []],
    ['a relative reference', ['/issuer']],
    ['a URI of another scheme', ['ftp://acme.example']],
    ['a host name with a space', ['acme .example']],
    ['an empty name', ['']],
  ])('refuses %s on subjectAltNames (400), making no certificate', async (_name, subjectAltNames) => {
    const { newKey, iacaKey, iaca } = await pki();
    const error = await createDocumentSignerCertificate({
      ...LEAF,
      subjectAltNames,
      iaca: { certificateDer: iaca.der, key: iacaKey },
      subjectPublicJwk: (await newKey()).publicJwk,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BadRequest', details: [expect.objectContaining({ param: 'subjectAltNames' })] });
  });

  it('is read back by parseCertificate with its SAN; a document signer has none', async () => {
    const { ds } = await managedPki(IACA, LEAF);
    expect(parseCertificate(ds.der).subjectAltNames).toEqual([ISSUER, HOST]);
    const { ds: mdoc } = await pki();
    expect(parseCertificate(mdoc.der).subjectAltNames).toEqual([]);
  });
});
