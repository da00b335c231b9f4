// Before @peculiar/x509 (loaded by the modules below): it cannot load without the Reflect metadata API.
import 'reflect-metadata';
import { X509Certificate as NodeX509Certificate } from 'node:crypto';
import type { CertificateInfo, HeldKeyRef, KeyManager, X509Authority } from '@vellum/core';
import { createCrl, createCsr, createDocumentSignerCertificate, createIacaCertificate, type EncodedCertificate } from './certificates.ts';
import { parseCertificate, verifyIssuedBy } from './parse.ts';
import { managedSigningKey } from './signing.ts';

export interface X509AuthorityOptions {
  keys: KeyManager;
}

/** Extended key usage OIDs as node:crypto reads them (`keyUsage` there is the EKU list); none when absent. */
function extendedKeyUsages(der: Uint8Array): string[] {
  return new NodeX509Certificate(der).keyUsage ?? [];
}

function infoOf(input: string | Uint8Array): CertificateInfo {
  const parsed = parseCertificate(input);
  return {
    pem: parsed.pem,
    der: parsed.der,
    serialNumber: parsed.serialNumber,
    notBefore: parsed.notBefore,
    notAfter: parsed.notAfter,
    ...(parsed.commonName !== undefined ? { commonName: parsed.commonName } : {}),
    ...(parsed.country !== undefined ? { country: parsed.country } : {}),
    ...(parsed.stateOrProvinceName !== undefined ? { stateOrProvinceName: parsed.stateOrProvinceName } : {}),
    publicKey: parsed.subjectPublicJwk,
    isCa: parsed.isCa,
    extendedKeyUsages: extendedKeyUsages(parsed.der),
    fingerprint: parsed.fingerprintSha256,
    subjectAltNames: parsed.subjectAltNames,
  };
}

const encodedInfo = (certificate: EncodedCertificate) => infoOf(certificate.der);

/** Signs through the KeyManager with a key the caller names by id; a destroyed key fails there (NotFound). */
function heldSigner(keys: KeyManager, ref: HeldKeyRef) {
  return { sign: (data: Uint8Array) => keys.sign(ref.tenantId, ref.keyId, data) };
}

/**
 * The core's X509Authority port on @peculiar/x509 (ISO/IEC 18013-5 Annex B profiles) with every
 * signature made inside the KeyManager.
 */
export function createX509Authority(options: X509AuthorityOptions): X509Authority {
  const { keys } = options;
  return {
    async createIacaCertificate(input) {
      const { key, ...rest } = input;
      return encodedInfo(await createIacaCertificate({ ...rest, key: managedSigningKey(keys, key) }));
    },
    async createDocumentSignerCertificate(input) {
      const { issuer, ...rest } = input;
      const certificateDer = parseCertificate(issuer.certificatePem).der;
      return encodedInfo(await createDocumentSignerCertificate({ ...rest, iaca: { certificateDer, key: heldSigner(keys, issuer.key) } }));
    },
    async createCsr(input) {
      const { key, ...rest } = input;
      return (await createCsr({ ...rest, key: managedSigningKey(keys, key) })).pem;
    },
    async createCrl(input) {
      const { issuer, ...rest } = input;
      const certificateDer = parseCertificate(issuer.certificatePem).der;
      return createCrl({ ...rest, iaca: { certificateDer, key: heldSigner(keys, issuer.key) } });
    },
    parseCertificate: (pem) => infoOf(pem),
    verifyIssuedBy: (certificatePem, issuerPem) => verifyIssuedBy(certificatePem, issuerPem),
  };
}
