// What the status list tokens share, whatever signs them: the compressed list, the checks of their
// times, and an ES256 COSE_Sign1 made through the KeyManager. Used by the mDoc status list token
// (status-list-token.ts) and by the Token Status List tokens of the other formats
// (token-status-list.ts).
import { deflateSync, constants as zlib } from 'node:zlib';
import { DomainError, invalidField, type KeyManager } from '@vellum/core';
import { cbor } from '../mso-mdoc/cbor.ts';

// COSE header labels (RFC 9052 §3.1: 1 alg, 4 kid; 16 typ per RFC 9596 §2; 33 x5chain per RFC
// 9360 §2) and ES256 (RFC 9053 §2.1).
export const HEADER_ALG = 1;
export const HEADER_KID = 4;
export const HEADER_TYP = 16;
export const HEADER_X5CHAIN = 33;
export const ES256 = -7;

// Registered CWT claim keys (RFC 8392 §3.1.1, §3.1.2, §3.1.4, §3.1.6).
export const CWT_ISS = 1;
export const CWT_SUB = 2;
export const CWT_EXP = 4;
export const CWT_IAT = 6;

// IETF Token Status List draft 14 §5.2 and §14.3 (the CWT claim keys it requests from IANA), and
// the `typ` of a status list token in CWT form (§5.2, §14.7).
export const CWT_STATUS_LIST = 65533;
export const CWT_TTL = 65534;
export const STATUS_LIST_CWT_TYP = 'application/statuslist+cwt';

const SIGNATURE1 = 'Signature1';
const NO_EXTERNAL_AAD = new Uint8Array(0);

/**
 * An integer as cbor-x should get it: cbor-x writes numbers beyond 32 bits as floats, so those go
 * as bigints, which it writes as 64-bit integers (RFC 8949 §3.1, major types 0 and 1).
 */
export function cborInteger(value: number): number | bigint {
  return value > 0xffffffff || value < -0x100000000 ? BigInt(value) : value;
}

/**
 * RFC 8392 §2 / RFC 7519 §2 NumericDate in whole seconds (fractions dropped, so `exp` never moves
 * later). Refuses what is no date.
 */
export function wholeSeconds(at: Date, param: string): number {
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw invalidField(param, 'Expected a valid date', String(at));
  return Math.floor(at.getTime() / 1000);
}

/**
 * The checks every status list token makes of its `sub`, times and `ttl`, returning `iat` and `exp`
 * in whole seconds: draft 14 §5.1 and §5.2 require `sub` (the URI the token is served at) and
 * `iat`, and make `ttl` a positive number of seconds; a token that expired as it was issued would
 * be refused by every verifier (§8.3), so it is refused here.
 */
export function checkTokenTimes(input: { uri: string; issuedAt: Date; expiresAt: Date; ttlSeconds: number }): { iat: number; exp: number } {
  const { uri, ttlSeconds } = input;
  if (typeof uri !== 'string' || uri.length === 0) throw invalidField('uri', 'Expected the URI the token is served at', uri);
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) throw invalidField('ttlSeconds', 'Expected a positive whole number of seconds', ttlSeconds);
  const iat = wholeSeconds(input.issuedAt, 'issuedAt');
  const exp = wholeSeconds(input.expiresAt, 'expiresAt');
  if (exp <= iat) throw invalidField('expiresAt', 'The token must expire after it is issued', input.expiresAt.toISOString());
  return { iat, exp };
}

/**
 * The `lst` of a Status List: the packed statuses compressed with DEFLATE (RFC 1951) in the ZLIB
 * format (RFC 1950) at the highest level (draft 14 §4.1 step 4, which recommends it).
 */
export function compressStatuses(statuses: Uint8Array): Uint8Array {
  if (!(statuses instanceof Uint8Array)) throw invalidField('statuses', 'Expected the packed statuses as bytes', typeof statuses);
  return deflateSync(statuses, { level: zlib.Z_BEST_COMPRESSION });
}

/** What a status list token in CWT form says, before its claim keys are chosen. */
export interface StatusListClaims {
  /** The issuer, when the token names one (the mDoc token does not: its certificate does). */
  iss?: string;
  /** The URI the token is served at. */
  sub: string;
  iat: number;
  exp: number;
  ttl: number;
  bits: number;
  /** The compressed statuses (compressStatuses). */
  lst: Uint8Array;
}

/**
 * The CBOR-encoded claims of a status list token in CWT form, in the order of draft 14's example
 * (§5.2): `iss` when there is one, `sub`, `iat`, `exp`, `ttl` and the Status List `{ "bits", "lst" }`,
 * `ttl` and the Status List under the claim keys `keys` gives (draft 14's own unless a profile
 * uses others).
 */
export function encodeStatusListClaims(claims: StatusListClaims, keys = { ttl: CWT_TTL, statusList: CWT_STATUS_LIST }): Uint8Array {
  const map = new Map<number, unknown>(claims.iss === undefined ? [] : [[CWT_ISS, claims.iss]]);
  map.set(CWT_SUB, claims.sub);
  map.set(CWT_IAT, cborInteger(claims.iat));
  map.set(CWT_EXP, cborInteger(claims.exp));
  map.set(keys.ttl, cborInteger(claims.ttl));
  map.set(
    keys.statusList,
    new Map<string, number | Uint8Array>([
      ['bits', claims.bits],
      ['lst', claims.lst],
    ]),
  );
  return cbor.encode(map);
}

/**
 * An untagged ES256 COSE_Sign1 (RFC 9052 §4.2) over `payload`: the protected header map encoded
 * into a byte string, the Sig_structure `["Signature1", protected, h'', payload]` (§4.4, no
 * external AAD) signed by the KeyManager key, and `[protected, unprotected, payload, signature]`.
 * The result is a copy, so a token kept for reuse does not pin the encoder's shared buffer.
 */
export async function signCoseSign1(
  keys: Pick<KeyManager, 'sign'>,
  key: { tenantId: string; keyId: string },
  protectedHeader: Map<number, unknown>,
  unprotectedHeader: Map<number, unknown>,
  payload: Uint8Array,
): Promise<Uint8Array> {
  const protectedBytes = cbor.encode(protectedHeader);
  const toBeSigned = cbor.encode([SIGNATURE1, protectedBytes, NO_EXTERNAL_AAD, payload]);
  const signature = await keys.sign(key.tenantId, key.keyId, toBeSigned);
  // ES256 in COSE is r‖s of 32 bytes each (RFC 9053 §2.1), the form KeyManager.sign returns.
  if (signature.length !== 64) throw new DomainError('InternalServerError', 'The signing key returned a signature that is not ES256 (64 bytes)');
  return new Uint8Array(cbor.encode([protectedBytes, unprotectedHeader, payload, signature]));
}
