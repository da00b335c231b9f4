import type { CredentialConfiguration, KeyAttestationLevels, WalletRequirements } from '../configurations/model.ts';
import { type EventRecorder, withEvents } from '../events/recorder.ts';
import { scopeOf } from '../metadata/issuer-metadata.ts';
import { issuerOf } from '../metadata/service.ts';
import { isOfferCode, MAX_TX_CODE_ATTEMPTS, offerState, txCodeDigests, walletRequirementsOf } from '../offers/model.ts';
import { PRE_AUTHORIZED_CODE_GRANT } from '../offers/uri.ts';
import type { Store } from '../ports.ts';
import type { Clock, Digests, Ids, SecretBox, SecretHasher } from '../shared/ports.ts';
import { addDuration, durationSeconds } from '../configurations/duration.ts';
import { DEFAULT_REFRESH_MAX_AGE } from '../configurations/rules.ts';
import { authorizationClaimsContext, offerClaimsContext, openClaims, sealClaims } from '../shared/sealed-claims.ts';
import { type RefreshFamilyGrant, type RefreshTokenRecord, refreshClaimsContext } from './refresh-tokens.ts';
import type { WalletTokens } from './ports.ts';
import { authenticateWalletClient, checkClientCredentials, clientCredentials, type PresentedClient } from '../oauth-clients/authenticate.ts';
import type { TxCodeLimiter } from '../rate-limits/limiters.ts';
import { type AttestationHeaders, type AttestedInstance, attestationOf, attestedClientId, notAttested } from '../oauth-clients/attestation.ts';
import type { WalletProviderTrust } from '../wallet-providers/trust.ts';
import { WALLET_ATTESTATION_REQUIRED } from './wallet-requirements.ts';
import type { WalletClient } from '../oauth-clients/model.ts';
import { isWalletClientId } from '../oauth-clients/rules.ts';
import { ISSUER_PATHS } from '../metadata/issuer-metadata.ts';
import type { Dpop, VerifiedDpopProof } from './dpop.ts';
import type { JwtProofVerifier } from './jwt-proofs.ts';
import type { DomainError } from '../shared/errors.ts';
import { field, invalidDetails, invalidGrant, invalidRequest, MAX_FIELD, oauthError, requestedConfigurations } from './fields.ts';
import type { RequestContext } from '../tenancy/model.ts';

/** docs/decisions.md "Users, offers, the token and nonce endpoints": wallet access tokens live 10 minutes. */
export const ACCESS_TOKEN_TTL_SECONDS = 600;

/**
 * How long a process may sign with a tenant's access-token key after another server rotated it: the
 * WalletTokens adapter reads the keys again this often. A rotation's overlap is at least this plus
 * the access tokens' lifetime.
 */
export const WALLET_TOKEN_KEY_REFRESH_SECONDS = 300;

/** OpenID4VCI 1.0 §6.2: what the token response says of each configuration `authorization_details` asked for. */
export interface CredentialAuthorizationDetail {
  type: 'openid_credential';
  credential_configuration_id: string;
  /** The identifiers the credential request names: here one per configuration, its id. */
  credential_identifiers: string[];
}

/** OpenID4VCI 1.0 §6.2: the token response; `authorization_details` when the request sent them. */
export interface TokenResponse {
  access_token: string;
  /** `DPoP` when the token is bound to the key of the request's DPoP proof (RFC 9449 §5). */
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  authorization_details?: CredentialAuthorizationDetail[];
  /** RFC 6749 §5.1: present when the grant covers a configuration that allows refresh (docs/refresh-tokens.md). */
  refresh_token?: string;
}

export interface TokenEndpointDeps {
  store: Store;
  clock: Clock;
  digests: Digests;
  walletTokens: WalletTokens;
  events: EventRecorder;
  /** Lifetime of wallet access tokens in seconds (default 600). */
  accessTokenTtlSeconds?: number;
  /** Limits wrong transaction codes per tenant and source IP across the tenant's offers (docs/limits.md); none without it. */
  txCodeLimiter?: TxCodeLimiter;
  /** Checks wallet clients' secrets (the Authorization Code grant's confidential clients). */
  hasher: SecretHasher;
  /** DPoP proofs (RFC 9449): checked when sent, required when the grant or the client asks for them. */
  dpop: Dpop;
  /** Verifies client attestations and their proofs of possession. */
  jwtProofs: JwtProofVerifier;
  /**
   * Refresh tokens (docs/refresh-tokens.md): random tokens, and the SecretBox that seals the claims a
   * family keeps. Without both, no refresh token is issued and the refresh_token grant is unsupported.
   */
  ids?: Ids;
  secrets?: SecretBox;
  /**
   * The tenant's trusted wallet providers: a wallet attestation one of them signed authenticates a
   * wallet instance without a registered client (docs/dpop-and-attestation.md "Wallet requirements").
   * Without it, only registered clients' own roots check attestations.
   */
  walletProviderTrust?: WalletProviderTrust;
}

/** The proof headers of a token request, as received (docs/dpop-and-attestation.md). */
export interface TokenRequestProofs {
  /** `DPoP`. */
  dpop?: string | string[] | undefined;
  /** `OAuth-Client-Attestation` and `OAuth-Client-Attestation-PoP`. */
  attestation?: AttestationHeaders;
}

/** `POST /v1/oauth/token` (OpenID4VCI 1.0 §6, docs/decisions.md "Users, offers, the token and nonce endpoints"). */
export interface TokenEndpoint {
  /**
   * Exchanges a grant for a wallet access token. `form` is the request's fields as sent (unknown
   * fields are ignored, as RFC 6749 §3.2 says); `basePath` is where the API is mounted. Failures are
   * 400 DomainErrors carrying the OAuth `error` (RFC 6749 §5.2, OpenID4VCI 1.0 §6.3).
   */
  token(
    ctx: RequestContext,
    form: Readonly<Record<string, unknown>>,
    basePath?: string,
    authorization?: string,
    proofs?: TokenRequestProofs,
  ): Promise<TokenResponse>;
}

/** One token request, as each grant reads it. */
interface GrantRequest {
  ctx: RequestContext;
  form: Readonly<Record<string, unknown>>;
  basePath: string | undefined;
  authorization: string | undefined;
  proofs: TokenRequestProofs | undefined;
  /** Tells the request's events which offer the grant redeemed. */
  note: (offerId: string) => void;
}

/** What a first token response needs to start a refresh family: the grant, and its claims as sealed. */
interface FamilySource {
  grant: RefreshFamilyGrant;
  grantId: string;
  userId: string;
  sealedClaims: string | undefined;
  /** The SecretBox context `sealedClaims` are sealed under. */
  context: string;
}

const REFRESH_NOT_VALID = 'The refresh token is not valid';

/** A DPoP proof the grant or the client requires is missing (RFC 9449 §5, §10). */
const dpopRequired = (message: string) => oauthError('invalid_dpop_proof', message);

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

const NOT_VALID = 'The pre-authorized code is not valid';
const STATE_MESSAGES = {
  used: 'The pre-authorized code has been used',
  expired: 'The pre-authorized code has expired',
  locked: 'Too many wrong transaction codes: the offer is no longer valid',
  deleted: NOT_VALID,
} as const;

/**
 * The token endpoint's Pre-authorized Code grant (OpenID4VCI 1.0 §6): anonymous wallets are welcome
 * (`client_id` is optional and not checked), a code works once, and the third wrong transaction
 * code locks its offer for good.
 */
export function createTokenEndpoint(deps: TokenEndpointDeps): TokenEndpoint {
  const { store, clock, digests, walletTokens, events } = deps;
  const ttl = deps.accessTokenTtlSeconds ?? ACCESS_TOKEN_TTL_SECONDS;

  const attestationDeps = { store, clock, digests, verifier: deps.jwtProofs };

  /** When an access token issued now expires. */
  const tokenExpiry = () => new Date(clock.now().getTime() + ttl * 1000).toISOString();

  /** The request's DPoP proof for the token endpoint, checked and spent; undefined without one. */
  function dpopOf(ctx: RequestContext, basePath: string | undefined, proofs: TokenRequestProofs | undefined): Promise<VerifiedDpopProof | undefined> {
    return deps.dpop.check(ctx, proofs?.dpop, { method: 'POST', url: `${issuerOf(ctx, basePath)}${ISSUER_PATHS.token}`, endpoint: 'token' });
  }

  /**
   * What a registered client asks of its requests (docs/wallet-clients.md): DPoP when it registered
   * `dpop.required`, and its attestation when it registered `clientAttestation`. Any other wallet,
   * anonymous or registered without roots, that sends an attestation has it checked against the
   * tenant's trusted wallet providers, when the tenant trusts any; when it trusts none, it is not
   * read, as before (docs/dpop-and-attestation.md "Wallet requirements").
   */
  async function clientProofs(
    request: GrantRequest,
    client: WalletClient | undefined,
    dpop: VerifiedDpopProof | undefined,
  ): Promise<AttestedInstance | undefined> {
    const { ctx, basePath, proofs, form } = request;
    if (client?.dpop?.required === true && !dpop) throw dpopRequired('This client registered dpop.required: send a DPoP proof (RFC 9449)');
    const issuer = issuerOf(ctx, basePath);
    const { origin, host } = new URL(issuer);
    const context = { tenantId: ctx.tenant.id, audiences: [issuer, `${issuer}${ISSUER_PATHS.token}`, origin, host], dpop };
    return attestationOf(attestationDeps, deps.walletProviderTrust, client, proofs?.attestation, context, field(form, 'client_id'));
  }

  /**
   * The refusal for a request that does not meet what its grant asks of the wallet (docs/decisions.md
   * "Wallet requirements per configuration and offer (issue 30)"), or undefined when it meets it.
   */
  function unmetRequirement(required: WalletRequirements, dpop: VerifiedDpopProof | undefined, attested: AttestedInstance | undefined) {
    // RFC 9449 §7.1 and §10: where DPoP is required, a request without a proof gets invalid_dpop_proof.
    if (!dpop && required.dpop) return dpopRequired('These credentials are issued for DPoP-bound tokens only: send a DPoP proof (RFC 9449)');
    if (!attested && required.walletAttestation) return notAttested(WALLET_ATTESTATION_REQUIRED);
    return undefined;
  }

  /** The access token's binding, client and key attestation levels, and the response's token type. */
  function bindingOf(
    dpop: VerifiedDpopProof | undefined,
    client: WalletClient | undefined,
    attested: Pick<AttestedInstance, 'clientInstanceId'> | undefined,
    keyAttestationsRequired?: KeyAttestationLevels,
  ) {
    return {
      claims: {
        ...(dpop ? { dpopJkt: dpop.jkt } : {}),
        ...(client ? { clientId: client.clientId } : {}),
        ...(attested?.clientInstanceId !== undefined ? { clientInstanceId: attested.clientInstanceId } : {}),
        ...(keyAttestationsRequired ? { keyAttestationsRequired } : {}),
      },
      tokenType: dpop ? ('DPoP' as const) : ('Bearer' as const),
    };
  }

  const clientAuthDeps = { store, hasher: deps.hasher };

  /** The tenant's configurations of `ids` that still exist, in order. */
  async function configurationsOf(ctx: RequestContext, ids: readonly string[]): Promise<CredentialConfiguration[]> {
    const found = await Promise.all(ids.map((id) => store.credentialConfigurations.get(ctx.tenant.id, id)));
    return found.filter((c): c is CredentialConfiguration => c !== undefined);
  }

  /**
   * What a token request presents to authenticate its client (RFC 6749 §2.3): `client_id` (an
   * attested client may leave it out: its attestation's `sub` names it, and is checked to), and the
   * secret in the form or the Authorization header.
   */
  function presentedClient({ form, authorization, proofs }: GrantRequest): PresentedClient {
    const clientId = field(form, 'client_id') ?? attestedClientId(proofs?.attestation);
    const clientSecret = field(form, 'client_secret');
    return {
      ...(clientId !== undefined ? { clientId } : {}),
      ...(authorization !== undefined ? { authorization } : {}),
      ...(clientSecret !== undefined ? { clientSecret } : {}),
    };
  }

  /**
   * The client of a pre-authorized request. Anonymous wallets are welcome; a wallet that names a
   * registered client (by client_id, its attestation or its credentials) authenticates as that client
   * does at every token request, and is then held to what it registered. A client id no client holds
   * is anonymous.
   */
  async function preAuthorizedClient(request: GrantRequest) {
    const { ctx } = request;
    const credentials = clientCredentials(presentedClient(request));
    const named = isWalletClientId(credentials.clientId) ? await store.walletClients.get(ctx.tenant.id, credentials.clientId) : undefined;
    if (!named && credentials.secret === undefined) return undefined;
    return checkClientCredentials(deps.hasher, credentials, named);
  }

  async function preAuthorizedCode(request: GrantRequest): Promise<TokenResponse> {
    const { ctx, form, basePath, proofs } = request;
    const code = field(form, 'pre-authorized_code');
    const txCode = field(form, 'tx_code');
    if (code === undefined) throw invalidRequest('pre-authorized_code is required');
    const client = await preAuthorizedClient(request);
    const dpop = await dpopOf(ctx, basePath, proofs);
    const attested = await clientProofs(request, client, dpop);
    // Read before the code is redeemed: a malformed request must not use the code up.
    const requested = requestedConfigurations(form);
    // A code Vellum cannot have made is refused before the store is asked (redeeming is a write).
    if (!isOfferCode(code) || (txCode !== undefined && txCode.length > MAX_FIELD)) throw invalidGrant(NOT_VALID);
    const codeDigest = digests.sha256(code);
    if (requested !== undefined) {
      // Checked before the code is used up, so that a wallet asking for the wrong thing can ask again.
      const offer = await store.offers.findByCodeDigest(ctx.tenant.id, codeDigest);
      const unknown = offer && requested.find((id) => !offer.configurationIds.includes(id));
      if (unknown !== undefined) throw invalidDetails(`The offer grants no credential configuration ${unknown}`);
    }
    // An address that guessed too often is refused before its guess is tried; no store read (docs/limits.md).
    if (txCode !== undefined) deps.txCodeLimiter?.check(ctx.tenant.id, ctx.ip);
    // Redeemed first, in one conditional write; the offer is read only to say why a code was refused.
    const outcome = await store.offers.redeem(ctx.tenant.id, codeDigest, {
      ...(txCode !== undefined ? { txCodeDigests: txCodeDigests(digests, codeDigest, txCode) } : {}),
      now: clock.now().toISOString(),
      maxTxAttempts: MAX_TX_CODE_ATTEMPTS,
      // The offer's claims are kept (sealed) for the credential endpoint while the token lives.
      claimsUntil: tokenExpiry(),
      // An offer requires what it and its configurations asked for when it was made: a request
      // without it does not redeem the code, which the wallet can then send again the right way.
      proven: { walletAttestation: attested !== undefined, dpop: dpop !== undefined },
    });
    if (outcome.outcome === 'not-open') throw await whyNotRedeemed(ctx, codeDigest, txCode !== undefined, dpop, attested);
    if (outcome.outcome === 'wrong-tx-code') {
      await deps.txCodeLimiter?.wrong(ctx.tenant.id, ctx.ip);
      const left = MAX_TX_CODE_ATTEMPTS - outcome.failedTxAttempts;
      throw invalidGrant(
        outcome.locked
          ? `The transaction code is wrong. ${STATE_MESSAGES.locked}`
          : `The transaction code is wrong (${left} ${left === 1 ? 'attempt' : 'attempts'} left)`,
      );
    }
    const redeemed = outcome.offer;
    request.note(redeemed.id);

    // An offer whose configurations were all deleted is used up all the same: it could never be redeemed.
    let configurations = await configurationsOf(ctx, redeemed.configurationIds);
    if (configurations.length === 0) throw invalidGrant('The credentials offered are no longer issued');
    // authorization_details narrow the token to what they name, each of which the offer must grant
    // (OpenID4VCI 1.0 §6.1); the answer gives each one credential identifier, its configuration id.
    if (requested !== undefined) {
      const offered = new Set(configurations.map((c) => c.id));
      const missing = requested.find((id) => !offered.has(id));
      if (missing !== undefined) throw invalidDetails(`Credential configuration ${missing} is no longer issued`);
      configurations = configurations.filter((c) => requested.includes(c.id));
    }
    const binding = bindingOf(dpop, client, attested, redeemed.keyAttestationsRequired);
    return withRefresh(
      request,
      await tokenResponse(request, redeemed, configurations, binding, requested !== undefined),
      configurations,
      binding,
      requested !== undefined,
      {
        grant: 'pre-authorized_code',
        grantId: redeemed.id,
        userId: redeemed.userId as string,
        sealedClaims: redeemed.sealedClaims,
        context: offerClaimsContext(ctx.tenant.id, redeemed.id),
      },
    );
  }

  /**
   * The Authorization Code grant (OpenID4VCI 1.0 §6; RFC 6749 §4.1.3, RFC 7636 §4.5): the client
   * that asked, its exact redirect URI and the PKCE verifier, then the code is spent in one
   * conditional write (of racing requests one wins) and the token grants what was authorized.
   */
  async function authorizationCode(request: GrantRequest): Promise<TokenResponse> {
    const { ctx, form, basePath, proofs } = request;
    const code = field(form, 'code');
    const redirectUri = field(form, 'redirect_uri');
    const verifier = field(form, 'code_verifier');
    const client = await authenticateWalletClient(clientAuthDeps, ctx.tenant.id, presentedClient(request));
    if (code === undefined) throw invalidRequest('code is required');
    if (redirectUri === undefined) throw invalidRequest('redirect_uri is required: the one the authorization request used');
    if (verifier === undefined) throw invalidRequest('code_verifier is required (PKCE, RFC 7636)');
    if (!CODE_VERIFIER.test(verifier)) throw invalidRequest('code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9 and - . _ ~ (RFC 7636 section 4.1)');
    const codeDigest = digests.sha256(code);
    const record = isOfferCode(code) ? await store.authorizations.findByHandle(ctx.tenant.id, codeDigest) : undefined;
    const now = clock.now().toISOString();
    if (!record || record.stage === 'redeemed' || record.stage === 'failed') throw invalidGrant('The authorization code is not valid or has been used');
    if (record.stage !== 'code') throw invalidGrant('The authorization code is not valid');
    if (record.expiresAt <= now) throw invalidGrant('The authorization code has expired');
    // RFC 6749 §4.1.3: the code was issued to this client, for this redirect URI.
    if (record.clientId !== client.clientId) throw invalidGrant('The authorization code was issued to another client');
    if (record.redirectUri !== redirectUri) throw invalidGrant('redirect_uri differs from the one in the authorization request');
    // RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) must equal the challenge.
    if (digests.sha256(verifier) !== record.codeChallenge) throw invalidGrant('code_verifier does not match the code_challenge');
    // Checked before the code is spent, so that a wallet whose proof failed can try again.
    const dpop = await dpopOf(ctx, basePath, proofs);
    // RFC 9449 §10: a code bound by dpop_jkt is redeemed only with a proof by that key.
    if (record.dpopJkt !== undefined) {
      if (!dpop) throw dpopRequired('The authorization request sent dpop_jkt: send a DPoP proof signed with that key');
      if (dpop.jkt !== record.dpopJkt) throw oauthError('invalid_dpop_proof', 'The DPoP proof was not signed with the key dpop_jkt named');
    }
    const attested = await clientProofs(request, client, dpop);
    // What the offer (when the request named one by issuer_state) and the configurations require,
    // before the code is spent.
    const [offer, configurations] = await Promise.all([
      record.offerId !== undefined ? store.offers.get(ctx.tenant.id, record.offerId) : undefined,
      configurationsOf(ctx, record.configurationIds),
    ]);
    // Before the code is spent: a wallet refused can send the request again the right way.
    const unmet = unmetRequirement(walletRequirementsOf(offer, configurations), dpop, attested);
    if (unmet) throw unmet;
    const binding = bindingOf(dpop, client, attested, offer?.keyAttestationsRequired);
    // Redeemed, its claims are kept (sealed) for the credential endpoint while the token lives.
    const redeemed = await store.authorizations.advance(ctx.tenant.id, record.id, 'code', codeDigest, now, { stage: 'redeemed', expiresAt: tokenExpiry() });
    if (!redeemed) throw invalidGrant('The authorization code is not valid or has been used');
    request.note(redeemed.id);

    if (configurations.length === 0) throw invalidGrant('The credentials authorized are no longer issued');
    const response = await tokenResponse(request, redeemed, configurations, binding, redeemed.byAuthorizationDetails, 'authorization_code');
    return withRefresh(request, response, configurations, binding, redeemed.byAuthorizationDetails, {
      grant: 'authorization_code',
      grantId: redeemed.id,
      userId: redeemed.userId as string,
      sealedClaims: redeemed.sealedClaims,
      context: authorizationClaimsContext(ctx.tenant.id, redeemed.id),
    });
  }

  /** The configurations of `configurations` that allow refresh (docs/refresh-tokens.md). */
  const refreshable = (configurations: CredentialConfiguration[]) => configurations.filter((c) => c.refresh?.allowed === true);

  /** A new refresh token: the token, and its digest as stored. */
  function newRefreshToken(ids: Ids): { token: string; digest: string } {
    const token = ids.token(32);
    return { token, digest: digests.sha256(token) };
  }

  /**
   * The first token response of a grant that covers a configuration allowing refresh gets a
   * refresh token, the first of a new family (RFC 6749 §5.1). The family keeps the grant's claims,
   * sealed again under its own context, since the grant's are erased once its token issued all.
   */
  async function withRefresh(
    { ctx }: GrantRequest,
    response: TokenResponse,
    configurations: CredentialConfiguration[],
    binding: ReturnType<typeof bindingOf>,
    identifiers: boolean,
    source: FamilySource,
  ): Promise<TokenResponse> {
    const { ids, secrets } = deps;
    const covered = refreshable(configurations);
    if (covered.length === 0 || !ids || !secrets) return response;
    const now = clock.now();
    // HAIP 1.0 §4.4: the family refreshes for the shortest maxAge of its configurations.
    const maxAge = Math.min(...covered.map((c) => durationSeconds(c.refresh?.maxAge ?? DEFAULT_REFRESH_MAX_AGE)));
    const familyId = ids.uuid();
    const claims = openClaims(secrets, source.sealedClaims, source.context);
    const sealed = sealClaims(secrets, claims, refreshClaimsContext(ctx.tenant.id, familyId));
    const { token, digest } = newRefreshToken(ids);
    const record: RefreshTokenRecord = {
      id: ids.uuid(),
      tenantId: ctx.tenant.id,
      familyId,
      digest,
      userId: source.userId,
      grant: source.grant,
      grantId: source.grantId,
      configurationIds: covered.map((c) => c.id),
      ...(identifiers ? { credentialIdentifiers: true } : {}),
      ...(binding.claims.clientId !== undefined ? { clientId: binding.claims.clientId } : {}),
      ...(binding.claims.clientInstanceId !== undefined ? { clientInstanceId: binding.claims.clientInstanceId } : {}),
      // RFC 9449 §5: a refresh token issued with a DPoP-bound access token is bound to the same key.
      ...(binding.claims.dpopJkt !== undefined ? { dpopJkt: binding.claims.dpopJkt } : {}),
      ...(binding.claims.keyAttestationsRequired !== undefined ? { keyAttestationsRequired: binding.claims.keyAttestationsRequired } : {}),
      ...(sealed !== undefined ? { sealedClaims: sealed } : {}),
      familyCreatedAt: now.toISOString(),
      createdAt: now.toISOString(),
      expiresAt: addDuration(now, { seconds: maxAge }).toISOString(),
    };
    await store.refreshTokens.insert(record);
    return { ...response, refresh_token: token };
  }

  /**
   * The refresh_token grant (RFC 6749 §6): the client the family was issued to, the family's DPoP
   * key when it is bound, then the token is rotated in one conditional write (RFC 9700 §4.14.2): a
   * token presented after it was rotated, or by the loser of a race, revokes its whole family.
   */
  async function refreshToken(request: GrantRequest): Promise<TokenResponse> {
    const { ctx, form, basePath, proofs } = request;
    const { ids, secrets } = deps;
    if (!ids || !secrets) throw oauthError('unsupported_grant_type', `grant_type must be authorization_code or ${PRE_AUTHORIZED_CODE_GRANT}`);
    const presented = field(form, 'refresh_token');
    if (presented === undefined) throw invalidRequest('refresh_token is required');
    const record = presented.length <= MAX_FIELD ? await store.refreshTokens.findByDigest(ctx.tenant.id, digests.sha256(presented)) : undefined;
    if (!record) throw invalidGrant(REFRESH_NOT_VALID);
    // RFC 6749 §6: a client issued credentials authenticates; the token was issued to it.
    const client =
      record.clientId !== undefined
        ? await authenticateWalletClient(clientAuthDeps, ctx.tenant.id, presentedClient(request))
        : await preAuthorizedClient(request);
    if (client?.clientId !== record.clientId) throw invalidGrant('The refresh token was issued to another client');
    const now = clock.now().toISOString();
    if (record.revokedAt !== undefined) throw invalidGrant('The refresh token has been revoked');
    const revokeFamily = async () => {
      await store.refreshTokens.revokeFamilies(ctx.tenant.id, { familyId: record.familyId }, now);
      return invalidGrant('The refresh token was used before: every token of its family is revoked');
    };
    // RFC 9700 §4.14.2: a rotated token presented again means two parties hold it.
    if (record.usedAt !== undefined) throw await revokeFamily();
    if (record.expiresAt <= now) throw invalidGrant('The refresh token has expired');
    const dpop = await dpopOf(ctx, basePath, proofs);
    // RFC 9449 §5: a bound family is refreshed only with a proof by its key.
    if (record.dpopJkt !== undefined && dpop?.jkt !== record.dpopJkt)
      throw invalidGrant('The refresh token is bound to a DPoP key: send a DPoP proof signed with it');
    const attested = await clientProofs(request, client, dpop);
    if (attested?.clientInstanceId !== undefined && record.clientInstanceId !== undefined && attested.clientInstanceId !== record.clientInstanceId)
      throw invalidGrant('The refresh token was issued to another client instance');
    // The offer's key attestation levels hold for every credential the family issues.
    const binding = bindingOf(
      dpop,
      client,
      record.clientInstanceId !== undefined ? { clientInstanceId: record.clientInstanceId } : attested,
      record.keyAttestationsRequired,
    );
    const configurations = refreshable(
      (await Promise.all(record.configurationIds.map((id) => store.credentialConfigurations.get(ctx.tenant.id, id)))).filter(
        (c): c is CredentialConfiguration => c !== undefined,
      ),
    );
    if (configurations.length === 0) throw invalidGrant('The credentials of this refresh token are no longer refreshable');
    const { token, digest } = newRefreshToken(ids);
    const { id: _id, digest: _digest, usedAt: _usedAt, issuedConfigurationIds: _issued, ...family } = record;
    const next: RefreshTokenRecord = { ...family, id: ids.uuid(), digest, createdAt: now };
    const rotated = await store.transaction(async (tx) => {
      if (!(await tx.refreshTokens.markUsed(ctx.tenant.id, record.id, now))) return false;
      await tx.refreshTokens.insert(next);
      return true;
    });
    if (!rotated) {
      const current = await store.refreshTokens.get(ctx.tenant.id, record.id);
      if (current?.usedAt !== undefined && current.revokedAt === undefined) throw await revokeFamily();
      throw invalidGrant(REFRESH_NOT_VALID);
    }
    request.note(record.familyId);
    // The access token names the new refresh token as its grant: the credential endpoint issues
    // each configuration once under it, and reads the family's claims from it.
    const response = await tokenResponse(
      request,
      { id: next.id, userId: record.userId },
      configurations,
      binding,
      record.credentialIdentifiers === true,
      'refresh_token',
    );
    return { ...response, refresh_token: token };
  }

  /**
   * The access token for what a grant redeemed, and the token response (OpenID4VCI 1.0 §6.2). With
   * `identifiers` (the request sent authorization_details), each configuration gets one credential
   * identifier: its id.
   */
  async function tokenResponse(
    { ctx, basePath }: GrantRequest,
    redeemed: { id: string; userId?: string | undefined },
    configurations: CredentialConfiguration[],
    binding: ReturnType<typeof bindingOf>,
    identifiers: boolean,
    grant?: 'authorization_code' | 'refresh_token',
  ): Promise<TokenResponse> {
    const scope = configurations.map(scopeOf).join(' ');
    const { token } = await walletTokens.issue(
      {
        tenantId: ctx.tenant.id,
        issuer: issuerOf(ctx, basePath),
        userId: redeemed.userId as string,
        offerId: redeemed.id,
        ...(grant ? { grant } : {}),
        configurationIds: configurations.map((c) => c.id),
        scope,
        ...(identifiers ? { credentialIdentifiers: true } : {}),
        ...binding.claims,
      },
      ttl,
    );
    const response: TokenResponse = { access_token: token, token_type: binding.tokenType, expires_in: ttl, scope };
    if (identifiers) {
      response.authorization_details = configurations.map((c) => ({
        type: 'openid_credential',
        credential_configuration_id: c.id,
        credential_identifiers: [c.id],
      }));
    }
    return response;
  }

  /** The error for a code the store would not redeem, from the offer as it is now. */
  async function whyNotRedeemed(
    ctx: RequestContext,
    codeDigest: string,
    txCodeSent: boolean,
    dpop: VerifiedDpopProof | undefined,
    attested: AttestedInstance | undefined,
  ): Promise<DomainError> {
    const offer = await store.offers.findByCodeDigest(ctx.tenant.id, codeDigest);
    if (!offer || offer.kind !== 'pre-authorized') return invalidGrant(NOT_VALID);
    const state = offerState(offer, clock.now());
    if (state !== 'open') return invalidGrant(STATE_MESSAGES[state]);
    const unmet = unmetRequirement(offer.walletRequirements ?? {}, dpop, attested);
    if (unmet) return unmet;
    // OpenID4VCI 1.0 §6.3: a missing or unexpected transaction code is invalid_request (no attempt counted).
    if (offer.txCode && !txCodeSent) return invalidRequest('tx_code is required: the offer asks for a transaction code');
    if (!offer.txCode && txCodeSent) return invalidRequest('This offer takes no tx_code');
    // Open, and asked the right way: another request changed it between the write and this read.
    return invalidGrant(NOT_VALID);
  }

  return {
    token(ctx, form, basePath, authorization, proofs) {
      let offerId: string | undefined;
      const grantType = typeof form.grant_type === 'string' ? form.grant_type.slice(0, 100) : undefined;
      return withEvents(
        events,
        ctx,
        'OPENID_TOKEN',
        async () => {
          const grant = field(form, 'grant_type');
          if (grant === undefined) throw invalidRequest('grant_type is required');
          const note = (id: string) => {
            offerId = id;
          };
          const request: GrantRequest = { ctx, form, basePath, authorization, proofs, note };
          if (grant === PRE_AUTHORIZED_CODE_GRANT) return preAuthorizedCode(request);
          if (grant === 'authorization_code') return authorizationCode(request);
          if (grant === 'refresh_token') return refreshToken(request);
          throw oauthError('unsupported_grant_type', `grant_type must be authorization_code or ${PRE_AUTHORIZED_CODE_GRANT}`);
        },
        { input: form, meta: () => ({ grantType, ...(offerId ? { offerId } : {}) }) },
      );
    },
  };
}
