// A wallet provider's certificate authority for client attestation tests, made with openssl (the
// machine image ships it, and @vellum/testing makes its localhost certificate the same way): a
// self-signed P-256 root, an intermediate CA it issues, and an end-entity certificate the
// intermediate issues, whose key signs client attestations. Nothing here comes from Vellum.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WalletProviderCa {
  /** The root certificate, PEM: what a wallet client registers as `clientAttestation.rootCertificates`. */
  rootPem: string;
  /** The attestation header's `x5c`: the signer's certificate, then the intermediate (standard base64 DER). */
  x5c: string[];
  /** The private key of the signer's certificate (P-256, ES256). */
  signingKey: KeyObject;
}

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

const EXTENSIONS = `[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
[signer]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
`;

/** Standard base64 of a PEM certificate's DER, as x5c holds it (RFC 7515 §4.1.6). */
const x5cEntry = (pem: string) => new X509Certificate(pem).raw.toString('base64');

/** Makes a wallet provider's root, intermediate and attestation signer, each valid for two days. */
export function makeWalletProviderCa(name: string): WalletProviderCa {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-attestation-ca-'));
  try {
    const file = (f: string) => join(dir, f);
    writeFileSync(file('ext.cnf'), EXTENSIONS);
    const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    // prettier-ignore
    openssl([
      'req',
      '-x509',
      ...newKey,
      '-keyout',
      file('root.key'),
      '-out',
      file('root.crt'),
      '-days',
      '2',
      '-subj',
      `/CN=${name} Root CA`,
      '-config',
      file('ext.cnf'),
      '-extensions',
      'ca',
    ]);
    const issue = (subject: string, out: string, issuer: string, extensions: 'ca' | 'signer') => {
      openssl(['req', '-new', ...newKey, '-keyout', file(`${out}.key`), '-out', file(`${out}.csr`), '-subj', subject]);
      // prettier-ignore
      openssl([
        'x509',
        '-req',
        '-in',
        file(`${out}.csr`),
        '-CA',
        file(`${issuer}.crt`),
        '-CAkey',
        file(`${issuer}.key`),
        '-set_serial',
        `0x${Date.now().toString(16)}${out === 'signer' ? '02' : '01'}`,
        '-days',
        '2',
        '-extfile',
        file('ext.cnf'),
        '-extensions',
        extensions,
        '-out',
        file(`${out}.crt`),
      ]);
    };
    issue(`/CN=${name} Attestation CA`, 'intermediate', 'root', 'ca');
    issue(`/CN=${name} Wallet Attestation Signer`, 'signer', 'intermediate', 'signer');
    const read = (f: string) => readFileSync(file(f), 'utf8');
    return {
      rootPem: read('root.crt'),
      x5c: [x5cEntry(read('signer.crt')), x5cEntry(read('intermediate.crt'))],
      signingKey: createPrivateKey(read('signer.key')),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
