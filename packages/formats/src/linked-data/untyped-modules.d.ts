// The Linked Data verifier libraries the tests use ship JavaScript without type declarations.
declare module '@digitalbazaar/vc';
declare module '@digitalbazaar/ed25519-signature-2020';
declare module '@digitalbazaar/ed25519-verification-key-2020';
declare module '@digitalbazaar/ed25519-signature-2018';
declare module '@digitalbazaar/ed25519-verification-key-2018';

// rdf-canonize (CommonJS) ships no type declarations; Vellum uses its canonize() alone.
declare module 'rdf-canonize' {
  const rdfCanonize: { canonize(dataset: readonly object[], options: { algorithm: 'RDFC-1.0'; maxWorkFactor?: number }): Promise<string> };
  export default rdfCanonize;
}

// pako (tests only) ships no type declarations.
declare module 'pako';
