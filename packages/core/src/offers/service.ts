import { isUuid } from '../shared/ids.ts';
import type { CredentialConfiguration } from '../configurations/model.ts';
import type { EventRecorder } from '../events/recorder.ts';
import { issuerOf } from '../metadata/service.ts';
import type { Store } from '../ports.ts';
import { isPlainObject } from '../shared/body-problems.ts';
import type { Clock, Digests, Ids, SecretBox } from '../shared/ports.ts';
import { offerClaimsContext, sealClaims } from '../shared/sealed-claims.ts';
import { type ErrorDetail, invalidField, notFound, validationError } from '../shared/errors.ts';
import { adminOperations } from '../shared/admin-resource.ts';
import type { RequestContext } from '../tenancy/model.ts';
import type { UserRecord } from '../users/model.ts';
import { claimProblems, MAX_CLAIM_DEPTH, nestsWithin } from '../users/rules.ts';
import { isOfferCode, offerState, type OfferRecord, txCodeDigest, walletRequirementsOf } from './model.ts';
import { credentialLabel, issuerDisplayName, type OfferPageView } from './page.ts';
import {
  AUTHORIZATION_CODE_OFFER_TTL_SECONDS,
  type AuthorizationCodeOfferInput,
  checkAuthorizationCodeOffer,
  type CheckedOfferRequirements,
  checkPreAuthorizedOffer,
  describeTxCode,
  makeTransactionCode,
  type PreAuthorizedOfferInput,
} from './rules.ts';
import { buildCredentialOffer, type CredentialOffer, type OfferGrant, offerUriByReference, offerUriByValue } from './uri.ts';

export interface OfferDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  digests: Digests;
  /** Seals the claims of pre-authorized offers at rest (docs/decisions.md "Claims at rest"). */
  secrets: SecretBox;
  events: EventRecorder;
}

/** Where by-reference offers are served (docs/decisions.md "Users, offers, the token and nonce endpoints"), under the issuer identifier. */
export const OFFERS_PATH = '/v1/openid/offers';

/** OpenID4VCI 1.0 §4.1: the answer to a pre-authorized offer request. */
export interface PreAuthorizedOfferView {
  id: string;
  userId: string;
  uri: string;
  expiresAt: string;
  /** The code the end user must type, when one was configured (a string: leading zeros are kept). */
  transactionCode?: string;
}

/** Credential offers (OpenID4VCI 1.0 §4.1, docs/authorization-code.md, docs/decisions.md "Users, offers, the token and nonce endpoints"). */
export interface OfferService {
  /** An Authorization Code offer for configurations of any format. `basePath` is where the API is mounted. */
  createAuthorizationCodeOffer(ctx: RequestContext, input: AuthorizationCodeOfferInput, basePath?: string): Promise<{ uri: string }>;
  /**
   * A Pre-authorized Code offer for mDoc configurations, for an existing user (`userId`) or a new
   * one; the claims named in `claimsToPersist` are stored on the user.
   */
  createPreAuthorizedOffer(ctx: RequestContext, input: PreAuthorizedOfferInput, basePath?: string): Promise<PreAuthorizedOfferView>;
  /** Deletes a pre-authorized offer: its code stops working at once. */
  deletePreAuthorizedOffer(ctx: RequestContext, id: string): Promise<void>;
  /** Public: the offer a by-reference URI points at, while it is open (404 once used, expired, locked or deleted). */
  offerByReference(ctx: RequestContext, reference: string): Promise<CredentialOffer>;
  /**
   * Public: what the offer page of a by-reference offer shows (its URI, who offers what, the
   * transaction code's description), on the same terms as offerByReference.
   */
  offerPage(ctx: RequestContext, reference: string): Promise<OfferPageView>;
}

/**
 * What a checked offer asks of the wallet, as the offer keeps it: its own walletRequirements with
 * those of its configurations as they are now (the token endpoint holds a Pre-authorized code to
 * them in the redeem itself), and its own key attestation levels.
 */
function requirementsOf(
  checked: CheckedOfferRequirements,
  configurations: readonly CredentialConfiguration[],
): Pick<OfferRecord, 'walletRequirements' | 'keyAttestationsRequired'> {
  const walletRequirements = walletRequirementsOf(
    { ...(checked.walletRequirements ? { walletRequirements: checked.walletRequirements } : {}) },
    configurations,
  );
  return {
    ...(Object.keys(walletRequirements).length > 0 ? { walletRequirements } : {}),
    ...(checked.keyAttestationsRequired ? { keyAttestationsRequired: checked.keyAttestationsRequired } : {}),
  };
}

/** The claims of `claims` named in `names`. */
function pick(claims: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((n) => Object.hasOwn(claims, n)).map((n) => [n, claims[n]]));
}

/** The offer a wallet receives for a stored offer whose code (or issuer state) is `secret`. */
function offerObject(offer: OfferRecord, secret: string): CredentialOffer {
  const grant: OfferGrant =
    offer.kind === 'pre-authorized'
      ? { preAuthorizedCode: { code: secret, ...(offer.txCode ? { txCode: describeTxCode(offer.txCode) } : {}) } }
      : { authorizationCode: { issuerState: secret } };
  return buildCredentialOffer(offer.issuer, offer.configurationIds, grant, offer.requestParameters);
}

/** The offer URI: the offer itself, or where to fetch it. */
function offerUri(offer: OfferRecord, secret: string): string {
  return offer.byReference ? offerUriByReference(`${offer.issuer}${OFFERS_PATH}/${secret}`) : offerUriByValue(offerObject(offer, secret));
}

/** Credential offers: Authorization Code and Pre-authorized Code, by value or by reference. Permission `offers`. */
export function createOfferService(deps: OfferDeps): OfferService {
  const { store, clock, ids, digests, secrets, events } = deps;
  const { run } = adminOperations(events, 'offers');

  /**
   * The tenant's configurations `ids` names, in order, with a `details` entry for each id that names
   * none (or, with `mdocOnly`, one that is not an mDoc configuration).
   */
  async function configurationsOf(
    ctx: RequestContext,
    configurationIds: string[],
    mdocOnly: boolean,
    details: ErrorDetail[],
  ): Promise<CredentialConfiguration[]> {
    const found = await Promise.all(
      configurationIds.map((id) => (isUuid(id) ? store.credentialConfigurations.get(ctx.tenant.id, id.toLowerCase()) : undefined)),
    );
    const configurations: CredentialConfiguration[] = [];
    found.forEach((c, i) => {
      const param = `credentials.${i}`;
      const value = configurationIds[i];
      if (!c) details.push({ value, msg: 'No credential configuration of this tenant has this id', param, location: 'body' });
      else if (mdocOnly && c.format !== 'mso_mdoc') {
        details.push({ value, msg: `A ${c.format} configuration: pre-authorized offers issue mDocs (mso_mdoc) only`, param, location: 'body' });
      } else configurations.push(c);
    });
    return configurations;
  }

  /** What every new offer holds: its kind, issuer, configurations and secret's digest; open until it expires `ttlSeconds` from `now`. */
  function openOffer(
    ctx: RequestContext,
    offer: { kind: OfferRecord['kind']; basePath: string | undefined; configurations: CredentialConfiguration[]; secret: string; byReference: boolean },
    now: Date,
    ttlSeconds: number,
  ) {
    return {
      id: ids.uuid(),
      tenantId: ctx.tenant.id,
      kind: offer.kind,
      issuer: issuerOf(ctx, offer.basePath),
      configurationIds: offer.configurations.map((c) => c.id),
      codeDigest: digests.sha256(offer.secret),
      byReference: offer.byReference,
      status: 'open' as const,
      failedTxAttempts: 0,
      expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
      createdAt: now.toISOString(),
    };
  }

  const noSuchUser = (userId: string) => invalidField('userId', 'No user of this tenant has this id', userId);

  /** The open by-reference offer `reference` names; one 404 for every other case, so none can be told apart. */
  async function openByReference(ctx: RequestContext, reference: string): Promise<OfferRecord> {
    const gone = () => notFound('No open credential offer at this address');
    if (!isOfferCode(reference)) throw gone();
    const offer = await store.offers.findByCodeDigest(ctx.tenant.id, digests.sha256(reference));
    if (!offer || !offer.byReference || offerState(offer, clock.now()) !== 'open') throw gone();
    return offer;
  }

  return {
    createAuthorizationCodeOffer(ctx, input, basePath) {
      return run(
        ctx,
        'OPENID_OFFER_CREATE',
        {
          input,
          meta: () => ({ configurations: checkedCount(input), byReference: isPlainObject(input) && input.byReference === true }),
          response: () => ({ uri: '***' }),
        },
        async () => {
          const checked = checkAuthorizationCodeOffer(isPlainObject(input) ? input : {});
          const details: ErrorDetail[] = [];
          if (checked.requestParameters && !nestsWithin(checked.requestParameters, MAX_CLAIM_DEPTH)) {
            details.push({ msg: `Request parameters may nest at most ${MAX_CLAIM_DEPTH} levels`, param: 'request_parameters', location: 'body' });
          }
          const configurations = await configurationsOf(ctx, checked.credentials, false, details);
          const unbound = configurations.find((c) => c.holderBinding === false);
          if (checked.keyAttestationsRequired && unbound) {
            details.push({
              msg: `Key attestations are about the key a credential is bound to: configuration ${unbound.id} binds none`,
              param: 'keyAttestationsRequired',
              location: 'body',
            });
          }
          if (details.length > 0) throw validationError(details);
          const issuerState = ids.token(32);
          const offer: OfferRecord = {
            ...openOffer(
              ctx,
              { kind: 'authorization-code', basePath, configurations, secret: issuerState, byReference: checked.byReference },
              clock.now(),
              AUTHORIZATION_CODE_OFFER_TTL_SECONDS,
            ),
            ...(checked.requestParameters ? { requestParameters: checked.requestParameters } : {}),
            ...requirementsOf(checked, configurations),
          };
          await store.offers.insert(offer);
          return { uri: offerUri(offer, issuerState) };
        },
      );
    },

    createPreAuthorizedOffer(ctx, input, basePath) {
      let newUser = false;
      return run(
        ctx,
        'OPENID_PRE_AUTHORIZED_OFFER_CREATE',
        {
          input,
          meta: (v) => ({
            id: v.id,
            newUser,
            configurations: checkedCount(input),
            transactionCode: v.transactionCode !== undefined,
            byReference: isPlainObject(input) && input.byReference === true,
          }),
          // The URI carries the pre-authorized code: never kept, whatever the logging level.
          response: (v) => ({ ...v, uri: '***' }),
        },
        async () => {
          const checked = checkPreAuthorizedOffer(isPlainObject(input) ? input : {});
          const details = claimProblems(checked.claims, 'claims');
          const configurations = await configurationsOf(ctx, checked.credentials, true, details);
          let existing: UserRecord | undefined;
          if (checked.userId !== undefined) {
            existing = isUuid(checked.userId) ? await store.users.get(ctx.tenant.id, checked.userId.toLowerCase()) : undefined;
            if (!existing) details.push({ value: checked.userId, msg: 'No user of this tenant has this id', param: 'userId', location: 'body' });
          }
          if (details.length > 0) throw validationError(details);

          const now = clock.now();
          const nowIso = now.toISOString();
          const code = ids.token(32);
          const transactionCode = checked.txCode ? makeTransactionCode(checked.txCode, (n) => ids.bytes(n)) : undefined;
          const persisted = pick(checked.claims, checked.claimsToPersist);
          const opened = openOffer(
            ctx,
            { kind: 'pre-authorized', basePath, configurations, secret: code, byReference: checked.byReference },
            now,
            checked.ttlSeconds,
          );
          // Sealed: the claims are kept only for issuance, and only until the store erases them.
          const sealedClaims = sealClaims(secrets, checked.claims, offerClaimsContext(ctx.tenant.id, opened.id));
          const offer: OfferRecord = {
            ...opened,
            userId: existing?.id ?? ids.uuid(),
            ...(sealedClaims !== undefined ? { sealedClaims } : {}),
            ...(checked.txCode && transactionCode !== undefined
              ? { txCode: { ...checked.txCode, digest: txCodeDigest(digests, opened.codeDigest, transactionCode) } }
              : {}),
            ...requirementsOf(checked, configurations),
          };
          const userId = offer.userId as string;
          await store.transaction(async (tx) => {
            if (existing) {
              // Also holds the user until the offer is written, so a concurrent delete cannot orphan it.
              if (!(await tx.users.mergeClaims(ctx.tenant.id, userId, persisted, nowIso))) throw noSuchUser(userId);
            } else {
              newUser = true;
              await tx.users.insert({ id: userId, tenantId: ctx.tenant.id, claims: persisted, createdAt: nowIso, updatedAt: nowIso });
            }
            await tx.offers.insert(offer);
          });
          return {
            id: offer.id,
            userId,
            uri: offerUri(offer, code),
            expiresAt: offer.expiresAt,
            ...(transactionCode !== undefined ? { transactionCode } : {}),
          };
        },
      );
    },

    deletePreAuthorizedOffer(ctx, id) {
      return run(ctx, 'OPENID_PRE_AUTHORIZED_OFFER_DELETE', { meta: () => ({ id }) }, async () => {
        if (!isUuid(id)) throw invalidField('id', 'A pre-authorized offer id (UUID)', id, 'params');
        if (!(await store.offers.markDeleted(ctx.tenant.id, id.toLowerCase(), 'pre-authorized'))) throw notFound('The tenant has no such pre-authorized offer');
      });
    },

    async offerByReference(ctx, reference) {
      return offerObject(await openByReference(ctx, reference), reference);
    },

    async offerPage(ctx, reference) {
      const offer = await openByReference(ctx, reference);
      const [domain, configurations] = await Promise.all([
        store.customDomains.get(ctx.tenant.id),
        Promise.all(offer.configurationIds.map((id) => store.credentialConfigurations.get(ctx.tenant.id, id))),
      ]);
      return {
        uri: offerUri(offer, reference),
        kind: offer.kind,
        issuerName: issuerDisplayName(ctx.tenant, domain),
        credentials: configurations.flatMap((c) => (c ? [credentialLabel(c)] : [])),
        ...(offer.txCode ? { txCode: describeTxCode(offer.txCode) } : {}),
        expiresAt: offer.expiresAt,
      };
    },
  };
}

/** How many configurations a request names (level 2 metadata). */
function checkedCount(input: unknown): number {
  return isPlainObject(input) && Array.isArray(input.credentials) ? input.credentials.length : 0;
}
