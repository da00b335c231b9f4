import { DomainError, type KeyAlgorithm, type KeyManager, type LinkedDataProof, type LinkedDataProofType, type LinkedDataSigner } from '@vellum/core';
import { linkedDataVerifyData } from './canonize.ts';

export interface LinkedDataSignerOptions {
  /** Where the keys live; signing happens inside it. */
  keys: Pick<KeyManager, 'get' | 'sign'>;
}

const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';
const ED25519_2018_V1 = 'https://w3id.org/security/suites/ed25519-2018/v1';
const JWS_2020_V1 = 'https://w3id.org/security/suites/jws-2020/v1';

/** The JWS `alg` of a suite for a key type; a suite the key cannot make is a bug of the caller. */
function algorithmFor(type: LinkedDataProofType, key: KeyAlgorithm): 'EdDSA' | 'ES256' {
  if (type === 'Ed25519Signature2018') {
    if (key !== 'Ed25519') throw new Error('Ed25519Signature2018 needs an Ed25519 key');
    return 'EdDSA';
  }
  return key === 'Ed25519' ? 'EdDSA' : 'ES256';
}

/**
 * The document's contexts, plus the suite's when no context it has defines the proof's terms (as
 * jsonld-signatures does): credentials v1 already defines Ed25519Signature2018, and adding the
 * suite context beside it would redefine protected terms.
 */
function withSuiteContext(context: unknown, type: LinkedDataProofType): unknown[] {
  const contexts = context === undefined ? [] : Array.isArray(context) ? [...(context as unknown[])] : [context];
  const needed = type === 'JsonWebSignature2020' ? (contexts.includes(JWS_2020_V1) ? undefined : JWS_2020_V1)
    : contexts.includes(CREDENTIALS_V1) || contexts.includes(ED25519_2018_V1) ? undefined : ED25519_2018_V1;
  return needed ? [...contexts, needed] : contexts;
}

const base64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');

/**
 * Linked Data proofs with a detached JWS (`{"alg":…,"b64":false,"crit":["b64"]}` over the
 * canonical proof options and document): Ed25519Signature2018 and JsonWebSignature2020. The
 * private key never leaves the KeyManager; contexts come from the bundle only.
 */
export function createLinkedDataSigner(options: LinkedDataSignerOptions): LinkedDataSigner {
  const { keys } = options;
  return {
    async sign(input) {
      if ('proof' in input.document) throw new Error('The document already has a proof');
      const key = await keys.get(input.tenantId, input.keyId);
      if (!key) throw new DomainError('NotFound', 'The signing key does not exist or was destroyed');
      const alg = algorithmFor(input.type, key.algorithm);
      const document = { ...input.document, '@context': withSuiteContext(input.document['@context'], input.type) };
      const proof = { type: input.type, created: input.created, verificationMethod: input.verificationMethod, proofPurpose: input.proofPurpose };
      const verifyData = await linkedDataVerifyData(document, proof);
      const header = base64url(JSON.stringify({ alg, b64: false, crit: ['b64'] }));
      // RFC 7797: with b64 false the signing input is the header, a dot, then the raw payload.
      const prefix = new TextEncoder().encode(`${header}.`);
      const signingInput = new Uint8Array(prefix.length + verifyData.length);
      signingInput.set(prefix, 0);
      signingInput.set(verifyData, prefix.length);
      const signature = await keys.sign(input.tenantId, input.keyId, signingInput);
      const signed: LinkedDataProof = { ...proof, jws: `${header}..${base64url(signature)}` };
      return { ...document, proof: signed };
    },
  };
}
