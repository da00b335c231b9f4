import type { KeyAlgorithm, PublicJwk } from '../keys/model.ts';

/** docs/decisions.md "DIDs": the DID methods Vellum creates. */
export const DID_METHODS = ['key', 'web'] as const;
export type DidMethod = (typeof DID_METHODS)[number];

/** One key of a DID: where the DID document names it, and which KeyManager key holds it. */
export interface DidKey {
  /** The DID URL of the verification method, e.g. `did:key:z6Mk…#z6Mk…`. Stored, so it stays stable. */
  didDocumentKeyId: string;
  /** The KeyManager's id of the key. */
  kmsKeyId: string;
  algorithm: KeyAlgorithm;
  publicJwk: PublicJwk;
}

/** A DID a tenant holds. Its DID document is derived from the keys (see documents.ts). */
export interface DidRecord {
  tenantId: string;
  did: string;
  method: DidMethod;
  keys: DidKey[];
  createdAt: string;
}

/** A verification method of a DID document (W3C DID core 5.2). */
export interface VerificationMethod {
  id: string;
  type: 'Ed25519VerificationKey2018' | 'JsonWebKey2020';
  controller: string;
  publicKeyBase58?: string;
  publicKeyJwk?: PublicJwk;
}

/** A DID document (W3C DID core), in its JSON-LD representation. */
export interface DidDocument {
  '@context': string[];
  id: string;
  verificationMethod: VerificationMethod[];
  authentication: string[];
  assertionMethod: string[];
}
