import { base58btcEncode } from './multibase.ts';
import { publicKeyBytes } from './did-key.ts';
import { type DidDocument, type DidKey, type DidRecord, publishedDidKeys, type VerificationMethod } from './model.ts';

export const DID_CONTEXT_V1 = 'https://www.w3.org/ns/did/v1';
export const ED25519_2018_CONTEXT_V1 = 'https://w3id.org/security/suites/ed25519-2018/v1';
export const JWS_2020_CONTEXT_V1 = 'https://w3id.org/security/suites/jws-2020/v1';

/**
 * A key as a verification method. Ed25519 keys are Ed25519VerificationKey2018 with
 * `publicKeyBase58`, the type the Ed25519Signature2018 suite (and its verifiers) resolve; P-256
 * keys are JsonWebKey2020 with `publicKeyJwk`, the type of the JsonWebSignature2020 suite.
 */
export function verificationMethodOf(did: string, key: DidKey): VerificationMethod {
  return key.algorithm === 'Ed25519'
    ? { id: key.didDocumentKeyId, type: 'Ed25519VerificationKey2018', controller: did, publicKeyBase58: base58btcEncode(publicKeyBytes(key.publicJwk)) }
    : { id: key.didDocumentKeyId, type: 'JsonWebKey2020', controller: did, publicKeyJwk: { ...key.publicJwk } };
}

/**
 * The DID document of a DID: every key it lists may authenticate and assert (sign credentials). At
 * `at`, a key a rotation retired is listed until its overlap ends (publishedDidKeys); without `at`,
 * every key is.
 */
export function didDocumentOf(record: Pick<DidRecord, 'did' | 'keys'>, at?: number): DidDocument {
  const keys = at === undefined ? record.keys : publishedDidKeys(record, at);
  const context = [DID_CONTEXT_V1];
  if (keys.some((k) => k.algorithm === 'Ed25519')) context.push(ED25519_2018_CONTEXT_V1);
  if (keys.some((k) => k.algorithm === 'P-256')) context.push(JWS_2020_CONTEXT_V1);
  const ids = keys.map((k) => k.didDocumentKeyId);
  return {
    '@context': context,
    id: record.did,
    verificationMethod: keys.map((k) => verificationMethodOf(record.did, k)),
    authentication: [...ids],
    assertionMethod: [...ids],
  };
}
