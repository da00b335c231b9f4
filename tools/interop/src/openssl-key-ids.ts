// Key identifiers of a certificate as the openssl command line reads them (not Vellum, not
// @peculiar/x509): for checking the DCQL `aki` values Vellum's verifiers report (issue 31).
import { execFileSync } from 'node:child_process';

function extension(der: Uint8Array, name: 'authorityKeyIdentifier' | 'subjectKeyIdentifier'): string | undefined {
  const text = execFileSync('openssl', ['x509', '-inform', 'DER', '-noout', '-ext', name], { input: der, stdio: ['pipe', 'pipe', 'pipe'] }).toString();
  // "X509v3 … Key Identifier: \n    AB:CD:…" (OpenSSL 3 may prefix "keyid:" for the AKI).
  const hex = text.match(/(?:keyid:)?((?:[0-9A-F]{2}:)+[0-9A-F]{2})/)?.[1];
  return hex ? Buffer.from(hex.replaceAll(':', ''), 'hex').toString('base64url') : undefined;
}

/** The keyIdentifier of the certificate's AuthorityKeyIdentifier, base64url, per openssl. */
export const opensslAuthorityKeyId = (der: Uint8Array) => extension(der, 'authorityKeyIdentifier');
/** The certificate's SubjectKeyIdentifier, base64url, per openssl. */
export const opensslSubjectKeyId = (der: Uint8Array) => extension(der, 'subjectKeyIdentifier');
