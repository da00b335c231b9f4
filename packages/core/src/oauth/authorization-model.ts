/**
 * Where an authorization (one run of the Authorization Code flow) stands. Each stage has its own
 * single-use handle, a random value only its digest of which is stored:
 * - `pushed`: made by PAR; the handle is the `request_uri`'s reference.
 * - `authenticating`: the browser is at the identity provider; the handle is the `state` sent there.
 * - `interaction`: the browser is at the interaction hook; the handle is the session token's `state`.
 * - `code`: the authorization code was issued; the handle is the code.
 * - `redeemed`: the code was exchanged for an access token (no handle is open any more).
 * - `failed`: sign-in or the interaction hook refused, and the wallet was told (no handle is open).
 */
export type AuthorizationStage = 'pushed' | 'authenticating' | 'interaction' | 'code' | 'redeemed' | 'failed';

/** One run of the Authorization Code flow (OpenID4VCI 1.0 §5, §6; docs/authorization-code.md). */
export interface AuthorizationRecord {
  id: string;
  tenantId: string;
  /** The credential issuer identifier the flow runs under. */
  issuer: string;
  clientId: string;
  /** Exactly as the wallet sent it (and as it must send it again at the token endpoint). */
  redirectUri: string;
  /** The wallet's `state`, returned with the code. */
  state?: string;
  /** PKCE S256 challenge (RFC 7636). */
  codeChallenge: string;
  /** The configurations asked for (by scope or `authorization_details`), in order. */
  configurationIds: string[];
  /** Whether they were asked for by `authorization_details` (the token response then carries them back). */
  byAuthorizationDetails: boolean;
  /** The offer whose `issuer_state` the request carried. */
  offerId?: string;
  /** RFC 9449 §10: the key the access token must be bound to. */
  dpopJkt?: string;
  /** Forwarded to the identity provider (`login_hint`, `prompt`, ...). */
  forwardedParameters: Record<string, string>;
  stage: AuthorizationStage;
  /** SHA-256 of the current stage's handle; unique per tenant. */
  handleDigest?: string;
  /**
   * When the current stage's handle stops working; once `redeemed`, when the access token it was
   * redeemed for expires (its claims are kept for the credential endpoint until then at most).
   */
  expiresAt: string;
  /** Identity provider leg: the OIDC nonce and the PKCE verifier Vellum used there. */
  providerNonce?: string;
  providerCodeVerifier?: string;
  /** The signed-in user. */
  userId?: string;
  /**
   * Claims gathered during the flow (the interaction hook's) that are not persisted on the user,
   * sealed (sealClaims, SecretBox context `authorization-claims:{tenantId}:{id}`). Absent when there
   * are none, and once erased (docs/decisions.md "Claims at rest"): when the access token has issued
   * every credential it grants, or (eraseExpiredClaims) once `expiresAt` has passed.
   */
  sealedClaims?: string;
  /** Configurations an access token from this authorization has issued (one credential each). */
  issuedConfigurationIds: string[];
  createdAt: string;
}

/**
 * What moving an authorization on changes (AuthorizationRepository.advance). The stage, the handle
 * digest and the expiry are always replaced: a new stage that opens no handle (`redeemed`, `failed`)
 * has no `handleDigest`, and the stored one is cleared. Every other field left out keeps its stored
 * value; `sealedClaims`, when given, replaces the stored claims.
 */
export type AuthorizationAdvance = Pick<AuthorizationRecord, 'stage' | 'handleDigest' | 'expiresAt'> &
  Partial<Pick<AuthorizationRecord, 'providerNonce' | 'providerCodeVerifier' | 'userId' | 'sealedClaims'>>;

export interface AuthorizationRepository {
  /** Throws DomainError `Conflict` when the tenant already has the id or the handle digest (another tenant may hold the same). */
  insert(record: AuthorizationRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<AuthorizationRecord | undefined>;
  /** The tenant's authorization whose current handle has this digest, whatever its stage or expiry. */
  findByHandle(tenantId: string, handleDigest: string): Promise<AuthorizationRecord | undefined>;
  /**
   * Moves the tenant's authorization on in one conditional write: only when it is at `from`, its
   * handle digest is `handleDigest` and `expiresAt` is after `now`. Returns it as stored afterwards,
   * or undefined (nothing changed). Of racing callers with the same handle exactly one succeeds,
   * on one server or several sharing the database: a handle works once. Throws DomainError
   * `Conflict` (nothing changed) when `to.handleDigest` is another authorization's current handle.
   */
  advance(
    tenantId: string,
    id: string,
    from: AuthorizationStage,
    handleDigest: string,
    now: string,
    to: AuthorizationAdvance,
  ): Promise<AuthorizationRecord | undefined>;
  /**
   * Records that the access token of this authorization issued its credential of `configurationId`,
   * in one conditional write: true the first time; false (nothing changes) when recorded before or
   * there is no such authorization. When the token has then issued `granted` credentials (every
   * configuration it grants), the same write erases `sealedClaims`. Exactly one of racing callers
   * gets true.
   */
  markIssued(tenantId: string, id: string, configurationId: string, granted: number): Promise<boolean>;
  /**
   * Housekeeping across tenants: erases the `sealedClaims` of at most `limit` authorizations whose
   * `expiresAt` is at or before `now`, returning how many. Authorizations without claims are not counted.
   */
  eraseExpiredClaims(now: string, limit: number): Promise<number>;
  /**
   * Deletes up to `limit` authorizations of any tenant, whatever their stage, whose `expiresAt` is at
   * or before `before` (the retention job, docs/retention.md); returns how many.
   */
  purgeExpired(before: string, limit: number): Promise<number>;
}
