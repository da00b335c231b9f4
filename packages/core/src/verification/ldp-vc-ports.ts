// Ports of the ldp_vc verifier (docs/verification.md "Verifying ldp_vc"): JSON-LD canonicalisation
// and Ed25519 live in adapters (@vellum/formats' createLinkedDataProofVerifier, @vellum/node's
// createInflater), so the core stays pure.

import type { PublicJwk } from '../keys/model.ts';

/**
 * Checks one Linked Data proof: Ed25519Signature2018 (detached JWS, EdDSA, b64 false) or
 * Ed25519Signature2020 (multibase proofValue), over RDFC-1.0 canonical proof options and document,
 * with the bundled JSON-LD contexts only (a context not bundled fails; nothing is fetched).
 * Never throws.
 */
export interface LinkedDataProofVerifier {
  verify(document: Record<string, unknown>, proof: Record<string, unknown>, key: PublicJwk): Promise<{ ok: true } | { ok: false; reason: string }>;
}

/** GZIP (RFC 1952) with a bound on the output: RevocationList2020's encodedList. */
export interface Gunzip {
  /** The uncompressed bytes, or undefined when `data` is no gzip stream or inflates to more than `maxBytes`. Never throws. */
  gunzip(data: Uint8Array, maxBytes: number): Uint8Array | undefined;
}
