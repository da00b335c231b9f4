// Before @peculiar/x509: it cannot load without the Reflect metadata API.
import 'reflect-metadata';
import { createPublicKey, randomBytes, webcrypto, X509Certificate as NodeX509Certificate } from 'node:crypto';
import { DomainError, type ErrorDetail, type PublicJwk, validationError } from '@vellum/core';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  CRLDistributionPointsExtension,
  ExtendedKeyUsageExtension,
  Extension,
  IssuerAlternativeNameExtension,
  type JsonGeneralName,
  type JsonNameParams,
  KeyUsageFlags,
  KeyUsagesExtension,
  Name,
  Pkcs10CertificateRequestGenerator,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
  X509CrlGenerator,
} from '@peculiar/x509';
import { type CertificateSigningKey, ES256_ALGORITHM, type Es256Sign, heldPrivateKey, keyIdentifier, p256Spki, signingCrypto } from './signing.ts';

/** ISO/IEC 18013-5 Annex B: the document signer's extended key usage (id-mdl-kp-mdlDS). */
export const MDL_DOCUMENT_SIGNER_EKU = '1.0.18013.5.1.2';
/** Annex B: an IACA certificate is valid for at most 20 years. */
export const IACA_MAX_VALIDITY_YEARS = 20;
/** Annex B: a document signer certificate is valid for at most 457 days. */
export const DOCUMENT_SIGNER_MAX_VALIDITY_DAYS = 457;

const DAY_MS = 86_400_000;
const CRL_NUMBER_OID = '2.5.29.20';

/** A certificate (or CSR) in both encodings. */
export interface EncodedCertificate {
  der: Uint8Array;
  pem: string;
}

export interface CreateIacaCertificateInput {
  /** The IACA's own key: the certificate is self-signed with it. */
  key: CertificateSigningKey;
  commonName: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  stateOrProvinceName?: string;
  notBefore: Date;
  notAfter: Date;
  /** An e-mail address (rfc822Name) or an absolute URI (uniformResourceIdentifier). */
  issuerAlternativeName: string;
  crlDistributionPointUri: string;
  /** Hexadecimal, positive, at most 20 octets. Random (127 bits) when left out. */
  serialNumber?: string;
}

export interface CreateDocumentSignerCertificateInput {
  /** The issuing IACA: its certificate and a way to sign with its key. */
  iaca: { certificateDer: Uint8Array; key: { sign: Es256Sign } };
  subjectPublicJwk: PublicJwk;
  commonName: string;
  /** Must be the IACA's country (Annex B). */
  country: string;
  /** Must be the IACA's when the IACA has one; taken from the IACA when left out. */
  stateOrProvinceName?: string;
  notBefore: Date;
  notAfter: Date;
  crlDistributionPointUri: string;
  issuerAlternativeName: string;
  serialNumber?: string;
  /**
   * Makes the certificate an issuer CA's leaf (docs/decisions.md "Issuer certificates") instead of
   * an mDoc document signer: these subject alternative names (an absolute URI as
   * uniformResourceIdentifier, a host name as dNSName) in place of the document signer EKU.
   */
  subjectAltNames?: readonly string[];
}

export interface CreateCsrInput {
  key: CertificateSigningKey;
  commonName: string;
  country: string;
  stateOrProvinceName?: string;
}

export interface RevokedCertificate {
  /** Hexadecimal serial number, as {@link parseCertificate} reports it. */
  serialNumber: string;
  revokedAt: Date;
}

export interface CreateCrlInput {
  iaca: { certificateDer: Uint8Array; key: { sign: Es256Sign } };
  revoked: readonly RevokedCertificate[];
  thisUpdate: Date;
  nextUpdate: Date;
  /** Increases with every CRL the IACA issues (RFC 5280 §5.2.3). Default: `thisUpdate` in whole seconds since 1970. */
  crlNumber?: number;
}

// ----- input checks: every problem named, as the HTTP layer reports them -----

function detail(param: string, msg: string, value?: unknown): ErrorDetail {
  return value === undefined ? { msg, param, location: 'body' } : { value, msg, param, location: 'body' };
}

function checkName(problems: ErrorDetail[], input: { commonName: string; country: string; stateOrProvinceName?: string | undefined }) {
  const { commonName, country, stateOrProvinceName } = input;
  if (typeof commonName !== 'string' || commonName.trim().length === 0 || commonName.length > 64)
    problems.push(detail('commonName', 'Expected 1 to 64 characters', commonName));
  if (typeof country !== 'string' || !/^[A-Z]{2}$/.test(country))
    problems.push(detail('country', 'Expected an ISO 3166-1 alpha-2 code in upper case', country));
  if (
    stateOrProvinceName !== undefined &&
    (typeof stateOrProvinceName !== 'string' || stateOrProvinceName.trim().length === 0 || stateOrProvinceName.length > 128)
  ) {
    problems.push(detail('stateOrProvinceName', 'Expected 1 to 128 characters', stateOrProvinceName));
  }
}

const isDate = (at: unknown): at is Date => at instanceof Date && !Number.isNaN(at.getTime());
// X.509 times carry whole seconds; truncating here makes what is parsed back equal what was asked.
const seconds = (at: Date) => new Date(Math.floor(at.getTime() / 1000) * 1000);

function checkValidity(problems: ErrorDetail[], notBefore: Date, notAfter: Date, latest: (notBefore: Date) => Date, limit: string) {
  if (!isDate(notBefore)) problems.push(detail('notBefore', 'Expected a date', String(notBefore)));
  if (!isDate(notAfter)) problems.push(detail('notAfter', 'Expected a date', String(notAfter)));
  if (!isDate(notBefore) || !isDate(notAfter)) return;
  if (notAfter <= notBefore) problems.push(detail('notAfter', 'notAfter must be after notBefore', notAfter.toISOString()));
  else if (notAfter > latest(notBefore))
    problems.push(detail('notAfter', `The validity may not exceed ${limit} (ISO/IEC 18013-5 Annex B)`, notAfter.toISOString()));
}

function checkUri(problems: ErrorDetail[], param: string, value: string, schemes: string[]) {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !schemes.includes(url.protocol))
    problems.push(detail(param, `Expected an absolute ${schemes.map((s) => s.slice(0, -1)).join(' or ')} URI`, value));
}

const EMAIL = /^[^\s@:/]+@[^\s@]+\.[^\s@]+$/;

/** The IssuerAlternativeName general name: an e-mail address as rfc822Name, anything else as a URI. */
function alternativeName(problems: ErrorDetail[], value: string): JsonGeneralName {
  if (typeof value === 'string' && EMAIL.test(value)) return { type: 'email', value };
  checkUri(problems, 'issuerAlternativeName', value, ['https:', 'http:', 'mailto:']);
  return { type: 'url', value };
}

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** An issuer leaf's subject alternative names: absolute https or http URIs, and host names. */
function subjectAlternativeNames(problems: ErrorDetail[], values: readonly string[]): JsonGeneralName[] {
  if (values.length === 0) problems.push(detail('subjectAltNames', 'Expected at least one name'));
  return values.map((value) => {
    if (HOST_NAME.test(value)) return { type: 'dns', value };
    checkUri(problems, 'subjectAltNames', value, ['https:', 'http:']);
    return { type: 'url', value };
  });
}

function serialNumber(problems: ErrorDetail[], given: string | undefined): string {
  if (given === undefined) {
    // At least 63 bits from a CSPRNG, positive, at most 20 octets (Annex B): 16 bytes, top bit
    // clear so the INTEGER needs no padding octet, next bit set so it keeps all 16 octets.
    const bytes = randomBytes(16);
    bytes[0] = ((bytes[0] as number) & 0x7f) | 0x40;
    return bytes.toString('hex');
  }
  const hex = given.toLowerCase();
  const octets = hex.length / 2;
  if (!/^[0-9a-f]+$/.test(hex) || hex.length % 2 !== 0 || /^0+$/.test(hex) || octets > 20 || (octets === 20 && Number.parseInt(hex[0] as string, 16) >= 8)) {
    problems.push(detail('serialNumber', 'Expected a positive integer of at most 20 octets in hexadecimal', given));
  }
  return hex;
}

function failOn(problems: ErrorDetail[]) {
  if (problems.length > 0) throw validationError(problems);
}

function subjectName(country: string, stateOrProvinceName: string | undefined, commonName: string): Name {
  const rdns: JsonNameParams = [{ C: [{ printableString: country }] }];
  if (stateOrProvinceName !== undefined) rdns.push({ ST: [{ utf8String: stateOrProvinceName }] });
  rdns.push({ CN: [{ utf8String: commonName }] });
  return new Name(rdns);
}

function encoded(certificate: { rawData: ArrayBuffer; toString(format: 'pem'): string }): EncodedCertificate {
  return { der: new Uint8Array(certificate.rawData), pem: certificate.toString('pem') };
}

function addYears(at: Date, years: number): Date {
  const out = new Date(at);
  out.setUTCFullYear(out.getUTCFullYear() + years);
  return out;
}

function parseIaca(der: Uint8Array): X509Certificate {
  try {
    return new X509Certificate(der);
  } catch (cause) {
    throw new DomainError('BadRequest', 'The IACA certificate cannot be read', { cause });
  }
}

function iacaKeyIdentifier(iaca: X509Certificate): string {
  const ski = iaca.getExtension(SubjectKeyIdentifierExtension);
  if (ski) return ski.keyId;
  const jwk = createPublicKey({ key: Buffer.from(iaca.publicKey.rawData), format: 'der', type: 'spki' }).export({ format: 'jwk' });
  return keyIdentifier({ kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string });
}

/** The signature must verify against the key the certificate names: a wrong key id fails here, not at a verifier. */
function checkSignedBy(der: Uint8Array, publicKey: Uint8Array | ArrayBuffer) {
  const key = createPublicKey({ key: Buffer.from(publicKey instanceof ArrayBuffer ? new Uint8Array(publicKey) : publicKey), format: 'der', type: 'spki' });
  if (!new NodeX509Certificate(der).verify(key))
    throw new DomainError('InternalServerError', 'The certificate signature does not verify: the signing key is not the issuer’s key');
}

/**
 * Signs the certificate with `sign` (ES256, through the held stand-in key of signing.ts), with its
 * times cut to whole seconds, and returns it once it verifies against `issuerKey` (SPKI DER).
 */
async function signCertificate(
  fields: { serialNumber: string; subject: Name; issuer: Name; notBefore: Date; notAfter: Date; publicKey: Uint8Array; extensions: Extension[] },
  sign: Es256Sign,
  issuerKey: Uint8Array | ArrayBuffer,
): Promise<EncodedCertificate> {
  const privateKey = heldPrivateKey();
  const certificate = await X509CertificateGenerator.create(
    { ...fields, notBefore: seconds(fields.notBefore), notAfter: seconds(fields.notAfter), signingKey: privateKey, signingAlgorithm: ES256_ALGORITHM },
    signingCrypto(sign, privateKey),
  );
  const result = encoded(certificate);
  checkSignedBy(result.der, issuerKey);
  return result;
}

// ----- the generators -----

/**
 * A self-signed IACA certificate following ISO/IEC 18013-5 Annex B (Tables B.1, B.2): P-256 with
 * ecdsa-with-SHA256, BasicConstraints CA with pathLen 0 and KeyUsage keyCertSign + cRLSign (both
 * critical), SubjectKeyIdentifier, IssuerAlternativeName and CRLDistributionPoints.
 */
export async function createIacaCertificate(input: CreateIacaCertificateInput): Promise<EncodedCertificate> {
  const problems: ErrorDetail[] = [];
  checkName(problems, input);
  checkValidity(problems, input.notBefore, input.notAfter, (from) => addYears(from, IACA_MAX_VALIDITY_YEARS), `${IACA_MAX_VALIDITY_YEARS} years`);
  const ian = alternativeName(problems, input.issuerAlternativeName);
  checkUri(problems, 'crlDistributionPointUri', input.crlDistributionPointUri, ['https:', 'http:']);
  const serial = serialNumber(problems, input.serialNumber);
  const spki = p256Spki(input.key.publicJwk, 'key.publicJwk');
  failOn(problems);

  const name = subjectName(input.country, input.stateOrProvinceName, input.commonName);
  return signCertificate(
    {
      serialNumber: serial,
      subject: name,
      issuer: name,
      notBefore: input.notBefore,
      notAfter: input.notAfter,
      publicKey: spki,
      extensions: [
        new SubjectKeyIdentifierExtension(keyIdentifier(input.key.publicJwk), false),
        new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
        new IssuerAlternativeNameExtension([ian], false),
        new BasicConstraintsExtension(true, 0, true),
        new CRLDistributionPointsExtension([input.crlDistributionPointUri], false),
      ],
    },
    input.key.sign,
    spki,
  );
}

/**
 * A document signer certificate issued by a (managed) IACA, following ISO/IEC 18013-5 Annex B
 * (Tables B.3, B.4): KeyUsage digitalSignature and ExtendedKeyUsage 1.0.18013.5.1.2 (both
 * critical), AuthorityKeyIdentifier = the IACA's key identifier, SubjectKeyIdentifier,
 * CRLDistributionPoints and IssuerAlternativeName; country (and state) as the IACA's; valid at most
 * 457 days and only within the IACA's validity.
 */
export async function createDocumentSignerCertificate(input: CreateDocumentSignerCertificateInput): Promise<EncodedCertificate> {
  const iaca = parseIaca(input.iaca.certificateDer);
  const iacaCountry = iaca.subjectName.getField('C')[0];
  const iacaState = iaca.subjectName.getField('ST')[0];
  const stateOrProvinceName = input.stateOrProvinceName ?? iacaState;

  const problems: ErrorDetail[] = [];
  checkName(problems, { ...input, stateOrProvinceName });
  if (input.country !== iacaCountry) problems.push(detail('country', 'The country must be the IACA’s (ISO/IEC 18013-5 Annex B)', input.country));
  if (stateOrProvinceName !== iacaState)
    problems.push(detail('stateOrProvinceName', 'The state or province must be the IACA’s (ISO/IEC 18013-5 Annex B)', stateOrProvinceName));
  checkValidity(
    problems,
    input.notBefore,
    input.notAfter,
    (from) => new Date(from.getTime() + DOCUMENT_SIGNER_MAX_VALIDITY_DAYS * DAY_MS),
    `${DOCUMENT_SIGNER_MAX_VALIDITY_DAYS} days`,
  );
  if (isDate(input.notBefore) && seconds(input.notBefore) < iaca.notBefore)
    problems.push(detail('notBefore', 'The document signer may not be valid before its IACA', input.notBefore.toISOString()));
  if (isDate(input.notAfter) && seconds(input.notAfter) > iaca.notAfter)
    problems.push(detail('notAfter', 'The document signer may not be valid after its IACA', input.notAfter.toISOString()));
  const ian = alternativeName(problems, input.issuerAlternativeName);
  checkUri(problems, 'crlDistributionPointUri', input.crlDistributionPointUri, ['https:', 'http:']);
  const serial = serialNumber(problems, input.serialNumber);
  const spki = p256Spki(input.subjectPublicJwk, 'subjectPublicJwk');
  const san = input.subjectAltNames && subjectAlternativeNames(problems, input.subjectAltNames);
  failOn(problems);

  return signCertificate(
    {
      serialNumber: serial,
      // The issuer is the IACA's subject exactly as encoded there, so that name chaining matches byte for byte.
      issuer: iaca.subjectName,
      subject: subjectName(input.country, stateOrProvinceName, input.commonName),
      notBefore: input.notBefore,
      notAfter: input.notAfter,
      publicKey: spki,
      extensions: [
        new AuthorityKeyIdentifierExtension(iacaKeyIdentifier(iaca), false),
        new SubjectKeyIdentifierExtension(keyIdentifier(input.subjectPublicJwk), false),
        new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
        new IssuerAlternativeNameExtension([ian], false),
        // An issuer leaf names the issuer it signs for; no extended key usage is registered for
        // SD-JWT VC or status list signing yet (docs/decisions.md "Issuer certificates").
        san ? new SubjectAlternativeNameExtension(san, false) : new ExtendedKeyUsageExtension([MDL_DOCUMENT_SIGNER_EKU], true),
        new CRLDistributionPointsExtension([input.crlDistributionPointUri], false),
      ],
    },
    input.iaca.key.sign,
    iaca.publicKey.rawData,
  );
}

/**
 * A PKCS#10 certificate request for a document signer key, for an IACA Vellum does not hold
 * (docs/decisions.md "mDoc PKI"): subject C[, ST], CN, signed with the requested key (proof of possession).
 */
export async function createCsr(input: CreateCsrInput): Promise<EncodedCertificate> {
  const problems: ErrorDetail[] = [];
  checkName(problems, input);
  p256Spki(input.key.publicJwk, 'key.publicJwk');
  failOn(problems);

  const { x, y } = input.key.publicJwk;
  const publicKey = await webcrypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x, y }, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
  const privateKey = heldPrivateKey();
  const csr = await Pkcs10CertificateRequestGenerator.create(
    {
      name: subjectName(input.country, input.stateOrProvinceName, input.commonName),
      keys: { publicKey, privateKey },
      signingAlgorithm: ES256_ALGORITHM,
    },
    signingCrypto(input.key.sign, privateKey),
  );
  if (!(await csr.verify()))
    throw new DomainError('InternalServerError', 'The certificate request signature does not verify: the signing key is not the requested key');
  return encoded(csr);
}

/** DER INTEGER contents of a non-negative integer: big-endian, shortest, a leading zero when the top bit is set. */
function derInteger(value: number): Uint8Array {
  let hex = BigInt(value).toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  if (Number.parseInt(hex[0] as string, 16) >= 8) hex = `00${hex}`;
  const body = Buffer.from(hex, 'hex');
  return Uint8Array.of(0x02, body.length, ...body);
}

/**
 * The IACA's certificate revocation list (RFC 5280 §5; ISO/IEC 18013-5 Annex B CRL profile): v2,
 * signed by the IACA, thisUpdate and nextUpdate, the revoked serial numbers with their dates, and
 * the AuthorityKeyIdentifier and CRLNumber extensions. Returns DER.
 */
export async function createCrl(input: CreateCrlInput): Promise<Uint8Array> {
  const iaca = parseIaca(input.iaca.certificateDer);
  const problems: ErrorDetail[] = [];
  if (!isDate(input.thisUpdate)) problems.push(detail('thisUpdate', 'Expected a date', String(input.thisUpdate)));
  if (!isDate(input.nextUpdate)) problems.push(detail('nextUpdate', 'Expected a date', String(input.nextUpdate)));
  else if (isDate(input.thisUpdate) && input.nextUpdate <= input.thisUpdate)
    problems.push(detail('nextUpdate', 'nextUpdate must be after thisUpdate', input.nextUpdate.toISOString()));
  const crlNumber = input.crlNumber ?? (isDate(input.thisUpdate) ? Math.floor(input.thisUpdate.getTime() / 1000) : 0);
  if (!Number.isSafeInteger(crlNumber) || crlNumber < 0) problems.push(detail('crlNumber', 'Expected a non-negative integer', crlNumber));
  const entries = input.revoked.map((entry, i) => {
    const serial = typeof entry.serialNumber === 'string' ? entry.serialNumber.toLowerCase() : '';
    if (!/^([0-9a-f]{2}){1,21}$/.test(serial)) problems.push(detail(`revoked[${i}].serialNumber`, 'Expected a hexadecimal serial number', entry.serialNumber));
    if (!isDate(entry.revokedAt)) problems.push(detail(`revoked[${i}].revokedAt`, 'Expected a date', String(entry.revokedAt)));
    return { serialNumber: serial, revocationDate: isDate(entry.revokedAt) ? seconds(entry.revokedAt) : new Date(0) };
  });
  failOn(problems);

  const privateKey = heldPrivateKey();
  const crl = await X509CrlGenerator.create(
    {
      issuer: iaca.subjectName,
      thisUpdate: seconds(input.thisUpdate),
      nextUpdate: seconds(input.nextUpdate),
      entries,
      extensions: [new AuthorityKeyIdentifierExtension(iacaKeyIdentifier(iaca), false), new Extension(CRL_NUMBER_OID, false, derInteger(crlNumber))],
      signingAlgorithm: ES256_ALGORITHM,
      signingKey: privateKey,
    },
    signingCrypto(input.iaca.key.sign, privateKey),
  );
  if (!(await crl.verify({ publicKey: iaca.publicKey })))
    throw new DomainError('InternalServerError', 'The CRL signature does not verify: the signing key is not the IACA’s key');
  return new Uint8Array(crl.rawData);
}
