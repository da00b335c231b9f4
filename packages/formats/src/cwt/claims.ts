import { type CwtClaims, invalidField } from '@vellum/core';
import { coseKeyOf } from './cose-key.ts';

// Registered CWT claim keys (RFC 8392 §3.1 and §4, IANA "CBOR Web Token (CWT) Claims"), and the
// `cnf` claim with its COSE_Key confirmation method (RFC 8747 §3.1, §3.2).
const ISS = 1;
const SUB = 2;
const EXP = 4;
const NBF = 5;
const IAT = 6;
const CNF = 8;
const CNF_COSE_KEY = 1;
// The `status` claim of a Referenced Token in CWT form (IETF Token Status List draft 14 §6.3.1,
// §14.3), holding the `Status` map whose `status_list` member names the token's entry (§6.3).
const STATUS = 65535;

/** A CWT value as cbor-x should write it: objects become text-keyed maps, large integers bigints. */
export type CborValue = string | number | bigint | boolean | null | Uint8Array | CborValue[] | Map<string | number, CborValue>;

/** Integers cbor-x would write as floats (it uses 32-bit integer heads only); CBOR has 64-bit ones. */
function integer(value: number): number | bigint {
  return Number.isSafeInteger(value) && (value > 0xffffffff || value < -0x100000000) ? BigInt(value) : value;
}

/**
 * RFC 8392 §2 NumericDate: whole seconds since the epoch, as an integer (fractions dropped, so a
 * time never moves later).
 */
function numericDate(at: Date | undefined, param: string): number | bigint {
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw invalidField(param, 'Expected a valid date', String(at));
  return integer(Math.floor(at.getTime() / 1000));
}

/**
 * A private claim value (JSON-shaped, from the user's claims) as CBOR: plain objects become maps
 * with text keys (RFC 8392 §3: names that are not registered stay text), arrays stay arrays.
 * Anything JSON could not hold (undefined, functions, NaN, dates, class instances) is refused
 * rather than written in some CBOR-specific form a verifier would not expect.
 */
function privateValue(value: unknown, path: string): CborValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidField(path, 'Expected a finite number', String(value));
    return integer(value);
  }
  if (Array.isArray(value)) return value.map((item, i) => privateValue(item, `${path}[${i}]`));
  if (typeof value === 'object' && (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)) {
    const map = new Map<string, CborValue>();
    for (const [key, item] of Object.entries(value)) map.set(key, privateValue(item, `${path}.${key}`));
    return map;
  }
  throw invalidField(path, 'Expected a JSON value (string, number, boolean, null, array or object)', typeof value);
}

/**
 * The `Status` CBOR structure of draft 14 §6.3: `{ "status_list": { "idx": uint, "uri": tstr } }`,
 * text keys as the draft's CDDL has them. `idx` must be a non-negative integer and `uri` a URI
 * (RFC 3986), so a verifier can find the entry; anything else is refused.
 */
function statusClaim(status: NonNullable<CwtClaims['status']>): Map<string, CborValue> {
  const { idx, uri } = status;
  if (!Number.isSafeInteger(idx) || idx < 0) throw invalidField('status.idx', 'Expected a non-negative integer index', idx);
  if (typeof uri !== 'string' || !URL.canParse(uri)) throw invalidField('status.uri', 'Expected the URI of the status list token', uri);
  return new Map([
    [
      'status_list',
      new Map<string, CborValue>([
        ['idx', integer(idx)],
        ['uri', uri],
      ]),
    ],
  ]);
}

/**
 * The CWT Claims Set (RFC 8392 §7.1 step 1) as one CBOR map: the registered claims under their
 * integer keys in label order, then the private claims under their text names.
 */
export function cwtClaimsMap(claims: CwtClaims): Map<string | number, CborValue> {
  if (typeof claims.iss !== 'string' || claims.iss.length === 0) throw invalidField('iss', 'Expected the issuer', claims.iss);
  const map = new Map<string | number, CborValue>();
  map.set(ISS, claims.iss);
  if (claims.sub !== undefined) map.set(SUB, claims.sub);
  map.set(EXP, numericDate(claims.exp, 'exp'));
  if (claims.nbf !== undefined) map.set(NBF, numericDate(claims.nbf, 'nbf'));
  map.set(IAT, numericDate(claims.iat, 'iat'));
  // An unbound credential (no holder key) has no confirmation claim.
  if (claims.cnf !== undefined) map.set(CNF, new Map([[CNF_COSE_KEY, coseKeyOf(claims.cnf, 'cnf')]]));
  if (claims.status !== undefined) map.set(STATUS, statusClaim(claims.status));
  for (const [name, value] of Object.entries(claims.claims)) map.set(name, privateValue(value, name));
  return map;
}
