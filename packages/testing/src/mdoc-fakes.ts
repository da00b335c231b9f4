// Stand-ins for the X.509 authority and the mso_mdoc engine, for tests of the core. They keep the
// ports' contracts (dates, keys, issuers, EKUs, signatures through the KeyManager, so a destroyed
// key fails as it would for real) with JSON in place of ASN.1 and CBOR. Real certificates and mDocs
// are proven in @vellum/crypto, @vellum/formats and tools/interop.
import { createHash } from 'node:crypto';
import { type CertificateInfo, DomainError, type KeyManager, type MdocEngine, type MdocEngineInput, type PublicJwk, type X509Authority } from '@vellum/core';

const DS_EKU = '1.0.18013.5.1.2';

/** The JSON a fake certificate carries. */
export interface FakeCertificateBody {
  kind: 'certificate';
  serialNumber: string;
  subject: { commonName?: string; country?: string; stateOrProvinceName?: string };
  /** Fingerprint of the issuer's certificate; a self-signed one names its own key instead. */
  issuer: string;
  notBefore: string;
  notAfter: string;
  publicKey: CertificateInfo['publicKey'];
  isCa: boolean;
  extendedKeyUsages: string[];
  subjectAltNames?: string[];
  issuerAlternativeName?: string;
  crlDistributionPointUri?: string;
  signature?: string;
}

const pemOf = (label: string, bytes: Uint8Array) => `-----BEGIN ${label}-----\n${Buffer.from(bytes).toString('base64')}\n-----END ${label}-----\n`;

function bodyOf(pem: string, label = 'CERTIFICATE'): FakeCertificateBody | undefined {
  const m = new RegExp(`^-----BEGIN ${label}-----\\n([A-Za-z0-9+/=\\n]+)\\n-----END ${label}-----\\n?$`).exec(pem.trim() + '\n');
  if (!m) return undefined;
  try {
    const body = JSON.parse(Buffer.from(m[1] as string, 'base64').toString('utf8')) as FakeCertificateBody;
    return body.kind === 'certificate' ? body : undefined;
  } catch {
    return undefined;
  }
}

const fingerprint = (der: Uint8Array) => createHash('sha256').update(der).digest('hex');
const keyName = (jwk: { x?: string; y?: string }) => `key:${jwk.x ?? ''}:${jwk.y ?? ''}`;

/** A fake certificate for a test to hand to the core, e.g. an imported IACA or a CA's answer to a CSR. */
export function fakeCertificatePem(body: Omit<FakeCertificateBody, 'kind'>): string {
  return pemOf('CERTIFICATE', new TextEncoder().encode(JSON.stringify({ kind: 'certificate', ...body })));
}

function info(pem: string): CertificateInfo {
  const body = bodyOf(pem);
  if (!body)
    throw new DomainError('BadRequest', 'Validation Error', {
      details: [{ msg: 'Expected one PEM or DER X.509 certificate', param: 'certificatePem', location: 'body' }],
    });
  const der = new TextEncoder().encode(JSON.stringify(body));
  return {
    pem: pemOf('CERTIFICATE', der),
    der,
    serialNumber: body.serialNumber,
    notBefore: new Date(body.notBefore),
    notAfter: new Date(body.notAfter),
    ...body.subject,
    publicKey: body.publicKey,
    isCa: body.isCa,
    extendedKeyUsages: body.extendedKeyUsages,
    fingerprint: fingerprint(der),
    subjectAltNames: body.subjectAltNames ?? [],
  };
}

/** The PEM a fake CSR carries: the subject and the requested key. */
export function fakeCsrBody(pem: string): { subject: FakeCertificateBody['subject']; publicKey: PublicJwk } | undefined {
  const m = /^-----BEGIN CERTIFICATE REQUEST-----\n([A-Za-z0-9+/=\n]+)\n-----END CERTIFICATE REQUEST-----/.exec(pem);
  return m
    ? (JSON.parse(Buffer.from(m[1] as string, 'base64').toString('utf8')) as { subject: FakeCertificateBody['subject']; publicKey: PublicJwk })
    : undefined;
}

/**
 * An X509Authority over a KeyManager whose certificates are JSON: for unit tests of the core. It
 * signs every certificate and CRL through the KeyManager, and counts what it made.
 */
export function fakeX509Authority(keys: KeyManager): X509Authority & { made: { iacas: number; signers: number; csrs: number; crls: number } } {
  let serial = 0;
  const made = { iacas: 0, signers: 0, csrs: 0, crls: 0 };
  const nextSerial = () => (serial += 1).toString(16).padStart(8, '0');

  async function signed(body: Omit<FakeCertificateBody, 'kind' | 'signature'>, by: { tenantId: string; keyId: string }): Promise<CertificateInfo> {
    const signature = await keys.sign(by.tenantId, by.keyId, new TextEncoder().encode(JSON.stringify(body)));
    return info(fakeCertificatePem({ ...body, signature: Buffer.from(signature).toString('base64url') }));
  }

  /** The body of a certificate with the subject, validity and URIs of `input`, and the rest from `of`. */
  const bodyFor = (
    input: Omit<Parameters<X509Authority['createIacaCertificate']>[0], 'key'>,
    of: Pick<FakeCertificateBody, 'issuer' | 'publicKey' | 'isCa' | 'extendedKeyUsages'>,
  ): Omit<FakeCertificateBody, 'kind' | 'signature'> => ({
    serialNumber: nextSerial(),
    subject: {
      commonName: input.commonName,
      country: input.country,
      ...(input.stateOrProvinceName !== undefined ? { stateOrProvinceName: input.stateOrProvinceName } : {}),
    },
    issuer: of.issuer,
    notBefore: input.notBefore.toISOString(),
    notAfter: input.notAfter.toISOString(),
    publicKey: of.publicKey,
    isCa: of.isCa,
    extendedKeyUsages: of.extendedKeyUsages,
    issuerAlternativeName: input.issuerAlternativeName,
    crlDistributionPointUri: input.crlDistributionPointUri,
  });

  const checkWindow = (notBefore: Date, notAfter: Date) => {
    if (!(notAfter > notBefore))
      throw new DomainError('BadRequest', 'Validation Error', { details: [{ msg: 'notAfter must be after notBefore', param: 'notAfter', location: 'body' }] });
  };

  return {
    made,
    async createIacaCertificate(input) {
      checkWindow(input.notBefore, input.notAfter);
      made.iacas += 1;
      const { key } = input;
      const body = bodyFor(input, { issuer: keyName(key.publicJwk), publicKey: { ...key.publicJwk }, isCa: true, extendedKeyUsages: [] });
      return signed(body, { tenantId: key.tenantId, keyId: key.id });
    },
    async createDocumentSignerCertificate(input) {
      checkWindow(input.notBefore, input.notAfter);
      const issuer = info(input.issuer.certificatePem);
      if (input.notAfter.getTime() - input.notBefore.getTime() > 457 * 86_400_000) {
        throw new DomainError('BadRequest', 'Validation Error', {
          details: [{ msg: 'The validity may not exceed 457 days (ISO/IEC 18013-5 Annex B)', param: 'notAfter', location: 'body' }],
        });
      }
      if (input.notBefore < issuer.notBefore || input.notAfter > issuer.notAfter) {
        throw new DomainError('BadRequest', 'Validation Error', { details: [{ msg: 'Outside the IACA’s validity', param: 'notAfter', location: 'body' }] });
      }
      made.signers += 1;
      const leaf = input.subjectAltNames;
      const body = bodyFor(input, {
        issuer: issuer.fingerprint,
        publicKey: { ...input.subjectPublicJwk },
        isCa: false,
        extendedKeyUsages: leaf ? [] : [DS_EKU],
      });
      return signed(leaf ? { ...body, subjectAltNames: [...leaf] } : body, input.issuer.key);
    },
    async createCsr(input) {
      made.csrs += 1;
      const body = {
        subject: { commonName: input.commonName, country: input.country, stateOrProvinceName: input.stateOrProvinceName },
        publicKey: input.key.publicJwk,
      };
      await keys.sign(input.key.tenantId, input.key.id, new TextEncoder().encode(JSON.stringify(body)));
      return pemOf('CERTIFICATE REQUEST', new TextEncoder().encode(JSON.stringify(body)));
    },
    async createCrl(input) {
      made.crls += 1;
      const body = {
        kind: 'crl',
        issuer: info(input.issuer.certificatePem).fingerprint,
        revoked: input.revoked.map((r) => ({ serialNumber: r.serialNumber, revokedAt: r.revokedAt.toISOString() })),
        thisUpdate: input.thisUpdate.toISOString(),
        nextUpdate: input.nextUpdate.toISOString(),
      };
      const bytes = new TextEncoder().encode(JSON.stringify(body));
      await keys.sign(input.issuer.key.tenantId, input.issuer.key.keyId, bytes);
      return bytes;
    },
    parseCertificate: info,
    verifyIssuedBy(certificatePem, issuerPem) {
      const child = bodyOf(certificatePem);
      const issuer = info(issuerPem);
      if (!child || !issuer.isCa) return false;
      return child.issuer === issuer.fingerprint || (certificatePem === issuerPem && child.issuer === keyName(issuer.publicKey));
    },
  };
}

/** What a fake mDoc carries: everything the engine was asked to sign, and the signature. */
export interface FakeMdoc {
  docType: string;
  namespaces: MdocEngineInput['namespaces'];
  deviceKey: PublicJwk;
  validity: { signed: string; validFrom: string; validUntil: string };
  /** base64 DER of the x5chain. */
  x5chain: string[];
  /** The status list entry, as the engine was given it. */
  status?: MdocEngineInput['status'];
  signature: string;
}

/** Reads a credential the fake engine issued. */
export function readFakeMdoc(credential: string): FakeMdoc {
  return JSON.parse(Buffer.from(credential, 'base64url').toString('utf8')) as FakeMdoc;
}

const whole = (at: Date) => new Date(Math.floor(at.getTime() / 1000) * 1000);

/** An MdocEngine that signs the JSON of its input through the KeyManager: for tests of the core. */
export function fakeMdocEngine(keys: KeyManager): MdocEngine & { calls: number } {
  const engine = {
    calls: 0,
    async issue(input: MdocEngineInput) {
      engine.calls += 1;
      if (input.deviceKey.kty !== 'EC' || input.deviceKey.crv !== 'P-256') {
        throw new DomainError('BadRequest', 'Validation Error', {
          details: [{ msg: 'The device key must be an EC P-256 key', param: 'deviceKey', location: 'body' }],
        });
      }
      const validFrom = whole(input.validity.validFrom);
      const validUntil = whole(input.validity.validUntil);
      const body = {
        docType: input.docType,
        namespaces: input.namespaces,
        deviceKey: input.deviceKey,
        validity: { signed: whole(input.validity.signed).toISOString(), validFrom: validFrom.toISOString(), validUntil: validUntil.toISOString() },
        x5chain: input.signer.x5chain.map((der) => Buffer.from(der).toString('base64')),
        ...(input.status ? { status: input.status } : {}),
      };
      const signature = await keys.sign(input.tenantId, input.signer.keyId, new TextEncoder().encode(JSON.stringify(body)));
      const mdoc: FakeMdoc = { ...body, signature: Buffer.from(signature).toString('base64url') };
      return { credential: Buffer.from(JSON.stringify(mdoc)).toString('base64url'), validFrom, validUntil };
    },
  };
  return engine;
}
