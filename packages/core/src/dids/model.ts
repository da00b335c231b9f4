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
  /** When a rotation replaced it (docs/key-custody.md "Rotation"): it signs no more, and verifies what it signed. */
  retiredAt?: string;
  /** Until when a retired key stays in the DID document; absent, it stays until the DID's next rotation after that is set, or for good. */
  verifiesUntil?: string;
}

/** The key of `algorithm` that signs for a DID now: the last one made that no rotation retired. */
export function currentDidKey(record: Pick<DidRecord, 'keys'>, algorithm: KeyAlgorithm): DidKey | undefined {
  return record.keys.findLast((k) => k.algorithm === algorithm && k.retiredAt === undefined);
}

/** The keys a DID document lists at `at`: those that sign, and retired ones whose overlap has not ended. */
export function publishedDidKeys(record: Pick<DidRecord, 'keys'>, at: number): DidKey[] {
  return record.keys.filter((k) => k.verifiesUntil === undefined || Date.parse(k.verifiesUntil) > at);
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
