import { DomainError, invalidField, type KeyManager, type TokenStatusListInput, type TokenStatusListSigner } from '@vellum/core';
import {
  checkTokenTimes,
  compressStatuses,
  ES256,
  encodeStatusListClaims,
  HEADER_ALG,
  HEADER_KID,
  HEADER_TYP,
  HEADER_X5CHAIN,
  STATUS_LIST_CWT_TYP,
  signCoseSign1,
} from './common.ts';
import { cbor } from '../mso-mdoc/cbor.ts';

export interface TokenStatusListSignerOptions {
  keys: KeyManager;
}

/** The JOSE `typ` of a Status List Token in JWT form (draft 14 §5.1; media type registered in §14.7). */
const STATUS_LIST_JWT_TYP = 'statuslist+jwt';

/**
 * Every Token Status List of a referenced credential has one bit per entry: valid (0) or invalid
 * (1), the two statuses of draft 14 §7.1 these credentials can take (no suspension).
 */
const BITS = 1;

// Nothing goes unprotected in the CWT form: the algorithm, typ and key id are all signed.
const UNPROTECTED = new Map<number, never>();

const utf8 = new TextEncoder();
const base64url = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

/** Refuses what would make a token no verifier can use; returns `iat` and `exp` in whole seconds. */
function check(input: TokenStatusListInput): { iat: number; exp: number } {
  const { form, kid, x5c, issuer } = input;
  if (form !== 'jwt' && form !== 'cwt') throw invalidField('form', 'Expected jwt or cwt', form);
  if (x5c === undefined) {
    if (!nonEmpty(kid)) throw invalidField('kid', 'Expected the DID URL of the signing key', kid);
  } else {
    // One way to name the key: a kid next to an x5c would leave a verifier two keys to choose from.
    if (kid !== undefined) throw invalidField('kid', 'Expected no kid with x5c', kid);
    if (x5c.x5c.length === 0 || x5c.x5c.length !== x5c.x5chain.length || !x5c.x5c.every(nonEmpty))
      throw invalidField('x5c', 'Expected the signer certificate first, as base64 and as DER alike', x5c.x5c.length);
  }
  if (!nonEmpty(issuer)) throw invalidField('issuer', 'Expected the issuer: its DID, or with x5c its https identifier', issuer);
  if (!(input.statuses instanceof Uint8Array)) throw invalidField('statuses', 'Expected the packed statuses as bytes', typeof input.statuses);
  return checkTokenTimes(input);
}

/**
 * The JWT form (draft 14 §5.1): a JWS (RFC 7515) in compact serialisation whose signing input is
 * ASCII(BASE64URL(UTF8(header)) ‖ '.' ‖ BASE64URL(payload)) (§5.1 there) and whose ES256
 * signature is r‖s, 32 bytes each (RFC 7518 §3.4), as KeyManager.sign returns it.
 */
async function signJwt(keys: KeyManager, input: TokenStatusListInput, iat: number, exp: number, lst: Uint8Array): Promise<string> {
  const header = input.x5c ? { alg: 'ES256', typ: STATUS_LIST_JWT_TYP, x5c: [...input.x5c.x5c] } : { alg: 'ES256', typ: STATUS_LIST_JWT_TYP, kid: input.kid };
  const payload = {
    iss: input.issuer,
    sub: input.uri,
    iat,
    exp,
    ttl: input.ttlSeconds,
    status_list: { bits: BITS, lst: base64url(lst) },
  };
  const signingInput = `${base64url(utf8.encode(JSON.stringify(header)))}.${base64url(utf8.encode(JSON.stringify(payload)))}`;
  const signature = await keys.sign(input.tenantId, input.keyId, utf8.encode(signingInput));
  if (signature.length !== 64) throw new DomainError('InternalServerError', 'The signing key returned a signature that is not ES256 (64 bytes)');
  return `${signingInput}.${base64url(signature)}`;
}

/**
 * The CWT form (draft 14 §5.2): the claims in an untagged ES256 COSE_Sign1, as the mDoc token is,
 * but naming its key by `kid` (the UTF-8 bytes of the DID URL, RFC 9052 §3.1) instead of carrying
 * an x5chain: a verifier resolves the key from the issuer's DID document, as for the credential.
 */
async function signCwt(keys: KeyManager, input: TokenStatusListInput, iat: number, exp: number, lst: Uint8Array): Promise<Uint8Array> {
  const chain = input.x5c?.x5chain;
  const protectedHeader = new Map<number, number | string | Uint8Array | Uint8Array[]>([
    [HEADER_ALG, ES256],
    [HEADER_TYP, STATUS_LIST_CWT_TYP],
    // RFC 9360 §2: one certificate as a byte string, several as an array, the signer's first. In the
    // protected header, so that the chain is signed with the claims and cannot be swapped.
    chain ? [HEADER_X5CHAIN, chain.length === 1 ? (chain[0] as Uint8Array) : [...chain]] : [HEADER_KID, utf8.encode(input.kid as string)],
  ]);
  const claims = { iss: input.issuer, sub: input.uri, iat, exp, ttl: input.ttlSeconds, bits: BITS, lst };
  return signCoseSign1(keys, input, protectedHeader, UNPROTECTED, encodeStatusListClaims(claims));
}

/**
 * The core's TokenStatusListSigner port: the Status List Token (IETF Token Status List draft 14 §5)
 * that dc+sd-jwt credentials (JWT form) and cwt / cwt_vc credentials (CWT form) reference, signed
 * with ES256 by the issuer DID's P-256 key, the key that signs those credentials.
 *
 * - `jwt`: header `{ alg: "ES256", typ: "statuslist+jwt", kid }`, payload `{ iss, sub, iat, exp,
 *   ttl, status_list: { bits: 1, lst } }` with `lst` base64url without padding (§4.2); returns the
 *   compact JWS.
 * - `cwt`: protected header `{ 1: -7, 16: "application/statuslist+cwt", 4: kid }`, empty
 *   unprotected header, payload `{ 1: iss, 2: sub, 6: iat, 4: exp, 65534: ttl, 65533: { "bits": 1,
 *   "lst": bytes } }` (§4.3, §5.2); returns the untagged COSE_Sign1 bytes.
 *
 * With `x5c` (lists of credentials signed under the tenant's issuer CA) the key is named by the leaf
 * certificate instead of `kid`: the JWT header `{ alg, typ, x5c }`, the CWT protected header `{ 1,
 * 16, 33: x5chain }`; the issuer is then the credential issuer identifier its SAN names.
 *
 * `lst` is the statuses compressed with DEFLATE in the ZLIB format at the highest level (§4.1).
 * `iss` is not required by §5 but is written: the issuer of the credentials the list covers, so a
 * verifier can check that the list and the credential come from the same party (§8.3).
 */
export function createTokenStatusListSigner(options: TokenStatusListSignerOptions): TokenStatusListSigner {
  const { keys } = options;
  return {
    async sign(input) {
      const { iat, exp } = check(input);
      // ES256 needs a P-256 key; an Ed25519 key also gives 64-byte signatures, so the length check
      // after signing would not catch it and the token would say ES256 over an EdDSA signature.
      const key = await keys.get(input.tenantId, input.keyId);
      if (key === undefined) throw new DomainError('NotFound', 'The signing key does not exist or was destroyed');
      if (key.algorithm !== 'P-256') throw invalidField('keyId', 'Expected a P-256 key (ES256)', key.algorithm);
      const lst = compressStatuses(input.statuses);
      return input.form === 'jwt' ? signJwt(keys, input, iat, exp, lst) : signCwt(keys, input, iat, exp, lst);
    },
    leafOf(form, token) {
      try {
        if (form === 'jwt') {
          const text = new TextDecoder().decode(token);
          const header = JSON.parse(Buffer.from(text.slice(0, text.indexOf('.')), 'base64url').toString('utf8')) as { x5c?: unknown };
          return Array.isArray(header.x5c) && typeof header.x5c[0] === 'string' ? header.x5c[0] : undefined;
        }
        const [protectedBytes] = cbor.decode(token) as [Uint8Array];
        const chain = (cbor.decode(protectedBytes) as Map<number, unknown>).get(HEADER_X5CHAIN);
        const leaf = Array.isArray(chain) ? chain[0] : chain;
        return leaf instanceof Uint8Array ? Buffer.from(leaf).toString('base64') : undefined;
      } catch {
        // Not a token this signer made: the caller signs a new one.
        return undefined;
      }
    },
  };
}
