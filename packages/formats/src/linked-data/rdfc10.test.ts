import jsonld from 'jsonld';
import { describe, expect, it } from 'vitest';
import rdfCanonize from 'rdf-canonize';
import { canonizeJsonLd, toQuads } from './canonize.ts';
import { canonicalizeRdfc10, type RdfQuad } from './rdfc10-reference.ts';

// Differential tests. Vellum's canonical form (jsonld-streaming-parser, then rdf-canonize) must equal
// jsonld.js's (its own JSON-LD to RDF, then rdf-canonize), which checks the JSON-LD half; and
// rdf-canonize must agree with an independent RDFC-1.0 implementation (rdfc10-reference.ts, tests
// only), which checks the canonicalisation half that signer and verifier share.
const theirs = (document: Record<string, unknown>): Promise<string> =>
  jsonld.canonize(document, {
    algorithm: 'RDFC-1.0',
    format: 'application/n-quads',
    safe: true,
    // rdf-canonize allows as many deep iterations as there are blank nodes with shared hashes by
    // default; the symmetric graphs below need more, and Vellum's own limit is what is tested.
    canonizeOptions: { algorithm: 'RDFC-1.0', maxWorkFactor: 3 },
    documentLoader: async (url: string) => {
      throw new Error(`Offline: ${url}`);
    },
  });

const VOCAB = { '@vocab': 'https://example.org/' };

/** A seeded generator (mulberry32), so every run checks the same graphs. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A graph of `size` blank nodes whose edges and values come from `next`: many share first-degree hashes. */
function randomGraph(next: () => number, size: number): Record<string, unknown> {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const nodes = Array.from({ length: size }, (_, i) => {
    const node: Record<string, unknown[]> = {};
    const edges = 1 + Math.floor(next() * 3);
    for (let e = 0; e < edges; e += 1) {
      const predicate = pick(['p', 'q']);
      const value = pick([{ '@id': `_:b${Math.floor(next() * size)}` }, { '@id': `_:b${Math.floor(next() * size)}` }, 'x', 1, true]);
      (node[predicate] ??= []).push(value);
    }
    return { '@id': `_:b${i}`, ...node };
  });
  return { '@context': VOCAB, '@graph': nodes };
}

const ring = (prefix: string, size: number) =>
  Array.from({ length: size }, (_, i) => ({ '@id': `_:${prefix}${i}`, p: { '@id': `_:${prefix}${(i + 1) % size}` } }));

/** Vellum's canonical form, which the independent reference implementation must reproduce from the same quads. */
async function ours(document: Record<string, unknown>): Promise<string> {
  const canonical = await canonizeJsonLd(document);
  expect(canonicalizeRdfc10(await toQuads(document))).toBe(canonical);
  return canonical;
}

/** rdf-canonize as Vellum runs it but allowed the deeper work symmetric graphs need, checked against the reference. */
async function deep(document: Record<string, unknown>): Promise<string> {
  const quads = await toQuads(document);
  const canonical = await rdfCanonize.canonize(quads, { algorithm: 'RDFC-1.0', maxWorkFactor: 3 });
  expect(canonicalizeRdfc10(quads, { maxDeepIterations: 100_000 })).toBe(canonical);
  return canonical;
}

describe('RDF Dataset Canonicalization (RDFC-1.0): Vellum, jsonld.js and an independent implementation agree', () => {
  it('writes typed literals in full (Appendix A): integers, doubles and booleans keep their datatype IRI', async () => {
    const document = { '@context': VOCAB, '@id': 'urn:x', n: 3, d: 1.5, b: true, s: 'text', l: { '@value': 'hi', '@language': 'en' } };
    const canonical = await ours(document);
    expect(canonical).toContain('<urn:x> <https://example.org/n> "3"^^<http://www.w3.org/2001/XMLSchema#integer> .');
    expect(canonical).toContain('<urn:x> <https://example.org/b> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .');
    expect(canonical).toContain('<urn:x> <https://example.org/d> "1.5E0"^^<http://www.w3.org/2001/XMLSchema#double> .');
    expect(canonical).toContain('<urn:x> <https://example.org/l> "hi"@en .');
    expect(canonical).toBe(await theirs(document));
  });

  it('escapes literals as canonical N-Quads (Appendix A): ECHAR, UCHAR with upper-case hex, everything else native', async () => {
    const text = 'tab\there "quoted" back\\slash new\nline cr\r bell\u0007 sub\u001a del\u007f é 😀 \u2028';
    const document = { '@context': VOCAB, '@id': 'urn:x', s: text };
    const canonical = await ours(document);
    expect(canonical).toBe(
      '<urn:x> <https://example.org/s> "tab\\there \\"quoted\\" back\\\\slash new\\nline cr\\r bell\\u0007 sub\\u001A del\\u007F é 😀 \u2028" .\n',
    );
    expect(canonical).toBe(await theirs(document));
  });

  it('names blank nodes with unique first-degree hashes, and nested claim objects', async () => {
    const document = { '@context': VOCAB, a: { b: { c: 1 }, d: [{ e: 'x' }, { e: 'y' }] }, f: { g: false } };
    expect(await ours(document)).toBe(await theirs(document));
  });

  it('needs Hash N-Degree Quads for symmetric graphs: a ring, two identical rings, identical siblings, blank named graphs', async () => {
    const namedGraphs = [
      { '@id': '_:g1', '@graph': ring('x', 2) },
      { '@id': '_:g2', '@graph': ring('y', 2) },
      { '@id': '_:x0', in: { '@id': '_:g2' } },
    ];
    for (const graph of [
      ring('r', 4),
      [...ring('a', 3), ...ring('b', 3)],
      [{ '@id': 'urn:s', p: [{ q: 'same' }, { q: 'same' }, { q: { r: 1 } }, { q: { r: 1 } }] }],
      namedGraphs,
    ]) {
      const document = { '@context': VOCAB, '@graph': graph };
      expect(await deep(document)).toBe(await theirs(document));
    }
  });

  it('agrees on 200 seeded random blank node graphs', async () => {
    const next = random(2026);
    for (let i = 0; i < 200; i += 1) {
      const document = randomGraph(next, 2 + Math.floor(next() * 6));
      expect(await deep(document), JSON.stringify(document)).toBe(await theirs(document));
    }
  });

  it('agrees on 100 seeded random graphs where every blank node looks alike at first degree (two edges, one predicate)', async () => {
    const next = random(18);
    for (let i = 0; i < 100; i += 1) {
      const size = 5 + Math.floor(next() * 6);
      const graph = Array.from({ length: size }, (_, n) => ({ '@id': `_:n${n}`, p: [0, 1].map(() => ({ '@id': `_:n${Math.floor(next() * size)}` })) }));
      const document = { '@context': VOCAB, '@graph': graph };
      expect(await deep(document), JSON.stringify(document)).toBe(await theirs(document));
    }
  });

  it('is independent of the order the quads arrive in', async () => {
    const document = randomGraph(random(7), 6);
    const quads = await import('./canonize.ts').then((m) => m.toQuads(document));
    expect(canonicalizeRdfc10([...quads].reverse())).toBe(canonicalizeRdfc10(quads));
  });
});

describe('RDFC-1.0 where the reference implementation reads the RDFC-1.0 standard more literally than rdf-canonize', () => {
  const literalQuad = (value: string): RdfQuad => ({
    subject: { termType: 'NamedNode', value: 'urn:x' },
    predicate: { termType: 'NamedNode', value: 'urn:p' },
    object: { termType: 'Literal', value, datatype: { value: 'http://www.w3.org/2001/XMLSchema#string' } },
    graph: { termType: 'DefaultGraph', value: '' },
  });

  it('sorts in Unicode code point order: U+FF71 before U+1F600, although UTF-16 code units sort the other way', () => {
    expect(canonicalizeRdfc10([literalQuad('😀'), literalQuad('ｱ')])).toBe('<urn:x> <urn:p> "ｱ" .\n<urn:x> <urn:p> "😀" .\n');
  });

  it('writes characters outside XML 1.1 Char (lone surrogates, U+FFFE, U+FFFF) as UCHAR', () => {
    expect(canonicalizeRdfc10([literalQuad('a\uD800b\uFFFF')])).toBe('<urn:x> <urn:p> "a\\uD800b\\uFFFF" .\n');
  });

  it('stops on a dataset that needs too much work (§7.1 dataset poisoning) instead of running on', async () => {
    // Blank nodes all alike: every one is linked to every other, so each hash needs permutations.
    const size = 6;
    const clique = Array.from({ length: size }, (_, i) => ({
      '@id': `_:n${i}`,
      p: Array.from({ length: size }, (_, j) => ({ '@id': `_:n${j}` })).filter((_, j) => j !== i),
    }));
    const quads = await import('./canonize.ts').then((m) => m.toQuads({ '@context': VOCAB, '@graph': clique }));
    expect(() => canonicalizeRdfc10(quads, { maxDeepIterations: 50 })).toThrow(/more than 50 deep/);
  });
});
