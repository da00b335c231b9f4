import { invalidField, type PublicJwk } from '@vellum/core';

// COSE_Key labels and values (RFC 9052 §7.1, RFC 9053 §7.1 and §7.2; IANA "COSE Key Common
// Parameters", "COSE Key Type Parameters", "COSE Elliptic Curves").
const KTY = 1;
const KTY_OKP = 1;
const KTY_EC2 = 2;
const CRV = -1;
const X = -2;
const Y = -3;
const CRV_P256 = 1;
const CRV_ED25519 = 6;

/** A JWK coordinate (base64url, exactly 32 bytes): the lenient decoder's output is re-encoded to catch stray characters. */
function coordinate(jwk: PublicJwk, name: 'x' | 'y', param: string): Buffer {
  const text = jwk[name];
  const bytes = typeof text === 'string' ? Buffer.from(text, 'base64url') : Buffer.alloc(0);
  if (bytes.length !== 32 || bytes.toString('base64url') !== text) throw invalidField(`${param}.${name}`, 'Expected a base64url coordinate of 32 bytes', text);
  return bytes;
}

/**
 * A public JWK as a COSE_Key: P-256 as EC2 `{1: 2, -1: 1, -2: x, -3: y}` (RFC 9053 §7.1.1),
 * Ed25519 as OKP `{1: 1, -1: 6, -2: x}` (RFC 9053 §7.2). Coordinates are byte strings; y is
 * written in full rather than as the sign bit, which every COSE implementation reads.
 */
export function coseKeyOf(jwk: PublicJwk, param = 'cnf'): Map<number, number | Uint8Array> {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') {
    return new Map<number, number | Uint8Array>([
      [KTY, KTY_EC2],
      [CRV, CRV_P256],
      [X, coordinate(jwk, 'x', param)],
      [Y, coordinate(jwk, 'y', param)],
    ]);
  }
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') {
    return new Map<number, number | Uint8Array>([
      [KTY, KTY_OKP],
      [CRV, CRV_ED25519],
      [X, coordinate(jwk, 'x', param)],
    ]);
  }
  throw invalidField(param, 'The holder key must be an EC P-256 or an OKP Ed25519 key', { kty: jwk.kty, crv: jwk.crv });
}
