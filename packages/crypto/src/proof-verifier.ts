import { createPublicKey, type KeyObject } from 'node:crypto';
import { type KeyProofVerification, parseDidKey, type ProofVerifier, type PublicJwk } from '@vellum/core';
import { decodeJwsHeader, hasPrivateMembers, type JwsAlgorithm, jsonObjectOf, publicKeyFromJwk, verifyCompactJws } from './jws.ts';

/** Proofs are small; anything longer is refused before it is parsed. */
const MAX_PROOF_LENGTH = 16 * 1024;
const DEFAULT_ALGORITHMS = ['ES256', 'EdDSA'] as const;
/** The key type each algorithm this verifier can check needs (RFC 7518 §3.4, RFC 8037 §3.1). */
const keyTypeOf = (alg: string): PublicJwk['kty'] | undefined => (alg === 'ES256' ? 'EC' : alg === 'EdDSA' ? 'OKP' : undefined);

// SubjectPublicKeyInfo prefix for an EC P-256 key with a 33-byte compressed point (RFC 5480):
// SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (0 unused bits) … }.
const P256_COMPRESSED_SPKI_PREFIX = Uint8Array.from([
  0x30, 0x39, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x22, 0x00,
]);

class Refusal extends Error {}
const refuse = (reason: string): never => {
  throw new Refusal(reason);
};

/** A holder key as the proof names it, and as a key object when decoding it already made one. */
interface HolderKey {
  jwk: PublicJwk;
  keyObject?: KeyObject;
}

/** The holder key a `jwk` header names: public only, P-256 or Ed25519. */
function keyFromJwk(jwk: unknown): HolderKey {
  if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) return refuse('The proof’s jwk is not a JWK object');
  const j = jwk as Record<string, unknown>;
  if (hasPrivateMembers(j)) return refuse('The proof’s jwk holds private key material');
  if (j.kty === 'EC' && j.crv === 'P-256' && typeof j.x === 'string' && typeof j.y === 'string') return { jwk: { kty: 'EC', crv: 'P-256', x: j.x, y: j.y } };
  if (j.kty === 'OKP' && j.crv === 'Ed25519' && typeof j.x === 'string') return { jwk: { kty: 'OKP', crv: 'Ed25519', x: j.x } };
  return refuse('The proof’s jwk must be a P-256 (EC) or Ed25519 (OKP) public key');
}

/** The holder key a did:key DID URL `kid` names, decoded (P-256 points decompressed). */
function keyFromDidKey(kid: unknown): HolderKey {
  if (typeof kid !== 'string' || !kid.startsWith('did:key:')) return refuse('The proof’s kid must be a did:key DID URL');
  const [did, fragment, ...rest] = kid.split('#');
  const decoded = parseDidKey(did as string);
  if (!decoded || rest.length > 0) return refuse('The proof’s kid is not a did:key of a P-256 or Ed25519 key');
  // A did:key's one verification method is `did:key:z…#z…`, the fragment repeating the key.
  if (fragment !== undefined && `did:key:${fragment}` !== did) return refuse('The proof’s kid names a key the did:key does not hold');
  if (decoded.algorithm === 'Ed25519') return { jwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(decoded.publicKey).toString('base64url') } };
  const spki = Buffer.concat([P256_COMPRESSED_SPKI_PREFIX, decoded.publicKey]);
  let keyObject: KeyObject;
  let jwk: { x?: string; y?: string };
  try {
    keyObject = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    jwk = keyObject.export({ format: 'jwk' });
  } catch {
    return refuse('The proof’s did:key is not a point on P-256');
  }
  return { jwk: { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string }, keyObject };
}

/**
 * The ProofVerifier port on node:crypto: checks the signature of an OpenID4VCI key proof against the
 * key its header names (OpenID4VCI 1.0 §8.2.1.1), and nothing else. It never throws.
 */
export function createProofVerifier(): ProofVerifier {
  return {
    async verify(jwt, options = {}): Promise<KeyProofVerification> {
      const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
      try {
        if (typeof jwt !== 'string' || jwt.length === 0 || jwt.length > MAX_PROOF_LENGTH) return refuse('The proof is not a compact JWT');
        const header = decodeJwsHeader(jwt);
        if (!header) return refuse('The proof is not a compact JWT');
        if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) return refuse(`The proof’s alg must be one of ${algorithms.join(', ')}`);
        if (header.jwk !== undefined && header.kid !== undefined) return refuse('The proof must name its key by jwk or by kid, not both');
        if (header.x5c !== undefined || header.trust_chain !== undefined) return refuse('Proofs with x5c or trust_chain are not accepted');
        const named =
          header.jwk !== undefined
            ? keyFromJwk(header.jwk)
            : header.kid !== undefined
              ? keyFromDidKey(header.kid)
              : refuse('The proof names no key (jwk or did:key kid)');
        const holderKey = named.jwk;
        if (keyTypeOf(header.alg) !== holderKey.kty) return refuse(`The proof’s key cannot be used with ${header.alg}`);
        let key: KeyObject;
        try {
          key = named.keyObject ?? publicKeyFromJwk(holderKey);
        } catch {
          return refuse(`The proof’s key cannot be used with ${header.alg}`);
        }
        const verified = verifyCompactJws(jwt, key, [header.alg as JwsAlgorithm]);
        if (!verified) return refuse('The proof’s signature does not verify with the key it names');
        const payload = jsonObjectOf(verified.payload);
        if ('problem' in payload) return refuse(`The proof’s payload ${payload.problem}`);
        return { ok: true, proof: { header, payload: payload.object, holderKey } };
      } catch (error) {
        return { ok: false, reason: error instanceof Refusal ? error.message : 'The proof could not be verified' };
      }
    },
  };
}
