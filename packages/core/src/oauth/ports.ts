import type { KeyAttestationLevels } from '../configurations/model.ts';

// What the OAuth side asks of the world: used nonces in the Store, the nonce codec, and wallet
// access tokens. Each method's comment is its contract, which the Store contract suite in
// @vellum/testing asserts.

/**
 * A `c_nonce` that was used (OpenID4VCI 1.0 §7; docs/decisions.md "Users, offers, the token and nonce endpoints"). Nonces are self-authenticating
 * (NonceCodec) and written nowhere when issued; the store remembers only the used ones, until they
 * expire, so that each is accepted once (the retention job then deletes them, docs/retention.md).
 */
export interface NonceRecord {
  tenantId: string;
  nonce: string;
  expiresAt: string;
}

export interface NonceRepository {
  /**
   * Records that the tenant used `nonce`, in one atomic insert that the key (tenant, nonce) guards:
   * true the first time, false when it is recorded already. Of racing callers, on one server or on
   * several sharing the database, exactly one gets true. Never throws for a repeat.
   */
  markUsed(record: NonceRecord): Promise<boolean>;
  /** Deletes up to `limit` records of any tenant that expired at or before `before` (the retention job, docs/retention.md); returns how many. */
  purgeExpired(before: string, limit: number): Promise<number>;
}

/**
 * Mints and opens self-authenticating `c_nonce`s: each carries its expiry and is bound to its tenant
 * under a MAC, so issuing one writes nothing. Servers sharing a database must share the key, so that
 * any of them opens what another minted.
 */
export interface NonceCodec {
  /** A new, unguessable nonce for the tenant that `open` accepts (expiry kept to the second, rounded down). */
  mint(tenantId: string, expiresAt: Date): string;
  /**
   * The expiry of a nonce this codec minted for this tenant, whether or not it has passed; undefined
   * for anything else (bad encoding, bad MAC, another tenant's, another version). Never throws.
   */
  open(tenantId: string, nonce: string): { expiresAt: Date } | undefined;
}

/** What a wallet access token says (docs/decisions.md "Users, offers, the token and nonce endpoints"): who may fetch which credentials, for how long. */
export interface WalletAccessClaims {
  tenantId: string;
  /** The credential issuer identifier the token was issued under (its `iss` and `aud`). */
  issuer: string;
  userId: string;
  /**
   * The grant the token was issued under: the offer for the Pre-authorized Code grant, the
   * authorization (AuthorizationRecord id) for the Authorization Code grant. JWT claim `oid`.
   */
  offerId: string;
  /**
   * `authorization_code` for tokens of the Authorization Code grant, `refresh_token` for those of the
   * refresh grant, whose `offerId` is then the refresh token record issued with it (JWT claim `gty`);
   * absent for the Pre-authorized Code grant.
   */
  grant?: 'authorization_code' | 'refresh_token';
  /** The configurations the token grants. */
  configurationIds: string[];
  /** Space-separated `<format>:<type>` of those configurations (OpenID4VCI 1.0 §6.2). */
  scope: string;
  /**
   * True when the token response gave `credential_identifiers` (the token request sent
   * `authorization_details`): requests then name a `credential_identifier`, never a
   * `credential_configuration_id` (OpenID4VCI 1.0 §8.2). JWT claim `cids`.
   */
  credentialIdentifiers?: boolean;
  /** RFC 9449 §6.1: the thumbprint of the DPoP key the token is bound to (JWT claim `cnf.jkt`); absent for bearer tokens. */
  dpopJkt?: string;
  /** The wallet client that obtained the token, when it authenticated as a registered client (JWT claim `client_id`). */
  clientId?: string;
  /** The client instance its attestation named (docs/dpop-and-attestation.md; JWT claim `client_instance_id`). */
  clientInstanceId?: string;
  /**
   * The key attestation levels the offer the token was redeemed from requires (docs/dpop-and-attestation.md
   * "Wallet requirements"), on top of each configuration's own. JWT claim `kar`.
   */
  keyAttestationsRequired?: KeyAttestationLevels;
  jti: string;
  /** Unix seconds. */
  issuedAt: number;
  /** Unix seconds. */
  expiresAt: number;
}

/** What a WalletTokens adapter is given to sign: the claims without the token's own id and times. */
export type WalletClaimsToIssue = Omit<WalletAccessClaims, 'jti' | 'issuedAt' | 'expiresAt'>;

/**
 * Wallet access tokens: JWTs (ES256, header `typ: at+jwt` and `kid`) signed with a per-tenant key
 * the KeyManager holds, made on first use. Claims: `iss` and `aud` (the issuer), `sub` (user id),
 * `tid` (tenant id), `oid` (offer id), `cfg` (configuration ids), `scope`, `cids` (when true), `jti`, `iat`, `exp`.
 */
export interface WalletTokens {
  /** Signs a wallet access token (a JWT, ES256, with the tenant's token key, `typ: at+jwt`). */
  issue(claims: WalletClaimsToIssue, ttlSeconds: number): Promise<{ token: string; claims: WalletAccessClaims }>;
  /** The verified claims of a token for this tenant and issuer, or undefined (bad signature, expired, other tenant or issuer). Never throws. */
  verify(tenantId: string, issuer: string, token: string): Promise<WalletAccessClaims | undefined>;
  /** The tenant's public token keys as a JWKS (`GET /.well-known/jwks.json`): the one that signs, then the one it replaced during the overlap. */
  jwks(tenantId: string): Promise<{ keys: Record<string, unknown>[] }>;
  /**
   * Makes a new token key that signs from now on (docs/key-custody.md "Rotation"); the old one keeps
   * verifying, and stays in the JWKS, until `previousUntil`, and is destroyed at the next rotation.
   * A tenant without a key gets its first. Throws DomainError `Conflict` while the last rotation's
   * overlap runs, or when another rotation came first.
   */
  rotate(tenantId: string, previousUntil: Date): Promise<{ activeKid: string; retiredKid?: string; retiredUntil?: string }>;
}
