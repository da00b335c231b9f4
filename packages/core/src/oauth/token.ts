import type { CredentialConfiguration } from '../configurations/model.ts';
import { type EventRecorder, withEvents } from '../events/recorder.ts';
import { scopeOf } from '../metadata/issuer-metadata.ts';
import { issuerOf } from '../metadata/service.ts';
import { isOfferCode, MAX_TX_CODE_ATTEMPTS, offerState } from '../offers/model.ts';
import { PRE_AUTHORIZED_CODE_GRANT } from '../offers/uri.ts';
import type { Clock, Digests, SecretHasher, Store, WalletTokens } from '../ports.ts';
import { authenticateWalletClient } from '../oauth-clients/authenticate.ts';
import type { TxCodeLimiter } from '../rate-limits/limiters.ts';
import type { DomainError } from '../shared/errors.ts';
import { field, invalidDetails, invalidGrant, invalidRequest, MAX_FIELD, oauthError, requestedConfigurations } from './fields.ts';
import type { RequestContext } from '../tenancy/model.ts';

/** API.md §9: wallet access tokens live 10 minutes. */
export const ACCESS_TOKEN_TTL_SECONDS = 600;

/** OpenID4VCI 1.0 §6.2: what the token response says of each configuration `authorization_details` asked for. */
export interface CredentialAuthorizationDetail {
  type: 'openid_credential';
  credential_configuration_id: string;
  /** The identifiers the credential request names: here one per configuration, its id. */
  credential_identifiers: string[];
}

/** Specification 2.5: the token response; `authorization_details` when the request sent them. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  authorization_details?: CredentialAuthorizationDetail[];
}

export interface TokenEndpointDeps {
  store: Store;
  clock: Clock;
  digests: Digests;
  walletTokens: WalletTokens;
  events: EventRecorder;
  /** Lifetime of wallet access tokens in seconds (default 600). */
  accessTokenTtlSeconds?: number;
  /** Limits wrong transaction codes per source IP across offers (docs/limits.md); none without it. */
  txCodeLimiter?: TxCodeLimiter;
  /** Checks wallet clients' secrets (the Authorization Code grant's confidential clients). */
  hasher: SecretHasher;
}

/** `POST /v1/oauth/token` (specification 4.5, API.md §9). */
export interface TokenEndpoint {
  /**
   * Exchanges a grant for a wallet access token. `form` is the request's fields as sent (unknown
   * fields are ignored, as RFC 6749 §3.2 says); `basePath` is where the API is mounted. Failures are
   * 400 DomainErrors carrying the OAuth `error` (RFC 6749 §5.2, OpenID4VCI 1.0 §6.3).
   */
  token(ctx: RequestContext, form: Readonly<Record<string, unknown>>, basePath?: string, authorization?: string): Promise<TokenResponse>;
}

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

  async function preAuthorizedCode(ctx: RequestContext, form: Readonly<Record<string, unknown>>, basePath: string | undefined, note: (offerId: string) => void): Promise<TokenResponse> {
    const code = field(form, 'pre-authorized_code');
    const txCode = field(form, 'tx_code');
    // Anonymous wallets are welcome: client_id, when sent, must be well-formed but is not checked.
    field(form, 'client_id');
    if (code === undefined) throw invalidRequest('pre-authorized_code is required');
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
    if (txCode !== undefined) deps.txCodeLimiter?.check(ctx.ip);
    // Redeemed first, in one conditional write; the offer is read only to say why a code was refused.
    const outcome = await store.offers.redeem(ctx.tenant.id, codeDigest, txCode === undefined ? undefined : digests.sha256(txCode), clock.now().toISOString(), MAX_TX_CODE_ATTEMPTS);
    if (outcome.outcome === 'not-open') throw await whyNotRedeemed(ctx, codeDigest, txCode !== undefined);
    if (outcome.outcome === 'wrong-tx-code') {
      await deps.txCodeLimiter?.wrong(ctx.ip);
      const left = MAX_TX_CODE_ATTEMPTS - outcome.failedTxAttempts;
      throw invalidGrant(outcome.locked ? `The transaction code is wrong. ${STATE_MESSAGES.locked}` : `The transaction code is wrong (${left} ${left === 1 ? 'attempt' : 'attempts'} left)`);
    }
    const redeemed = outcome.offer;
    note(redeemed.id);

    // An offer whose configurations were all deleted is used up all the same: it could never be redeemed.
    let configurations = (await Promise.all(redeemed.configurationIds.map((id) => store.credentialConfigurations.get(ctx.tenant.id, id)))).filter(
      (c): c is CredentialConfiguration => c !== undefined,
    );
    if (configurations.length === 0) throw invalidGrant('The credentials offered are no longer issued');
    // authorization_details narrow the token to what they name, each of which the offer must grant
    // (OpenID4VCI 1.0 §6.1); the answer gives each one credential identifier, its configuration id.
    if (requested !== undefined) {
      const offered = new Set(configurations.map((c) => c.id));
      const missing = requested.find((id) => !offered.has(id));
      if (missing !== undefined) throw invalidDetails(`Credential configuration ${missing} is no longer issued`);
      configurations = configurations.filter((c) => requested.includes(c.id));
    }
    const scope = configurations.map(scopeOf).join(' ');
    const { token } = await walletTokens.issue(
      {
        tenantId: ctx.tenant.id,
        issuer: issuerOf(ctx, basePath),
        userId: redeemed.userId as string,
        offerId: redeemed.id,
        configurationIds: configurations.map((c) => c.id),
        scope,
        ...(requested === undefined ? {} : { credentialIdentifiers: true }),
      },
      ttl,
    );
    const response: TokenResponse = { access_token: token, token_type: 'Bearer', expires_in: ttl, scope };
    if (requested !== undefined) {
      response.authorization_details = configurations.map((c) => ({ type: 'openid_credential', credential_configuration_id: c.id, credential_identifiers: [c.id] }));
    }
    return response;
  }

  /**
   * The Authorization Code grant (specification 4.5; RFC 6749 §4.1.3, RFC 7636 §4.5): the client
   * that asked, its exact redirect URI and the PKCE verifier, then the code is spent in one
   * conditional write (of racing requests one wins) and the token grants what was authorized.
   */
  async function authorizationCode(
    ctx: RequestContext,
    form: Readonly<Record<string, unknown>>,
    basePath: string | undefined,
    authorization: string | undefined,
    note: (id: string) => void,
  ): Promise<TokenResponse> {
    const code = field(form, 'code');
    const redirectUri = field(form, 'redirect_uri');
    const verifier = field(form, 'code_verifier');
    const clientSecret = field(form, 'client_secret');
    const client = await authenticateWalletClient({ store, hasher: deps.hasher }, ctx.tenant.id, {
      ...(field(form, 'client_id') !== undefined ? { clientId: field(form, 'client_id') as string } : {}),
      ...(authorization !== undefined ? { authorization } : {}),
      ...(clientSecret !== undefined ? { clientSecret } : {}),
    });
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
    const redeemed = await store.authorizations.advance(ctx.tenant.id, record.id, 'code', codeDigest, now, { stage: 'redeemed', expiresAt: now });
    if (!redeemed) throw invalidGrant('The authorization code is not valid or has been used');
    note(redeemed.id);

    const configurations = (await Promise.all(redeemed.configurationIds.map((id) => store.credentialConfigurations.get(ctx.tenant.id, id)))).filter(
      (c): c is CredentialConfiguration => c !== undefined,
    );
    if (configurations.length === 0) throw invalidGrant('The credentials authorized are no longer issued');
    const scope = configurations.map(scopeOf).join(' ');
    const { token } = await walletTokens.issue(
      {
        tenantId: ctx.tenant.id,
        issuer: issuerOf(ctx, basePath),
        userId: redeemed.userId as string,
        offerId: redeemed.id,
        grant: 'authorization_code',
        configurationIds: configurations.map((c) => c.id),
        scope,
        ...(redeemed.byAuthorizationDetails ? { credentialIdentifiers: true } : {}),
      },
      ttl,
    );
    const response: TokenResponse = { access_token: token, token_type: 'Bearer', expires_in: ttl, scope };
    if (redeemed.byAuthorizationDetails) {
      response.authorization_details = configurations.map((c) => ({ type: 'openid_credential', credential_configuration_id: c.id, credential_identifiers: [c.id] }));
    }
    return response;
  }

  /** The error for a code the store would not redeem, from the offer as it is now. */
  async function whyNotRedeemed(ctx: RequestContext, codeDigest: string, txCodeSent: boolean): Promise<DomainError> {
    const offer = await store.offers.findByCodeDigest(ctx.tenant.id, codeDigest);
    if (!offer || offer.kind !== 'pre-authorized') return invalidGrant(NOT_VALID);
    const state = offerState(offer, clock.now());
    if (state !== 'open') return invalidGrant(STATE_MESSAGES[state]);
    // OpenID4VCI 1.0 §6.3: a missing or unexpected transaction code is invalid_request (no attempt counted).
    if (offer.txCode && !txCodeSent) return invalidRequest('tx_code is required: the offer asks for a transaction code');
    if (!offer.txCode && txCodeSent) return invalidRequest('This offer takes no tx_code');
    // Open, and asked the right way: another request changed it between the write and this read.
    return invalidGrant(NOT_VALID);
  }

  return {
    token(ctx, form, basePath, authorization) {
      let offerId: string | undefined;
      const grantType = typeof form.grant_type === 'string' ? form.grant_type.slice(0, 100) : undefined;
      return withEvents(events, ctx, 'OPENID_TOKEN', async () => {
        const grant = field(form, 'grant_type');
        if (grant === undefined) throw invalidRequest('grant_type is required');
        const note = (id: string) => {
          offerId = id;
        };
        if (grant === PRE_AUTHORIZED_CODE_GRANT) return preAuthorizedCode(ctx, form, basePath, note);
        if (grant === 'authorization_code') return authorizationCode(ctx, form, basePath, authorization, note);
        throw oauthError('unsupported_grant_type', `grant_type must be authorization_code or ${PRE_AUTHORIZED_CODE_GRANT}`);
      }, { input: form, meta: () => ({ grantType, ...(offerId ? { offerId } : {}) }) });
    },
  };
}
