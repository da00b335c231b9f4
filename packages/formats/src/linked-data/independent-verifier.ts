// Test support, not exported by the package: checks a Linked Data credential as a relying party
// would, with Digital Bazaar's @digitalbazaar/vc and its Ed25519 suites, offline. Its JSON-LD to
// RDF is jsonld.js, not the jsonld-streaming-parser Vellum signs with; the canonicalisation,
// rdf-canonize, is the same library on both sides, so rdfc10.test.ts checks that one against an
// independent implementation. The contexts it serves are Digital Bazaar's own copies of the contexts Vellum
// bundles, so a bundled copy that drifted from the published document would fail verification.
import { Ed25519Signature2018, suiteContext as suite2018 } from '@digitalbazaar/ed25519-signature-2018';
import { Ed25519Signature2020, suiteContext as suite2020 } from '@digitalbazaar/ed25519-signature-2020';
import { Ed25519VerificationKey2018 } from '@digitalbazaar/ed25519-verification-key-2018';
import { Ed25519VerificationKey2020 } from '@digitalbazaar/ed25519-verification-key-2020';
import { defaultDocumentLoader, verifyCredential } from '@digitalbazaar/vc';
import { contexts as revocationListContexts } from 'vc-revocation-list-context';
import { Bitstring } from '@digitalbazaar/bitstring';
import type { PublicJwk } from '@vellum/core';
import { BUNDLED_CONTEXT_URLS } from './contexts.ts';

const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';
const ED25519_2018_V1 = 'https://w3id.org/security/suites/ed25519-2018/v1';
const ED25519_2020_V1 = 'https://w3id.org/security/suites/ed25519-2020/v1';
const REVOCATION_LIST_2020_V1 = 'https://w3id.org/vc-revocation-list-2020/v1';
// jsonld-signatures frames keys and controller documents with the security v2 context, which it
// ships and serves itself; the controller document below uses it for `assertionMethod`.
const SECURITY_V2 = 'https://w3id.org/security/v2';

/** Digital Bazaar's copy of a context Vellum bundles (credentials v1 from @digitalbazaar/vc, the suites' from their packages). */
export async function independentContext(url: string): Promise<Record<string, unknown> | undefined> {
  if (url === ED25519_2018_V1) return suite2018.contexts.get(url);
  if (url === ED25519_2020_V1) return suite2020.contexts.get(url);
  if (url === CREDENTIALS_V1) return (await defaultDocumentLoader(url)).document;
  // Digital Bazaar's vc-revocation-list-context package (W3C CCG Revocation List 2020).
  if (url === REVOCATION_LIST_2020_V1) return revocationListContexts.get(url);
  return undefined;
}

/** The did:key of an Ed25519 public JWK and its key id, derived by Digital Bazaar's key class (W3C CCG did:key). */
export async function didKeyByDigitalBazaar(publicJwk: PublicJwk): Promise<{ did: string; verificationMethod: string }> {
  const key = await Ed25519VerificationKey2020.fromJsonWebKey({ type: 'JsonWebKey2020', publicKeyJwk: publicJwk });
  const fingerprint: string = key.fingerprint();
  return { did: `did:key:${fingerprint}`, verificationMethod: `did:key:${fingerprint}#${fingerprint}` };
}

/**
 * The verification method document of the signing key, of the type its suite names:
 * Ed25519VerificationKey2018 (`publicKeyBase58`) or Ed25519VerificationKey2020
 * (`publicKeyMultibase`), each under its suite's context.
 */
async function verificationMethodDocument(publicJwk: PublicJwk, keyType: VerificationKeyType): Promise<Record<string, unknown>> {
  const { did, verificationMethod } = await didKeyByDigitalBazaar(publicJwk);
  const key2020 = await Ed25519VerificationKey2020.fromJsonWebKey({ id: verificationMethod, controller: did, type: 'JsonWebKey2020', publicKeyJwk: publicJwk });
  if (keyType === 'Ed25519VerificationKey2020') return key2020.export({ publicKey: true, includeContext: true });
  const { publicKeyBase58 } = Ed25519VerificationKey2018.fromFingerprint({ fingerprint: key2020.fingerprint() });
  const key2018 = await Ed25519VerificationKey2018.from({ id: verificationMethod, controller: did, publicKeyBase58 });
  return key2018.export({ publicKey: true, includeContext: true });
}

export type VerificationKeyType = 'Ed25519VerificationKey2018' | 'Ed25519VerificationKey2020';

export interface IndependentResult {
  verified: boolean;
  /** Why not, when not verified. */
  error?: string;
}

const messagesOf = (error: unknown): string[] => {
  if (!error || typeof error !== 'object') return [String(error)];
  const nested = (error as { errors?: unknown[] }).errors;
  return Array.isArray(nested) && nested.length > 0 ? nested.flatMap(messagesOf) : [(error as Error).message];
};

/**
 * Verifies a W3C VC Data Model 1.1 credential with @digitalbazaar/vc `verifyCredential` and the
 * Digital Bazaar suite of its proof type, for a did:key signer whose Ed25519 public key is
 * `publicJwk`. The document loader serves the bundled contexts' independent copies and that DID's
 * key and controller document; anything else is refused, never fetched. The key is served as the
 * type its suite names unless `keyType` says otherwise. A credential with `credentialStatus`
 * needs `checkStatus` (@digitalbazaar/vc refuses it otherwise), which runs once the proof holds.
 */
export async function verifyWithDigitalBazaar(
  credential: Record<string, unknown>,
  publicJwk: PublicJwk,
  now: Date,
  keyType?: VerificationKeyType,
  checkStatus?: StatusCheck,
): Promise<IndependentResult> {
  const proofType = (credential.proof as { type?: string } | undefined)?.type ?? '';
  const { did, verificationMethod } = await didKeyByDigitalBazaar(publicJwk);
  const keyDocument = await verificationMethodDocument(
    publicJwk,
    keyType ?? (proofType === 'Ed25519Signature2020' ? 'Ed25519VerificationKey2020' : 'Ed25519VerificationKey2018'),
  );
  const controllerDocument = { '@context': SECURITY_V2, id: did, assertionMethod: [verificationMethod] };
  const documentLoader = async (url: string) => {
    const context = BUNDLED_CONTEXT_URLS.includes(url) ? await independentContext(url) : undefined;
    const document = context ?? (url === verificationMethod ? keyDocument : url === did ? controllerDocument : undefined);
    if (document === undefined) throw new Error(`Offline: ${url} is neither a bundled context nor the signing DID`);
    return { contextUrl: null, documentUrl: url, document: structuredClone(document) };
  };
  const suite = proofType === 'Ed25519Signature2020' ? new Ed25519Signature2020() : new Ed25519Signature2018();
  const result = await verifyCredential({ credential: structuredClone(credential), suite, documentLoader, now, ...(checkStatus ? { checkStatus } : {}) });
  return result.verified === true ? { verified: true } : { verified: false, error: messagesOf(result.error).join('; ') };
}

/**
 * What @digitalbazaar/vc `verifyCredential` calls for a credential with `credentialStatus`, with
 * the options it was given (the credential among them); `verified: false` fails the credential.
 */
export type StatusCheck = (options: { credential: Record<string, unknown> }) => Promise<{ verified: boolean; error?: Error }>;

/** What a RevocationList2020 check found, for a test to tell a revoked credential from a broken one. */
export interface RevocationCheckVerdict {
  /** The list credential's own verification, once it was found. */
  list?: IndependentResult;
  index?: number;
  /** The bit at the index; read only from a list that verifies and belongs to the credential's issuer. */
  revoked?: boolean;
  /** Why the status could not be read. */
  problem?: string;
}

/**
 * The verifier side of W3C CCG Revocation List 2020 ("Validate Algorithm"), done with Digital
 * Bazaar's libraries: the credential's RevocationList2020Status names the list credential and an
 * index; the list credential (taken from `lists` by its URL, as a relying party would fetch it)
 * must verify with @digitalbazaar/vc under the same DID key, have the credential's issuer, be a
 * RevocationList2020Credential whose subject is a RevocationList2020, and its encodedList is
 * decoded with @digitalbazaar/bitstring (GZIP, base64url, bits counted left to right). The
 * credential is revoked when the bit at its index is set. Each check's verdict goes onto `verdicts`.
 */
export function revocationList2020Check(
  lists: ReadonlyMap<string, Record<string, unknown>>,
  publicJwk: PublicJwk,
  now: Date,
  verdicts: RevocationCheckVerdict[] = [],
): StatusCheck {
  return async ({ credential }) => {
    const verdict: RevocationCheckVerdict = {};
    verdicts.push(verdict);
    const refuse = (problem: string) => {
      verdict.problem = problem;
      return { verified: false, error: new Error(problem) };
    };
    const status = credential.credentialStatus as Record<string, unknown> | undefined;
    if (status?.type !== 'RevocationList2020Status') return refuse('credentialStatus is not a RevocationList2020Status');
    const listUrl = status.revocationListCredential;
    const indexText = status.revocationListIndex;
    if (typeof listUrl !== 'string' || typeof indexText !== 'string' || !/^\d+$/.test(indexText))
      return refuse('revocationListCredential or revocationListIndex is missing or malformed');
    const listCredential = lists.get(listUrl);
    if (!listCredential) return refuse(`No list credential at ${listUrl}`);
    verdict.index = Number(indexText);
    verdict.list = await verifyWithDigitalBazaar(listCredential, publicJwk, now);
    // A list that does not verify is not read at all.
    if (!verdict.list.verified) return refuse(`The list credential does not verify: ${verdict.list.error}`);
    // As Digital Bazaar's vc-revocation-list checks: the list is the credential issuer's own (the
    // issuer a string, or the id of an issuer object as in the legacy shape).
    const issuerOf = (issuer: unknown) => (typeof issuer === 'object' && issuer !== null ? (issuer as { id?: unknown }).id : issuer);
    if (!issuerOf(credential.issuer) || issuerOf(credential.issuer) !== issuerOf(listCredential.issuer))
      return refuse('The list credential has another issuer');
    const subject = listCredential.credentialSubject as Record<string, unknown> | undefined;
    const types = listCredential.type as unknown;
    if (
      !Array.isArray(types) ||
      !types.includes('RevocationList2020Credential') ||
      subject?.type !== 'RevocationList2020' ||
      typeof subject.encodedList !== 'string'
    ) {
      return refuse('The list credential is not a RevocationList2020Credential');
    }
    try {
      const list = new Bitstring({ buffer: await Bitstring.decodeBits({ encoded: subject.encodedList }) });
      verdict.revoked = list.get(verdict.index);
    } catch (error) {
      return refuse(`The list cannot be read: ${(error as Error).message}`);
    }
    return verdict.revoked ? { verified: false, error: new Error(`Revoked: bit ${verdict.index} of the list is set`) } : { verified: true };
  };
}
