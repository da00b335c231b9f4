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
import type { Clock, CredentialIssuedEvent, Digests, DomainEventSink, Ids, SecretBox } from '../shared/ports.ts';
import { deferIssuance } from './deferred.ts';
import { authorizationClaimsContext, offerClaimsContext, openClaims } from '../shared/sealed-claims.ts';
import { type RefreshTokenRecord, refreshClaimsContext } from '../oauth/refresh-tokens.ts';
import type { CredentialEncryption, ProofVerifier } from './ports.ts';
import { DomainError, isDomainError } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { CREDENTIAL_PROFILES, type IssuedCredentialRecord, NOTIFICATION_EVENTS, type NotificationEvent } from './model.ts';
import {
  keyAttestationHeader,
  keyAttestationRules,
  type KeyAttestationRules,
  requireAttested,
  type VerifiedKeyAttestation,
  verifyKeyAttestation,
} from './key-attestation.ts';
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
  /** Digests of transaction_ids, for configurations that require review (docs/deferred-issuance.md). */
  digests?: Pick<Digests, 'sha256'>;
}

/** What the credential endpoint answers: a JSON text, or a JWE when the wallet asked for encryption. */
export interface CredentialEndpointResponse {
  /** 200, or 202 when the request was held for review (OpenID4VCI 1.0 §8.3; absent: 200). */
  status?: 200 | 202;
  contentType: 'application/json' | 'application/jwt';
  body: string;
  /** Protocol headers to send as well: `Deprecation` and `Sunset` on legacy answers. */
  headers: Record<string, string>;
}

export interface CredentialEndpoint {
  /** Issues a credential per proven key (a batch, up to the tenant's batch size) for a verified access token (OpenID4VCI 1.0 §8). */
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

/** More keys than the tenant's batch size (OpenID4VCI 1.0 §12.2.4): `invalid_proof`. */
const tooMany = (limit: number) =>
  refusal(
    'invalid_proof',
    limit === 1 ? 'This issuer takes one proof per request' : `This issuer takes at most ${limit} keys per request (batch_size)`,
    'proofs',
  );

/** What a request's proofs bind: a key per credential (none for an unbound configuration), and their one nonce. */
export interface HolderKeys {
  holderKeys: PublicJwk[];
  nonce?: NonceRecord;
}

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
   * The holder keys of the request's proofs, one credential each, after every check but the single
   * use of their nonce: that is recorded with the issued credentials, in one transaction (see
   * `issue`). A configuration with `holderBinding: false` binds no key: its metadata asks for no
   * proof (OpenID4VCI 1.0 §6.3), and one sent anyway is neither checked nor used (docs/decisions.md
   * "Issuer display and unbound credentials (issue 29)"); the token alone, good for one credential
   * per configuration, guards it. Up to the tenant's batch size of keys (OpenID4VCI 1.0 §12.2.4
   * `batch_credential_issuance`), never one key twice; every proof of a request carries the same
   * c_nonce, used once for them all (docs/decisions.md "Batch issuance and the attestation proof type (issue 30)").
   */
  async function holderKeysOf(
    ctx: RequestContext,
    issuer: string,
    token: WalletAccessClaims,
    request: CredentialRequest,
    configuration: CredentialConfiguration,
  ): Promise<HolderKeys> {
    if (configuration.holderBinding === false) return { holderKeys: [] };
    const sent = request.proofs;
    if (sent === undefined) throw refusal('invalid_proof', 'A key proof is required: the credential is bound to a key of the wallet', 'proofs');
    // The deprecated (draft 13) request had one proof and one credential: it stays so.
    const limit = request.form === 'legacy' ? 1 : (ctx.tenant.batchSize ?? 1);
    // A configuration or offer that requires key attestations binds only attested keys; others do
    // not read them. Both sets of levels must hold (docs/dpop-and-attestation.md "Wallet requirements").
    const rules = keyAttestationRules(jwtProofs, configuration.keyAttestationsRequired, token.keyAttestationsRequired, {
      tenantId: ctx.tenant.id,
      trust: deps.walletProviderTrust,
    });
    // The format decides which keys it can bind (an mDoc's device key is P-256, so ES256 only).
    const algorithms = formats.of(configuration).proofAlgorithms;
    const now = clock.now();
    const open = (nonce: string) => openedNonce(ctx, nonce, now);
    const { keys, nonce } =
      sent.type === 'attestation'
        ? await attestedKeysOf(sent.attestation, rules, algorithms, limit, now, open)
        : await provenKeysOf(sent.jwts, issuer, rules, algorithms, limit, now, open);
    if (keys.length > 1) {
      const seen = new Set<string | undefined>();
      for (const key of keys) {
        const thumbprint = jwtProofs.thumbprint(key);
        if (seen.has(thumbprint)) throw refusal('invalid_proof', 'Each proof of a request must be for a different key', 'proofs');
        seen.add(thumbprint);
      }
    }
    return { holderKeys: keys, nonce };
  }

  /** A c_nonce of this tenant's, unexpired; its single use is the issuing transaction's. */
  function openedNonce(ctx: RequestContext, nonce: string, now: Date): NonceRecord {
    // Unknown, another tenant's or expired is decided by the nonce itself; only its single use needs the store.
    const opened = nonces.open(ctx.tenant.id, nonce);
    if (opened === undefined || opened.expiresAt.getTime() <= now.getTime()) throw nonceRefused();
    return { tenantId: ctx.tenant.id, nonce, expiresAt: opened.expiresAt.toISOString() };
  }

  /** `jwt` proofs (OpenID4VCI 1.0 App. F.1): each verified and checked, all with one c_nonce; the key of each. */
  async function provenKeysOf(
    jwts: readonly string[],
    issuer: string,
    rules: KeyAttestationRules | undefined,
    algorithms: readonly string[],
    limit: number,
    now: Date,
    open: (nonce: string) => NonceRecord,
  ): Promise<{ keys: PublicJwk[]; nonce: NonceRecord }> {
    if (jwts.length > limit) throw tooMany(limit);
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const verified = await Promise.all(jwts.map((jwt) => proofs.verify(jwt, { algorithms })));
    const checked = verified.map((v) => {
      if (!v.ok) throw refusal('invalid_proof', v.reason);
      const { nonce } = checkProofClaims(v.proof, { audience: issuer, now: nowSeconds, algorithms });
      const exp = v.proof.payload.exp;
      if (exp !== undefined && (typeof exp !== 'number' || exp <= nowSeconds)) throw refusal('invalid_proof', 'The proof has expired');
      return { proof: v.proof, nonce };
    });
    const nonce = (checked[0] as (typeof checked)[number]).nonce;
    if (checked.some((c) => c.nonce !== nonce)) throw refusal('invalid_nonce', 'The proofs of one request must all carry the same c_nonce', 'proofs');
    const opened = open(nonce);
    // One attestation may vouch for the keys of several proofs (HAIP §4.5.1): checked once.
    if (rules) {
      const attestations = new Map<string, Promise<VerifiedKeyAttestation>>();
      for (const { proof } of checked) {
        const jwt = keyAttestationHeader(proof.header);
        let attestation = attestations.get(jwt);
        if (!attestation) {
          attestation = verifyKeyAttestation(jwt, { rules, use: 'jwt-proof', proofNonce: nonce, now });
          attestations.set(jwt, attestation);
        }
        requireAttested(jwtProofs, await attestation, proof.holderKey);
      }
    }
    return { keys: checked.map((c) => c.proof.holderKey), nonce: opened };
  }

  /**
   * An `attestation` proof (OpenID4VCI 1.0 App. F.3): one key attestation, its `nonce` a c_nonce of
   * ours, whose `attested_keys` are the keys, one credential each. With no proof of possession, the
   * wallet provider's word is all that binds them, so only a configuration that trusts providers
   * (one that requires key attestations) takes it.
   */
  async function attestedKeysOf(
    jwt: string,
    rules: KeyAttestationRules | undefined,
    algorithms: readonly string[],
    limit: number,
    now: Date,
    open: (nonce: string) => NonceRecord,
  ): Promise<{ keys: PublicJwk[]; nonce: NonceRecord }> {
    if (!rules) throw refusal('invalid_proof', 'This credential takes jwt proofs only: it requires no key attestations', 'proofs.attestation');
    const attestation = await verifyKeyAttestation(jwt, { rules, use: 'attestation-proof', now });
    if (attestation.attestedKeys.length > limit) throw tooMany(limit);
    const nonce = open(attestation.nonce as string);
    const keys = attestation.attestedKeys.map((jwk) => bindableKey(jwk, algorithms));
    return { keys, nonce };
  }

  /** An attested key as the key a credential is bound to: public, and one the format can bind. */
  function bindableKey(jwk: unknown, algorithms: readonly string[]): PublicJwk {
    const j = (jwk ?? {}) as Record<string, unknown>;
    const usable = jwtProofs.thumbprint(jwk) !== undefined && !('d' in j) && algorithms.includes(j.kty === 'EC' ? 'ES256' : 'EdDSA');
    if (!usable)
      throw refusal('invalid_proof', `Each attested key must be a public key this credential can bind (${algorithms.join(', ')})`, 'proofs.attestation');
    return j.kty === 'EC' ? { kty: 'EC', crv: 'P-256', x: j.x as string, y: j.y as string } : { kty: 'OKP', crv: 'Ed25519', x: j.x as string };
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
    // A refreshed token's grant is the refresh token issued with it (docs/refresh-tokens.md).
    const byRefresh = token.grant === 'refresh_token';
    // A Pre-authorized token's offer and user come in one read (one statement on SQL stores).
    let user: UserRecord | undefined;
    let grant: OfferRecord | AuthorizationRecord | RefreshTokenRecord | undefined;
    if (byAuthorization)
      [user, grant] = await Promise.all([store.users.get(ctx.tenant.id, token.userId), store.authorizations.get(ctx.tenant.id, token.offerId)]);
    else if (byRefresh)
      [user, grant] = await Promise.all([store.users.get(ctx.tenant.id, token.userId), store.refreshTokens.get(ctx.tenant.id, token.offerId)]);
    else ({ offer: grant, user } = await store.offers.getWithUser(ctx.tenant.id, token.offerId, token.userId));
    if (!user) throw denied('The user this access token was issued for no longer exists');
    if (byRefresh && (!grant || (grant as RefreshTokenRecord).revokedAt !== undefined))
      throw denied('The refresh token this access token was issued with was revoked');
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
    const context =
      'familyId' in grant
        ? refreshClaimsContext(ctx.tenant.id, grant.familyId)
        : byAuthorization
          ? authorizationClaimsContext(ctx.tenant.id, grant.id)
          : offerClaimsContext(ctx.tenant.id, grant.id);
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
    const { holderKeys, nonce } = await holderKeysOf(ctx, issuer, token, request, configuration);
    const { subject, userClaims } = await subjectOf(ctx, token, configuration, nonce);
    // A configuration that requires review holds the request instead (docs/deferred-issuance.md).
    if (configuration.deferred) {
      if (request.form !== 'current') throw denied('This credential is issued after review: send an OpenID4VCI 1.0 request (credential_configuration_id)');
      if (!deps.digests) throw new Error('Deferred issuance needs the digests port');
      const held = await deferIssuance(
        { store, clock, ids, digests: deps.digests, secrets, domainEvents },
        {
          ctx,
          token,
          configuration: { ...configuration, deferred: configuration.deferred },
          holderKeys,
          subject,
          userClaims,
          ...(nonce ? { nonce } : {}),
          ...(encrypter ? { encrypter } : {}),
        },
        { nonce: nonceRefused, alreadyIssued: () => alreadyIssued(configuration.id) },
      );
      described.response = encrypter ? { encrypted: true } : { deferred: true };
      described.meta = { deferredIssuanceId: held.record.id, credentialConfigurationId: configuration.id, format: configuration.format, deferred: true };
      return { status: 202, contentType: held.contentType, body: held.body, headers: {} };
    }
    const now = clock.now();
    // One credential per key, each issued on its own: its own salts, decoys, signature and status
    // entry, so that no two can be linked (OpenID4VCI 1.0 §3.3). An unbound credential is one.
    const bindings: Array<PublicJwk | undefined> = holderKeys.length > 0 ? holderKeys : [undefined];
    const issuedAll = await Promise.all(
      bindings.map((holderKey) =>
        issuance
          .issue({ tenant: ctx.tenant, configuration, subject, ...(holderKey ? { holderKey } : {}), credentialIssuer: issuer, now, form: request.form })
          .catch((error: unknown) => {
            throw asDenied(error);
          }),
      ),
    );

    // One notification id for the response: the wallet speaks of the batch as one (OpenID4VCI 1.0 §8.3, §11).
    const notificationId = ids.uuid();
    const records: IssuedCredentialRecord[] = issuedAll.map((issued) => ({
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
      notificationId,
      ...(token.clientId === undefined ? {} : { clientId: token.clientId }),
      ...(token.clientInstanceId === undefined ? {} : { clientInstanceId: token.clientInstanceId }),
    }));
    const first = issuedAll[0] as (typeof issuedAll)[number];
    const body =
      request.form === 'current'
        ? { credentials: issuedAll.map((issued) => ({ credential: issued.credential })), notification_id: notificationId }
        : { credential: first.credential, format: configuration.format, notification_id: notificationId };
    const text = JSON.stringify(body);
    const answer = encrypter ? await encrypter(text) : text;
    // Recorded, and told to webhooks, only once the answer is ready: all or none. One event per credential.
    const issuedEvents: CredentialIssuedEvent[] = issuedAll.map((issued, i) => ({
      id: ids.uuid(),
      tenantId: ctx.tenant.id,
      type: 'OpenIdCredentialIssued',
      occurredAt: now.toISOString(),
      payload: {
        credential: issued.credential,
        credentialId: (records[i] as IssuedCredentialRecord).id,
        credentialConfigurationId: configuration.id,
        credentialProfile: CREDENTIAL_PROFILES[configuration.format],
        format: configuration.format,
        userId: token.userId,
        userClaims,
        ...(token.clientInstanceId === undefined ? {} : { clientInstanceId: token.clientInstanceId }),
      },
    }));
    // The nonce is used up in the same transaction, one commit for all: of requests racing with one
    // nonce exactly one commits, and the others are refused and leave nothing behind. The offer the
    // token was redeemed from records each configuration it has issued, in one conditional write (a
    // token comes from one offer, whose code works once): of racing requests with one token for one
    // configuration, one commits. A batch is one issuance of its configuration.
    await store.transaction(async (tx) => {
      // An unbound credential had no proof, so no nonce to use up.
      if (nonce !== undefined && !(await tx.nonces.markUsed(nonce))) throw nonceRefused();
      // A refreshed token records what it issued on its refresh token; the family keeps its claims.
      const marked =
        token.grant === 'refresh_token'
          ? await tx.refreshTokens.markIssued(ctx.tenant.id, token.offerId, configuration.id)
          : // The token's last credential erases the grant's claims in the same write (docs/decisions.md "Claims at rest").
            await (token.grant === 'authorization_code' ? tx.authorizations : tx.offers).markIssued(
              ctx.tenant.id,
              token.offerId,
              configuration.id,
              token.configurationIds.length,
            );
      if (!marked) throw alreadyIssued(configuration.id);
      for (const [i, record] of records.entries()) {
        await tx.issuedCredentials.insert(record);
        const statusEntry = (issuedAll[i] as (typeof issuedAll)[number]).statusEntry;
        if (statusEntry)
          await tx.statusLists.insertEntry({
            tenantId: ctx.tenant.id,
            ...statusEntry,
            credentialId: record.id,
            status: 'valid',
            updatedAt: record.issuedAt,
          });
        await domainEvents.publish(tx, issuedEvents[i] as CredentialIssuedEvent);
      }
    });
    described.response = encrypter ? { encrypted: true } : body;
    described.meta = {
      credentialId: (records[0] as IssuedCredentialRecord).id,
      ...(records.length > 1 ? { credentials: records.length } : {}),
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
    // The notification id names every credential of the response (a batch): the event is each one's.
    await store.issuedCredentials.recordNotificationFor(ctx.tenant.id, id, {
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
