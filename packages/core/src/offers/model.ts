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
  /** SHA-256 of the code (Digests.sha256). */
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
  /** Pre-authorized offers: the offer's claims (docs/decisions.md "Users, offers, the token and nonce endpoints" `claims`), for issuance. */
  claims: Record<string, unknown>;
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
  status: OfferStatus;
  failedTxAttempts: number;
  expiresAt: string;
  createdAt: string;
  usedAt?: string;
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
