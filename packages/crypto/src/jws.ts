import { sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { ed25519PublicKey, p256PublicKey, signEs256, verifyEs256 } from './ecdsa.ts';

/** The JWS algorithms this module signs and verifies (RFC 7518 §3.4, RFC 8037 §3.1). */
export type JwsAlgorithm = 'ES256' | 'EdDSA';

/** A compact JWS whose signature checked out: its protected header and its decoded payload. */
export interface VerifiedJws {
  header: Record<string, unknown>;
  payload: Uint8Array;
}

/**
 * A verified payload read as a JSON object, as JWT claims must be (RFC 7519 §7.2 step 10), or what
 * it is instead, for the caller to name in its refusal.
 */
export function jsonObjectOf(payload: Uint8Array): { object: Record<string, unknown> } | { problem: 'is not JSON' | 'is not a JSON object' } {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload).toString('utf8'));
  } catch {
    return { problem: 'is not JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: 'is not a JSON object' };
  return { object: value as Record<string, unknown> };
}

/** JWK members that only a private (or symmetric) key has (RFC 7518 §6). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** Whether a JWK carries private (or symmetric) key material: no key that travelled with it is one to trust. */
export const hasPrivateMembers = (jwk: object): boolean => PRIVATE_MEMBERS.some((m) => m in jwk);
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Strict base64url (RFC 7515 §2): the URL-safe alphabet, no padding, and no stray bits in the last
 * character. Node's own decoder skips characters it does not know, so it is only called on input
 * this has already vetted; requiring the canonical spelling means each token has exactly one.
 */
function decodeBase64url(part: string): Buffer | undefined {
  if (part.length % 4 === 1 || !BASE64URL.test(part)) return undefined;
  const bytes = Buffer.from(part, 'base64url');
  return bytes.toString('base64url') === part ? bytes : undefined;
}

function parseHeader(part: string): Record<string, unknown> | undefined {
  const bytes = decodeBase64url(part);
  if (!bytes || bytes.length === 0) return undefined;
  const header: unknown = JSON.parse(utf8.decode(bytes));
  if (header === null || typeof header !== 'object' || Array.isArray(header)) return undefined;
  return header as Record<string, unknown>;
}

/**
 * Keys made here from a JWK, with their algorithm: asking a new KeyObject for its curve costs more
 * than the rest of a verification's checks (about 40 µs, once per key object).
 */
const KNOWN_ALGORITHMS = new WeakMap<KeyObject, JwsAlgorithm>();

/** The one algorithm a key may be used with here, or undefined for a key this module refuses. */
function algorithmOf(key: KeyObject): JwsAlgorithm | undefined {
  const known = KNOWN_ALGORITHMS.get(key);
  if (known !== undefined) return known;
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  return undefined;
}

function remember(key: KeyObject, alg: JwsAlgorithm): KeyObject {
  KNOWN_ALGORITHMS.set(key, alg);
  return key;
}

/** A public key object for an EC P-256 or OKP Ed25519 public JWK; throws for anything else. */
export function publicKeyFromJwk(jwk: unknown): KeyObject {
  if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) throw new TypeError('The JWK is not an object');
  const j = jwk as Record<string, unknown>;
  // A key that travelled with its private part is not one to trust.
  if (hasPrivateMembers(j)) throw new TypeError('The JWK holds private key material');
  // The coordinates are read as strictly as a token's parts: one spelling per key.
  const coordinate = (v: unknown) => (typeof v === 'string' ? decodeBase64url(v) : undefined);
  if (j.kty === 'EC' && j.crv === 'P-256') {
    const x = coordinate(j.x);
    const y = coordinate(j.y);
    if (x && y && x.length === 32 && y.length === 32) return remember(p256PublicKey(x, y), 'ES256');
  } else if (j.kty === 'OKP' && j.crv === 'Ed25519') {
    const x = coordinate(j.x);
    if (x && x.length === 32) return remember(ed25519PublicKey(x), 'EdDSA');
  }
  throw new TypeError('The JWK is not a P-256 (EC) or Ed25519 (OKP) public key');
}

/** The protected header of a compact JWS, without checking its signature; undefined when malformed. */
export function decodeJwsHeader(token: string): Record<string, unknown> | undefined {
  try {
    if (typeof token !== 'string') return undefined;
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    return parseHeader(parts[0] as string);
  } catch {
    return undefined;
  }
}

/**
 * Verifies a compact JWS (RFC 7515 §7.1) signed with ES256 or EdDSA by `key`, returning its header
 * and payload, or undefined for anything malformed, unexpected or badly signed. Never throws.
 * Headers with `crit` or `b64` are refused: no extension is understood here (RFC 7515 §4.1.11).
 */
export function verifyCompactJws(token: string, key: KeyObject, algorithms: readonly JwsAlgorithm[]): VerifiedJws | undefined {
  try {
    if (typeof token !== 'string') return undefined;
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
    const header = parseHeader(encodedHeader);
    if (!header) return undefined;
    const alg = algorithmOf(key);
    // The key alone decides the algorithm; the header must agree with it, never steer it.
    if (alg === undefined || header.alg !== alg || !algorithms.includes(alg)) return undefined;
    if (Object.hasOwn(header, 'crit') || Object.hasOwn(header, 'b64')) return undefined;
    const payload = decodeBase64url(encodedPayload);
    const signature = decodeBase64url(encodedSignature);
    // ES256 signatures are r‖s (RFC 7518 §3.4), never DER; Ed25519 ones are 64 bytes (RFC 8032).
    if (!payload || !signature || signature.length !== 64) return undefined;
    // Every character was checked to be base64url, so latin1 gives the ASCII bytes that were signed.
    const signingInput = Buffer.from(token.slice(0, encodedHeader.length + 1 + encodedPayload.length), 'latin1');
    const ok = alg === 'ES256' ? verifyEs256(signingInput, signature, key) : cryptoVerify(null, signingInput, key, signature);
    return ok ? { header, payload: new Uint8Array(payload) } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Signs a compact JWS with a P-256 (ES256, r‖s) or Ed25519 (EdDSA) private key; `alg` comes from
 * the key, and a header that names another one is an error. Objects are signed as JSON.
 */
export function signCompactJws(header: Record<string, unknown>, payload: Record<string, unknown> | Uint8Array, privateKey: KeyObject): string {
  const alg = privateKey.type === 'private' ? algorithmOf(privateKey) : undefined;
  if (alg === undefined) throw new TypeError('Compact JWS are signed with a P-256 or Ed25519 private key');
  if (header.alg !== undefined && header.alg !== alg) throw new TypeError(`The header's alg does not match the ${alg} key`);
  // verifyCompactJws refuses these, so a token carrying them would never verify.
  if (Object.hasOwn(header, 'crit') || Object.hasOwn(header, 'b64')) throw new TypeError('The header may not carry crit or b64');
  const bytes =
    payload instanceof Uint8Array ? Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength) : Buffer.from(JSON.stringify(payload), 'utf8');
  const signingInput = `${Buffer.from(JSON.stringify({ alg, ...header }), 'utf8').toString('base64url')}.${bytes.toString('base64url')}`;
  const data = Buffer.from(signingInput, 'latin1');
  const signature = alg === 'ES256' ? signEs256(data, privateKey) : cryptoSign(null, data, privateKey);
  return `${signingInput}.${signature.toString('base64url')}`;
}
