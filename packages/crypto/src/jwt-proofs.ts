import { createHash, type KeyObject, X509Certificate } from 'node:crypto';
import type { JwtCheck, JwtProofVerifier, PublicJwk, VerifiedJwt } from '@vellum/core';
import { decodeJwsHeader, hasPrivateMembers, type JwsAlgorithm, jsonObjectOf, publicKeyFromJwk, verifyCompactJws } from './jws.ts';

/** DPoP proofs and attestations are small; an x5c of a few certificates fits well inside this. */
const MAX_JWT_LENGTH = 32 * 1024;
/** A longer x5c than this is no chain a wallet needs to send. */
const MAX_X5C_LENGTH = 10;

const EXPIRED = 'A certificate in x5c has expired or is not yet valid';
const UNTRUSTED = "The attestation's certificate chain does not lead to a trusted root";

class Refusal extends Error {}
const refuse = (reason: string): never => {
  throw new Refusal(reason);
};

/** The JWS algorithm a key of this type is used with here (RFC 7518 §3.4, RFC 8037 §3.1). */
const algorithmOfKeyType = (kty: PublicJwk['kty']): JwsAlgorithm => (kty === 'EC' ? 'ES256' : 'EdDSA');

/** A key object's algorithm, or undefined for keys other than P-256 and Ed25519. */
function algorithmOfKey(key: KeyObject): JwsAlgorithm | undefined {
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  return undefined;
}

/**
 * A P-256 or Ed25519 public JWK reduced to the members that define the key, with its key object;
 * undefined for anything else. publicKeyFromJwk reads the coordinates strictly (one spelling each)
 * and refuses private members.
 */
function readPublicJwk(jwk: unknown): { jwk: PublicJwk; key: KeyObject } | undefined {
  if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) return undefined;
  const j = jwk as Record<string, unknown>;
  let key: KeyObject;
  try {
    key = publicKeyFromJwk(j);
  } catch {
    return undefined;
  }
  const normal: PublicJwk = j.kty === 'EC' ? { kty: 'EC', crv: 'P-256', x: j.x as string, y: j.y as string } : { kty: 'OKP', crv: 'Ed25519', x: j.x as string };
  return { jwk: normal, key };
}

/**
 * RFC 7638 §3: SHA-256 over the JSON of the required members only, in lexicographic order and
 * without whitespace. The values are base64url, which JSON never escapes, so JSON.stringify of an
 * object built in that order is the canonical form.
 */
function thumbprintOf(jwk: PublicJwk): string {
  const canonical = jwk.kty === 'EC' ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y } : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  return createHash('sha256').update(JSON.stringify(canonical), 'utf8').digest('base64url');
}

/** The header of a JWT within the size bound, or a refusal. */
function headerOf(jwt: unknown): Record<string, unknown> {
  if (typeof jwt !== 'string' || jwt.length === 0) return refuse('The JWT is not a compact JWT');
  if (jwt.length > MAX_JWT_LENGTH) return refuse(`The JWT is longer than ${MAX_JWT_LENGTH} characters`);
  const header = decodeJwsHeader(jwt);
  if (!header) return refuse('The JWT is not a compact JWT');
  return header;
}

/**
 * Checks the header's alg against the caller's list and the key, then the signature, and reads the
 * payload as a JSON object. The key alone decides the algorithm; the header may only agree with it.
 */
function verifySigned(jwt: string, header: Record<string, unknown>, key: KeyObject, keyAlgorithm: JwsAlgorithm, algorithms: readonly string[]): VerifiedJwt {
  if (!Array.isArray(algorithms)) return refuse('The JWT could not be verified');
  if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) return refuse(`The JWT's alg must be one of ${algorithms.join(', ')}`);
  if (header.alg !== keyAlgorithm) return refuse(`The JWT's key cannot be used with ${header.alg}`);
  // No JWS extension is understood here (RFC 7515 §4.1.11); verifyCompactJws refuses them too.
  if (Object.hasOwn(header, 'crit') || Object.hasOwn(header, 'b64')) return refuse('The JWT uses header extensions (crit, b64) that are not supported');
  const verified = verifyCompactJws(jwt, key, [keyAlgorithm]);
  if (!verified) return refuse("The JWT's signature does not verify");
  const payload = jsonObjectOf(verified.payload);
  if ('problem' in payload) return refuse(`The JWT's payload ${payload.problem}`);
  return { header: verified.header, payload: payload.object };
}

/**
 * One x5c entry: a DER certificate in standard, padded base64 (RFC 7515 §4.1.6, RFC 4648 §4).
 * Node's decoder skips what it does not know and takes base64url too, so the entry must be exactly
 * what encoding its bytes gives back: no whitespace, no URL alphabet, padding, no stray bits.
 */
function certificateOf(entry: unknown): X509Certificate {
  if (typeof entry !== 'string') return refuse("The JWT's x5c holds something that is not a base64 certificate");
  const der = Buffer.from(entry, 'base64');
  if (der.length === 0 || der.toString('base64') !== entry) return refuse("The JWT's x5c holds something that is not a base64 certificate");
  try {
    return new X509Certificate(der);
  } catch {
    return refuse("The JWT's x5c holds something that is not a base64 certificate");
  }
}

/** The configured roots that can be read; the others are left out rather than failing every request. */
function readRoots(rootCertificates: readonly string[]): X509Certificate[] {
  const roots: X509Certificate[] = [];
  if (!Array.isArray(rootCertificates)) return roots;
  for (const pem of rootCertificates) {
    if (typeof pem !== 'string') continue;
    try {
      roots.push(new X509Certificate(pem));
    } catch {
      // An unreadable root trusts nothing.
    }
  }
  return roots;
}

const validAt = (certificate: X509Certificate, at: number) => certificate.validFromDate.getTime() <= at && at <= certificate.validToDate.getTime();

/**
 * Whether `issuer` issued `subject`: names, key identifiers and the issuer's key usage as OpenSSL's
 * X509_check_issued reads them, and the signature under the issuer's key. cA is checked apart.
 */
function issuedBy(subject: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return subject.checkIssued(issuer) && subject.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/**
 * The chain in x5c (RFC 7515 §4.1.6): each certificate issued by the next, every issuer a CA, and
 * the last one either a configured root or issued by one; every certificate used valid at `at`.
 * Only what chaining needs is checked here: no path length, name constraints, policies or revocation.
 */
function checkChain(chain: X509Certificate[], roots: X509Certificate[], at: number): void {
  for (const [i, certificate] of chain.entries()) {
    if (!validAt(certificate, at)) refuse(EXPIRED);
    const issuer = chain[i + 1];
    if (issuer === undefined) break;
    if (!issuer.ca) refuse('A certificate in x5c that issues another is not a CA certificate');
    if (!issuedBy(certificate, issuer)) refuse('A certificate in x5c is not issued by the one after it');
  }
  const last = chain[chain.length - 1] as X509Certificate;
  // The last certificate is itself a root: it was checked above with the rest of the path.
  if (roots.some((root) => root.raw.equals(last.raw))) return;
  const issuers = roots.filter((root) => root.ca && issuedBy(last, root));
  if (issuers.length === 0) refuse(UNTRUSTED);
  if (!issuers.some((root) => validAt(root, at))) refuse(EXPIRED);
}

/** Runs a check, turning refusals (and anything unforeseen) into `{ ok: false }`. */
async function checked<T extends object>(run: () => T): Promise<JwtCheck<T>> {
  try {
    return { ok: true, ...run() } as JwtCheck<T>;
  } catch (error) {
    return { ok: false, reason: error instanceof Refusal ? error.message : 'The JWT could not be verified' };
  }
}

/**
 * The JwtProofVerifier port on node:crypto: signatures of DPoP proofs (RFC 9449 §4.3 steps 5–7),
 * client attestations and their proofs of possession, and key attestations with x5c chains. Every
 * claim is left to the core. No method throws.
 */
export function createJwtProofVerifier(): JwtProofVerifier {
  return {
    verifySelfSigned(jwt, algorithms) {
      return checked(() => {
        const header = headerOf(jwt);
        if (header.jwk === undefined) return refuse('The JWT carries no jwk header');
        const j = header.jwk;
        if (j !== null && typeof j === 'object' && hasPrivateMembers(j)) return refuse("The JWT's jwk holds private key material");
        const read = readPublicJwk(j) ?? refuse("The JWT's jwk must be a P-256 (EC) or Ed25519 (OKP) public key");
        const verified = verifySigned(jwt, header, read.key, algorithmOfKeyType(read.jwk.kty), algorithms);
        return { ...verified, jwk: read.jwk, thumbprint: thumbprintOf(read.jwk) };
      });
    },

    verifyWithKey(jwt, jwk, algorithms) {
      return checked(() => {
        const header = headerOf(jwt);
        const read = readPublicJwk(jwk) ?? refuse('The key the JWT must be signed with is not a P-256 (EC) or Ed25519 (OKP) public key');
        return verifySigned(jwt, header, read.key, algorithmOfKeyType(read.jwk.kty), algorithms);
      });
    },

    verifyWithX5c(jwt, rootCertificates, algorithms, at) {
      return checked(() => {
        const header = headerOf(jwt);
        const instant = at instanceof Date ? at.getTime() : Number.NaN;
        if (Number.isNaN(instant)) return refuse('The JWT could not be verified');
        const x5c = header.x5c;
        if (!Array.isArray(x5c) || x5c.length === 0) return refuse("The JWT's x5c header must be a non-empty array of certificates");
        if (x5c.length > MAX_X5C_LENGTH) return refuse(`The JWT's x5c header may hold at most ${MAX_X5C_LENGTH} certificates`);
        const chain = x5c.map(certificateOf);
        const signer = chain[0] as X509Certificate;
        const keyAlgorithm = algorithmOfKey(signer.publicKey) ?? refuse('The key of the first certificate in x5c must be a P-256 or Ed25519 key');
        const verified = verifySigned(jwt, header, signer.publicKey, keyAlgorithm, algorithms);
        checkChain(chain, readRoots(rootCertificates), instant);
        return verified;
      });
    },

    thumbprint(jwk) {
      try {
        const read = readPublicJwk(jwk);
        return read === undefined ? undefined : thumbprintOf(read.jwk);
      } catch {
        // A JWK whose members cannot even be read (a throwing getter) has no thumbprint.
        return undefined;
      }
    },
  };
}
