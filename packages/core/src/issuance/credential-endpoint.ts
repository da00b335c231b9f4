// POST /v1/openid/credential and POST /v1/openid/notification (OpenID4VCI 1.0 §8,
// §11; docs/decisions.md "The credential endpoint"): the wallet proves possession of its key and receives the credential.

import type { ClaimSourceClient } from '../claim-sources/fetch.ts';
import type { ClaimSubject } from '../configurations/claims.ts';
import type { CredentialConfiguration } from '../configurations/model.ts';
import type { CredentialIssuance } from '../credential-formats/issuance.ts';
import type { FormatRegistry } from '../credential-formats/port.ts';
import type { EventRecorder } from '../events/recorder.ts';
import { ISSUER_PATHS, LIVE_ISSUANCE_FEATURES } from '../metadata/issuer-metadata.ts';
import type { Dpop } from '../oauth/dpop.ts';
import type { AuthorizationRecord } from '../oauth/authorization-model.ts';
import type { OfferRecord } from '../offers/model.ts';
import type { UserRecord } from '../users/model.ts';
import type { JwtProofVerifier } from '../oauth/jwt-proofs.ts';
import { issuerOf } from '../metadata/service.ts';
import type { NonceCodec, NonceRecord, WalletAccessClaims, WalletTokens } from '../oauth/ports.ts';
import type { Store } from '../ports.ts';
import type { PublicJwk } from '../keys/model.ts';
import type { Clock, CredentialIssuedEvent, DomainEventSink, Ids, SecretBox } from '../shared/ports.ts';
import { authorizationClaimsContext, offerClaimsContext, openClaims } from '../shared/sealed-claims.ts';
import type { CredentialEncryption, ProofVerifier } from './ports.ts';
import { DomainError, isDomainError } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { CREDENTIAL_PROFILES, type IssuedCredentialRecord, NOTIFICATION_EVENTS, type NotificationEvent } from './model.ts';
import { checkKeyAttestation, keyAttestationRules } from './key-attestation.ts';
import type { WalletProviderTrust } from '../wallet-providers/trust.ts';
import { checkProofClaims } from './proof-rules.ts';
import { type CredentialRequest, parseCredentialRequest, refusal } from './request.ts';
import { authenticateWallet, mediaType, parseJsonBody, readCredentialRequestBody, type WalletRequest } from './wallet-request.ts';

export interface CredentialEndpointDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  walletTokens: Pick<WalletTokens, 'verify'>;
  /** DPoP-bound access tokens are checked with their proofs (RFC 9449 §7). */
  dpop: Dpop;
  proofs: ProofVerifier;
  /** Verifies key attestations in key proofs (OpenID4VCI 1.0 App. D). */
  jwtProofs: JwtProofVerifier;
  /**
   * The tenant's wallet providers trusted for key attestations: they vouch for a key attestation a
   * configuration or offer requires without roots of its own. Without it, only configured roots do.
   */
  walletProviderTrust?: WalletProviderTrust;
  /** Opens the self-authenticating nonces the nonce endpoint minted. */
  nonces: NonceCodec;
  encryption: CredentialEncryption;
  /** Issues the credential in its configuration's format. */
  issuance: CredentialIssuance;
  /** The format handlers: what each format's key proof may use, and what its legacy request names. */
  formats: FormatRegistry;
  /** Asks configurations' claim sources for claims at issuance (docs/authentication.md); without it, claim sources are not called. */
  claimSources?: ClaimSourceClient;
  /** Opens the claims offers and authorizations keep sealed (docs/decisions.md "Claims at rest"). */
  secrets: SecretBox;
  /** Takes the `OpenIdCredentialIssued` event inside the transaction that records the credential (the webhook outbox). */
  domainEvents: DomainEventSink;
  events: EventRecorder;
  /**
   * Whether plain (`application/json`) requests are refused: the metadata's
   * `credential_request_encryption.encryption_required` (OpenID4VCI 1.0 §8.2); by default what the
   * live features publish.
   */
  requestEncryptionRequired?: boolean;
}

/** What the credential endpoint answers: a JSON text, or a JWE when the wallet asked for encryption. */
export interface CredentialEndpointResponse {
  contentType: 'application/json' | 'application/jwt';
  body: string;
  /** Protocol headers to send as well: `Deprecation` and `Sunset` on legacy answers. */
  headers: Record<string, string>;
}

export interface CredentialEndpoint {
  /** Issues one credential for a verified access token and key proof (OpenID4VCI 1.0 §8). */
  issue(ctx: RequestContext, request: WalletRequest): Promise<CredentialEndpointResponse>;
  /** Records what the wallet did with a credential it received (OpenID4VCI 1.0 §11); 204 on success. */
  notify(ctx: RequestContext, request: WalletRequest): Promise<void>;
}

/**
 * OpenID4VCI draft 13: the legacy request and response end on 2 May 2026. RFC 9745 §2.1 writes the
 * Deprecation date as an RFC 9651 Date (`@` and Unix seconds); RFC 8594 §3 writes Sunset as an HTTP-date.
 */
export const LEGACY_DEPRECATION_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  deprecation: `@${Date.UTC(2026, 4, 2) / 1000}`,
  sunset: new Date(Date.UTC(2026, 4, 2)).toUTCString(),
});

/** OpenID4VCI 1.0 §11.1: `event_description` is printable ASCII without `"` and `\`. */
const EVENT_DESCRIPTION = /^[\x20\x21\x23-\x5B\x5D-\x7E]{1,1000}$/;

/** What a finished (or failed) operation tells its analytic events: level 2 keeps `meta`, level 3 the payloads. */
interface Described {
  meta?: Record<string, unknown>;
  request?: unknown;
  response?: unknown;
}

const denied = (message: string) => refusal('credential_request_denied', message);

/** The one answer for a nonce that is not ours, not this tenant's, expired or used. */
const nonceRefused = () => refusal('invalid_nonce', 'The nonce of the proof is unknown, used or expired: fetch a new one from the nonce endpoint');

/** A token issues one credential per configuration it grants; a second request for one is refused for good. */
const alreadyIssued = (configurationId: string) =>
  denied(`This access token has already issued its credential of configuration ${configurationId}: redeem a new offer for another`);

/** A refusal of the core's issuance rules (no claims, already expired, no IACA), in OAuth terms. */
function asDenied(error: unknown): unknown {
  if (!isDomainError(error) || error.code !== 'BadRequest' || error.oauthError !== undefined) return error;
  return new DomainError('BadRequest', error.message, {
    oauthError: 'credential_request_denied',
    ...(error.details ? { details: error.details } : {}),
    cause: error,
  });
}

/** The error code a failure leaves in its analytic event: the OAuth one when it has one. */
const failureCode = (error: unknown) => (isDomainError(error) ? (error.oauthError ?? error.code) : 'InternalServerError');

/** The credential endpoint and its notification endpoint over the core's ports. */
export function createCredentialEndpoint(deps: CredentialEndpointDeps): CredentialEndpoint {
  const { store, clock, ids, walletTokens, proofs, jwtProofs, nonces, encryption, issuance, formats, domainEvents, events, claimSources, secrets } = deps;
  const auth = { walletTokens, dpop: deps.dpop };
  const requestEncryptionRequired = deps.requestEncryptionRequired ?? LIVE_ISSUANCE_FEATURES.credentialRequestEncryption?.encryption_required === true;

  /** The configuration a request asks for, which the token must grant. */
  async function configurationFor(ctx: RequestContext, token: WalletAccessClaims, request: CredentialRequest): Promise<CredentialConfiguration> {
    const notGranted = (what: string) => refusal('unknown_credential_configuration', `The access token does not grant ${what}`);
    // OpenID4VCI 1.0 §8.2: after a token response with credential_identifiers, requests name one of
    // them (here each is its configuration id), and never a credential_configuration_id.
    if (token.credentialIdentifiers === true) {
      const id = request.credentialIdentifier;
      if (id === undefined) {
        throw refusal(
          'invalid_credential_request',
          'The token response gave credential_identifiers: name one as credential_identifier',
          'credential_identifier',
        );
      }
      if (!token.configurationIds.includes(id))
        throw refusal('unknown_credential_identifier', `The access token gave no credential identifier ${id}`, 'credential_identifier');
      const configuration = await store.credentialConfigurations.get(ctx.tenant.id, id);
      if (!configuration)
        throw refusal('unknown_credential_identifier', `Credential identifier ${id} names a configuration that no longer exists`, 'credential_identifier');
      return configuration;
    }
    if (request.credentialIdentifier !== undefined) {
      throw refusal(
        'unknown_credential_identifier',
        'This access token came with no credential identifiers: request by credential_configuration_id',
        'credential_identifier',
      );
    }
    if (request.configurationId !== undefined) {
      const id = request.configurationId;
      if (!token.configurationIds.includes(id)) throw notGranted(`credential configuration ${id}`);
      const configuration = await store.credentialConfigurations.get(ctx.tenant.id, id);
      if (!configuration) throw refusal('unknown_credential_configuration', `Credential configuration ${id} no longer exists`);
      return configuration;
    }
    // A legacy request names a format and types: the configuration is the granted one that has them.
    const { format, types } = request.legacy as NonNullable<CredentialRequest['legacy']>;
    const granted = await Promise.all(token.configurationIds.map((id) => store.credentialConfigurations.get(ctx.tenant.id, id)));
    const matching = granted.filter(
      (c): c is CredentialConfiguration => c !== undefined && c.format === format && (types.length === 0 || types.includes(c.type)),
    );
    if (matching.length === 0) throw notGranted(`a ${format} credential${types.length > 0 ? ` of type ${types.join(', ')}` : ''}`);
    if (matching.length > 1)
      throw refusal('invalid_credential_request', `The access token grants several ${format} credentials: name the type, or use credential_configuration_id`);
    return matching[0] as CredentialConfiguration;
  }

  /**
   * The holder key of the request's proof, after every check but the single use of its nonce: that
   * is recorded with the issued credential, in one transaction (see `issue`). A configuration with
   * `holderBinding: false` binds no key: its metadata asks for no proof (OpenID4VCI 1.0 §6.3), and
   * one sent anyway is neither checked nor used (docs/decisions.md "Issuer display and unbound
   * credentials (issue 29)"); the token alone, good for one credential per configuration, guards it.
   */
  async function holderKeyOf(
    ctx: RequestContext,
    issuer: string,
    token: WalletAccessClaims,
    request: CredentialRequest,
    configuration: CredentialConfiguration,
  ): Promise<{ holderKey?: PublicJwk; nonce?: NonceRecord }> {
    if (configuration.holderBinding === false) return {};
    if (request.proofJwt === undefined) throw refusal('invalid_proof', 'A key proof is required: the credential is bound to a key of the wallet', 'proofs');
    // The format decides which keys it can bind (an mDoc's device key is P-256, so ES256 only).
    const algorithms = formats.of(configuration).proofAlgorithms;
    const verified = await proofs.verify(request.proofJwt, { algorithms });
    if (!verified.ok) throw refusal('invalid_proof', verified.reason);
    const now = clock.now();
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const { nonce } = checkProofClaims(verified.proof, { audience: issuer, now: nowSeconds, algorithms });
    const exp = verified.proof.payload.exp;
    if (exp !== undefined && (typeof exp !== 'number' || exp <= nowSeconds)) throw refusal('invalid_proof', 'The proof has expired');
    // Unknown, another tenant's or expired is decided by the nonce itself; only its single use needs the store.
    const opened = nonces.open(ctx.tenant.id, nonce);
    if (opened === undefined || opened.expiresAt.getTime() <= now.getTime()) throw nonceRefused();
    // A configuration or offer that requires key attestations binds only attested keys; others do
    // not read them. Both sets of levels must hold (docs/dpop-and-attestation.md "Wallet requirements").
    const rules = keyAttestationRules(jwtProofs, configuration.keyAttestationsRequired, token.keyAttestationsRequired, {
      tenantId: ctx.tenant.id,
      trust: deps.walletProviderTrust,
    });
    if (rules) {
      await checkKeyAttestation(jwtProofs, rules, {
        proofHeader: verified.proof.header,
        holderKey: verified.proof.holderKey,
        proofNonce: nonce,
        now,
      });
    }
    return { holderKey: verified.proof.holderKey, nonce: { tenantId: ctx.tenant.id, nonce, expiresAt: opened.expiresAt.toISOString() } };
  }

  /**
   * The user object claims are mapped from (docs/decisions.md "Credential configurations"): the user's persisted claims, overlaid with
   * the grant's (the offer's, or those the interaction hook gave during the authorization), and
   * with the configuration's claim source's answer, when it has one (a failure adds none).
   */
  async function subjectOf(
    ctx: RequestContext,
    token: WalletAccessClaims,
    configuration: CredentialConfiguration,
    nonce: NonceRecord | undefined,
  ): Promise<{ subject: ClaimSubject; userClaims: Record<string, unknown> }> {
    const byAuthorization = token.grant === 'authorization_code';
    // A Pre-authorized token's offer and user come in one read (one statement on SQL stores).
    let user: UserRecord | undefined;
    let grant: OfferRecord | AuthorizationRecord | undefined;
    if (byAuthorization)
      [user, grant] = await Promise.all([store.users.get(ctx.tenant.id, token.userId), store.authorizations.get(ctx.tenant.id, token.offerId)]);
    else ({ offer: grant, user } = await store.offers.getWithUser(ctx.tenant.id, token.offerId, token.userId));
    if (!user) throw denied('The user this access token was issued for no longer exists');
    if (!grant || ('status' in grant && grant.status === 'deleted'))
      throw denied(byAuthorization ? 'The authorization this access token was issued for is gone' : 'The offer this access token was issued for was deleted');
    // A repeat is refused before anything is issued: the grant's claims may be erased by now (its
    // token issued everything it grants). It is refused as the issuing transaction would refuse it,
    // a used nonce first, and, rolled back, uses nothing up.
    if (grant.issuedConfigurationIds?.includes(configuration.id)) {
      if (nonce === undefined) throw alreadyIssued(configuration.id);
      await store.transaction(async (tx) => {
        if (!(await tx.nonces.markUsed(nonce))) throw nonceRefused();
        throw alreadyIssued(configuration.id);
      });
    }
    const provider = user.authenticationProvider ? { authenticationProvider: user.authenticationProvider } : {};
    const context = byAuthorization ? authorizationClaimsContext(ctx.tenant.id, grant.id) : offerClaimsContext(ctx.tenant.id, grant.id);
    let claims = { ...user.claims, ...openClaims(secrets, grant.sealedClaims, context) };
    if (configuration.claimSourceId !== undefined && claimSources) {
      const source = await store.claimSources.get(ctx.tenant.id, configuration.claimSourceId);
      const fetched = source ? await claimSources.fetchClaims(source, { claims, ...provider }) : undefined;
      if (fetched?.ok) claims = { ...claims, ...fetched.claims };
    }
    return { subject: { claims, ...provider }, userClaims: user.claims };
  }

  async function issue(ctx: RequestContext, input: WalletRequest, described: Described): Promise<CredentialEndpointResponse> {
    const issuer = issuerOf(ctx, input.basePath);
    // The token first: a caller without one learns nothing about what a request must hold.
    const token = await authenticateWallet(auth, ctx, input, ISSUER_PATHS.credential);
    const { json, encrypted } = await readCredentialRequestBody(encryption, ctx, input);
    if (!encrypted && requestEncryptionRequired) {
      throw refusal(
        'invalid_encryption_parameters',
        'This issuer takes encrypted credential requests only (application/jwt, see credential_request_encryption)',
      );
    }
    described.request = json;
    const request = parseCredentialRequest(json, formats);
    if (encrypted && !request.responseEncryption) {
      throw refusal(
        'invalid_encryption_parameters',
        'An encrypted request must ask for an encrypted response (credential_response_encryption)',
        'credential_response_encryption',
      );
    }
    // OpenID4VCI 1.0 §8.2: a request that asks for an encrypted response is itself encrypted, so that
    // nobody can swap in their own key. The deprecated (draft 13) request had no request encryption.
    if (!encrypted && request.responseEncryption && request.form === 'current') {
      throw refusal(
        'invalid_encryption_parameters',
        'A request with credential_response_encryption must be encrypted (application/jwt)',
        'credential_response_encryption',
      );
    }
    const configuration = await configurationFor(ctx, token, request);
    // Before anything is issued: a key the response cannot be encrypted to fails now.
    let encrypter: ((plaintext: string) => Promise<string>) | undefined;
    if (request.responseEncryption) {
      const prepared = await encryption.responseEncrypter(request.responseEncryption);
      if (!prepared.ok) throw refusal('invalid_encryption_parameters', prepared.reason, 'credential_response_encryption.jwk');
      encrypter = prepared.encrypt;
    }
    // The proof before the claims: a wallet that cannot prove its key makes no claim source call.
    const { holderKey, nonce } = await holderKeyOf(ctx, issuer, token, request, configuration);
    const { subject, userClaims } = await subjectOf(ctx, token, configuration, nonce);
    const now = clock.now();
    const issued = await issuance
      .issue({ tenant: ctx.tenant, configuration, subject, ...(holderKey ? { holderKey } : {}), credentialIssuer: issuer, now, form: request.form })
      .catch((error: unknown) => {
        throw asDenied(error);
      });

    const record: IssuedCredentialRecord = {
      id: ids.uuid(),
      tenantId: ctx.tenant.id,
      format: configuration.format,
      credentialConfigurationId: configuration.id,
      userId: token.userId,
      offerId: token.offerId,
      issuedAt: now.toISOString(),
      validFrom: issued.validFrom,
      validUntil: issued.validUntil,
      status: 'valid',
      notificationId: ids.uuid(),
      ...(token.clientId === undefined ? {} : { clientId: token.clientId }),
      ...(token.clientInstanceId === undefined ? {} : { clientInstanceId: token.clientInstanceId }),
    };
    const body =
      request.form === 'current'
        ? { credentials: [{ credential: issued.credential }], notification_id: record.notificationId }
        : { credential: issued.credential, format: configuration.format, notification_id: record.notificationId };
    const text = JSON.stringify(body);
    const answer = encrypter ? await encrypter(text) : text;
    // Recorded, and told to webhooks, only once the answer is ready: both or neither.
    const event: CredentialIssuedEvent = {
      id: ids.uuid(),
      tenantId: ctx.tenant.id,
      type: 'OpenIdCredentialIssued',
      occurredAt: now.toISOString(),
      payload: {
        credential: issued.credential,
        credentialId: record.id,
        credentialConfigurationId: configuration.id,
        credentialProfile: CREDENTIAL_PROFILES[configuration.format],
        format: configuration.format,
        userId: token.userId,
        userClaims,
        ...(token.clientInstanceId === undefined ? {} : { clientInstanceId: token.clientInstanceId }),
      },
    };
    // The nonce is used up in the same transaction, one commit for all three: of requests racing
    // with one nonce exactly one commits, and the others are refused and leave nothing behind. The
    // offer the token was redeemed from records each configuration it has issued, in one
    // conditional write (a token comes from one offer, whose code works once): of racing requests
    // with one token for one configuration, one commits.
    await store.transaction(async (tx) => {
      // An unbound credential had no proof, so no nonce to use up.
      if (nonce !== undefined && !(await tx.nonces.markUsed(nonce))) throw nonceRefused();
      const grants = token.grant === 'authorization_code' ? tx.authorizations : tx.offers;
      // The token's last credential erases the grant's claims in the same write (docs/decisions.md "Claims at rest").
      if (!(await grants.markIssued(ctx.tenant.id, token.offerId, configuration.id, token.configurationIds.length))) throw alreadyIssued(configuration.id);
      await tx.issuedCredentials.insert(record);
      if (issued.statusEntry)
        await tx.statusLists.insertEntry({
          tenantId: ctx.tenant.id,
          ...issued.statusEntry,
          credentialId: record.id,
          status: 'valid',
          updatedAt: record.issuedAt,
        });
      await domainEvents.publish(tx, event);
    });
    described.response = encrypter ? { encrypted: true } : body;
    described.meta = {
      credentialId: record.id,
      credentialConfigurationId: configuration.id,
      format: configuration.format,
      requestForm: request.form,
      encryptedRequest: encrypted,
      encryptedResponse: encrypter !== undefined,
    };
    return {
      contentType: encrypter ? 'application/jwt' : 'application/json',
      body: answer,
      headers: request.form === 'legacy' ? { ...LEGACY_DEPRECATION_HEADERS } : {},
    };
  }

  async function notify(ctx: RequestContext, input: WalletRequest, described: Described): Promise<void> {
    const token = await authenticateWallet(auth, ctx, input, ISSUER_PATHS.notification);
    const type = mediaType(input.contentType);
    if (type !== undefined && type !== 'application/json') {
      throw new DomainError('UnsupportedMediaType', 'The notification endpoint takes application/json', { oauthError: 'invalid_notification_request' });
    }
    const body = parseJsonBody(input.body, 'invalid_notification_request');
    described.request = body;
    const bad = (message: string, param: string) => refusal('invalid_notification_request', message, param);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw bad('The notification must be a JSON object', 'body');
    const { notification_id: id, event, event_description: description } = body as Record<string, unknown>;
    if (typeof id !== 'string' || id.length === 0 || id.length > 200)
      throw bad('notification_id must be the string the credential response gave', 'notification_id');
    if (typeof event !== 'string' || !(NOTIFICATION_EVENTS as readonly string[]).includes(event))
      throw bad(`event must be one of ${NOTIFICATION_EVENTS.join(', ')}`, 'event');
    if (description !== undefined && (typeof description !== 'string' || !EVENT_DESCRIPTION.test(description))) {
      throw bad('event_description must be printable ASCII without double quotes or backslashes, at most 1000 characters', 'event_description');
    }
    const record = await store.issuedCredentials.findByNotificationId(ctx.tenant.id, id);
    // A notification id is good only with the access token of the flow that received it.
    if (!record || record.offerId !== token.offerId || record.userId !== token.userId) {
      throw refusal('invalid_notification_id', 'The notification_id names no credential issued under this access token', 'notification_id');
    }
    await store.issuedCredentials.recordNotification(ctx.tenant.id, record.id, {
      event: event as NotificationEvent,
      ...(description === undefined ? {} : { eventDescription: description as string }),
      receivedAt: clock.now().toISOString(),
    });
    described.meta = { credentialId: record.id, event };
  }

  /** Runs a wallet operation between its analytic events; personal data only at level 3. */
  async function recorded<T>(ctx: RequestContext, prefix: 'OPENID_CREDENTIAL' | 'OPENID_NOTIFICATION', work: (described: Described) => Promise<T>): Promise<T> {
    events.record(ctx, prefix, 'START');
    const described: Described = {};
    try {
      const result = await work(described);
      events.record(ctx, prefix, 'SUCCESS', {
        ...(described.meta ? { meta: described.meta } : {}),
        payload: { request: described.request ?? null, response: described.response ?? null },
      });
      return result;
    } catch (error) {
      events.record(ctx, prefix, 'FAIL', {
        meta: { errorCode: failureCode(error) },
        ...(described.request === undefined ? {} : { payload: { request: described.request } }),
      });
      throw error;
    }
  }

  return {
    issue: (ctx, input) => recorded(ctx, 'OPENID_CREDENTIAL', (d) => issue(ctx, input, d)),
    notify: (ctx, input) => recorded(ctx, 'OPENID_NOTIFICATION', (d) => notify(ctx, input, d)),
  };
}
