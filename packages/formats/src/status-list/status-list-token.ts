import { deflateSync, constants as zlib } from 'node:zlib';
import { DomainError, invalidField, type KeyManager, STATUS_BITS, type StatusListFormat, type StatusListTokenInput, type StatusListTokenSigner } from '@vellum/core';
import { cbor } from '../mso-mdoc/cbor.ts';

export interface StatusListTokenSignerOptions {
  keys: KeyManager;
}

// COSE header labels (RFC 9052 §3.1: 1 alg, 16 typ per RFC 9596 §2; 33 x5chain per RFC 9360 §2)
// and ES256 (RFC 9053 §2.1).
const HEADER_ALG = 1;
const HEADER_TYP = 16;
const HEADER_X5CHAIN = 33;
const ES256 = -7;
const SIGNATURE1 = 'Signature1';
const NO_EXTERNAL_AAD = new Uint8Array(0);

// Registered CWT claim keys (RFC 8392 §3.1.2, §3.1.4, §3.1.6).
const SUB = 2;
const EXP = 4;
const IAT = 6;

/**
 * What differs between the two mDoc status list token formats (specification 9.5): the `typ` of
 * the protected header and the claim keys of `status_list` and `ttl`. Draft 14 uses the keys it
 * requests from IANA (IETF Token Status List draft 14 §5.2, §14.3: 65533 status_list, 65534 ttl).
 * The legacy (MATTR) format uses negative private keys in the same roles: -65538 for status_list
 * and -65539 for ttl, in the order the specification's table pairs them with 65533 and 65534.
 */
const PROFILES: Readonly<Record<StatusListFormat, { typ: string; statusListKey: number; ttlKey: number }>> = {
  'draft-14': { typ: 'application/statuslist+cwt', statusListKey: 65533, ttlKey: 65534 },
  legacy: { typ: 'mattr-statuslist+cwt', statusListKey: -65538, ttlKey: -65539 },
};

/** The bit widths a Status List may use (IETF Token Status List draft 14 §4.1 step 1). */
const ALLOWED_BITS = new Set([1, 2, 4, 8]);

/**
 * RFC 8392 §2 NumericDate in whole seconds (fractions dropped, so `exp` never moves later). cbor-x
 * writes numbers above 32 bits as floats, so those go as bigints, which it writes as 64-bit integers.
 */
function numericDate(at: Date, param: string): number | bigint {
  if (!(at instanceof Date) || Number.isNaN(at.getTime())) throw invalidField(param, 'Expected a valid date', String(at));
  const seconds = Math.floor(at.getTime() / 1000);
  return seconds > 0xffffffff || seconds < 0 ? BigInt(seconds) : seconds;
}

/** Refuses what would make a token no verifier can use; returns `iat` and `exp` as written. */
function check(input: StatusListTokenInput): { iat: number | bigint; exp: number | bigint } {
  const { format, uri, bits, statuses, ttlSeconds, signer } = input;
  if (!Object.hasOwn(PROFILES, format)) throw invalidField('format', 'Expected draft-14 or legacy', format);
  if (typeof uri !== 'string' || uri.length === 0) throw invalidField('uri', 'Expected the URI the token is served at', uri);
  // The width is the format's (specification 9.5: draft 14 1 bit, legacy 2 bits); a token that
  // declared another would make every verifier read every index wrong.
  if (!ALLOWED_BITS.has(bits) || bits !== STATUS_BITS[format]) throw invalidField('bits', `Expected ${STATUS_BITS[format]} bit(s) per entry for a ${format} list`, bits);
  if (!(statuses instanceof Uint8Array)) throw invalidField('statuses', 'Expected the packed statuses as bytes', typeof statuses);
  // Draft 14 §5.2: ttl is an unsigned integer that MUST be positive.
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds <= 0) throw invalidField('ttlSeconds', 'Expected a positive whole number of seconds', ttlSeconds);
  const iat = numericDate(input.issuedAt, 'issuedAt');
  const exp = numericDate(input.expiresAt, 'expiresAt');
  if (exp <= iat) throw invalidField('expiresAt', 'The token must expire after it is issued', input.expiresAt.toISOString());
  if (signer.x5chain.length === 0) throw invalidField('signer.x5chain', 'The document signer certificate is missing', []);
  return { iat, exp };
}

/**
 * The core's StatusListTokenSigner port: an mDoc status list token (IETF Token Status List draft 14
 * §5.2; specification 9.5) as a CWT (RFC 8392) in an ES256 COSE_Sign1 (RFC 9052 §4.2), signed by a
 * document signer key the KeyManager holds.
 *
 * - protected header `{ 1: -7, 16: typ }`; unprotected `{ 33: x5chain }`, one DER certificate as a
 *   byte string or several as an array (RFC 9360 §2), the document signer's first, as in an mDoc's
 *   issuerAuth (ISO/IEC 18013-5 §9.1.2.4), so a verifier checks it against the same IACA;
 * - payload: the claims `{ 2: uri, 6: iat, 4: exp, ttl key: ttl, status_list key: { "bits", "lst" } }`
 *   in the order of draft 14's example, with `lst` the statuses compressed with DEFLATE (RFC 1951) in
 *   the ZLIB format (RFC 1950) at the highest level (draft 14 §4.1 step 4).
 *
 * The result is the untagged COSE_Sign1 (`COSE_Sign1` rather than `COSE_Sign1_Tagged`, RFC 9052 §2):
 * draft 14's example token begins with the array head 0x84 and its reference code drops tag 18; the
 * media type `application/statuslist+cwt` the token is served with says what it is (draft 14 §8.2,
 * RFC 8392 §6), and an mDoc's own issuerAuth is untagged too.
 */
export function createStatusListTokenSigner(options: StatusListTokenSignerOptions): StatusListTokenSigner {
  const { keys } = options;
  return {
    async sign(input) {
      const { iat, exp } = check(input);
      const { tenantId, format, uri, bits, statuses, ttlSeconds, signer } = input;
      const profile = PROFILES[format];
      const lst = deflateSync(statuses, { level: zlib.Z_BEST_COMPRESSION });

      const protectedHeader = cbor.encode(
        new Map<number, number | string>([
          [HEADER_ALG, ES256],
          [HEADER_TYP, profile.typ],
        ]),
      );
      const x5chain = signer.x5chain.length === 1 ? signer.x5chain[0] : [...signer.x5chain];
      const unprotectedHeader = new Map([[HEADER_X5CHAIN, x5chain]]);
      const claims = new Map<number, unknown>([
        [SUB, uri],
        [IAT, iat],
        [EXP, exp],
        [profile.ttlKey, ttlSeconds],
        [
          profile.statusListKey,
          new Map<string, number | Uint8Array>([
            ['bits', bits],
            ['lst', lst],
          ]),
        ],
      ]);
      const payload = cbor.encode(claims);

      // Sig_structure for a COSE_Sign1 (RFC 9052 §4.4), no external AAD.
      const toBeSigned = cbor.encode([SIGNATURE1, protectedHeader, NO_EXTERNAL_AAD, payload]);
      const signature = await keys.sign(tenantId, signer.keyId, toBeSigned);
      // ES256 in COSE is r‖s of 32 bytes each (RFC 9053 §2.1), the form KeyManager.sign returns.
      if (signature.length !== 64) throw new DomainError('InternalServerError', 'The document signer returned a signature that is not ES256 (64 bytes)');
      // A copy, so the token kept for reuse does not pin the encoder's shared buffer.
      return new Uint8Array(cbor.encode([protectedHeader, unprotectedHeader, payload, signature]));
    },
  };
}
