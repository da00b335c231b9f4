// A second implementation of RDF Dataset Canonicalization (RDFC-1.0, W3C Recommendation 2024; the
// algorithm formerly called URDNA2015) with SHA-256, for TESTS ONLY (it is not exported). Vellum
// signs with rdf-canonize, and the Linked Data verifiers the tests use (@digitalbazaar/vc) run
// rdf-canonize too; this implementation, written from the Recommendation and run by hand against
// the W3C rdf-canon test suite (63 SHA-256 tests and the poisoning test), checks that library
// independently, so a fault shared by signer and verifier cannot go unseen (rdfc10.test.ts).
//
// It was written when the library Vellum first used, rdfjs-c14n, turned out to serialise through
// an n3 writer in Turtle mode, which with n3 1.26 wrote `"3"^^xsd:integer` as `3` (and some
// characters with the wrong escapes): not canonical N-Quads, so credentials with a number or
// boolean claim would have failed verification everywhere else.

import { createHash } from 'node:crypto';

/** The RDF/JS term shapes the JSON-LD parser produces (RDF/JS data model). */
export interface RdfTerm {
  termType: string;
  value: string;
  language?: string;
  datatype?: { value: string };
}

export interface RdfQuad {
  subject: RdfTerm;
  predicate: RdfTerm;
  object: RdfTerm;
  graph: RdfTerm;
}

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const ECHAR: Readonly<Record<string, string>> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r', '"': '\\"', '\\': '\\\\' };
const uchar = (c: string) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

// Appendix A: in a literal, the seven ECHAR characters are written as ECHAR; the other control
// characters (U+0000–U+001F, U+007F) and what XML 1.1's Char production excludes (lone surrogates,
// U+FFFE, U+FFFF) as UCHAR with upper-case hex; everything else as itself.
const LITERAL_ESCAPES = /[\u0000-\u001F\u007F"\\\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const escapeLiteral = (text: string) => text.replace(LITERAL_ESCAPES, (c) => ECHAR[c] ?? uchar(c));
// Characters an IRIREF cannot hold are written as UCHAR (a valid IRI has none of them).
const escapeIri = (text: string) => text.replace(/[\u0000-\u0020<>"{}|^`\\]/g, uchar);

type Label = (blankNodeId: string) => string;

function term(t: RdfTerm, label: Label): string {
  switch (t.termType) {
    case 'NamedNode':
      return `<${escapeIri(t.value)}>`;
    case 'BlankNode':
      return `_:${label(t.value)}`;
    case 'Literal': {
      const value = `"${escapeLiteral(t.value)}"`;
      if (t.language) return `${value}@${t.language}`;
      const datatype = t.datatype?.value ?? XSD_STRING;
      return datatype === XSD_STRING ? value : `${value}^^<${escapeIri(datatype)}>`;
    }
    default:
      throw new Error(`An RDF term of type ${t.termType} cannot be canonicalised`);
  }
}

/** One quad in canonical N-Quads form, its blank nodes named by `label`, ending in a line feed. */
function nquad(q: RdfQuad, label: Label): string {
  const graph = q.graph.termType === 'DefaultGraph' ? '' : ` ${term(q.graph, label)}`;
  return `${term(q.subject, label)} ${term(q.predicate, label)} ${term(q.object, label)}${graph} .\n`;
}

/**
 * Unicode code point order, which RDFC-1.0 sorts by. JavaScript compares UTF-16 code units, which
 * puts astral characters (surrogates, 0xD800–0xDFFF) before U+E000–U+FFFF; shifting the code
 * units past the surrogates restores code point order.
 */
function codePointOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const rank = (u: number) => (u >= 0xd800 && u <= 0xdfff ? u + 0x2000 : u >= 0xe000 ? u - 0x800 : u);
      return rank(x) - rank(y);
    }
  }
  return a.length - b.length;
}

const sortCodePoints = (list: string[]) => list.sort(codePointOrder);
const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** §4.3 and §4.5: an identifier issuer hands out prefix + counter, remembering the order it issued in. */
class IdentifierIssuer {
  readonly prefix: string;
  private counter: number;
  readonly issued: Map<string, string>;

  constructor(prefix: string, counter = 0, issued = new Map<string, string>()) {
    this.prefix = prefix;
    this.counter = counter;
    this.issued = issued;
  }

  issue(id: string): string {
    let out = this.issued.get(id);
    if (out === undefined) {
      out = `${this.prefix}${this.counter}`;
      this.counter += 1;
      this.issued.set(id, out);
    }
    return out;
  }

  copy(): IdentifierIssuer {
    return new IdentifierIssuer(this.prefix, this.counter, new Map(this.issued));
  }
}

function* permutations<T>(items: readonly T[]): Generator<T[]> {
  if (items.length <= 1) {
    yield [...items];
    return;
  }
  for (let i = 0; i < items.length; i += 1) {
    const rest = [...items.slice(0, i), ...items.slice(i + 1)];
    for (const tail of permutations(rest)) yield [items[i] as T, ...tail];
  }
}

export interface CanonicalizeOptions {
  /**
   * The most Hash N-Degree Quads calls one dataset may take (default 10,000). RDFC-1.0 §7.1
   * (dataset poisoning): some small crafted datasets need exponential work, and §4.4.3 asks
   * implementations to stop early; the documents Vellum signs need a handful of calls at most.
   */
  maxDeepIterations?: number;
}

/** The canonical N-Quads of a dataset (RDFC-1.0 §4.4): blank nodes relabelled c14n0…, lines sorted. */
export function canonicalizeRdfc10(input: readonly RdfQuad[], options: CanonicalizeOptions = {}): string {
  const maxDeep = options.maxDeepIterations ?? 10_000;
  let deepIterations = 0;

  // A dataset is a set (RDF 1.1 Concepts §4): JSON-LD such as `"p": ["x", "x"]` makes the parser
  // emit one quad twice, and it counts once.
  const seen = new Set<string>();
  const quads = input.filter((q) => {
    const key = nquad(q, (b) => b);
    return !seen.has(key) && seen.add(key) !== undefined;
  });

  // §4.4.3 step 2: the quads each blank node occurs in.
  const quadsOf = new Map<string, RdfQuad[]>();
  for (const q of quads) {
    for (const t of [q.subject, q.object, q.graph]) {
      if (t.termType !== 'BlankNode') continue;
      const list = quadsOf.get(t.value);
      if (list === undefined) quadsOf.set(t.value, [q]);
      else if (list[list.length - 1] !== q) list.push(q);
    }
  }
  const canonical = new IdentifierIssuer('c14n');

  // §4.6 Hash First Degree Quads: the node itself is _:a, every other blank node _:z. It depends
  // on the dataset alone, so it is computed once per node.
  const firstDegree = new Map<string, string>();
  const hashFirstDegree = (id: string): string => {
    let hash = firstDegree.get(id);
    if (hash === undefined) {
      const lines = (quadsOf.get(id) ?? []).map((q) => nquad(q, (b) => (b === id ? 'a' : 'z')));
      hash = sha256Hex(sortCodePoints(lines).join(''));
      firstDegree.set(id, hash);
    }
    return hash;
  };

  // §4.7 Hash Related Blank Node.
  const hashRelated = (related: string, q: RdfQuad, issuer: IdentifierIssuer, position: 's' | 'o' | 'g'): string => {
    const id = canonical.issued.has(related)
      ? `_:${canonical.issued.get(related)}`
      : issuer.issued.has(related)
        ? `_:${issuer.issued.get(related)}`
        : hashFirstDegree(related);
    return sha256Hex(position === 'g' ? `${position}${id}` : `${position}<${q.predicate.value}>${id}`);
  };

  // §4.8 Hash N-Degree Quads.
  const hashNDegree = (id: string, start: IdentifierIssuer): { hash: string; issuer: IdentifierIssuer } => {
    deepIterations += 1;
    if (deepIterations > maxDeep) throw new Error(`The dataset needs more than ${maxDeep} deep canonicalisation steps (RDFC-1.0 §7.1: a poisoned dataset?)`);
    let issuer = start;
    const related = new Map<string, string[]>();
    for (const q of quadsOf.get(id) ?? []) {
      for (const [t, position] of [
        [q.subject, 's'],
        [q.object, 'o'],
        [q.graph, 'g'],
      ] as const) {
        if (t.termType !== 'BlankNode' || t.value === id) continue;
        const hash = hashRelated(t.value, q, issuer, position);
        const list = related.get(hash);
        if (list === undefined) related.set(hash, [t.value]);
        else list.push(t.value);
      }
    }
    let data = '';
    for (const hash of sortCodePoints([...related.keys()])) {
      data += hash;
      let chosenPath = '';
      let chosenIssuer: IdentifierIssuer | undefined;
      permutation: for (const order of permutations(related.get(hash) as string[])) {
        let copy = issuer.copy();
        let path = '';
        const recursion: string[] = [];
        const worse = () => chosenPath !== '' && path.length >= chosenPath.length && path > chosenPath;
        for (const node of order) {
          const issued = canonical.issued.get(node);
          if (issued !== undefined) path += `_:${issued}`;
          else {
            if (!copy.issued.has(node)) recursion.push(node);
            path += `_:${copy.issue(node)}`;
          }
          if (worse()) continue permutation;
        }
        for (const node of recursion) {
          const result = hashNDegree(node, copy);
          path += `_:${copy.issue(node)}<${result.hash}>`;
          copy = result.issuer;
          if (worse()) continue permutation;
        }
        if (chosenPath === '' || path < chosenPath) {
          chosenPath = path;
          chosenIssuer = copy;
        }
      }
      data += chosenPath;
      issuer = chosenIssuer as IdentifierIssuer;
    }
    return { hash: sha256Hex(data), issuer };
  };

  // §4.4.3 steps 3–4: nodes with a unique first-degree hash are named first, in hash order.
  const byHash = new Map<string, string[]>();
  for (const id of quadsOf.keys()) {
    const hash = hashFirstDegree(id);
    const list = byHash.get(hash);
    if (list === undefined) byHash.set(hash, [id]);
    else list.push(id);
  }
  const hashes = sortCodePoints([...byHash.keys()]);
  const shared: string[] = [];
  for (const hash of hashes) {
    const ids = byHash.get(hash) as string[];
    if (ids.length === 1) canonical.issue(ids[0] as string);
    else shared.push(hash);
  }
  // Step 5: the others by their n-degree hashes.
  for (const hash of shared) {
    const results: Array<{ hash: string; issuer: IdentifierIssuer }> = [];
    for (const id of byHash.get(hash) as string[]) {
      if (canonical.issued.has(id)) continue;
      const temporary = new IdentifierIssuer('b');
      temporary.issue(id);
      results.push(hashNDegree(id, temporary));
    }
    results.sort((x, y) => codePointOrder(x.hash, y.hash));
    for (const result of results) for (const id of result.issuer.issued.keys()) canonical.issue(id);
  }

  // Step 6 and §5: every quad in canonical N-Quads form with its canonical labels, in code point order.
  const label: Label = (b) => canonical.issued.get(b) as string;
  return sortCodePoints(quads.map((q) => nquad(q, label))).join('');
}
