// Deferred issuance (docs/deferred-issuance.md, OpenID4VCI 1.0 §8.3, §9): a credential request held
// for review, its repository port, and what the admin API filters it by.

import type { CredentialFormat } from '../configurations/model.ts';
import type { PublicJwk } from '../keys/model.ts';
import type { PageRequest, Slice } from '../shared/pagination.ts';

/** pending → approved → issued, or pending → denied. Expiry is `expiresAt`, not a status. */
export const DEFERRED_STATUSES = ['pending', 'approved', 'denied', 'issued'] as const;
export type DeferredStatus = (typeof DEFERRED_STATUSES)[number];

/**
 * A credential request that waits for an admin's decision, kept from the credential request until
 * the wallet collects it or it expires. The transaction_id is a bearer secret: only its SHA-256
 * digest is kept. The subject's claims are sealed with the SecretBox and erased once no credential
 * can come of them (issued or denied).
 */
export interface DeferredIssuanceRecord {
  id: string;
  tenantId: string;
  /** SHA-256 (base64url) of the transaction_id; unique per tenant. */
  transactionDigest: string;
  credentialConfigurationId: string;
  format: CredentialFormat;
  userId: string;
  /** The grant the access token came from: an offer, or an authorization (`grant: 'authorization_code'`). */
  offerId: string;
  grant?: 'authorization_code';
  clientId?: string;
  clientInstanceId?: string;
  /** One credential is issued per key; none for a configuration without holder binding (one unbound credential). */
  holderKeys: PublicJwk[];
  /** The subject and the user's claims, sealed (deferredClaimsContext); absent once erased. */
  sealedClaims?: string;
  status: DeferredStatus;
  /** Seconds the wallet waits between polls (OpenID4VCI 1.0 §8.3 `interval`). */
  intervalSeconds: number;
  expiresAt: string;
  createdAt: string;
  /** When an admin approved or denied it, and which admin client. */
  decidedAt?: string;
  decidedBy?: string;
  /** The admin's reason for a denial (never shown to the wallet). */
  reason?: string;
  /** When the wallet collected it, and the issued-credential records made then. */
  issuedAt?: string;
  credentialIds?: string[];
}

/** Filters of `GET /v2/credentials/deferred`. */
export interface DeferredIssuanceFilter {
  status?: DeferredStatus;
}

/** An admin's decision on a pending issuance. */
export interface DeferredDecision {
  status: 'approved' | 'denied';
  decidedAt: string;
  decidedBy?: string;
  reason?: string;
}

/** Where deferred issuances are kept. Each method's comment is its contract. */
export interface DeferredIssuanceRepository {
  /** Stores a new record. Throws DomainError `Conflict` when the id, or the tenant's transaction digest, exists. */
  insert(record: DeferredIssuanceRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<DeferredIssuanceRecord | undefined>;
  /** The tenant's record with this transaction digest, whatever its status or expiry. */
  findByTransactionDigest(tenantId: string, transactionDigest: string): Promise<DeferredIssuanceRecord | undefined>;
  /** The tenant's records matching the filter, in creation order. */
  list(tenantId: string, filter: DeferredIssuanceFilter, page: PageRequest): Promise<Slice<DeferredIssuanceRecord>>;
  /**
   * Records the decision in one conditional write, only while the record is `pending` and its
   * `expiresAt` is after `now`: true when it did. A denial erases the sealed claims in the same write.
   * Of racing decisions exactly one returns true.
   */
  decide(tenantId: string, id: string, decision: DeferredDecision, now: string): Promise<boolean>;
  /**
   * Marks the record `issued` with the credentials made, and erases its sealed claims, in one
   * conditional write, only while it is `approved` and its `expiresAt` is after `issuedAt`: true when
   * it did. Of racing collections exactly one returns true.
   */
  markIssued(tenantId: string, id: string, issuedAt: string, credentialIds: string[]): Promise<boolean>;
  /** Deletes up to `limit` records of any tenant whose `expiresAt` is at or before `before`, whatever their status; returns how many. */
  purgeExpired(before: string, limit: number): Promise<number>;
}
