// The front half of the Authorization Code flow (OpenID4VCI 1.0 §5; RFC 6749
// §4.1, RFC 7636, RFC 9126, RFC 9207; docs/wallet-clients.md, docs/authorization-code.md): a wallet asks,
// the user signs in at the tenant's OpenID Connect provider, the tenant's interaction hook may add
// claims, and the wallet receives a code at its registered redirect URI.

import { openInteractionHook, providerSettings } from '../authentication/service.ts';
import type { IdentityProvider, ProviderFailure, ProviderFailureReport, ProviderSettings, SessionTokens } from '../authentication/ports.ts';
import type { CredentialConfiguration } from '../configurations/model.ts';
import { type EventRecorder, withEvents } from '../events/recorder.ts';
import { ISSUER_PATHS, scopeOf } from '../metadata/issuer-metadata.ts';
import { issuerOf } from '../metadata/service.ts';
import { type ClientCredentials, checkClientCredentials, clientCredentials, findNamedClient } from '../oauth-clients/authenticate.ts';
import { type AttestedInstance, attestationOf, attestedClientId, notAttested } from '../oauth-clients/attestation.ts';
import { WALLET_ATTESTATION_REQUIRED } from './wallet-requirements.ts';
import type { WalletProviderTrust } from '../wallet-providers/trust.ts';
import type { Dpop, VerifiedDpopProof } from './dpop.ts';
import type { JwtProofVerifier } from './jwt-proofs.ts';
import type { TokenRequestProofs } from './token.ts';
import type { WalletClient } from '../oauth-clients/model.ts';
import { isWalletClientId } from '../oauth-clients/rules.ts';
import { isOfferCode, type OfferRecord, offerState, walletRequirementsOf } from '../offers/model.ts';
import type { Store } from '../ports.ts';
import type { ParLimiter, ParRefusal } from '../rate-limits/limiters.ts';
import type { Clock, Digests, Ids, SecretBox, SecretHasher } from '../shared/ports.ts';
import { authorizationClaimsContext, sealClaims } from '../shared/sealed-claims.ts';
import { DomainError, isDomainError, type OAuthErrorCode } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { UserRecord } from '../users/model.ts';
import { claimProblems } from '../users/rules.ts';
import type { AuthorizationRecord } from './authorization-model.ts';
import { field, invalidRequest, oauthError, requestedConfigurations } from './fields.ts';

/** docs/authorization-code.md: authorization codes live 60 seconds. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;
/** RFC 9126 §2.2: a pushed request's `request_uri` is short-lived; 60 seconds, like a code. */
export const PUSHED_REQUEST_TTL_SECONDS = 60;
/** How long the user has to sign in at the identity provider. */
export const SIGN_IN_TTL_SECONDS = 600;
/** RFC 9126 §2.2: the `request_uri` prefix. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/** Where the identity provider and the interaction hook send the browser back, under the issuer. */
export const AUTHENTICATION_CALLBACK_PATH = '/v1/oauth/authentication/callback';
export const INTERACTION_CALLBACK_PATH = '/v1/oauth/interaction/callback';

/** The parameters of an authorization request Vellum reads (the rest are ignored, RFC 6749 §3.1). */
const REQUEST_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'authorization_details',
  'issuer_state',
  'dpop_jkt',
] as const;
/** Parameters a wallet may send for the identity provider (docs/authorization-code.md `request_parameters`). */
const FORWARDABLE = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_FORWARDED = 20;
/**
 * The most an authorization request may have Vellum keep of the text it chooses: `state` and the
 * forwarded parameters (names and values, as their stored JSON), in UTF-8 bytes (docs/limits.md).
 * Room for a 1,000-character state and a few hints for the identity provider; without it, 20
 * parameters of 1,000 characters made a pushed request keep about 22 KB.
 */
export const MAX_KEPT_REQUEST_BYTES = 4096;
const utf8 = new TextEncoder();

/** RFC 7636 §4.2: a S256 challenge is the base64url SHA-256 of the verifier, 43 characters. */
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** RFC 7638: a JWK thumbprint (SHA-256, base64url). */
const JKT = /^[A-Za-z0-9_-]{43}$/;

export interface AuthorizationFlowDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  digests: Digests;
  hasher: SecretHasher;
  secrets: SecretBox;
  identityProvider: IdentityProvider;
  sessionTokens: SessionTokens;
  events: EventRecorder;
  /** DPoP at the pushed request binds the code to the proof's key (RFC 9449 §10.1). */
  dpop: Dpop;
  /** Verifies client attestations at the pushed request. */
  jwtProofs: JwtProofVerifier;
  /** The tenant's trusted wallet providers: their wallet attestations authenticate wallets at the pushed request too. */
  walletProviderTrust?: WalletProviderTrust;
  /**
   * Told why a tenant's identity provider failed, for the operator's log: the wallet hears only
   * `temporarily_unavailable` when the provider cannot be used, since where it is and why it failed
   * describe the tenant's configuration.
   */
  onProviderFailure?: (report: ProviderFailureReport) => void;
  /** Limits pushed requests per wallet client and source IP (docs/limits.md); none without it. */
  parLimiter?: ParLimiter;
}

/** What the wallet is told when the tenant's identity provider cannot be used: no host, address or reason. */
export const PROVIDER_UNAVAILABLE_DESCRIPTION = 'Sign-in is temporarily unavailable; try again later';

/** Where to send the browser (a 303 See Other). */
export interface Redirect {
  location: string;
}

/** Query or form fields as received: a name may come more than once (then it is an array). */
export type RequestFields = Readonly<Record<string, unknown>>;

export interface AuthorizationFlow {
  /**
   * `POST /v1/oauth/par` (RFC 9126): checks the request as the authorization endpoint would and
   * keeps it, for `request_uri`. A confidential client authenticates (`authorization` is the HTTP
   * Authorization header). Failures are 400 (401 for the client) DomainErrors with the OAuth `error`.
   */
  pushAuthorizationRequest(
    ctx: RequestContext,
    form: RequestFields,
    authorization: string | undefined,
    basePath?: string,
    proofs?: TokenRequestProofs,
  ): Promise<{ request_uri: string; expires_in: number }>;
  /**
   * `GET /v1/oauth/authorize`: a redirect to the identity provider, or back to the wallet with an
   * error once its client and redirect URI are known. Before that, a 400 DomainError.
   */
  authorize(ctx: RequestContext, query: RequestFields, basePath?: string): Promise<Redirect>;
  /** `GET /v1/oauth/authentication/callback`: the identity provider's answer; on to the hook, or back to the wallet. */
  authenticationCallback(ctx: RequestContext, query: RequestFields, basePath?: string): Promise<Redirect>;
  /** `GET /v1/oauth/interaction/callback`: the interaction hook's answer; back to the wallet with a code. */
  interactionCallback(ctx: RequestContext, query: RequestFields, basePath?: string): Promise<Redirect>;
}

/** An error to tell the wallet at its redirect URI (RFC 6749 §4.1.2.1), carried through the events. */
class WalletRedirectError extends DomainError {
  readonly location: string;
  constructor(location: string, error: OAuthErrorCode, description: string) {
    super('BadRequest', description, { oauthError: error });
    this.location = location;
  }
}

/** A checked authorization request, before anything is stored. */
interface CheckedRequest {
  client: WalletClient;
  redirectUri: string;
  state?: string;
  codeChallenge: string;
  configurations: CredentialConfiguration[];
  byAuthorizationDetails: boolean;
  offerId?: string;
  offerParameters: Record<string, unknown>;
  /** What the offer asks of the wallet (the pushed request checks its wallet attestation). */
  offerRequirements?: Pick<OfferRecord, 'walletRequirements'>;
  dpopJkt?: string;
  forwarded: Record<string, string>;
}

/** Appends query parameters to a redirect URI that may already carry some (RFC 6749 §3.1.2). */
function withQuery(uri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.append(name, value);
  return url.toString();
}

/** The Authorization Code flow up to the code. */
export function createAuthorizationFlow(deps: AuthorizationFlowDeps): AuthorizationFlow {
  const { store, clock, ids, digests, secrets, identityProvider, sessionTokens, events } = deps;

  const handleDigest = (handle: string) => digests.sha256(handle);
  const isoIn = (seconds: number) => new Date(clock.now().getTime() + seconds * 1000).toISOString();

  /** The wallet's redirect with an error (RFC 6749 §4.1.2.1, RFC 9207 `iss`). */
  function toWallet(redirectUri: string, issuer: string, state: string | undefined, error: OAuthErrorCode, description: string): WalletRedirectError {
    return new WalletRedirectError(withQuery(redirectUri, { error, error_description: description, state, iss: issuer }), error, description);
  }

  /** The registered client a request names; a request without one, or for an unknown one, cannot be answered at a redirect URI. */
  async function clientOf(ctx: RequestContext, clientId: string | undefined): Promise<WalletClient> {
    if (clientId === undefined) throw invalidRequest('client_id is required');
    // Ids that cannot be a wallet client's are answered before the store is asked.
    if (!isWalletClientId(clientId)) throw oauthError('invalid_client', 'Unknown client_id: register the wallet client first');
    const client = await store.walletClients.get(ctx.tenant.id, clientId);
    if (!client) throw oauthError('invalid_client', 'Unknown client_id: register the wallet client first');
    if (!client.grantTypes.includes('authorization_code'))
      throw oauthError('unauthorized_client', 'This client is not registered for the authorization_code grant');
    return client;
  }

  /** The configurations a `scope` names (`<format>:<type>`, OpenID4VCI 1.0 §6.2); values naming none are ignored (RFC 6749 §3.3). */
  function configurationsByScope(all: CredentialConfiguration[], scope: string): CredentialConfiguration[] {
    const wanted = new Set(scope.split(' ').filter(Boolean));
    return all.filter((c) => wanted.has(scopeOf(c)));
  }

  /**
   * Checks an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, OpenID4VCI 1.0 §5.1). Problems
   * with the client or redirect URI throw a plain DomainError; later ones throw a WalletRedirectError.
   */
  async function checkRequest(ctx: RequestContext, fields: RequestFields, issuer: string): Promise<CheckedRequest> {
    const clientId = field(fields, 'client_id');
    const client = await clientOf(ctx, clientId);
    const redirectUri = field(fields, 'redirect_uri');
    if (redirectUri === undefined) throw invalidRequest('redirect_uri is required');
    // Exact comparison with a registered URI (RFC 9700 §4.1.3): nothing is normalised.
    if (!client.redirectUris.includes(redirectUri)) throw invalidRequest('redirect_uri is not one of the redirect URIs registered for this client');

    // From here the wallet can be told at its redirect URI.
    // A malformed state (sent twice, say) cannot be echoed back: the wallet is told so at its
    // redirect URI, without a state, rather than with a 400 page it never sees.
    let state: string | undefined;
    let stateMalformed = false;
    try {
      state = field(fields, 'state');
    } catch {
      stateMalformed = true;
    }
    const refuse = (error: OAuthErrorCode, description: string) => toWallet(redirectUri, issuer, state, error, description);
    if (stateMalformed) throw refuse('invalid_request', 'state must be given once, as text');
    const read = (name: (typeof REQUEST_PARAMETERS)[number]) => {
      try {
        return field(fields, name);
      } catch (error) {
        throw refuse('invalid_request', isDomainError(error) ? error.message : `${name} is malformed`);
      }
    };
    if (state !== undefined && state.length > 1000) throw refuse('invalid_request', 'state is longer than 1000 characters');
    const responseType = read('response_type');
    if (responseType !== 'code') throw refuse('unsupported_response_type', 'response_type must be code');
    const method = read('code_challenge_method');
    const challenge = read('code_challenge');
    if (challenge === undefined) throw refuse('invalid_request', 'code_challenge is required (PKCE, RFC 7636)');
    if (method !== 'S256') throw refuse('invalid_request', 'code_challenge_method must be S256');
    if (!CODE_CHALLENGE.test(challenge)) throw refuse('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)');
    const dpopJkt = read('dpop_jkt');
    if (dpopJkt !== undefined && !JKT.test(dpopJkt)) throw refuse('invalid_request', 'dpop_jkt must be a base64url SHA-256 JWK thumbprint');

    // What is asked for: authorization_details, or scope (OpenID4VCI 1.0 §5.1.1, §5.1.2).
    let requestedIds: string[] | undefined;
    try {
      requestedIds = requestedConfigurations(fields);
    } catch (error) {
      throw refuse('invalid_authorization_details', isDomainError(error) ? error.message : 'authorization_details is malformed');
    }
    const scope = read('scope');
    if (scope !== undefined && scope.length > 2000) throw refuse('invalid_scope', 'scope is longer than 2000 characters');
    if (requestedIds === undefined && scope === undefined) throw refuse('invalid_request', 'scope or authorization_details is required: name the credentials');
    const all = await store.credentialConfigurations.listAll(ctx.tenant.id);
    let configurations: CredentialConfiguration[];
    if (requestedIds !== undefined) {
      const byId = new Map(all.map((c) => [c.id, c]));
      const unknown = requestedIds.find((id) => !byId.has(id));
      if (unknown !== undefined) throw refuse('invalid_authorization_details', `No credential configuration ${unknown}`);
      configurations = requestedIds.map((id) => byId.get(id) as CredentialConfiguration);
    } else {
      configurations = configurationsByScope(all, scope as string);
      if (configurations.length === 0)
        throw refuse('invalid_scope', 'The scope names no credential this issuer offers (scopes are <format>:<type>, see scopes_supported)');
    }

    // issuer_state ties the request to an Authorization Code offer (OpenID4VCI 1.0 §4.1.1).
    let offerId: string | undefined;
    let offerParameters: Record<string, unknown> = {};
    let offerRequirements: CheckedRequest['offerRequirements'];
    const issuerState = read('issuer_state');
    if (issuerState !== undefined) {
      const offer = isOfferCode(issuerState) ? await store.offers.findByCodeDigest(ctx.tenant.id, digests.sha256(issuerState)) : undefined;
      if (!offer || offer.kind !== 'authorization-code' || offerState(offer, clock.now()) !== 'open') {
        throw refuse('invalid_request', 'issuer_state names no open credential offer');
      }
      const outside = configurations.find((c) => !offer.configurationIds.includes(c.id));
      if (outside !== undefined) throw refuse('invalid_scope', `The offer does not include ${scopeOf(outside)}`);
      offerId = offer.id;
      offerParameters = offer.requestParameters ?? {};
      if (offer.walletRequirements) offerRequirements = { walletRequirements: offer.walletRequirements };
    }

    // Parameters for the identity provider: the offer's request_parameters, then the wallet's own.
    const forwarded: Record<string, string> = {};
    for (const [name, value] of Object.entries(offerParameters)) {
      if (typeof value === 'string' && FORWARDABLE.test(name) && value.length <= 1000) forwarded[name] = value;
    }
    for (const [name, value] of Object.entries(fields)) {
      if ((REQUEST_PARAMETERS as readonly string[]).includes(name) || name === 'request_uri' || !FORWARDABLE.test(name)) continue;
      if (typeof value === 'string' && value.length <= 1000) forwarded[name] = value;
    }
    if (Object.keys(forwarded).length > MAX_FORWARDED) throw refuse('invalid_request', `At most ${MAX_FORWARDED} extra request parameters`);
    // Bounded in bytes too, before anything is stored: the count alone let one request keep 22 KB.
    const kept = utf8.encode(state ?? '').length + utf8.encode(JSON.stringify(forwarded)).length;
    if (kept > MAX_KEPT_REQUEST_BYTES) {
      throw refuse('invalid_request', `state and the extra request parameters take ${kept} bytes; at most ${MAX_KEPT_REQUEST_BYTES} are kept`);
    }

    return {
      client,
      redirectUri,
      ...(state !== undefined ? { state } : {}),
      codeChallenge: challenge,
      configurations,
      byAuthorizationDetails: requestedIds !== undefined,
      ...(offerId !== undefined ? { offerId } : {}),
      offerParameters,
      ...(offerRequirements ? { offerRequirements } : {}),
      ...(dpopJkt !== undefined ? { dpopJkt } : {}),
      forwarded,
    };
  }

  function recordOf(ctx: RequestContext, issuer: string, checked: CheckedRequest): AuthorizationRecord {
    return {
      id: ids.uuid(),
      tenantId: ctx.tenant.id,
      issuer,
      clientId: checked.client.clientId,
      redirectUri: checked.redirectUri,
      ...(checked.state !== undefined ? { state: checked.state } : {}),
      codeChallenge: checked.codeChallenge,
      configurationIds: checked.configurations.map((c) => c.id),
      byAuthorizationDetails: checked.byAuthorizationDetails,
      ...(checked.offerId !== undefined ? { offerId: checked.offerId } : {}),
      ...(checked.dpopJkt !== undefined ? { dpopJkt: checked.dpopJkt } : {}),
      forwardedParameters: checked.forwarded,
      stage: 'pushed',
      expiresAt: isoIn(PUSHED_REQUEST_TTL_SECONDS),
      issuedConfigurationIds: [],
      createdAt: clock.now().toISOString(),
    };
  }

  /** Tells the host why the tenant's provider failed; a throwing listener does not change the wallet's answer. */
  function report(ctx: RequestContext, step: ProviderFailureReport['step'], provider: ProviderSettings, failure: ProviderFailure): void {
    if (!deps.onProviderFailure) return;
    // Without a query, where a careless tenant might have put something that is not the log's to keep.
    const url = URL.parse(provider.url);
    const providerUrl = url ? `${url.origin}${url.pathname}` : '(not a URL)';
    try {
      deps.onProviderFailure({ tenantId: ctx.tenant.id, step, providerUrl, reason: failure.reason, unavailable: failure.unavailable === true });
    } catch {
      // The log is the host's; the sign-in answer stands without it.
    }
  }

  /** The tenant's identity provider with its secret opened, or undefined when it has none (or it cannot be opened). */
  async function providerOf(ctx: RequestContext): Promise<ProviderSettings | undefined> {
    const provider = await store.authenticationProviders.current(ctx.tenant.id);
    return provider && providerSettings(provider, secrets);
  }

  /** A fresh sign-in leg: the single-use state sent to the identity provider, the OIDC nonce and PKCE verifier, and the stage that holds them. */
  function signInLeg() {
    const handle = ids.token(32);
    const nonce = ids.token(32);
    const codeVerifier = ids.token(48);
    const stage = {
      stage: 'authenticating' as const,
      handleDigest: handleDigest(handle),
      expiresAt: isoIn(SIGN_IN_TTL_SECONDS),
      providerNonce: nonce,
      providerCodeVerifier: codeVerifier,
    };
    return { handle, nonce, codeVerifier, stage };
  }

  /** Where the identity provider signs the user in for `record`; a wallet redirect with the error when the tenant has no provider or it cannot be reached. */
  async function providerLocation(ctx: RequestContext, record: AuthorizationRecord, leg: ReturnType<typeof signInLeg>): Promise<string> {
    const issuer = record.issuer;
    const refuse = (error: OAuthErrorCode, description: string) => toWallet(record.redirectUri, issuer, record.state, error, description);
    const provider = await providerOf(ctx);
    if (!provider) throw refuse('server_error', 'The issuer has not set up sign-in (no authentication provider)');
    const extra: Record<string, string> = {};
    for (const name of provider.forwardedRequestParameters) {
      const value = record.forwardedParameters[name];
      if (value !== undefined) extra[name] = value;
    }
    const url = await identityProvider.authorizationUrl(provider, {
      redirectUri: `${issuer}${AUTHENTICATION_CALLBACK_PATH}`,
      state: leg.handle,
      nonce: leg.nonce,
      codeVerifier: leg.codeVerifier,
      extraParameters: extra,
    });
    if (!url.ok) {
      // Any failure here is the provider's or its configuration's, never the wallet's request.
      report(ctx, 'authorize', provider, url);
      throw refuse('temporarily_unavailable', PROVIDER_UNAVAILABLE_DESCRIPTION);
    }
    return url.url;
  }

  /** Sends the browser of a request made at the authorization endpoint on to the identity provider; the authorization is stored only then, at `authenticating`. */
  async function startSignIn(ctx: RequestContext, record: AuthorizationRecord): Promise<Redirect> {
    const leg = signInLeg();
    const location = await providerLocation(ctx, record, leg);
    await store.authorizations.insert({ ...record, ...leg.stage });
    return { location };
  }

  /**
   * Sends the browser of a pushed request on to the identity provider (RFC 9126 §4). The
   * `request_uri` is spent first, in one conditional write that moves the authorization from `pushed`
   * to `authenticating`, before the client, the provider or anything else is checked: of racing
   * attempts exactly one gets that far, and an attempt that then fails leaves it spent (the
   * authorization ends `failed`), so no `request_uri` is tried twice.
   */
  async function startPushedSignIn(ctx: RequestContext, query: RequestFields, requestUri: string): Promise<Redirect> {
    const unusable = () => invalidRequest('The request_uri is unknown, used, expired or pushed by another client');
    const handle = requestUri.startsWith(REQUEST_URI_PREFIX) ? requestUri.slice(REQUEST_URI_PREFIX.length) : '';
    const found = isOfferCode(handle) ? await store.authorizations.findByHandle(ctx.tenant.id, handleDigest(handle)) : undefined;
    if (found?.stage !== 'pushed') throw unusable();
    const leg = signInLeg();
    // `advance` refuses an expired handle as well as a used one.
    const record = await store.authorizations.advance(ctx.tenant.id, found.id, 'pushed', handleDigest(handle), clock.now().toISOString(), leg.stage);
    if (!record) throw unusable();
    try {
      // RFC 9126 §4: only the client that pushed the request may use it.
      const client = await clientOf(ctx, field(query, 'client_id'));
      if (record.clientId !== client.clientId) throw unusable();
      return { location: await providerLocation(ctx, record, leg) };
    } catch (error) {
      await close(ctx, record, leg.handle);
      throw error;
    }
  }

  /** Ends an authorization at its current stage: the handle is spent and the authorization is `failed` (expired at once, for the retention run). */
  async function close(ctx: RequestContext, record: AuthorizationRecord, handle: string): Promise<void> {
    const now = clock.now().toISOString();
    await store.authorizations.advance(ctx.tenant.id, record.id, record.stage, handleDigest(handle), now, { stage: 'failed', expiresAt: now });
  }

  /** The authorization a callback's single-use handle names, at the stage it must be at. */
  async function atStage(ctx: RequestContext, handle: string | undefined, stage: AuthorizationRecord['stage'], what: string): Promise<AuthorizationRecord> {
    const record = handle !== undefined && isOfferCode(handle) ? await store.authorizations.findByHandle(ctx.tenant.id, handleDigest(handle)) : undefined;
    if (!record || record.stage !== stage) throw invalidRequest(`The ${what} is unknown or has been used`);
    if (record.expiresAt <= clock.now().toISOString()) {
      throw toWallet(record.redirectUri, record.issuer, record.state, 'access_denied', `The ${what} has expired: start again`);
    }
    return record;
  }

  /** Ends a flow that failed after sign-in began: its handle is spent, and the wallet is told. */
  async function fail(ctx: RequestContext, record: AuthorizationRecord, handle: string, error: OAuthErrorCode, description: string): Promise<never> {
    await close(ctx, record, handle);
    throw toWallet(record.redirectUri, record.issuer, record.state, error, description);
  }

  /** The user the provider vouched for, found by subject or made; `claimsToPersist` are stored on them. */
  async function userFor(ctx: RequestContext, provider: ProviderSettings, subject: string, claims: Record<string, unknown>): Promise<UserRecord> {
    const now = clock.now().toISOString();
    const persisted = Object.fromEntries(provider.claimsToPersist.filter((n) => Object.hasOwn(claims, n)).map((n) => [n, claims[n]]));
    const found = (await store.users.list(ctx.tenant.id, { limit: 1 }, { subjectId: subject })).items[0];
    if (found) {
      if (Object.keys(persisted).length === 0) return found;
      return (await store.users.mergeClaims(ctx.tenant.id, found.id, persisted, now)) ?? found;
    }
    const user: UserRecord = {
      id: ids.uuid(),
      tenantId: ctx.tenant.id,
      claims: persisted,
      authenticationProvider: { url: provider.url, subjectId: subject },
      createdAt: now,
      updatedAt: now,
    };
    await store.users.insert(user);
    return user;
  }

  /** The tenant's interaction hook with its secret, when one is set and enabled. */
  async function hookOf(ctx: RequestContext) {
    const hook = openInteractionHook(await store.openIdSettings.get(ctx.tenant.id), secrets);
    return hook?.disabled ? undefined : hook;
  }

  /** Issues the code: the authorization moves to `code`, and the wallet gets it with `state` and `iss`. */
  async function issueCode(
    ctx: RequestContext,
    record: AuthorizationRecord,
    handle: string,
    change: { userId?: string; claims?: Record<string, unknown> },
  ): Promise<Redirect> {
    const code = ids.token(32);
    // Sealed at rest: kept for issuance only, and erased by the store once issued (docs/decisions.md "Claims at rest").
    const sealedClaims = change.claims && sealClaims(secrets, change.claims, authorizationClaimsContext(ctx.tenant.id, record.id));
    const moved = await store.authorizations.advance(ctx.tenant.id, record.id, record.stage, handleDigest(handle), clock.now().toISOString(), {
      stage: 'code',
      handleDigest: handleDigest(code),
      expiresAt: isoIn(AUTHORIZATION_CODE_TTL_SECONDS),
      ...(change.userId !== undefined ? { userId: change.userId } : {}),
      ...(sealedClaims !== undefined ? { sealedClaims } : {}),
    });
    if (!moved) throw invalidRequest('This step of the authorization has already been taken');
    return { location: withQuery(record.redirectUri, { code, state: record.state, iss: record.issuer }) };
  }

  /** Runs a browser step between its analytic events; a wallet redirect with an error is an answer, not a throw. */
  async function step(
    ctx: RequestContext,
    prefix: 'OPENID_AUTHORIZE' | 'OPENID_AUTHENTICATION_CALLBACK' | 'OPENID_INTERACTION_CALLBACK',
    input: unknown,
    work: () => Promise<Redirect>,
  ): Promise<Redirect> {
    try {
      return await withEvents(events, ctx, prefix, work, { input, response: () => ({ location: '***' }) });
    } catch (error) {
      if (error instanceof WalletRedirectError) return { location: error.location };
      throw error;
    }
  }

  return {
    async pushAuthorizationRequest(ctx, form, authorization, basePath, proofs) {
      const recorded = <T>(work: () => Promise<T>) =>
        withEvents(events, ctx, 'OPENID_PUSHED_AUTHORIZATION', work, { input: form, response: () => ({ request_uri: '***' }) });
      const { named, refused } = await countPushedRequest(ctx, form, authorization, proofs);
      if (refused) {
        // Past the limit only the window's first refusal is recorded, so that a flood records no
        // more events than the limit lets requests through (docs/limits.md).
        if (refused.first) return recorded(() => Promise.reject(refused.error));
        throw refused.error;
      }
      return recorded(async () => {
        const issuer = issuerOf(ctx, basePath);
        if (field(form, 'request_uri') !== undefined) throw invalidRequest('A pushed request cannot itself carry request_uri (RFC 9126 section 2.1)');
        const { dpop, attested } = await authenticateClient(ctx, form, authorization, issuer, proofs, named);
        let checked: CheckedRequest;
        try {
          checked = await checkRequest(ctx, form, issuer);
        } catch (error) {
          // RFC 9126 §2.3: the pushed request's errors are answered directly, never by redirect.
          if (error instanceof WalletRedirectError) throw oauthError(error.oauthError ?? 'invalid_request', error.message);
          throw error;
        }
        // The pushed request authenticates the client (RFC 9126 §2): where the offer or a configuration
        // requires a wallet attestation, it is required here already. DPoP is left to the token
        // request, where RFC 9449 requires it; a proof sent here binds the code all the same.
        if (!attested && walletRequirementsOf(checked.offerRequirements, checked.configurations).walletAttestation)
          throw notAttested(WALLET_ATTESTATION_REQUIRED);
        // RFC 9449 §10.1: a proof at the pushed request binds the code to its key, as dpop_jkt does.
        if (dpop) {
          if (checked.dpopJkt !== undefined && checked.dpopJkt !== dpop.jkt)
            throw oauthError('invalid_dpop_proof', "dpop_jkt is not the thumbprint of the DPoP proof's key");
          checked = { ...checked, dpopJkt: dpop.jkt };
        }
        const handle = ids.token(32);
        await store.authorizations.insert({ ...recordOf(ctx, issuer, checked), handleDigest: handleDigest(handle) });
        return { request_uri: `${REQUEST_URI_PREFIX}${handle}`, expires_in: PUSHED_REQUEST_TTL_SECONDS };
      });
    },

    authorize(ctx, query, basePath) {
      return step(ctx, 'OPENID_AUTHORIZE', query.request_uri === undefined ? query : { ...query, request_uri: '***' }, async () => {
        const issuer = issuerOf(ctx, basePath);
        const requestUri = field(query, 'request_uri');
        if (requestUri !== undefined) return startPushedSignIn(ctx, query, requestUri);
        const checked = await checkRequest(ctx, query, issuer);
        return startSignIn(ctx, recordOf(ctx, issuer, checked));
      });
    },

    authenticationCallback(ctx, query) {
      return step(ctx, 'OPENID_AUTHENTICATION_CALLBACK', { ...query, code: '***', state: '***' }, async () => {
        const handle = field(query, 'state');
        const record = await atStage(ctx, handle, 'authenticating', 'sign-in state');
        const spent = handle as string;
        const providerError = field(query, 'error');
        if (providerError !== undefined) {
          // The user said no, or the provider could not sign them in (OpenID Connect Core §3.1.2.6).
          return fail(ctx, record, spent, 'access_denied', `Sign-in failed at the identity provider (${providerError.slice(0, 100)})`);
        }
        const code = field(query, 'code');
        if (code === undefined) return fail(ctx, record, spent, 'access_denied', 'The identity provider returned no code');
        const provider = await providerOf(ctx);
        if (!provider) return fail(ctx, record, spent, 'server_error', 'The authentication provider of the issuer was removed during sign-in');
        const exchanged = await identityProvider.exchangeCode(provider, {
          code,
          redirectUri: `${record.issuer}${AUTHENTICATION_CALLBACK_PATH}`,
          codeVerifier: record.providerCodeVerifier ?? '',
          nonce: record.providerNonce ?? '',
        });
        if (!exchanged.ok) {
          report(ctx, 'callback', provider, exchanged);
          if (exchanged.unavailable) return fail(ctx, record, spent, 'temporarily_unavailable', PROVIDER_UNAVAILABLE_DESCRIPTION);
          return fail(ctx, record, spent, 'access_denied', `Sign-in could not be verified: ${exchanged.reason}`);
        }
        const user = await userFor(ctx, provider, exchanged.subject, exchanged.claims);

        const hook = await hookOf(ctx);
        if (!hook) return issueCode(ctx, record, spent, { userId: user.id });
        // On to the interaction hook, with a fresh single-use state inside an HS256 session token.
        const next = ids.token(32);
        const moved = await store.authorizations.advance(ctx.tenant.id, record.id, 'authenticating', handleDigest(spent), clock.now().toISOString(), {
          stage: 'interaction',
          handleDigest: handleDigest(next),
          expiresAt: isoIn(hook.sessionTimeoutInSec),
          userId: user.id,
        });
        if (!moved) throw invalidRequest('This sign-in has already been completed');
        const known = { ...exchanged.claims, ...user.claims };
        const shared = Object.fromEntries(hook.claims.filter((n) => Object.hasOwn(known, n)).map((n) => [n, known[n]]));
        const token = await sessionTokens.sign(
          hook.secret,
          {
            iss: record.issuer,
            aud: hook.url,
            sub: user.id,
            state: next,
            redirectUrl: `${record.issuer}${INTERACTION_CALLBACK_PATH}`,
            authenticationProvider: { url: provider.url, subjectId: exchanged.subject },
            claims: shared,
          },
          hook.sessionTimeoutInSec,
        );
        return { location: withQuery(hook.url, { session_token: token }) };
      });
    },

    interactionCallback(ctx, query) {
      return step(ctx, 'OPENID_INTERACTION_CALLBACK', { session_token: '***' }, async () => {
        const token = field(query, 'session_token');
        if (token === undefined) throw invalidRequest('session_token is required');
        if (token.length > 16_000) throw invalidRequest('session_token is too long');
        // A hook disabled since the browser was sent to it still gets its answer in.
        const secret = openInteractionHook(await store.openIdSettings.get(ctx.tenant.id), secrets)?.secret;
        const claims = secret === undefined ? undefined : await sessionTokens.verify(secret, token);
        if (!claims) throw invalidRequest('The session_token is not valid: it must be signed with the secret of the interaction hook (HS256) and unexpired');
        const handle = typeof claims.state === 'string' ? claims.state : undefined;
        const record = await atStage(ctx, handle, 'interaction', 'session state');
        const spent = handle as string;
        // The hook may refuse the user (an OAuth error code in `error`).
        if (claims.error !== undefined) {
          const description = typeof claims.error_description === 'string' ? claims.error_description.slice(0, 300) : 'The issuer declined the request';
          return fail(ctx, record, spent, 'access_denied', description);
        }
        const added = claims.claims === undefined ? {} : claims.claims;
        const problems = claimProblems(added, 'claims');
        if (problems.length > 0) return fail(ctx, record, spent, 'server_error', 'The interaction hook returned claims Vellum cannot use');
        return issueCode(ctx, record, spent, { claims: added as Record<string, unknown> });
      });
    },
  };

  /** What a pushed request presents to authenticate its client (RFC 6749 §2.3; the attested client when it sends no `client_id`). */
  function presentedClient(form: RequestFields, authorization: string | undefined, proofs: TokenRequestProofs | undefined): ClientCredentials {
    const clientId = field(form, 'client_id') ?? attestedClientId(proofs?.attestation);
    const clientSecret = field(form, 'client_secret');
    return clientCredentials({
      ...(clientId !== undefined ? { clientId } : {}),
      ...(authorization !== undefined ? { authorization } : {}),
      ...(clientSecret !== undefined ? { clientSecret } : {}),
    });
  }

  /**
   * Finds the registered client a pushed request names and counts the request against the limit,
   * before its events and before a secret is hashed, a proof's `jti` recorded or the request read
   * (docs/limits.md). A request that names no registered client, or whose credentials cannot be
   * read, is not counted and writes nothing here: `named` is then undefined, and authenticateClient
   * refuses it within the events.
   */
  async function countPushedRequest(
    ctx: RequestContext,
    form: RequestFields,
    authorization: string | undefined,
    proofs: TokenRequestProofs | undefined,
  ): Promise<{ named?: WalletClient; refused?: ParRefusal }> {
    let credentials: ClientCredentials;
    try {
      credentials = presentedClient(form, authorization, proofs);
    } catch {
      return {};
    }
    const named = await findNamedClient({ store }, ctx.tenant.id, credentials);
    if (!named) return {};
    const refused = await deps.parLimiter?.attempt(ctx.tenant.id, named.clientId, ctx.ip);
    return refused ? { named, refused } : { named };
  }

  /**
   * Client authentication at the pushed request (RFC 9126 §2), against `named` (countPushedRequest),
   * then its DPoP proof, which it returns.
   */
  async function authenticateClient(
    ctx: RequestContext,
    form: RequestFields,
    authorization: string | undefined,
    issuer: string,
    proofs: TokenRequestProofs | undefined,
    named: WalletClient | undefined,
  ): Promise<{ dpop: VerifiedDpopProof | undefined; attested: AttestedInstance | undefined }> {
    const credentials = presentedClient(form, authorization, proofs);
    const client = await checkClientCredentials(deps.hasher, credentials, named);
    const dpop = await deps.dpop.check(ctx, proofs?.dpop, { method: 'POST', url: `${issuer}${ISSUER_PATHS.par}`, endpoint: 'token' });
    // An attested client is attested here too (RFC 9126 §2: the pushed request authenticates the client);
    // so is a wallet whose provider the tenant trusts (docs/dpop-and-attestation.md "Wallet requirements").
    const { origin, host } = new URL(issuer);
    const attested = await attestationOf(
      { store, clock, digests: deps.digests, verifier: deps.jwtProofs },
      deps.walletProviderTrust,
      client,
      proofs?.attestation,
      { tenantId: ctx.tenant.id, audiences: [issuer, `${issuer}${ISSUER_PATHS.par}`, origin, host], dpop },
      client.clientId,
    );
    return { dpop, attested };
  }
}
