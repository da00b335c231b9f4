import { type CwtSigner, DomainError, invalidField, type KeyManager } from '@vellum/core';
import { cbor, Tag } from '../mso-mdoc/cbor.ts';
import { cwtClaimsMap } from './claims.ts';

export interface CwtSignerOptions {
  keys: KeyManager;
}

// COSE (RFC 9052 §3.1 header labels; RFC 9053 §2.1 ES256) and the COSE_Sign1 tag (RFC 9052 §2).
const HEADER_ALG = 1;
const HEADER_KID = 4;
// RFC 9360 §2: the certificate chain, one bstr for a single certificate.
const HEADER_X5CHAIN = 33;
const ES256 = -7;
const TAG_COSE_SIGN1 = 18;
const SIGNATURE1 = 'Signature1';
const NO_EXTERNAL_AAD = new Uint8Array(0);
// Nothing goes unprotected: the algorithm and the key id are both covered by the signature.
const UNPROTECTED = new Map<number, never>();

const utf8 = new TextEncoder();

/**
 * The core's CwtSigner port: a CWT (RFC 8392 §7.1) as an ES256 COSE_Sign1 (RFC 9052 §4), signed by
 * a KeyManager-held P-256 key. The protected header carries the algorithm and the signing key's
 * DID URL as `kid`; the result is the tagged COSE_Sign1 in base64url without padding.
 */
export function createCwtSigner(options: CwtSignerOptions): CwtSigner {
  const { keys } = options;
  return {
    async sign(input) {
      const { tenantId, keyId, kid, claims, x5chain } = input;
      if (typeof kid !== 'string' || kid.length === 0) throw invalidField('kid', 'Expected the DID URL of the signing key', kid);
      // The protected header is a bstr holding the encoded map (RFC 9052 §3); `kid` is a bstr too
      // (§3.1), here the UTF-8 of the DID URL, so a verifier resolves the key from the DID document.
      const header = new Map<number, number | Uint8Array | Uint8Array[]>([
        [HEADER_ALG, ES256],
        [HEADER_KID, utf8.encode(kid)],
      ]);
      // Protected, as everything here: the chain a verifier trusts the key by is signed too.
      if (x5chain && x5chain.length > 0) header.set(HEADER_X5CHAIN, x5chain.length === 1 ? (x5chain[0] as Uint8Array) : [...x5chain]);
      const protectedHeader = cbor.encode(header);
      const payload = cbor.encode(cwtClaimsMap(claims));
      // Sig_structure for a COSE_Sign1 (RFC 9052 §4.4): no external AAD.
      const toBeSigned = cbor.encode([SIGNATURE1, protectedHeader, NO_EXTERNAL_AAD, payload]);
      const signature = await keys.sign(tenantId, keyId, toBeSigned);
      // ES256 in COSE is r‖s of 32 bytes each (RFC 9053 §2.1), the form KeyManager.sign returns.
      if (signature.length !== 64) throw new DomainError('InternalServerError', 'The signing key returned a signature that is not ES256 (64 bytes)');
      const sign1 = cbor.encode(new Tag([protectedHeader, UNPROTECTED, payload, signature], TAG_COSE_SIGN1));
      return Buffer.from(sign1.buffer, sign1.byteOffset, sign1.byteLength).toString('base64url');
    },
  };
}
