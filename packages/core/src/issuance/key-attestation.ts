// Key attestations (OpenID4VCI 1.0 App. D, F.1, F.3): a wallet provider vouches, in a JWT, for keys
// a wallet holds (`attested_keys`) and how they are kept (`key_storage`) and unlocked
// (`user_authentication`). The JWT comes in a jwt proof's `key_attestation` header, or is itself
// the proof (the `attestation` proof type). A configuration that requires key attestations names
// the levels it accepts and the roots their `x5c` must chain to, or leaves the roots to the
// tenant's trusted wallet providers; an offer can add levels of its own.

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

/**
 * The trust step of a key attestation: its signature, and that its signer is one the issuer trusts
 * (a chain in `x5c` to the configuration's roots, or a wallet provider of the tenant). Everything
 * after it is the same whoever vouches for the signer.
 */
export type KeyAttestationTrust = (jwt: string, options: { algorithms: readonly string[]; at: Date }) => Promise<JwtCheck>;

/** Trust in the roots a configuration lists (`keyAttestationsRequired.rootCertificates`). */
export const trustConfiguredRoots =
  (verifier: JwtProofVerifier, rootCertificates: readonly string[]): KeyAttestationTrust =>
  (jwt, { algorithms, at }) =>
    verifier.verifyWithX5c(jwt, rootCertificates, algorithms, at);

/** What a key attestation must meet: who vouches for its signer, and the levels it must attest. */
export interface KeyAttestationRules {
  /** Checks the signature and the signer's trust. */
  trust: KeyAttestationTrust;
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
  const { trust: providerTrust, tenantId } = providers;
  const trust: KeyAttestationTrust = roots
    ? trustConfiguredRoots(verifier, roots)
    : providerTrust
      ? (jwt, { algorithms, at }) => providerTrust.verify(tenantId, jwt, { purpose: 'keyAttestation', algorithms, at })
      : async () => ({ ok: false, reason: 'this issuer trusts no key attestation provider' });
  return { trust, levels: [requirement, offerLevels].filter((l): l is KeyAttestationLevels => l !== undefined) };
}

export interface VerifyKeyAttestationInput {
  /** Who vouches for the signer, and the levels to attest. */
  rules: KeyAttestationRules;
  /**
   * How the attestation came: in a jwt proof's header (App. D.1: `exp` required; a `nonce`, if any,
   * is the proof's), or as the proof itself (App. F.3: its `nonce` is the c_nonce, required).
   */
  use: 'jwt-proof' | 'attestation-proof';
  /** For `jwt-proof`: the proof's c_nonce, which the attestation's `nonce` must equal when it has one. */
  proofNonce?: string;
  now: Date;
}

/** What a verified key attestation vouches for. */
export interface VerifiedKeyAttestation {
  /** The `attested_keys` as sent (1 to 100 entries); which of them a format can bind is the caller's to check. */
  attestedKeys: unknown[];
  /** The attestation's `nonce`, when it has one. */
  nonce?: string;
}

/**
 * The one check of a key attestation JWT, however it came: trust, type, time, nonce, the list of
 * keys and the levels. Every failure is `invalid_proof`.
 */
export async function verifyKeyAttestation(jwt: string, input: VerifyKeyAttestationInput): Promise<VerifiedKeyAttestation> {
  const verified = await input.rules.trust(jwt, { algorithms: PROOF_JWT_ALGORITHMS, at: input.now });
  if (!verified.ok) throw invalid(`The key attestation is not valid: ${verified.reason}`);
  const { header, payload } = verified;
  if (!KEY_ATTESTATION_TYPES.includes(header.typ as (typeof KEY_ATTESTATION_TYPES)[number]))
    throw invalid('The key attestation must have typ key-attestation+jwt');
  const now = Math.floor(input.now.getTime() / 1000);
  if (typeof payload.iat !== 'number' || payload.iat > now + MAX_SKEW_SECONDS) throw invalid('The key attestation needs an iat that is not in the future');
  // App. D.1: exp is required of an attestation inside a jwt proof, optional otherwise; if there, it holds.
  if (input.use === 'jwt-proof' || payload.exp !== undefined) {
    if (typeof payload.exp !== 'number' || payload.exp <= now) throw invalid('The key attestation has expired (or has no exp)');
  }
  const nonce = payload.nonce;
  if (input.use === 'jwt-proof') {
    if (nonce !== undefined && nonce !== input.proofNonce) throw invalid("The key attestation's nonce is not the proof's c_nonce");
  } else if (typeof nonce !== 'string' || nonce.length === 0) {
    // App. F.3: with a nonce endpoint, the attestation used as the proof carries the c_nonce.
    throw invalid('The key attestation carries no nonce: fetch one from the nonce endpoint');
  }
  const attested = payload.attested_keys;
  if (!Array.isArray(attested) || attested.length === 0 || attested.length > MAX_ATTESTED_KEYS)
    throw invalid(`The key attestation must list 1 to ${MAX_ATTESTED_KEYS} attested_keys`);
  for (const { keyStorage, userAuthentication } of input.rules.levels) {
    if (!meets(payload.key_storage, keyStorage)) throw invalid(`The key attestation's key_storage must include one of ${keyStorage?.join(', ')}`);
    if (!meets(payload.user_authentication, userAuthentication))
      throw invalid(`The key attestation's user_authentication must include one of ${userAuthentication?.join(', ')}`);
  }
  return { attestedKeys: attested, ...(typeof nonce === 'string' ? { nonce } : {}) };
}

/** Refuses a proof key that is not one of the attestation's `attested_keys` (App. D.1). */
export function requireAttested(verifier: Pick<JwtProofVerifier, 'thumbprint'>, attestation: VerifiedKeyAttestation, holderKey: PublicJwk): void {
  const holder = verifier.thumbprint(holderKey);
  if (holder === undefined || !attestation.attestedKeys.some((jwk) => verifier.thumbprint(jwk) === holder))
    throw invalid("The proof is not signed with one of the key attestation's attested_keys");
}

/** The `key_attestation` header of a jwt proof, which a configuration requiring key attestations needs. */
export function keyAttestationHeader(proofHeader: Record<string, unknown>): string {
  const jwt = proofHeader.key_attestation;
  if (jwt === undefined) throw invalid("This credential requires a key attestation: put it in the proof's key_attestation header");
  if (typeof jwt !== 'string') throw invalid("The proof's key_attestation header must be a compact JWT");
  return jwt;
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

/**
 * Checks the key attestation of one jwt proof against its rules: signature and chain, type, time,
 * levels, and that the proof's key is one of the attested keys (so the credential is bound to an
 * attested key). Every failure is `invalid_proof`.
 */
export async function checkKeyAttestation(verifier: JwtProofVerifier, rules: KeyAttestationRules, input: KeyAttestationInput): Promise<void> {
  const jwt = keyAttestationHeader(input.proofHeader);
  const attestation = await verifyKeyAttestation(jwt, {
    rules,
    use: 'jwt-proof',
    proofNonce: input.proofNonce,
    now: input.now,
  });
  requireAttested(verifier, attestation, input.holderKey);
}
