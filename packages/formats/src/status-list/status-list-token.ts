import { invalidField, type KeyManager, STATUS_BITS, type StatusListFormat, type StatusListTokenInput, type StatusListTokenSigner } from '@vellum/core';
import {
  CWT_STATUS_LIST,
  CWT_TTL,
  checkTokenTimes,
  compressStatuses,
  ES256,
  encodeStatusListClaims,
  HEADER_ALG,
  HEADER_TYP,
  HEADER_X5CHAIN,
  STATUS_LIST_CWT_TYP,
  signCoseSign1,
} from './common.ts';

export interface StatusListTokenSignerOptions {
  keys: KeyManager;
}

/**
 * What differs between the two mDoc status list token formats (docs/status-lists.md): the `typ` of
 * the protected header and the claim keys of `status_list` and `ttl`. Draft 14 uses the keys it
 * requests from IANA (IETF Token Status List draft 14 §5.2, §14.3: 65533 status_list, 65534 ttl).
 * The legacy (MATTR) format uses negative private keys in the same roles: -65538 for status_list
 * and -65539 for ttl, in the order the table in docs/status-lists.md pairs them with 65533 and 65534.
 */
const PROFILES: Readonly<Record<StatusListFormat, { typ: string; statusListKey: number; ttlKey: number }>> = {
  'draft-14': { typ: STATUS_LIST_CWT_TYP, statusListKey: CWT_STATUS_LIST, ttlKey: CWT_TTL },
  legacy: { typ: 'mattr-statuslist+cwt', statusListKey: -65538, ttlKey: -65539 },
};

/** The bit widths a Status List may use (IETF Token Status List draft 14 §4.1 step 1). */
const ALLOWED_BITS = new Set([1, 2, 4, 8]);

/** Refuses what would make a token no verifier can use; returns `iat` and `exp` in whole seconds. */
function check(input: StatusListTokenInput): { iat: number; exp: number } {
  const { format, bits, signer } = input;
  if (!Object.hasOwn(PROFILES, format)) throw invalidField('format', 'Expected draft-14 or legacy', format);
  // The width is the format's (docs/status-lists.md: draft 14 1 bit, legacy 2 bits); a token that
  // declared another would make every verifier read every index wrong.
  if (!ALLOWED_BITS.has(bits) || bits !== STATUS_BITS[format])
    throw invalidField('bits', `Expected ${STATUS_BITS[format]} bit(s) per entry for a ${format} list`, bits);
  const times = checkTokenTimes(input);
  if (signer.x5chain.length === 0) throw invalidField('signer.x5chain', 'The document signer certificate is missing', []);
  return times;
}

/**
 * The core's StatusListTokenSigner port: an mDoc status list token (IETF Token Status List draft 14
 * §5.2; docs/status-lists.md) as a CWT (RFC 8392) in an ES256 COSE_Sign1 (RFC 9052 §4.2), signed by a
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
      const lst = compressStatuses(statuses);
      const x5chain = signer.x5chain.length === 1 ? signer.x5chain[0] : [...signer.x5chain];
      return signCoseSign1(
        keys,
        { tenantId, keyId: signer.keyId },
        new Map<number, number | string>([
          [HEADER_ALG, ES256],
          [HEADER_TYP, profile.typ],
        ]),
        new Map([[HEADER_X5CHAIN, x5chain]]),
        encodeStatusListClaims({ sub: uri, iat, exp, ttl: ttlSeconds, bits, lst }, { ttl: profile.ttlKey, statusList: profile.statusListKey }),
      );
    },
  };
}
