// Verifying ldp_vc (W3C VC Data Model 1.1 with Linked Data proofs; docs/verification.md "Verifying
// ldp_vc"): a Verifiable Presentation signed by its holder (proofPurpose authentication, challenge =
// VerifyOptions.nonce, domain = VerifyOptions.audience) holding credentials, or a bare credential.
// Each credential's assertionMethod proof must come from a trusted issuer of kind did. Canonicalisation
// and Ed25519 go through LinkedDataProofVerifier, DIDs through DidResolver, RevocationList2020
// through its own lookup. Nothing here throws for bad input (docs/decisions.md "Verifying ldp_vc and
// did:web issuers (issue 31)").

import type { DidResolver } from '../dids/resolver.ts';
import type { LinkedDataProofVerifier } from './ldp-vc-ports.ts';
import type { FormatVerifier, IssuerAnchor, VerificationCheck, VerificationResult, VerifyOptions } from './model.ts';
import { type RevocationListLookup, revocationListReferenceOf } from './revocation-list-2020.ts';

export interface LdpVcVerifierDeps {
  proofs: LinkedDataProofVerifier;
  /** did:key locally; did:web only for a DID a trusted anchor names. */
  dids: DidResolver;
  /** RevocationList2020; without it a credential naming one fails the status check. */
  revocationLists?: RevocationListLookup;
}

const VC_CONTEXTS = ['https://www.w3.org/2018/credentials/v1'];
const PROOF_TYPES = ['Ed25519Signature2018', 'Ed25519Signature2020'];
/** Credentials one presentation may hold here. */
const MAX_CREDENTIALS = 20;
/** Clock skew allowed on the validity dates. */
const SKEW_MS = 60_000;
const MAX_DEPTH = 64;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const didOf = (url: unknown) => (typeof url === 'string' && url.startsWith('did:') ? (url.split('#')[0] as string) : undefined);

function depthOf(value: unknown, depth = 0): number {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return depth;
  let deepest = depth;
  for (const member of Object.values(value)) deepest = Math.max(deepest, depthOf(member, depth + 1));
  return deepest;
}

const covers = (anchor: IssuerAnchor): anchor is Extract<IssuerAnchor, { kind: 'did' }> => anchor.kind === 'did' && anchor.formats.includes('ldp_vc');

/** A date of the credential, or 'bad' when present but not a date. */
function dateOf(value: unknown): Date | undefined | 'bad' {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return 'bad';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? 'bad' : date;
}

export function createLdpVcVerifier(deps: LdpVcVerifierDeps): FormatVerifier {
  /** One proof object of a document, checked against `relationship` and the key its DID gives. */
  async function checkProof(
    document: Json,
    relationship: 'assertionMethod' | 'authentication',
    signer: string | undefined,
    mayFetch: boolean,
  ): Promise<{ ok: true; proof: Json } | { ok: false; reason: string; proof?: Json }> {
    const proofs = listOf(document.proof);
    if (proofs.length !== 1 || !isObject(proofs[0])) return { ok: false, reason: 'Exactly one proof object is required' };
    const proof = proofs[0];
    if (typeof proof.type !== 'string' || !PROOF_TYPES.includes(proof.type))
      return { ok: false, reason: 'The proof is not Ed25519Signature2018 or Ed25519Signature2020', proof };
    if (proof.proofPurpose !== relationship) return { ok: false, reason: `The proof purpose is not ${relationship}`, proof };
    const did = didOf(proof.verificationMethod);
    if (!did) return { ok: false, reason: 'The proof verificationMethod is not a DID URL', proof };
    if (signer !== undefined && did !== signer) return { ok: false, reason: 'The proof is signed by another DID', proof };
    if (!mayFetch && !did.startsWith('did:key:')) return { ok: false, reason: 'Only a trusted did:web is resolved; this DID is not one', proof };
    const key = await deps.dids.resolveKey(proof.verificationMethod as string, relationship);
    if (!key.ok) return { ok: false, reason: key.reason, proof };
    if (key.jwk.kty !== 'OKP') return { ok: false, reason: 'The verification method is not an Ed25519 key', proof };
    const { proof: _proof, ...unsigned } = document;
    const verified = await deps.proofs.verify(unsigned, proof, key.jwk);
    return verified.ok ? { ok: true, proof } : { ok: false, reason: verified.reason, proof };
  }

  return async (credential: string, options: VerifyOptions): Promise<VerificationResult> => {
    const checks: VerificationCheck[] = [];
    const check = (name: string, ok: boolean, reason?: string) => {
      checks.push(ok ? { check: name, ok } : { check: name, ok, reason: (reason ?? 'Failed').slice(0, 200) });
      return ok;
    };
    const out: Partial<VerificationResult> = {};
    const result = (): VerificationResult => {
      const { issuer } = out;
      return { verified: checks.every((c) => c.ok) && issuer?.trusted === true, format: 'ldp_vc', claims: {}, ...out, checks };
    };

    let document: unknown;
    try {
      document = typeof credential === 'string' ? JSON.parse(credential) : undefined;
    } catch {
      document = undefined;
    }
    if (!isObject(document) || depthOf(document) > MAX_DEPTH) {
      check('format', false, 'Not a JSON Verifiable Presentation or Verifiable Credential');
      return result();
    }
    const types = listOf(document.type);
    const isPresentation = types.includes('VerifiablePresentation');
    let credentials: unknown[];
    let holder: string | undefined;
    if (isPresentation) {
      credentials = listOf(document.verifiableCredential);
      if (credentials.length === 0 || credentials.length > MAX_CREDENTIALS || !credentials.every(isObject)) {
        check('format', false, `The presentation must hold 1 to ${MAX_CREDENTIALS} credentials as JSON objects`);
        return result();
      }
      check('format', true);
      // The holder's proof (VC Data Model 1.1 §4.10): authentication, by the holder DID's key. A holder
      // key is a did:key; a presentation cannot make the server fetch a did:web it names.
      const named = typeof document.holder === 'string' ? document.holder : isObject(document.holder) ? document.holder.id : undefined;
      if (document.holder !== undefined && typeof named !== 'string') check('presentation-proof', false, 'The presentation holder is not a DID');
      else {
        const proof = await checkProof(document, 'authentication', named as string | undefined, false);
        holder = proof.proof ? didOf(proof.proof.verificationMethod) : undefined;
        check('presentation-proof', proof.ok, proof.ok ? undefined : proof.reason);
        const p = proof.proof;
        // Not applicable when the caller expects no challenge or domain (a verify API call without a session).
        if (options.nonce !== undefined) check('challenge', p?.challenge === options.nonce, 'The presentation challenge is not the expected one');
        if (options.audience !== undefined) {
          const domains = listOf(p?.domain);
          check('domain', domains.includes(options.audience), 'The presentation domain is not this verifier');
        }
      }
    } else {
      if (!types.includes('VerifiableCredential')) {
        check('format', false, 'Not a JSON Verifiable Presentation or Verifiable Credential');
        return result();
      }
      check('format', true);
      credentials = [document];
      if (options.nonce !== undefined || options.audience !== undefined)
        check('presentation-proof', false, 'A presentation signed by the holder is required (a challenge or domain was given)');
    }

    const several = credentials.length > 1;
    for (const [i, item] of credentials.entries()) {
      const vc = item as Json;
      const name = (check: string) => (several ? `credential[${i}].${check}` : check);
      const first = i === 0;
      const vcTypes = listOf(vc.type).filter((t): t is string => typeof t === 'string');
      const contexts = listOf(vc['@context']);
      const subject = vc.credentialSubject;
      const sound =
        VC_CONTEXTS.includes(contexts[0] as string) &&
        vcTypes.includes('VerifiableCredential') &&
        (isObject(subject) || (Array.isArray(subject) && subject.every(isObject)));
      check(name('credential'), sound, 'The credential lacks the VC 1.1 context, the VerifiableCredential type or a credentialSubject object');
      const credentialType = vcTypes.filter((t) => t !== 'VerifiableCredential').at(-1);
      const issuerId = typeof vc.issuer === 'string' ? vc.issuer : isObject(vc.issuer) && typeof vc.issuer.id === 'string' ? vc.issuer.id : undefined;

      // The issuer: a trusted anchor of kind did, for ldp_vc, whose types (when listed) include one of the credential's.
      const anchors = options.anchors.filter(covers).filter((a) => a.did === issuerId);
      const anchor = anchors.find((a) => !a.types || vcTypes.some((t) => a.types?.includes(t)));
      const issuer: NonNullable<VerificationResult['issuer']> | undefined = issuerId?.startsWith('did:')
        ? anchor
          ? { kind: 'did', id: issuerId, trusted: true, trustedIssuerId: anchor.trustedIssuerId }
          : { kind: 'did', id: issuerId, trusted: false }
        : undefined;
      const proof = issuer
        ? await checkProof(vc, 'assertionMethod', issuer.id, anchors.length > 0)
        : { ok: false as const, reason: 'The credential issuer is not a DID' };
      check(name('signature'), proof.ok, proof.ok ? undefined : proof.reason);
      check(
        name('trusted-issuer'),
        issuer?.trusted === true,
        anchors.length > 0 ? 'The trusted issuer may not issue this credential type' : 'No trusted issuer of this tenant covers the credential issuer',
      );

      // Validity: VC 1.1 issuanceDate/expirationDate, or VC 2.0's validFrom/validUntil.
      const from = dateOf(vc.validFrom ?? vc.issuanceDate);
      const until = dateOf(vc.validUntil ?? vc.expirationDate);
      const now = options.now.getTime();
      if (Number.isNaN(now)) check(name('validity'), false, 'No valid time to check against');
      else if (from === 'bad' || until === 'bad') check(name('validity'), false, 'A validity date is not a date');
      else if (until && until.getTime() <= now - SKEW_MS) check(name('validity'), false, 'The credential has expired');
      else if (from && from.getTime() > now + SKEW_MS) check(name('validity'), false, 'The credential is not valid yet');
      else check(name('validity'), true);

      // Holder binding: a subject named by a DID must be the DID that signed the presentation.
      const subjectIds = listOf(subject).map((s) => (isObject(s) ? s.id : undefined));
      if (isPresentation && holder && subjectIds.some((id) => typeof id === 'string' && id.startsWith('did:')))
        check(
          name('holder-binding'),
          subjectIds.every((id) => id === undefined || didOf(id) === holder),
          'The credential subject is not the presentation holder',
        );

      // Status: RevocationList2020, read only for a trusted issuer's sound credential.
      let status: VerificationResult['status'];
      const statuses = listOf(vc.credentialStatus);
      for (const entry of statuses) {
        const reference = revocationListReferenceOf(entry);
        if (reference === undefined) {
          status ??= 'not-checked';
          continue;
        }
        if ('ok' in reference) {
          check(name('status'), false, reference.reason);
          continue;
        }
        status = 'not-checked';
        if (!issuer?.trusted || !checks.every((c) => c.ok)) continue;
        if (!deps.revocationLists) {
          check(name('status'), false, 'This server cannot read revocation lists');
          continue;
        }
        const found = await deps.revocationLists.revoked(reference, {
          issuer: issuer.id,
          cacheKey: issuer.trustedIssuerId ?? issuer.id,
          checkProof: async (list) => {
            const checked = await checkProof(list, 'assertionMethod', issuer.id, true);
            return checked.ok ? { ok: true } : { ok: false, reason: checked.reason };
          },
        });
        if (!found.ok) check(name('status'), false, found.reason);
        else if (found.revoked) {
          status = 'revoked';
          check(name('status'), false, 'The issuer has revoked the credential');
        } else {
          status = 'valid';
          check(name('status'), true);
        }
      }

      if (first) {
        if (issuer) out.issuer = issuer;
        if (credentialType) out.credentialType = credentialType;
        out.claims = isObject(subject) ? subject : { credentialSubject: subject };
        const validity = {
          ...(from instanceof Date ? { validFrom: from.toISOString() } : {}),
          ...(until instanceof Date ? { validUntil: until.toISOString() } : {}),
        };
        if (Object.keys(validity).length > 0) out.validity = validity;
        if (status) out.status = status;
      } else if (status && status !== 'valid' && out.status !== 'revoked') out.status = status;
    }
    return result();
  };
}
