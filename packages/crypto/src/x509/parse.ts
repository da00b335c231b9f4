// Before @peculiar/x509: it cannot load without the Reflect metadata API.
import 'reflect-metadata';
import { createHash, createPublicKey, X509Certificate as NodeX509Certificate } from 'node:crypto';
import { DomainError } from '@vellum/core';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  PemConverter,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
} from '@peculiar/x509';

/** A public key as a JWK; IACAs Vellum imports may use curves other than P-256. */
export interface CertificatePublicJwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
}

/** What Vellum reads from a certificate (docs/decisions.md "mDoc PKI" `certificateData`, plus what chaining and CRLs need). */
export interface ParsedCertificate {
  der: Uint8Array;
  pem: string;
  /** Hexadecimal, lower case, as CRL entries take it. */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  commonName: string | undefined;
  country: string | undefined;
  stateOrProvinceName: string | undefined;
  subjectPublicJwk: CertificatePublicJwk;
  /** BasicConstraints cA. */
  isCa: boolean;
  /** Hexadecimal SubjectKeyIdentifier, when the certificate has one. */
  subjectKeyIdentifier: string | undefined;
  /** SHA-256 of the DER, hexadecimal, lower case. */
  fingerprintSha256: string;
  /** The subject alternative names that are URIs (uniformResourceIdentifier) or host names (dNSName), in order. */
  subjectAltNames: string[];
}

const unreadable = (cause?: unknown) =>
  new DomainError('BadRequest', 'Validation Error', {
    ...(cause === undefined ? {} : { cause }),
    details: [{ msg: 'Expected one PEM or DER X.509 certificate', param: 'certificatePem', location: 'body' }],
  });

function derOf(input: string | Uint8Array): Uint8Array {
  if (typeof input !== 'string') return input;
  let blocks: ReturnType<typeof PemConverter.decodeWithHeaders>;
  try {
    blocks = PemConverter.decodeWithHeaders(input);
  } catch (cause) {
    throw unreadable(cause);
  }
  const [block] = blocks;
  if (blocks.length !== 1 || block === undefined || block.type !== PemConverter.CertificateTag) throw unreadable();
  return new Uint8Array(block.rawData);
}

/** Reads a certificate from PEM (exactly one CERTIFICATE block) or DER; refuses anything else with a 400. */
export function parseCertificate(input: string | Uint8Array): ParsedCertificate {
  const der = derOf(input);
  let certificate: X509Certificate;
  let jwk: CertificatePublicJwk;
  try {
    certificate = new X509Certificate(der);
    jwk = createPublicKey({ key: Buffer.from(certificate.publicKey.rawData), format: 'der', type: 'spki' }).export({ format: 'jwk' }) as CertificatePublicJwk;
  } catch (cause) {
    throw unreadable(cause);
  }
  const subject = certificate.subjectName;
  const { kty, crv, x, y, n, e } = jwk;
  return {
    der: new Uint8Array(certificate.rawData),
    pem: certificate.toString('pem'),
    serialNumber: certificate.serialNumber.toLowerCase(),
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    commonName: subject.getField('CN')[0],
    country: subject.getField('C')[0],
    stateOrProvinceName: subject.getField('ST')[0],
    subjectPublicJwk: Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined)) as unknown as CertificatePublicJwk,
    isCa: certificate.getExtension(BasicConstraintsExtension)?.ca ?? false,
    subjectKeyIdentifier: certificate.getExtension(SubjectKeyIdentifierExtension)?.keyId.toLowerCase(),
    fingerprintSha256: createHash('sha256').update(der).digest('hex'),
    subjectAltNames: (certificate.getExtension(SubjectAlternativeNameExtension)?.names.items ?? [])
      .filter((name) => name.type === 'url' || name.type === 'dns')
      .map((name) => name.value),
  };
}

/**
 * Whether `issuer` issued `certificate`: the issuer is a CA allowed to sign certificates, the names
 * chain (and the key identifiers, when both are present), and the signature verifies under the
 * issuer's key. Dates are not checked; a caller decides which instant matters.
 */
export function verifyIssuedBy(certificate: string | Uint8Array, issuer: string | Uint8Array): boolean {
  let subject: NodeX509Certificate;
  let authority: NodeX509Certificate;
  try {
    subject = new NodeX509Certificate(derOf(certificate));
    authority = new NodeX509Certificate(derOf(issuer));
  } catch (cause) {
    throw unreadable(cause);
  }
  // checkIssued is OpenSSL's X509_check_issued: names, key identifiers, the issuer's keyCertSign.
  return authority.ca && subject.checkIssued(authority) && subject.verify(authority.publicKey);
}

/**
 * The keyIdentifier of a DER certificate's AuthorityKeyIdentifier extension, base64url; undefined
 * when the certificate has none (or only issuer and serial) or cannot be read. Never throws.
 */
export function authorityKeyIdOf(der: Uint8Array): string | undefined {
  try {
    const keyId = new X509Certificate(der).getExtension(AuthorityKeyIdentifierExtension)?.keyId;
    return keyId ? Buffer.from(keyId, 'hex').toString('base64url') : undefined;
  } catch {
    return undefined;
  }
}
