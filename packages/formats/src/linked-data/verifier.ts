// The core's LinkedDataProofVerifier port (the ldp_vc verifier, docs/verification.md "Verifying
// ldp_vc"): canonicalisation with the bundled contexts only (jsonld.js to RDF, RDFC-1.0), then
// Ed25519 by node:crypto. Never throws: every failure is a reason.
import { createHash, createPublicKey, verify as verifySignature } from 'node:crypto';
import { base58btcDecode, type LinkedDataProofVerifier, type PublicJwk } from '@vellum/core';
import jsonld from 'jsonld';
import { loadBundledContext } from './contexts.ts';

/**
 * The canonical N-Quads of a document to verify: JSON-LD to RDF by jsonld.js (Digital Bazaar's
 * JSON-LD processor) in safe mode (a term no context defines, or a relative IRI, is an error), with
 * the bundled contexts only; RDFC-1.0 by rdf-canonize as when signing. Not the streaming parser
 * Vellum signs with: it puts the members of a `@graph` container (a presentation's
 * `verifiableCredential`, a proof) in the default graph, so a presentation's canonical form would
 * differ from every other verifier's (docs/decisions.md "Verifying ldp_vc and did:web issuers (issue 31)").
 */
async function canonical(document: Record<string, unknown>): Promise<string> {
  const documentLoader = async (url: string) => ({ contextUrl: null, documentUrl: url, document: structuredClone(await loadBundledContext(url)) });
  return jsonld.canonize(document, { algorithm: 'URDNA2015', format: 'application/n-quads', documentLoader, safe: true });
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** SHA-256 of the canonical proof options (under the document's @context), then of the canonical document. */
export async function verifyDataOf(document: Record<string, unknown>, proof: Record<string, unknown>): Promise<Uint8Array> {
  const { proof: _ignored, ...unsigned } = document;
  const { jws: _jws, proofValue: _proofValue, signatureValue: _signatureValue, ...options } = proof;
  const [proofHash, documentHash] = await Promise.all([
    canonical({ '@context': unsigned['@context'], ...options }).then(sha256),
    canonical(unsigned).then(sha256),
  ]);
  const out = new Uint8Array(64);
  out.set(proofHash, 0);
  out.set(documentHash, 32);
  return out;
}

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
        verifyData = await verifyDataOf(document, proof);
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
