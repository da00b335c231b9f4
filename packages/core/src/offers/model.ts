import type { KeyAttestationLevels, WalletRequirements } from '../configurations/model.ts';
import type { Digests } from '../shared/ports.ts';

/** Authorization Code and Pre-authorized Code offers (OpenID4VCI 1.0 §4.1) share one store. */
export type OfferKind = 'pre-authorized' | 'authorization-code';

/**
 * What happened to an offer (docs/decisions.md "Users, offers, the token and nonce endpoints"). `expired` is not stored: an open offer whose
 * `expiresAt` has passed is expired (see offerState).
 */
export type OfferStatus = 'open' | 'used' | 'locked' | 'deleted';

/** docs/decisions.md "Users, offers, the token and nonce endpoints": the third wrong transaction code invalidates the offer for good. */
export const MAX_TX_CODE_ATTEMPTS = 3;

/**
 * Whether `value` could be a code Vellum made for an offer (a pre-authorized code, an issuer state,
 * a by-reference offer's reference): codes are Ids tokens, base64url. Anything else names no offer
 * and is refused without asking the store.
 */
export const isOfferCode = (value: string): boolean => /^[A-Za-z0-9_-]{16,200}$/.test(value);

/** An offer's transaction code: only its digest is kept, with what the offer tells the wallet about it. */
export interface StoredTxCode {
  /** The code's keyed digest (txCodeDigest); offers made before it keep the bare SHA-256 of the code. */
  digest: string;
  inputMode: 'numeric' | 'text';
  length: number;
  description?: string;
}

export interface OfferRecord {
  id: string;
  tenantId: string;
  kind: OfferKind;
  /** The credential issuer identifier the offer names (the origin and mount path it was made on). */
  issuer: string;
  /** Credential configuration ids, in the order the offer lists them. */
  configurationIds: string[];
  /** Pre-authorized offers: the user the credentials are for. */
  userId?: string;
  /**
   * Pre-authorized offers: the offer's claims (docs/decisions.md "Users, offers, the token and nonce
   * endpoints" `claims`) for issuance, sealed (sealClaims, SecretBox context
   * `offer-claims:{tenantId}:{id}`). Absent when there are none, and once the store erased them
   * (docs/decisions.md "Claims at rest"): when the offer is locked or deleted, when its access token
   * has issued every credential it grants, and (eraseExpiredClaims) once `expiresAt` has passed.
   */
  sealedClaims?: string;
  /**
   * SHA-256 of the pre-authorized code (or, for an Authorization Code offer, of its `issuer_state`):
   * the code itself is never stored. Unique per tenant.
   */
  codeDigest: string;
  txCode?: StoredTxCode;
  /** Authorization Code offers: `request_parameters` (docs/authorization-code.md). */
  requestParameters?: Record<string, unknown>;
  /** Whether the offer is published at `GET /v1/openid/offers/{reference}`. */
  byReference: boolean;
  /**
   * What the token endpoint asks of the wallet for this offer: the offer's own and those of its
   * configurations when it was made (docs/dpop-and-attestation.md "Wallet requirements"). The
   * store redeems a pre-authorized code only for a request that meets them (RedeemAttempt.proven).
   */
  walletRequirements?: WalletRequirements;
  /** The key attestation levels every key proof for this offer must show, beside its configuration's. */
  keyAttestationsRequired?: KeyAttestationLevels;
  status: OfferStatus;
  failedTxAttempts: number;
  /**
   * Until it is used: when the offer expires. Once used: when the access token it was redeemed for
   * expires (RedeemAttempt.claimsUntil), until which its claims are kept for the credential endpoint.
   */
  expiresAt: string;
  createdAt: string;
  usedAt?: string;
  /** The configurations the access token redeemed from it has issued (OfferRepository.markIssued); absent before the first. */
  issuedConfigurationIds?: string[];
}

/** One attempt at redeeming a pre-authorized code (OfferRepository.redeem). */
export interface RedeemAttempt {
  /**
   * The forms the transaction code sent may be stored in (one or two; txCodeDigests), or undefined
   * when none was sent. The code matches when the offer's stored digest is one of them.
   */
  txCodeDigests?: readonly string[];
  now: string;
  /** At this many wrong transaction codes the offer is locked (and its claims erased). */
  maxTxAttempts: number;
  /**
   * A redeemed offer's new `expiresAt`: when the access token it is redeemed for expires. Its
   * sealed claims are kept until then at most, for the credential endpoint.
   */
  claimsUntil: string;
  /** What the token request proved (a wallet attestation, a DPoP proof): an offer that requires more is not redeemed. */
  proven?: WalletProofs;
}

/** What a token request proved, against an offer's `walletRequirements`. */
export interface WalletProofs {
  walletAttestation: boolean;
  dpop: boolean;
}

/**
 * The requirements of `offer` (when there is one) and of `configurations`, together: each that any
 * of them asks for (docs/decisions.md "Wallet requirements per configuration and offer (issue 30)").
 */
export function walletRequirementsOf(
  offer: Pick<OfferRecord, 'walletRequirements'> | undefined,
  configurations: readonly { walletRequirements?: WalletRequirements | undefined }[],
): WalletRequirements {
  const asked = [offer?.walletRequirements, ...configurations.map((c) => c.walletRequirements)];
  return {
    ...(asked.some((r) => r?.walletAttestation === true) ? { walletAttestation: true as const } : {}),
    ...(asked.some((r) => r?.dpop === true) ? { dpop: true as const } : {}),
  };
}

/** Whether `proven` meets `required` (nothing required is always met). */
export function meetsWalletRequirements(required: WalletRequirements | undefined, proven: WalletProofs | undefined): boolean {
  return (required?.walletAttestation !== true || proven?.walletAttestation === true) && (required?.dpop !== true || proven?.dpop === true);
}

/** What redeeming a pre-authorized code did (OfferRepository.redeem). */
export type RedeemOutcome =
  /** The code was open and the transaction code matched: the offer is now used, and this is it. */
  | { outcome: 'redeemed'; offer: OfferRecord }
  /** The transaction code did not match: one more failed attempt was counted; at the limit the offer is locked. */
  | { outcome: 'wrong-tx-code'; failedTxAttempts: number; locked: boolean }
  /** No open, unexpired pre-authorized offer has this code (unknown, used, locked, deleted or expired). */
  | { outcome: 'not-open' };

/** The state an offer is in at `now`, expiry included (docs/decisions.md "Users, offers, the token and nonce endpoints"). */
export function offerState(offer: Pick<OfferRecord, 'status' | 'expiresAt'>, now: Date): OfferStatus | 'expired' {
  if (offer.status === 'open' && offer.expiresAt <= now.toISOString()) return 'expired';
  return offer.status;
}

/**
 * What an offer keeps of its transaction code (docs/decisions.md "Transaction codes at rest"):
 * `k1.` and the HMAC (Digests.mac, under a platform secret) of the offer's code digest and the
 * code. A database dump then gives no way to test the few million candidates without the secret,
 * and equal codes of two offers have different digests.
 */
export function txCodeDigest(digests: Digests, codeDigest: string, txCode: string): string {
  return `k1.${digests.mac(`${codeDigest}.${txCode}`)}`;
}

/**
 * The digests a transaction code sent for the offer with `codeDigest` matches: the keyed one, and
 * the bare SHA-256 that offers made before it keep (those live 10 minutes at most, so after that
 * only the first can match).
 */
export function txCodeDigests(digests: Digests, codeDigest: string, txCode: string): [string, string] {
  return [txCodeDigest(digests, codeDigest, txCode), digests.sha256(txCode)];
}
