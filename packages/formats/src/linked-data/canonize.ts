import { createHash } from 'node:crypto';
import { JsonLdParser } from 'jsonld-streaming-parser';
import { loadBundledContext } from './contexts.ts';
import rdfCanonize from 'rdf-canonize';

// Documents to sign have no base IRI, so a relative IRI in one is an error (as jsonld.js's safe
// mode makes it). The parser resolves relative IRIs against its base, so it is given one that can
// never occur in a real document (.invalid, RFC 2606) and the quads are searched for it.
const NO_BASE = 'https://relative-iri.invalid/';

// JSON-LD 1.1 §1.7 keywords. Other `@`-names are ignored by JSON-LD processors.
const KEYWORDS = new Set([
  '@base',
  '@container',
  '@context',
  '@direction',
  '@graph',
  '@id',
  '@import',
  '@included',
  '@index',
  '@json',
  '@language',
  '@list',
  '@nest',
  '@none',
  '@prefix',
  '@propagate',
  '@protected',
  '@reverse',
  '@set',
  '@type',
  '@value',
  '@version',
  '@vocab',
]);

/**
 * Refuses the member names JSON-LD to RDF drops without a word, which the streaming parser lets
 * through: a blank node identifier as a property (`_:x`; JSON-LD 1.1 §10, standard RDF has no
 * blank node predicates) and an `@`-name that is no keyword (§1.7, ignored unless mapped).
 * Contexts and literal values are not looked into.
 */
function refuseDroppedMembers(value: unknown, path: string): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => refuseDroppedMembers(item, `${path}[${i}]`));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, member] of Object.entries(value)) {
    if (key.startsWith('_:') || (key.startsWith('@') && !KEYWORDS.has(key))) {
      throw new Error(`The member ${path}.${key} would be left out of the RDF a signature covers (JSON-LD drops it), so it cannot be signed`);
    }
    if (key !== '@context' && key !== '@value' && key !== '@json') refuseDroppedMembers(member, `${path}.${key}`);
  }
}

/**
 * Expands a JSON-LD document to RDF quads with the bundled contexts only. Strict: a term that no
 * context defines, a relative IRI, or a member JSON-LD drops is an error rather than silently
 * dropped or guessed, because what is dropped is not covered by the signature.
 */
export async function toQuads(document: Record<string, unknown>): Promise<Quad[]> {
  refuseDroppedMembers(document, '$');
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
  // An RDF dataset is a set (RDF 1.1 Concepts §4): the parser emits a quad once per occurrence (a
  // value listed twice, say), and rdf-canonize takes what it is given, so duplicates go here, as
  // jsonld.js drops them before it canonicalises.
  const seen = new Set<string>();
  return quads.filter((quad) => {
    const key = JSON.stringify([quad.subject, quad.predicate, quad.object, quad.graph].map(termKey));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What makes two RDF/JS terms the same term. */
const termKey = (term: RdfTerm) => [term.termType, term.value, term.language ?? '', term.datatype?.value ?? ''];

/** An RDF/JS term as the JSON-LD parser produces it. */
export interface RdfTerm {
  termType: string;
  value: string;
  language?: string;
  datatype?: { termType?: string; value: string };
}

/** An RDF/JS quad as the JSON-LD parser produces it (and rdf-canonize takes it). */
export interface Quad {
  subject: RdfTerm;
  predicate: RdfTerm;
  object: RdfTerm;
  graph: RdfTerm;
}

/**
 * The canonical N-Quads of a JSON-LD document: RDF Dataset Canonicalization (RDFC-1.0, formerly
 * URDNA2015) by rdf-canonize, Digital Bazaar's implementation that the W3C test suite was run
 * against and that most Linked Data verifiers use. Its default limit on deep iterations (one per
 * group of look-alike blank nodes) is kept, the same one verifiers apply, so a poisoned dataset
 * fails here rather than at every verifier.
 */
export async function canonizeJsonLd(document: Record<string, unknown>): Promise<string> {
  return canonizeQuads(await toQuads(document));
}

/** The canonical N-Quads of quads from `toQuads` (rdf-canonize, RDFC-1.0, its default work limit). */
export function canonizeQuads(quads: readonly Quad[]): Promise<string> {
  return rdfCanonize.canonize(quads, { algorithm: 'RDFC-1.0' });
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
