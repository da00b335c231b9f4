// A wallet's key proof for trying the credential endpoint by hand (README.md "Walk-through: issue and
// revoke an mDL"): `node tools/dev/src/proof.ts --nonce <c_nonce> --issuer <credential_issuer>` prints
// an OpenID4VCI key proof JWT (typ openid4vci-proof+jwt, ES256, the public key as `jwk`). The holder's
// P-256 key is kept in a file (`--key`, ./holder-key.json by default; made on first use, mode 0600)
// so later proofs, and the mDoc's device key, stay the same key. Only Node's own modules: it runs on
// a fresh checkout without installing anything. For development only: the key is kept unencrypted.
import { createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject, sign } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = `Usage: node tools/dev/src/proof.ts --nonce <c_nonce> --issuer <credential_issuer> [--key <file>]

Prints an OpenID4VCI key proof JWT (ES256, typ openid4vci-proof+jwt) signed by the holder key in
<file> (default ./holder-key.json; a new P-256 key is made there if the file does not exist).
  --nonce    the c_nonce from POST /v1/openid/nonce
  --issuer   the credential_issuer of /.well-known/openid-credential-issuer (the proof's aud)
  --key      where the holder's private key is kept, as a JWK
  --public   print the holder's public JWK instead of a proof`;

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** The holder's private key from `file`, made (P-256) and written there when the file does not exist. */
export function holderKey(file: string): KeyObject {
  if (existsSync(file)) return createPrivateKey({ key: JSON.parse(readFileSync(file, 'utf8')) as JsonWebKey, format: 'jwk' });
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(file, `${JSON.stringify(privateKey.export({ format: 'jwk' }))}\n`, { mode: 0o600 });
  return privateKey;
}

/** The public half of a P-256 private key, as a JWK with only its public members. */
export function publicJwk(key: KeyObject): JsonWebKey {
  const { kty, crv, x, y } = key.export({ format: 'jwk' });
  return { kty, crv, x, y };
}

/** A key proof JWT (OpenID4VCI 1.0 Appendix F.1) for `issuer`, with `nonce`, issued now. */
export function keyProof(key: KeyObject, options: { nonce: string; issuer: string; now?: Date }): string {
  const header = { typ: 'openid4vci-proof+jwt', alg: 'ES256', jwk: publicJwk(key) };
  const payload = { aud: options.issuer, iat: Math.floor((options.now ?? new Date()).getTime() / 1000), nonce: options.nonce };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${b64url(signature)}`;
}

/** The command: prints a proof (or the public key) and returns the exit status. */
export function main(argv: string[], out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): number {
  let values: { nonce?: string; issuer?: string; key?: string; public?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { nonce: { type: 'string' }, issuer: { type: 'string' }, key: { type: 'string' }, public: { type: 'boolean' }, help: { type: 'boolean' } },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    out(USAGE);
    return 0;
  }
  const key = holderKey(values.key ?? 'holder-key.json');
  if (values.public) {
    out(JSON.stringify(publicJwk(key)));
    return 0;
  }
  if (!values.nonce || !values.issuer) {
    process.stderr.write(`--nonce and --issuer are required\n\n${USAGE}\n`);
    return 2;
  }
  out(keyProof(key, { nonce: values.nonce, issuer: values.issuer }));
  return 0;
}

// Run as a command (the path given to node may go through a symbolic link), not when imported by a test.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
