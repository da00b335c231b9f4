// A wallet provider for trust tests, made with openssl (the machine image ships it) and node:crypto:
// a self-signed P-256 root CA and a signer certificate it issues, JWTs signed with the signer's key,
// an ETSI TS 119 612 trusted list naming certificates, and Token Status Lists. Nothing here comes
// from Vellum.
import { execFileSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, type KeyObject, sign, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';

export interface TestWalletProvider {
  /** The root CA certificate, PEM. */
  rootPem: string;
  /** The signer's certificate (no CA), PEM. */
  signerPem: string;
  /** An x5c header: the signer's certificate (standard base64 DER). */
  x5c: string[];
  /** The signer's private key (P-256, ES256). */
  signingKey: KeyObject;
}

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

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** Standard base64 of a PEM certificate's DER, as x5c and trusted lists hold it. */
export const derBase64 = (pem: string) => new X509Certificate(pem).raw.toString('base64');

/** A wallet provider's root CA and attestation signer, valid for two days. */
export function makeTestWalletProvider(name: string): TestWalletProvider {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-wallet-provider-'));
  try {
    const file = (f: string) => join(dir, f);
    writeFileSync(file('ext.cnf'), EXTENSIONS);
    const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl(['req', '-x509', ...newKey, '-keyout', file('root.key'), '-out', file('root.crt'), '-days', '2', '-subj', `/CN=${name} Root`]);
    openssl(['req', '-new', ...newKey, '-keyout', file('signer.key'), '-out', file('signer.csr'), '-subj', `/CN=${name} Signer`]);
    openssl([
      'x509',
      '-req',
      '-in',
      file('signer.csr'),
      '-CA',
      file('root.crt'),
      '-CAkey',
      file('root.key'),
      '-set_serial',
      `0x${Date.now().toString(16)}`,
      '-days',
      '2',
      '-extfile',
      file('ext.cnf'),
      '-extensions',
      'signer',
      '-out',
      file('signer.crt'),
    ]);
    const read = (f: string) => readFileSync(file(f), 'utf8');
    const signerPem = read('signer.crt');
    return { rootPem: read('root.crt'), signerPem, x5c: [derBase64(signerPem)], signingKey: createPrivateKey(read('signer.key')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A compact JWT signed with ES256 (P-256) or EdDSA (Ed25519) by `key`. */
export function signTestJwt(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  const ed = key.asymmetricKeyType === 'ed25519';
  const signature = sign(ed ? null : 'sha256', Buffer.from(input), ed ? key : { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** A fresh P-256 key pair and its public JWK under `kid`. */
export function testJwkPair(kid: string): { privateKey: KeyObject; jwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string; kid: string } } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { x, y } = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  return { privateKey, jwk: { kty: 'EC', crv: 'P-256', x, y, kid } };
}

/** An ETSI TS 119 612 trusted list with one service per entry, each with its certificate (PEM) and status (default granted). */
export function trustedListXml(services: ReadonlyArray<{ pem: string; status?: string }>): string {
  const service = ({ pem, status = 'granted' }: { pem: string; status?: string }) => `
      <tsl:TSPService>
        <tsl:ServiceInformation>
          <tsl:ServiceTypeIdentifier>http://uri.etsi.org/TrstSvc/Svctype/WalletProvider</tsl:ServiceTypeIdentifier>
          <tsl:ServiceDigitalIdentity><tsl:DigitalId><tsl:X509Certificate>
${derBase64(pem).replace(/(.{64})/g, '$1\n')}
          </tsl:X509Certificate></tsl:DigitalId></tsl:ServiceDigitalIdentity>
          <tsl:ServiceStatus>http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/${status}</tsl:ServiceStatus>
        </tsl:ServiceInformation>
      </tsl:TSPService>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- A test list -->
<tsl:TrustServiceStatusList xmlns:tsl="http://uri.etsi.org/02231/v2#" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" Id="TSL">
  <tsl:SchemeInformation><tsl:TSLVersionIdentifier>6</tsl:TSLVersionIdentifier></tsl:SchemeInformation>
  <tsl:TrustServiceProviderList>
    <tsl:TrustServiceProvider>
      <tsl:TSPInformation><tsl:TSPName><tsl:Name xml:lang="en">Test &amp; Co</tsl:Name></tsl:TSPName></tsl:TSPInformation>
      <tsl:TSPServices>${services.map(service).join('')}
      </tsl:TSPServices>
    </tsl:TrustServiceProvider>
  </tsl:TrustServiceProviderList>
</tsl:TrustServiceStatusList>`;
}

/** A Token Status List's `lst`: `statuses` packed `bits` to an entry from the least significant bit, zlib-compressed, base64url. */
export function statusListLst(statuses: readonly number[], bits: 1 | 2 | 4 | 8 = 1): string {
  const bytes = new Uint8Array(Math.ceil((statuses.length * bits) / 8));
  statuses.forEach((value, i) => {
    const position = i * bits;
    bytes[position >> 3] = (bytes[position >> 3] as number) | (value << (position % 8));
  });
  return deflateSync(bytes).toString('base64url');
}
