// Deferred issuance (docs/deferred-issuance.md; OpenID4VCI 1.0 §8.3, §9): a configuration that
// requires review makes the credential endpoint hold the request and answer 202 with a
// transaction_id; the wallet collects the credentials at the deferred credential endpoint once an
// admin has approved.

import type { ClaimSubject } from '../configurations/claims.ts';
import type { CredentialConfiguration } from '../configurations/model.ts';
import { addDuration } from '../configurations/duration.ts';
import type { CredentialIssuance } from '../credential-formats/issuance.ts';
import type { EventRecorder } from '../events/recorder.ts';
import type { PublicJwk } from '../keys/model.ts';
import { ISSUER_PATHS, LIVE_ISSUANCE_FEATURES } from '../metadata/issuer-metadata.ts';
import { issuerOf } from '../metadata/service.ts';
import type { Dpop } from '../oauth/dpop.ts';
import type { NonceRecord, WalletAccessClaims, WalletTokens } from '../oauth/ports.ts';
import type { Repositories, Store } from '../ports.ts';
import { isPlainObject } from '../shared/body-problems.ts';
import { isDomainError } from '../shared/errors.ts';
import type { Clock, CredentialIssuedEvent, Digests, DomainEventSink, Ids, SecretBox } from '../shared/ports.ts';
import { openClaims, sealClaims } from '../shared/sealed-claims.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { DeferredIssuanceRecord } from './deferred-model.ts';
import { CREDENTIAL_PROFILES, type IssuedCredentialRecord } from './model.ts';
import type { CredentialEncryption } from './ports.ts';
import { refusal, responseEncryptionOf } from './request.ts';
import { authenticateWallet, readCredentialRequestBody, type WalletRequest } from './wallet-request.ts';

/** The SecretBox context a deferred issuance's claims are sealed under. */
export const deferredClaimsContext = (tenantId: string, id: string) => `deferred-claims:${tenantId}:${id}`;

/** What a deferred issuance keeps sealed: the subject claims are mapped from, and the user's own claims for the webhook. */
interface SealedSubject {
  subject: ClaimSubject;
  userClaims: Record<string, unknown>;
}

/** The claims a record keeps sealed; throws when the master key cannot open them. */
export function openDeferredSubject(secrets: SecretBox, record: DeferredIssuanceRecord): SealedSubject | undefined {
  if (record.sealedClaims === undefined) return undefined;
  const opened = openClaims(secrets, record.sealedClaims, deferredClaimsContext(record.tenantId, record.id));
  return opened as unknown as SealedSubject;
}

/** An answer of the credential or deferred credential endpoint: JSON text, or a JWE. */
export interface DeferredAnswer {
  status: 200 | 202;
  contentType: 'application/json' | 'application/jwt';
  body: string;
}

/** What the credential endpoint hands over once every check passed (docs/deferred-issuance.md). */
export interface DeferIssuanceInput {
  ctx: RequestContext;
  token: WalletAccessClaims;
  configuration: CredentialConfiguration & { deferred: NonNullable<CredentialConfiguration['deferred']> };
  /** The keys the credentials will be bound to, one credential each; empty for an unbound configuration. */
  holderKeys: PublicJwk[];
  /** The proof's nonce, used up in the same transaction. */
  nonce?: NonceRecord;
  subject: ClaimSubject;
  userClaims: Record<string, unknown>;
  encrypter?: (plaintext: string) => Promise<string>;
}

export interface DeferIssuanceDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  digests: Pick<Digests, 'sha256'>;
  secrets: SecretBox;
  domainEvents: DomainEventSink;
}

/**
 * Holds a checked credential request for review: in one transaction the proof's nonce is used up,
 * the grant records the configuration as issued (so its token cannot ask again), the pending
 * issuance is stored with its claims sealed, and `OpenIdCredentialReviewRequested` goes to the
 * outbox. Answers 202 `{ transaction_id, interval }` (OpenID4VCI 1.0 §8.3), encrypted when the
 * wallet asked for an encrypted response; no notification_id, which only a credential gets.
 */
/**
 * The grant a token stands for: its offer or authorization, or, for a refreshed token, the one its
 * refresh family was first issued under; undefined when that family is gone or revoked.
 */
async function originalGrantOf(
  store: Pick<Store, 'refreshTokens'>,
  tenantId: string,
  token: Pick<WalletAccessClaims, 'grant' | 'offerId'>,
): Promise<{ offerId: string; grant?: 'authorization_code' } | undefined> {
  if (token.grant !== 'refresh_token') return { offerId: token.offerId, ...(token.grant === undefined ? {} : { grant: token.grant }) };
  const refresh = await store.refreshTokens.get(tenantId, token.offerId);
  if (!refresh || refresh.revokedAt !== undefined) return undefined;
  return { offerId: refresh.grantId, ...(refresh.grant === 'authorization_code' ? { grant: 'authorization_code' as const } : {}) };
}

export async function deferIssuance(
  deps: DeferIssuanceDeps,
  input: DeferIssuanceInput,
  onRefusal: { nonce: () => Error; alreadyIssued: () => Error },
): Promise<DeferredAnswer & { record: DeferredIssuanceRecord }> {
  const { store, clock, ids, digests, secrets, domainEvents } = deps;
  const { ctx, token, configuration, nonce } = input;
  const grant = await originalGrantOf(store, ctx.tenant.id, token);
  if (!grant) throw refusal('credential_request_denied', 'The refresh token family of this access token was revoked');
  const now = clock.now();
  const id = ids.uuid();
  const transactionId = ids.token(32);
  const sealed: SealedSubject = { subject: input.subject, userClaims: input.userClaims };
  const sealedClaims = sealClaims(secrets, sealed as unknown as Record<string, unknown>, deferredClaimsContext(ctx.tenant.id, id));
  const record: DeferredIssuanceRecord = {
    id,
    tenantId: ctx.tenant.id,
    transactionDigest: digests.sha256(transactionId),
    credentialConfigurationId: configuration.id,
    format: configuration.format,
    userId: token.userId,
    ...grant,
    ...(token.clientId === undefined ? {} : { clientId: token.clientId }),
    ...(token.clientInstanceId === undefined ? {} : { clientInstanceId: token.clientInstanceId }),
    holderKeys: input.holderKeys,
    ...(sealedClaims === undefined ? {} : { sealedClaims }),
    status: 'pending',
    intervalSeconds: configuration.deferred.intervalSeconds,
    expiresAt: addDuration(now, configuration.deferred.expiresIn).toISOString(),
    createdAt: now.toISOString(),
  };
  const text = JSON.stringify({ transaction_id: transactionId, interval: record.intervalSeconds });
  const body = input.encrypter ? await input.encrypter(text) : text;
  await store.transaction(async (tx) => {
    if (nonce !== undefined && !(await tx.nonces.markUsed(nonce))) throw onRefusal.nonce();
    // A refreshed token records what it asked for on its refresh token, as the credential endpoint does.
    const marked =
      token.grant === 'refresh_token'
        ? await tx.refreshTokens.markIssued(ctx.tenant.id, token.offerId, configuration.id)
        : await (token.grant === 'authorization_code' ? tx.authorizations : tx.offers).markIssued(
            ctx.tenant.id,
            token.offerId,
            configuration.id,
            token.configurationIds.length,
          );
    if (!marked) throw onRefusal.alreadyIssued();
    await tx.deferredIssuances.insert(record);
    await domainEvents.publish(tx, {
      id: ids.uuid(),
      tenantId: ctx.tenant.id,
      type: 'OpenIdCredentialReviewRequested',
      occurredAt: record.createdAt,
      payload: {
        deferredIssuanceId: id,
        credentialConfigurationId: configuration.id,
        credentialProfile: CREDENTIAL_PROFILES[configuration.format],
        format: configuration.format,
        userId: token.userId,
        expiresAt: record.expiresAt,
      },
    });
  });
  return { status: 202, contentType: input.encrypter ? 'application/jwt' : 'application/json', body, record };
}

export interface DeferredCredentialEndpointDeps extends DeferIssuanceDeps {
  walletTokens: Pick<WalletTokens, 'verify'>;
  dpop: Dpop;
  encryption: CredentialEncryption;
  issuance: CredentialIssuance;
  events: EventRecorder;
  /** As the credential endpoint's: plain requests refused when the metadata requires encryption. */
  requestEncryptionRequired?: boolean;
}

/** `POST /v1/openid/deferred_credential` (OpenID4VCI 1.0 §9). */
export interface DeferredCredentialEndpoint {
  collect(ctx: RequestContext, request: WalletRequest): Promise<DeferredAnswer>;
}

/** A transaction_id as a wallet may send one: what we hand out is 43 characters; anything much longer is not ours. */
const MAX_TRANSACTION_ID = 512;

const invalidTransaction = () =>
  refusal('invalid_transaction_id', 'The transaction_id is unknown, expired, already collected or not for this access token', 'transaction_id');

/** The deferred credential endpoint over the core's ports. */
export function createDeferredCredentialEndpoint(deps: DeferredCredentialEndpointDeps): DeferredCredentialEndpoint {
  const { store, clock, ids, digests, secrets, encryption, issuance, domainEvents, events } = deps;
  const auth = { walletTokens: deps.walletTokens, dpop: deps.dpop };
  const requestEncryptionRequired = deps.requestEncryptionRequired ?? LIVE_ISSUANCE_FEATURES.credentialRequestEncryption?.encryption_required === true;

  async function collect(ctx: RequestContext, input: WalletRequest, described: Record<string, unknown>): Promise<DeferredAnswer> {
    const issuer = issuerOf(ctx, input.basePath);
    const token = await authenticateWallet(auth, ctx, input, ISSUER_PATHS.deferredCredential);
    const { json, encrypted } = await readCredentialRequestBody(encryption, ctx, input);
    if (!encrypted && requestEncryptionRequired)
      throw refusal('invalid_encryption_parameters', 'This issuer takes encrypted requests only (application/jwt, see credential_request_encryption)');
    if (!isPlainObject(json)) throw refusal('invalid_credential_request', 'The deferred credential request must be a JSON object', 'body');
    const transactionId = json.transaction_id;
    if (typeof transactionId !== 'string' || transactionId.length === 0 || transactionId.length > MAX_TRANSACTION_ID)
      throw refusal('invalid_credential_request', 'transaction_id must be the string the credential endpoint gave', 'transaction_id');
    const responseEncryption = responseEncryptionOf(json.credential_response_encryption);
    // OpenID4VCI 1.0 §9.1 asks the same of this request as §8.2 of a credential request: an
    // encrypted request asks for an encrypted response, and only an encrypted request may.
    if (encrypted && !responseEncryption)
      throw refusal('invalid_encryption_parameters', 'An encrypted request must ask for an encrypted response', 'credential_response_encryption');
    if (!encrypted && responseEncryption)
      throw refusal('invalid_encryption_parameters', 'A request with credential_response_encryption must be encrypted', 'credential_response_encryption');
    let encrypter: ((plaintext: string) => Promise<string>) | undefined;
    if (responseEncryption) {
      const prepared = await encryption.responseEncrypter(responseEncryption);
      if (!prepared.ok) throw refusal('invalid_encryption_parameters', prepared.reason, 'credential_response_encryption.jwk');
      encrypter = prepared.encrypt;
    }
    const answer = async (status: 200 | 202, payload: unknown): Promise<DeferredAnswer> => {
      const text = JSON.stringify(payload);
      return { status, contentType: encrypter ? 'application/jwt' : 'application/json', body: encrypter ? await encrypter(text) : text };
    };

    const record = await store.deferredIssuances.findByTransactionDigest(ctx.tenant.id, digests.sha256(transactionId));
    // Good only with a token of the grant that deferred it: the same offer or authorization and user,
    // directly or through a refresh family first issued under it (docs/refresh-tokens.md).
    const grant = record && record.userId === token.userId ? await originalGrantOf(store, ctx.tenant.id, token) : undefined;
    if (!record || !grant || record.offerId !== grant.offerId || record.grant !== grant.grant) throw invalidTransaction();
    described.meta = { deferredIssuanceId: record.id, status: record.status };
    const now = clock.now();
    if (record.status === 'issued' || record.expiresAt <= now.toISOString()) throw invalidTransaction();
    if (record.status === 'denied') throw refusal('credential_request_denied', 'The issuer denied this credential request');
    // OpenID4VCI 1.0 §9.2: not ready yet is the 202 of §8.3 again, with the same transaction_id.
    if (record.status === 'pending') return answer(202, { transaction_id: transactionId, interval: record.intervalSeconds });

    const [configuration, user] = await Promise.all([
      store.credentialConfigurations.get(ctx.tenant.id, record.credentialConfigurationId),
      store.users.get(ctx.tenant.id, record.userId),
    ]);
    if (!configuration) throw refusal('credential_request_denied', 'The credential configuration of this request no longer exists');
    // As at the credential endpoint: a user deleted since is issued nothing.
    if (!user) throw refusal('credential_request_denied', 'The user this request was made for no longer exists');
    const sealed = openDeferredSubject(secrets, record);
    if (!sealed) throw invalidTransaction();
    const keys: (PublicJwk | undefined)[] = record.holderKeys.length > 0 ? record.holderKeys : [undefined];
    const made = await Promise.all(
      keys.map((holderKey) =>
        issuance
          .issue({ tenant: ctx.tenant, configuration, subject: sealed.subject, ...(holderKey ? { holderKey } : {}), credentialIssuer: issuer, now })
          .catch((error: unknown) => {
            if (isDomainError(error) && error.code === 'BadRequest' && error.oauthError === undefined)
              throw refusal('credential_request_denied', error.message);
            throw error;
          }),
      ),
    );
    // One notification_id for the response (§9.2), shared by its credentials as a batch's are.
    const notificationId = ids.uuid();
    const records: IssuedCredentialRecord[] = made.map((issued) => ({
      id: ids.uuid(),
      tenantId: ctx.tenant.id,
      format: configuration.format,
      credentialConfigurationId: configuration.id,
      userId: record.userId,
      offerId: record.offerId,
      issuedAt: now.toISOString(),
      validFrom: issued.validFrom,
      validUntil: issued.validUntil,
      status: 'valid',
      notificationId,
      ...(record.clientId === undefined ? {} : { clientId: record.clientId }),
      ...(record.clientInstanceId === undefined ? {} : { clientInstanceId: record.clientInstanceId }),
    }));
    const response = await answer(200, { credentials: made.map((c) => ({ credential: c.credential })), notification_id: notificationId });
    await store.transaction(async (tx: Repositories) => {
      // The single use of the transaction_id: of racing collections, one commits; the others write nothing.
      if (
        !(await tx.deferredIssuances.markIssued(
          ctx.tenant.id,
          record.id,
          now.toISOString(),
          records.map((r) => r.id),
        ))
      )
        throw invalidTransaction();
      for (const [i, issued] of made.entries()) {
        const credentialRecord = records[i] as IssuedCredentialRecord;
        await tx.issuedCredentials.insert(credentialRecord);
        if (issued.statusEntry)
          await tx.statusLists.insertEntry({
            tenantId: ctx.tenant.id,
            ...issued.statusEntry,
            credentialId: credentialRecord.id,
            status: 'valid',
            updatedAt: credentialRecord.issuedAt,
          });
        const event: CredentialIssuedEvent = {
          id: ids.uuid(),
          tenantId: ctx.tenant.id,
          type: 'OpenIdCredentialIssued',
          occurredAt: credentialRecord.issuedAt,
          payload: {
            credential: issued.credential,
            credentialId: credentialRecord.id,
            credentialConfigurationId: configuration.id,
            credentialProfile: CREDENTIAL_PROFILES[configuration.format],
            format: configuration.format,
            userId: record.userId,
            userClaims: sealed.userClaims,
            ...(record.clientInstanceId === undefined ? {} : { clientInstanceId: record.clientInstanceId }),
          },
        };
        await domainEvents.publish(tx, event);
      }
    });
    described.meta = { deferredIssuanceId: record.id, status: 'issued', credentialIds: records.map((r) => r.id), encryptedResponse: encrypter !== undefined };
    return response;
  }

  return {
    async collect(ctx, input) {
      events.record(ctx, 'OPENID_DEFERRED_CREDENTIAL', 'START');
      const described: Record<string, unknown> = {};
      try {
        const result = await collect(ctx, input, described);
        events.record(ctx, 'OPENID_DEFERRED_CREDENTIAL', 'SUCCESS', described.meta ? { meta: described.meta as Record<string, unknown> } : undefined);
        return result;
      } catch (error) {
        const errorCode = isDomainError(error) ? (error.oauthError ?? error.code) : 'InternalServerError';
        events.record(ctx, 'OPENID_DEFERRED_CREDENTIAL', 'FAIL', { meta: { errorCode } });
        throw error;
      }
    },
  };
}
