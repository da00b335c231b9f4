import {
  base58btcEncode,
  DomainError,
  type KeyAlgorithm,
  type KeyManager,
  type LinkedDataProof,
  type LinkedDataProofType,
  type LinkedDataSigner,
} from '@vellum/core';
import { linkedDataVerifyData } from './canonize.ts';
import { BUNDLED_CONTEXT_URLS } from './contexts.ts';

export interface LinkedDataSignerOptions {
  /** Where the keys live; signing happens inside it. */
  keys: Pick<KeyManager, 'get' | 'sign'>;
}

const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';
const ED25519_2018_V1 = 'https://w3id.org/security/suites/ed25519-2018/v1';
const ED25519_2020_V1 = 'https://w3id.org/security/suites/ed25519-2020/v1';
const JWS_2020_V1 = 'https://w3id.org/security/suites/jws-2020/v1';

/**
 * Per suite: the context added when the document lacks one, and the bundled contexts that already
 * define the suite's terms. Credentials v1 defines Ed25519Signature2018 (and the 2018 context
 * beside it would redefine its protected terms), but not Ed25519Signature2020 or
 * JsonWebSignature2020.
 */
const SUITE_CONTEXTS: Record<LinkedDataProofType, { add: string; definedBy: readonly string[] }> = {
  Ed25519Signature2018: { add: ED25519_2018_V1, definedBy: [CREDENTIALS_V1, ED25519_2018_V1] },
  Ed25519Signature2020: { add: ED25519_2020_V1, definedBy: [ED25519_2020_V1] },
  JsonWebSignature2020: { add: JWS_2020_V1, definedBy: [JWS_2020_V1] },
};

/** The JWS `alg` of a suite for a key type; a suite the key cannot make is a bug of the caller. */
function algorithmFor(type: LinkedDataProofType, key: KeyAlgorithm): 'EdDSA' | 'ES256' {
  if (type !== 'JsonWebSignature2020') {
    if (key !== 'Ed25519') throw new Error(`${type} needs an Ed25519 key`);
    return 'EdDSA';
  }
  return key === 'Ed25519' ? 'EdDSA' : 'ES256';
}

/** The document's contexts, plus the suite's when none of them defines the proof's terms (as jsonld-signatures does). */
function withSuiteContext(context: unknown, type: LinkedDataProofType): unknown[] {
  const contexts = context === undefined ? [] : Array.isArray(context) ? [...(context as unknown[])] : [context];
  const { add, definedBy } = SUITE_CONTEXTS[type];
  return definedBy.some((url) => contexts.includes(url)) ? contexts : [...contexts, add];
}

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
};

const base64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');

/**
 * Linked Data proofs over the canonical proof options and document: Ed25519Signature2018 and
 * JsonWebSignature2020 as a detached JWS (`{"alg":…,"b64":false,"crit":["b64"]}`), and
 * Ed25519Signature2020 as a multibase `proofValue`. The private key never leaves the KeyManager;
 * contexts come from the bundle only.
 */
export function createLinkedDataSigner(options: LinkedDataSignerOptions): LinkedDataSigner {
  const { keys } = options;
  return {
    contexts: BUNDLED_CONTEXT_URLS,
    async sign(input) {
      if ('proof' in input.document) throw new Error('The document already has a proof');
      const key = await keys.get(input.tenantId, input.keyId);
      if (!key) throw new DomainError('NotFound', 'The signing key does not exist or was destroyed');
      const alg = algorithmFor(input.type, key.algorithm);
      const document = { ...input.document, '@context': withSuiteContext(input.document['@context'], input.type) };
      const proof = { type: input.type, created: input.created, verificationMethod: input.verificationMethod, proofPurpose: input.proofPurpose };
      const verifyData = await linkedDataVerifyData(document, proof);
      if (input.type === 'Ed25519Signature2020') {
        // W3C CCG Ed25519 Signature 2020 (lds-ed25519-2020), proof representation: the raw
        // Ed25519 signature of the 64 hash bytes themselves (no JWS header), as multibase
        // base58btc, which is 'z' followed by base58 in the Bitcoin alphabet.
        const signature = await keys.sign(input.tenantId, input.keyId, verifyData);
        return { ...document, proof: { ...proof, proofValue: `z${base58btcEncode(signature)}` } };
      }
      const header = base64url(JSON.stringify({ alg, b64: false, crit: ['b64'] }));
      // RFC 7797: with b64 false the signing input is the header, a dot, then the raw payload.
      const signature = await keys.sign(input.tenantId, input.keyId, concat(new TextEncoder().encode(`${header}.`), verifyData));
      const signed: LinkedDataProof = { ...proof, jws: `${header}..${base64url(signature)}` };
      return { ...document, proof: signed };
    },
  };
}
