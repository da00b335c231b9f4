// Refresh tokens (RFC 6749 §6, RFC 9700 §4.14; docs/refresh-tokens.md): the record kept for each
// one, and the repository port. A family is every refresh token rotated from one first token
// response; only digests of the tokens are stored.

import type { KeyAttestationLevels } from '../configurations/model.ts';

/** The grant a refresh family was first issued under. */
export type RefreshFamilyGrant = 'pre-authorized_code' | 'authorization_code';

/** One refresh token: the family's fields are copied onto each token rotated from it. */
export interface RefreshTokenRecord {
  id: string;
  tenantId: string;
  familyId: string;
  /** SHA-256 (base64url) of the token; the token itself is never stored. */
  digest: string;
  userId: string;
  /** The grant of the family's first token response, and its offer or authorization id. */
  grant: RefreshFamilyGrant;
  grantId: string;
  /** The configurations the family refreshes: those the first token granted that allow refresh. */
  configurationIds: string[];
  /** The first token response gave credential identifiers (authorization_details); refreshed ones do too. */
  credentialIdentifiers?: boolean;
  clientId?: string;
  clientInstanceId?: string;
  /** RFC 9449 §5: the family is bound to this DPoP key when the first access token was. */
  dpopJkt?: string;
  /** The key attestation levels the first grant's offer asked for: refreshed access tokens carry them too. */
  keyAttestationsRequired?: KeyAttestationLevels;
  /** The grant's claims, sealed under refreshClaimsContext (docs/decisions.md "Claims at rest"). */
  sealedClaims?: string;
  /** The configurations issued under the access token given with this refresh token (refresh grant only). */
  issuedConfigurationIds?: string[];
  /** When the family's first token was issued; maxAge counts from here. */
  familyCreatedAt: string;
  createdAt: string;
  /** The family's end: the first issuance plus the shortest maxAge of its configurations. */
  expiresAt: string;
  /** When this token was rotated (a second use is a replay, RFC 9700 §4.14.2). */
  usedAt?: string;
  revokedAt?: string;
}

/** Which families `revokeFamilies` revokes: one, every one of a user, or every one first issued under a grant. */
export type RefreshFamilyFilter = { familyId: string } | { userId: string } | { grantId: string };

export interface RefreshTokenRepository {
  insert(record: RefreshTokenRecord): Promise<void>;
  /** The token whose digest this is, whatever its state; undefined when none. */
  findByDigest(tenantId: string, digest: string): Promise<RefreshTokenRecord | undefined>;
  get(tenantId: string, id: string): Promise<RefreshTokenRecord | undefined>;
  /**
   * Marks the token used, in one conditional write: only when it is neither used nor revoked and
   * its `expiresAt` is after `now`. Of racing callers exactly one gets true.
   */
  markUsed(tenantId: string, id: string, now: string): Promise<boolean>;
  /**
   * Sets `revokedAt` on every token not yet revoked of the families the filter names, and returns
   * how many families that touched. Families revoked before are not counted.
   */
  revokeFamilies(tenantId: string, filter: RefreshFamilyFilter, now: string): Promise<number>;
  /**
   * Records that the access token given with this refresh token issued its credential of
   * `configurationId`, in one conditional write: false when it had, or the token is gone or revoked.
   */
  markIssued(tenantId: string, id: string, configurationId: string): Promise<boolean>;
  /** Deletes up to `limit` tokens of any tenant that expired or were revoked at or before `before` (docs/retention.md); returns how many. */
  purgeExpired(before: string, limit: number): Promise<number>;
}

/** The SecretBox context a refresh family's claims are sealed under. */
export const refreshClaimsContext = (tenantId: string, familyId: string) => `refresh-claims:${tenantId}:${familyId}`;
