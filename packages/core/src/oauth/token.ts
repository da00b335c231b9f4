import type { CredentialConfiguration } from '../configurations/model.ts';
import { type EventRecorder, withEvents } from '../events/recorder.ts';
import { scopeOf } from '../metadata/issuer-metadata.ts';
import { issuerOf } from '../metadata/service.ts';
import { isOfferCode, MAX_TX_CODE_ATTEMPTS, offerState } from '../offers/model.ts';
import { PRE_AUTHORIZED_CODE_GRANT } from '../offers/uri.ts';
import type { Clock, Digests, Store, WalletTokens } from '../ports.ts';
import type { TxCodeLimiter } from '../rate-limits/limiters.ts';
import { DomainError, type OAuthErrorCode } from '../shared/errors.ts';
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
}

/** `POST /v1/oauth/token` (specification 4.5, API.md §9). */
export interface TokenEndpoint {
  /**
   * Exchanges a grant for a wallet access token. `form` is the request's fields as sent (unknown
   * fields are ignored, as RFC 6749 §3.2 says); `basePath` is where the API is mounted. Failures are
   * 400 DomainErrors carrying the OAuth `error` (RFC 6749 §5.2, OpenID4VCI 1.0 §6.3).
   */
  token(ctx: RequestContext, form: Readonly<Record<string, unknown>>, basePath?: string): Promise<TokenResponse>;
}

const oauthError = (error: OAuthErrorCode, description: string) => new DomainError('BadRequest', description, { oauthError: error });
const invalidRequest = (description: string) => oauthError('invalid_request', description);
const invalidGrant = (description: string) => oauthError('invalid_grant', description);

// Longer transaction codes name no code Vellum made; refusing them early keeps hashing cheap.
const MAX_FIELD = 512;
/** More entries than an offer can hold configurations name nothing a token could grant. */
const MAX_AUTHORIZATION_DETAILS = 100;

const invalidDetails = (description: string) => oauthError('invalid_authorization_details', description);

/**
 * The configuration ids a token request's `authorization_details` asks for (RFC 9396 §2, OpenID4VCI
 * 1.0 §5.1.1, §6.1): a JSON array of `{ type: "openid_credential", credential_configuration_id }`,
 * or undefined when the request sent none. Entries that name the same configuration are one.
 */
function requestedConfigurations(form: Readonly<Record<string, unknown>>): string[] | undefined {
  const text = field(form, 'authorization_details');
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidDetails('authorization_details must be a JSON array');
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length > MAX_AUTHORIZATION_DETAILS) {
    throw invalidDetails(`authorization_details must be a JSON array of 1 to ${MAX_AUTHORIZATION_DETAILS} objects`);
  }
  const ids = parsed.map((entry: unknown) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw invalidDetails('Each authorization_details entry must be an object');
    const { type, credential_configuration_id: id, format } = entry as Record<string, unknown>;
    if (type !== 'openid_credential') throw invalidDetails('Each authorization_details entry must be of type openid_credential');
    if (format !== undefined) throw invalidDetails('Name the credential by credential_configuration_id, not format');
    if (typeof id !== 'string' || id.length === 0 || id.length > 200) throw invalidDetails('Each authorization_details entry must name a credential_configuration_id');
    return id;
  });
  return [...new Set(ids)];
}

/** A single-valued text field of the form, or undefined when absent; anything else is invalid_request. */
function field(form: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = form[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest(`${name} must be given once, as text`);
  return value;
}

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
    token(ctx, form, basePath) {
      let offerId: string | undefined;
      const grantType = typeof form.grant_type === 'string' ? form.grant_type.slice(0, 100) : undefined;
      return withEvents(events, ctx, 'OPENID_TOKEN', async () => {
        const grant = field(form, 'grant_type');
        if (grant === undefined) throw invalidRequest('grant_type is required');
        if (grant !== PRE_AUTHORIZED_CODE_GRANT) throw oauthError('unsupported_grant_type', `grant_type must be ${PRE_AUTHORIZED_CODE_GRANT}`);
        return preAuthorizedCode(ctx, form, basePath, (id) => {
          offerId = id;
        });
      }, { input: form, meta: () => ({ grantType, ...(offerId ? { offerId } : {}) }) });
    },
  };
}
