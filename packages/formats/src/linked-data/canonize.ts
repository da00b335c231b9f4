import { createHash } from 'node:crypto';
import { JsonLdParser } from 'jsonld-streaming-parser';
import { RDFC10 } from 'rdfjs-c14n';
import { loadBundledContext } from './contexts.ts';

type Quad = Parameters<RDFC10['toNquads']>[0] extends Iterable<infer Q> ? Q : never;

// Documents to sign have no base IRI, so a relative IRI in one is an error (as jsonld.js's safe
// mode makes it). The parser resolves relative IRIs against its base, so it is given one that can
// never occur in a real document (.invalid, RFC 2606) and the quads are searched for it.
const NO_BASE = 'https://relative-iri.invalid/';

/**
 * Expands a JSON-LD document to RDF quads with the bundled contexts only. Strict: a term that no
 * context defines, or a relative IRI, is an error rather than silently dropped or guessed, because
 * what is dropped is not covered by the signature.
 */
export async function toQuads(document: Record<string, unknown>): Promise<Quad[]> {
  const parser = new JsonLdParser({ documentLoader: { load: loadBundledContext }, strictValues: true, baseIRI: NO_BASE });
  const quads: Quad[] = [];
  await new Promise<void>((resolve, reject) => {
    parser.on('data', (quad: Quad) => quads.push(quad));
    parser.on('error', reject);
    parser.on('end', () => resolve());
    parser.write(JSON.stringify(document));
    parser.end();
  });
  for (const quad of quads) {
    for (const term of [quad.subject, quad.predicate, quad.object, quad.graph]) {
      if (term.termType === 'NamedNode' && term.value.startsWith(NO_BASE)) {
        throw new Error(`The relative IRI ${term.value.slice(NO_BASE.length)} cannot be signed: IRIs must be absolute`);
      }
    }
  }
  return quads;
}

/** The canonical N-Quads of a JSON-LD document (RDF Dataset Canonicalization, RDFC-1.0 = URDNA2015). */
export async function canonizeJsonLd(document: Record<string, unknown>): Promise<string> {
  return new RDFC10().canonicalize(await toQuads(document));
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The bytes a 2018/2020 JWS-based Linked Data proof signs after its JWS header: SHA-256 of the
 * canonical proof options (the proof without `jws`, under the document's `@context`) followed by
 * SHA-256 of the canonical document without its proof.
 */
export async function linkedDataVerifyData(document: Record<string, unknown>, proof: object): Promise<Uint8Array> {
  const { proof: _ignored, ...unsigned } = document;
  const { jws: _jws, proofValue: _proofValue, signatureValue: _signatureValue, ...options } = proof as Record<string, unknown>;
  const [proofHash, documentHash] = await Promise.all([
    canonizeJsonLd({ '@context': unsigned['@context'], ...options }).then(sha256),
    canonizeJsonLd(unsigned).then(sha256),
  ]);
  const out = new Uint8Array(64);
  out.set(proofHash, 0);
  out.set(documentHash, 32);
  return out;
}
