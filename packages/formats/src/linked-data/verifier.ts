// The core's LinkedDataProofVerifier port (the ldp_vc verifier, docs/verification.md "Verifying
// ldp_vc"): the same canonicalisation Vellum signs with (bundled contexts only, strict JSON-LD to
// RDF, RDFC-1.0), then Ed25519 by node:crypto. Never throws: every failure is a reason.
import { createPublicKey, verify as verifySignature } from 'node:crypto';
import { base58btcDecode, type LinkedDataProofVerifier, type PublicJwk } from '@vellum/core';
import { linkedDataVerifyData } from './canonize.ts';

const fail = (reason: string) => ({ ok: false as const, reason });

function ed25519Verify(key: PublicJwk, data: Uint8Array, signature: Uint8Array): boolean {
  try {
    return verifySignature(null, data, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.x }, format: 'jwk' }), signature);
  } catch {
    return false;
  }
}

/** Ed25519Signature2018 (detached JWS, `{"alg":"EdDSA","b64":false,"crit":["b64"]}`) and Ed25519Signature2020 (multibase proofValue). */
export function createLinkedDataProofVerifier(): LinkedDataProofVerifier {
  return {
    async verify(document, proof, key) {
      if (key.kty !== 'OKP' || key.crv !== 'Ed25519') return fail('The key is not Ed25519');
      let verifyData: Uint8Array;
      try {
        verifyData = await linkedDataVerifyData(document, proof, { streaming: true });
      } catch (error) {
        // A context not bundled, a term no context defines, a relative IRI: nothing a signature can cover.
        return fail(`The document cannot be canonicalised: ${error instanceof Error ? error.message.slice(0, 120) : 'unreadable'}`);
      }
      if (proof.type === 'Ed25519Signature2020') {
        const value = proof.proofValue;
        const signature = typeof value === 'string' && value.startsWith('z') ? base58btcDecode(value.slice(1)) : undefined;
        if (signature?.length !== 64) return fail('The proofValue is not a multibase Ed25519 signature');
        return ed25519Verify(key, verifyData, signature) ? { ok: true } : fail('The proof signature does not verify');
      }
      if (proof.type === 'Ed25519Signature2018') {
        const parts = typeof proof.jws === 'string' ? proof.jws.split('.') : [];
        if (parts.length !== 3 || parts[1] !== '') return fail('The jws is not a detached JWS');
        let header: unknown;
        try {
          header = JSON.parse(Buffer.from(parts[0] as string, 'base64url').toString('utf8'));
        } catch {
          header = undefined;
        }
        const h = header as { alg?: unknown; b64?: unknown; crit?: unknown } | undefined;
        if (h?.alg !== 'EdDSA' || h.b64 !== false || !Array.isArray(h.crit) || h.crit.length !== 1 || h.crit[0] !== 'b64')
          return fail('The jws header is not {"alg":"EdDSA","b64":false,"crit":["b64"]}');
        const prefix = new TextEncoder().encode(`${parts[0]}.`);
        const input = new Uint8Array(prefix.length + verifyData.length);
        input.set(prefix, 0);
        input.set(verifyData, prefix.length);
        return ed25519Verify(key, input, Buffer.from(parts[2] as string, 'base64url')) ? { ok: true } : fail('The proof signature does not verify');
      }
      return fail('The proof type is not Ed25519Signature2018 or Ed25519Signature2020');
    },
  };
}
