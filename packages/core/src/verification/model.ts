// Verification (issue 31; docs/verification.md): the other half of the life cycle, a feature family
// of its own beside issuance. This file holds the shapes every part shares: what a tenant trusts,
// what a verifier of one credential format is given, and what it answers.

import type { CredentialFormat } from '../configurations/model.ts';

/** The formats Vellum verifies today; the others are refused plainly until they are built. */
export const VERIFIABLE_FORMATS = ['dc+sd-jwt', 'mso_mdoc'] as const satisfies readonly CredentialFormat[];
export type VerifiableFormat = (typeof VERIFIABLE_FORMATS)[number];

/** One anchor a tenant trusts to issue credentials: a root or IACA certificate, or a DID. */
export type IssuerAnchor =
  | { kind: 'x509'; trustedIssuerId: string; certificatePem: string; formats: readonly CredentialFormat[]; types?: readonly string[] }
  | { kind: 'did'; trustedIssuerId: string; did: string; formats: readonly CredentialFormat[]; types?: readonly string[] };

/** What a format verifier is given besides the credential. */
export interface VerifyOptions {
  /** The tenant's trusted issuers, for the format being verified. */
  anchors: readonly IssuerAnchor[];
  now: Date;
  /** Holder binding: the nonce and audience a key binding (SD-JWT KB-JWT) must carry, when checked. */
  nonce?: string;
  audience?: string;
  /** mDoc device authentication: the session transcript the device signed (CBOR bytes), when checked. */
  sessionTranscript?: Uint8Array;
}

/** One check a verifier ran; a failed one says why, in words safe to show the caller. */
export interface VerificationCheck {
  check: string;
  ok: boolean;
  reason?: string;
}

/** What verifying one credential or presentation found. */
export interface VerificationResult {
  /** True only when every check passed and the issuer is a trusted one. */
  verified: boolean;
  format: VerifiableFormat;
  /** Who signed it, and whether the tenant trusts them (an untrusted issuer is reported, never accepted). */
  issuer?: {
    kind: 'x509' | 'did';
    id: string;
    trusted: boolean;
    trustedIssuerId?: string;
    /** The AuthorityKeyIdentifier keyIdentifiers (base64url) of the certificates the credential carries, for DCQL `aki`. */
    authorityKeyIds?: string[];
  };
  /** The vct, or the mDoc's docType. */
  credentialType?: string;
  /** The claims disclosed: SD-JWT VC as a JSON object; mDoc as namespace → element → value. */
  claims: Record<string, unknown>;
  validity?: { validFrom?: string; validUntil?: string };
  /** Status list check: `not-checked` when the credential names none or it could not be read. */
  status?: 'valid' | 'revoked' | 'suspended' | 'not-checked';
  /** Whether the holder proved possession of the credential's key to this verifier: a verified SD-JWT key binding JWT, an mDoc device signature verified over the session transcript. */
  holderBound?: boolean;
  /** Every check run, in order; the failed ones carry a reason. */
  checks: VerificationCheck[];
}

/** Verifies one format's credential or presentation; never throws for bad input (a failed check instead). */
export type FormatVerifier = (credential: string, options: VerifyOptions) => Promise<VerificationResult>;

/** The verifiers of each format the host composed. */
export type FormatVerifiers = Partial<Record<VerifiableFormat, FormatVerifier>>;
