// Key attestations in key proofs (OpenID4VCI 1.0 App. D, F.1): a wallet provider vouches, in a JWT
// the proof carries in its `key_attestation` header, for keys a wallet holds (`attested_keys`) and
// how they are kept (`key_storage`) and unlocked (`user_authentication`). A configuration that
// requires key attestations names the levels it accepts and the roots their `x5c` must chain to, or
// leaves the roots to the tenant's trusted wallet providers; an offer can add levels of its own.

import type { KeyAttestationLevels, KeyAttestationRequirement } from '../configurations/model.ts';
import type { PublicJwk } from '../keys/model.ts';
import { type JwtCheck, type JwtProofVerifier, PROOF_JWT_ALGORITHMS } from '../oauth/jwt-proofs.ts';
import type { WalletProviderTrust } from '../wallet-providers/trust.ts';
import { refusal } from './request.ts';

/** OpenID4VCI 1.0 names the type `key-attestation+jwt`; its drafts (and wallets built on them) `keyattestation+jwt`. */
export const KEY_ATTESTATION_TYPES = ['key-attestation+jwt', 'keyattestation+jwt'] as const;
const MAX_SKEW_SECONDS = 60;
const MAX_ATTESTED_KEYS = 100;

const invalid = (message: string) => refusal('invalid_proof', message);

/** Whether `granted` names at least one of the `accepted` levels; no accepted levels accepts any. */
function meets(granted: unknown, accepted: readonly string[] | undefined): boolean {
  if (!accepted || accepted.length === 0) return true;
  return Array.isArray(granted) && granted.some((level) => typeof level === 'string' && accepted.includes(level));
}

export interface KeyAttestationInput {
  /** The key proof's protected header, its signature already verified. */
  proofHeader: Record<string, unknown>;
  /** The key the proof was signed with: the key the credential will be bound to. */
  holderKey: PublicJwk;
  /** The proof's `nonce` (a c_nonce this server minted). */
  proofNonce: string;
  now: Date;
}

/** What a key attestation must meet: who vouches for its signature, and the levels it must attest. */
export interface KeyAttestationRules {
  /** Checks the signature and chain: against the configuration's roots, or the tenant's wallet providers. */
  verifySignature: (jwt: string, algorithms: readonly string[], at: Date) => Promise<JwtCheck>;
  /** Each set must be met on its own (the configuration's and the offer's): one level of each list. */
  levels: readonly KeyAttestationLevels[];
}

/**
 * The rules for a key proof, from the configuration's requirement and the offer's levels (the
 * access token's `keyAttestationsRequired`); undefined when neither asks for a key attestation.
 * Without configured roots, the tenant's wallet providers trusted for key attestations vouch; with
 * no such port, nothing can, and every attestation is refused.
 */
export function keyAttestationRules(
  verifier: JwtProofVerifier,
  requirement: KeyAttestationRequirement | undefined,
  offerLevels: KeyAttestationLevels | undefined,
  providers: { tenantId: string; trust?: WalletProviderTrust | undefined },
): KeyAttestationRules | undefined {
  if (!requirement && !offerLevels) return undefined;
  const roots = requirement?.rootCertificates;
  const { trust, tenantId } = providers;
  const verifySignature: KeyAttestationRules['verifySignature'] = roots
    ? (jwt, algorithms, at) => verifier.verifyWithX5c(jwt, roots, algorithms, at)
    : trust
      ? (jwt, algorithms, at) => trust.verify(tenantId, jwt, { purpose: 'keyAttestation', algorithms, at })
      : async () => ({ ok: false, reason: 'this issuer trusts no key attestation provider' });
  return { verifySignature, levels: [requirement, offerLevels].filter((l): l is KeyAttestationLevels => l !== undefined) };
}

/**
 * Checks the key attestation of a key proof against its rules: signature and chain, type, time,
 * levels, and that the proof's key is one of the attested keys (so the credential is bound to an
 * attested key). Every failure is `invalid_proof`.
 */
export async function checkKeyAttestation(verifier: JwtProofVerifier, rules: KeyAttestationRules, input: KeyAttestationInput): Promise<void> {
  const jwt = input.proofHeader.key_attestation;
  if (jwt === undefined) throw invalid("This credential requires a key attestation: put it in the proof's key_attestation header");
  if (typeof jwt !== 'string') throw invalid("The proof's key_attestation header must be a compact JWT");
  const verified = await rules.verifySignature(jwt, PROOF_JWT_ALGORITHMS, input.now);
  if (!verified.ok) throw invalid(`The key attestation is not valid: ${verified.reason}`);
  const { header, payload } = verified;
  if (!KEY_ATTESTATION_TYPES.includes(header.typ as (typeof KEY_ATTESTATION_TYPES)[number]))
    throw invalid('The key attestation must have typ key-attestation+jwt');
  const now = Math.floor(input.now.getTime() / 1000);
  if (typeof payload.iat !== 'number' || payload.iat > now + MAX_SKEW_SECONDS) throw invalid('The key attestation needs an iat that is not in the future');
  // App. D.1: a key attestation inside a jwt proof carries exp.
  if (typeof payload.exp !== 'number' || payload.exp <= now) throw invalid('The key attestation has expired (or has no exp)');
  if (payload.nonce !== undefined && payload.nonce !== input.proofNonce) throw invalid("The key attestation's nonce is not the proof's c_nonce");
  const attested = payload.attested_keys;
  if (!Array.isArray(attested) || attested.length === 0 || attested.length > MAX_ATTESTED_KEYS)
    throw invalid(`The key attestation must list 1 to ${MAX_ATTESTED_KEYS} attested_keys`);
  const holder = verifier.thumbprint(input.holderKey);
  if (holder === undefined || !attested.some((jwk) => verifier.thumbprint(jwk) === holder))
    throw invalid("The proof is not signed with one of the key attestation's attested_keys");
  for (const required of rules.levels) {
    if (!meets(payload.key_storage, required.keyStorage))
      throw invalid(`The key attestation's key_storage must include one of ${required.keyStorage?.join(', ')}`);
    if (!meets(payload.user_authentication, required.userAuthentication)) {
      throw invalid(`The key attestation's user_authentication must include one of ${required.userAuthentication?.join(', ')}`);
    }
  }
}
