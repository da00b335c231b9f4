// What offers ask of the world: the Store's offers. Each method's comment is its contract, which the
// Store contract suite in @vellum/testing asserts.

import type { UserRecord } from '../users/model.ts';
import type { OfferKind, OfferRecord, RedeemAttempt, RedeemOutcome } from './model.ts';

export interface OfferRepository {
  /**
   * Adds an offer. Throws DomainError `Conflict` when the id exists or the tenant already has an
   * offer with the same `codeDigest`, and `NotFound` when `userId` names no user of the tenant.
   */
  insert(offer: OfferRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<OfferRecord | undefined>;
  /**
   * The tenant's offer `id` and the tenant's user `userId`, each as `get` gives it (undefined when
   * missing), read together: one statement on SQL stores, where the credential endpoint reads both
   * for every Pre-authorized token (docs/performance.md, "The flow's store budget (issue 27)").
   */
  getWithUser(tenantId: string, id: string, userId: string): Promise<{ offer: OfferRecord | undefined; user: UserRecord | undefined }>;
  /** The tenant's offer whose code (or issuer state) has this digest, in whatever state it is. */
  findByCodeDigest(tenantId: string, codeDigest: string): Promise<OfferRecord | undefined>;
  /**
   * Redeems a pre-authorized code in one atomic step (one conditional write): when the tenant's
   * pre-authorized offer with this code digest is `open`, `expiresAt` is after `attempt.now`, and
   * transaction code digests are given exactly when the offer has one, a matching transaction code
   * (its stored digest is one of `attempt.txCodeDigests`; or none, for an offer without) makes it
   * `used` (`usedAt` = now, `expiresAt` = `attempt.claimsUntil`) and returns it; a non-matching one
   * adds one to `failedTxAttempts` and, when that reaches `maxTxAttempts`, makes it `locked` for good
   * and erases its `sealedClaims`, in the same write. Anything else, a missing or
   * unexpected transaction code included, is `not-open` and changes nothing: the caller reads the
   * offer to say why. So is an offer whose `walletRequirements` the request does not meet
   * (`attempt.proven`; absent proves nothing): such a request counts no attempt. Of racing callers
   * with the right code, exactly one gets `redeemed`.
   */
  redeem(tenantId: string, codeDigest: string, attempt: RedeemAttempt): Promise<RedeemOutcome>;
  /**
   * Marks the tenant's offer of this kind `deleted`, whatever its state, and erases its
   * `sealedClaims` in the same write. Returns false when there is none or it is deleted already.
   */
  markDeleted(tenantId: string, id: string, kind: OfferKind): Promise<boolean>;
  /**
   * Records that the access token redeemed from the tenant's offer `id` has issued its credential
   * of `configurationId`, in one conditional write on the offer: true the first time; false, and
   * nothing changes, when it was recorded before or there is no such offer. When the token has then
   * issued `granted` credentials (every configuration it grants), the same write erases the
   * offer's `sealedClaims`. Of racing callers (on one server or several sharing the database)
   * exactly one gets true; inside a transaction that rolls back, nothing is recorded or erased.
   */
  markIssued(tenantId: string, id: string, configurationId: string, granted: number): Promise<boolean>;
  /**
   * Housekeeping across tenants: erases the `sealedClaims` of at most `limit` offers whose
   * `expiresAt` is at or before `now` (expired unused, or used and past their access token),
   * returning how many. Offers without claims are not counted.
   */
  eraseExpiredClaims(now: string, limit: number): Promise<number>;
  /**
   * Deletes up to `limit` offers of any tenant, whatever their status, whose `expiresAt` is at or
   * before `before` (the retention job, docs/retention.md); returns how many. Issued credentials
   * that name a deleted offer keep its id.
   */
  purgeExpired(before: string, limit: number): Promise<number>;
}
