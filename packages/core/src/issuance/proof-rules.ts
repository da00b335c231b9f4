import { DomainError } from '../shared/errors.ts';

/** OpenID4VCI 1.0 §8.2.1.1: the `typ` of a key proof JWT. */
export const PROOF_TYP = 'openid4vci-proof+jwt';
/** The proof algorithms the issuer accepts (also published in metadata). */
export const PROOF_ALGS = ['ES256', 'EdDSA'] as const;

/** A proof JWT whose signature an adapter has verified against the key it names. */
export interface VerifiedProof {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

export interface ProofExpectations {
  /** The credential issuer identifier the proof must be addressed to. */
  audience: string;
  /** Now, in Unix seconds. */
  now: number;
  /** How old `iat` may be (default 300 s) and how far ahead of our clock (default 60 s). */
  maxAgeSeconds?: number;
  maxFutureSeconds?: number;
  /** Algorithms this configuration takes (mDoc device keys are P-256: ES256 only). */
  algorithms?: readonly string[];
}

const invalidProof = (message: string) => new DomainError('BadRequest', message, { oauthError: 'invalid_proof' });

/**
 * Checks the claims of a verified key proof (OpenID4VCI 1.0 §8.2.1.1, docs/decisions.md "The credential endpoint") and returns the
 * nonce it carries; the caller consumes that nonce atomically. Every failure is `invalid_proof`.
 */
export function checkProofClaims(proof: VerifiedProof, expect: ProofExpectations): { nonce: string } {
  const { header, payload } = proof;
  if (header.typ !== PROOF_TYP) throw invalidProof(`The proof's typ must be ${PROOF_TYP}`);
  const algorithms = expect.algorithms ?? PROOF_ALGS;
  if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) throw invalidProof(`The proof's alg must be one of ${algorithms.join(', ')}`);
  if ((header.jwk === undefined) === (header.kid === undefined)) throw invalidProof('The proof must name its key by jwk or by a did:key kid, and not both');
  if (header.x5c !== undefined) throw invalidProof('Proofs with x5c are not accepted');
  const aud = payload.aud;
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (!audiences.includes(expect.audience)) throw invalidProof('The proof is for another audience');
  const iat = payload.iat;
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw invalidProof('The proof has no iat');
  if (iat < expect.now - (expect.maxAgeSeconds ?? 300)) throw invalidProof('The proof is too old');
  if (iat > expect.now + (expect.maxFutureSeconds ?? 60)) throw invalidProof('The proof is issued in the future');
  // OpenID4VCI 1.0 §8.3.1.2: a key proof without a c_nonce is invalid_proof (invalid_nonce is for a bad one).
  if (typeof payload.nonce !== 'string' || payload.nonce.length === 0) throw invalidProof('The proof carries no nonce: fetch one from the nonce endpoint');
  return { nonce: payload.nonce };
}
