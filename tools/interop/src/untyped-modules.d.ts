// The verifier libraries the interop tests use ship JavaScript without type declarations.
declare module 'jsonld';
declare module 'jsonld-signatures';
declare module '@digitalbazaar/ed25519-signature-2018';
declare module '@digitalbazaar/ed25519-verification-key-2018';
declare module 'pako';
