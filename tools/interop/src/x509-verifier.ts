// The verifier's side of SD-JWT VCs signed under an issuer CA (issue 29 points 1 and 2), for the
// interop suites: @sd-jwt/sd-jwt-vc, a library we did not write, with a key resolver written here
// that starts from the trust anchor alone and checks the x5c chain with node:crypto (OpenSSL), not
// with the X.509 library Vellum writes certificates with; and an issuer's own CA made by openssl,
// to import into Vellum and to certify the leaves Vellum requests with a CSR.
import { execFileSync } from 'node:child_process';
import { createHash, verify as verifySignature, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';

const openssl = (args: string[], dir: string) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

const EXTENSIONS = `[ca]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid:always
subjectAltName = @names
`;

/** An issuer CA made with openssl, as an issuer's own PKI would make it, and a way to certify a CSR with it. */
export function opensslIssuerCa() {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-issuer-ca-'));
  writeFileSync(join(dir, 'ext.cnf'), `${EXTENSIONS}[names]\nURI.1 = https://placeholder.example\n`);
  openssl(
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '30'].concat([
      '-subj',
      '/C=NL/O=Example Issuer/CN=Example Issuer CA',
      '-config',
      'ext.cnf',
      '-extensions',
      'ca',
    ]),
    dir,
  );
  return {
    pem: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    /** Certifies `csrPem` as a leaf whose SAN holds `uris`. */
    certify(csrPem: string, uris: string[], serial: string): string {
      writeFileSync(join(dir, 'leaf.csr'), csrPem);
      writeFileSync(join(dir, 'ext.cnf'), `${EXTENSIONS}[names]\n${uris.map((u, i) => `URI.${i + 1} = ${u}`).join('\n')}\n`);
      openssl(
        ['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', serial, '-days', '20'].concat([
          '-extfile',
          'ext.cnf',
          '-extensions',
          'leaf',
          '-out',
          'leaf.crt',
        ]),
        dir,
      );
      return readFileSync(join(dir, 'leaf.crt'), 'utf8');
    },
    /** The serial numbers a DER CRL lists, as openssl reads it (upper-case hex). */
    crlSerials(der: Uint8Array): string[] {
      writeFileSync(join(dir, 'list.crl'), der);
      const text = openssl(['crl', '-inform', 'DER', '-in', 'list.crl', '-noout', '-text'], dir).toString('utf8');
      return [...text.matchAll(/Serial Number: ([0-9A-F]+)/g)].map((m) => m[1] as string);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Fetches a Token Status List JWT as @sd-jwt/sd-jwt-vc's own fetcher does, through `fetchWith`. */
const statusListFetcher = (fetchWith: typeof fetch) => async (uri: string) => {
  const res = await fetchWith(uri, { headers: { accept: 'application/statuslist+jwt' } });
  if (!res.ok || !(res.headers.get('content-type') ?? '').includes('application/statuslist+jwt')) throw new Error(`No status list at ${uri}: ${res.status}`);
  return res.text();
};

/**
 * The verifier's side: @sd-jwt/sd-jwt-vc with a key resolver that trusts `anchorPem` alone. The
 * header's x5c must hold the leaf (and no root), the leaf must be issued by the anchor and valid
 * now, and its SAN must name the `iss` as a URI (SD-JWT VC §3.5); then the leaf's key verifies.
 */
export function x509Verifier(anchorPem: string, options: { fetch?: typeof fetch } = {}) {
  const anchor = new X509Certificate(anchorPem);
  let checked: { leaf: X509Certificate; iss: string } | undefined;
  const verifier = new SDJwtVcInstance({
    // With `fetch` (the test's TLS fetch), the library fetches a credential's Token Status List itself
    // and verifies that JWT with the same callback as the credential (x5c to the anchor, SAN naming iss),
    // then refuses a credential whose status is not 0.
    ...(options.fetch ? { statusListFetcher: statusListFetcher(options.fetch) } : {}),
    hasher: (data: string | ArrayBuffer) =>
      createHash('sha256')
        .update(typeof data === 'string' ? data : new Uint8Array(data))
        .digest(),
    verifier: (data: string, signature: string) => {
      const [headerPart = '', payloadPart = ''] = data.split('.');
      const header = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8')) as { x5c?: string[]; kid?: string; typ?: string };
      const payload = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8')) as { iss: string };
      if (!Array.isArray(header.x5c) || header.x5c.length !== 1) throw new Error('Expected x5c with the leaf alone');
      const leaf = new X509Certificate(Buffer.from(header.x5c[0] as string, 'base64'));
      const now = Date.now();
      if (!(leaf.checkIssued(anchor) && leaf.verify(anchor.publicKey))) throw new Error('The leaf is not issued by the trust anchor');
      if (leaf.ca) throw new Error('The leaf is a CA');
      if (!(Date.parse(leaf.validFrom) <= now && now < Date.parse(leaf.validTo))) throw new Error('The leaf is not valid now');
      if (!(leaf.subjectAltName ?? '').split(', ').includes(`URI:${payload.iss}`)) throw new Error(`The SAN does not name ${payload.iss}`);
      checked = { leaf, iss: payload.iss };
      return verifySignature('sha256', Buffer.from(data), { key: leaf.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
    },
  });
  return { verify: (compact: string) => verifier.verify(compact), checked: () => checked };
}
