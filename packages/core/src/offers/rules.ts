import type { Static } from '@sinclair/typebox';
import type { KeyAttestationLevels, WalletRequirements } from '../configurations/model.ts';
import { checkKeyAttestationLevels, walletRequirementsOf } from '../configurations/rules.ts';
import { Problems } from '../shared/body-problems.ts';
import { AuthorizationCodeOfferBody, PreAuthorizedOfferBody } from './schema.ts';
import type { TxCodeDescription } from './uri.ts';

/** OpenID4VCI 1.0 §4.1, docs/limits.md: pre-authorized offers live 5 minutes by default, 10 at most. */
export const DEFAULT_OFFER_TTL_SECONDS = 300;
export const MAX_OFFER_TTL_SECONDS = 600;

/** docs/decisions.md "Users, offers, the token and nonce endpoints": the transaction code a wallet user must type. */
export interface TransactionCodeConfiguration {
  inputMode: 'numeric' | 'text';
  length?: number;
  description?: string;
}

export interface PreAuthorizedOfferInput {
  credentials?: unknown;
  userId?: unknown;
  transactionCodeConfiguration?: unknown;
  claims?: unknown;
  claimsToPersist?: unknown;
  expiresIn?: unknown;
  byReference?: unknown;
  walletRequirements?: unknown;
  keyAttestationsRequired?: unknown;
}

/** What an offer asks of the wallet, checked (both kinds of offer). */
export interface CheckedOfferRequirements {
  walletRequirements?: WalletRequirements;
  keyAttestationsRequired?: KeyAttestationLevels;
}

/** An offer's `walletRequirements` and `keyAttestationsRequired` past their shape; levels each listed once. */
function checkRequirements(body: { walletRequirements?: unknown; keyAttestationsRequired?: unknown }, p: Problems): CheckedOfferRequirements {
  const walletRequirements = walletRequirementsOf(body.walletRequirements);
  // Levels are read only where their shape held (as the schema alone answers otherwise).
  const shapeFailed = p.details.some((d) => d.param === 'keyAttestationsRequired' || d.param.startsWith('keyAttestationsRequired.'));
  const levels = shapeFailed ? undefined : checkKeyAttestationLevels(body.keyAttestationsRequired, p);
  return { ...(walletRequirements ? { walletRequirements } : {}), ...(levels ? { keyAttestationsRequired: levels } : {}) };
}

export interface CheckedPreAuthorizedOffer extends CheckedOfferRequirements {
  credentials: string[];
  userId?: string;
  txCode?: Required<Pick<TransactionCodeConfiguration, 'inputMode' | 'length'>> & { description?: string };
  claims: Record<string, unknown>;
  claimsToPersist: string[];
  ttlSeconds: number;
  byReference: boolean;
}

/** An offer's `credentials` past their shape (schema.ts): each configuration id once (both kinds of offer). */
function checkCredentialIds(credentials: readonly string[], p: Problems): void {
  if (!p.has('credentials') && new Set(credentials).size !== credentials.length) p.add('credentials', 'Each configuration id may appear once', credentials);
}

/**
 * Checks a pre-authorized offer request (OpenID4VCI 1.0 §4.1, docs/decisions.md "Users, offers, the token and nonce endpoints") apart from what needs the
 * store (that each id names an mDoc configuration of the tenant), reporting every problem at once.
 */
export function checkPreAuthorizedOffer(input: PreAuthorizedOfferInput): CheckedPreAuthorizedOffer {
  const p = new Problems();
  p.checkShape(PreAuthorizedOfferBody, input);
  const body = input as Static<typeof PreAuthorizedOfferBody>;
  checkCredentialIds(body.credentials, p);
  const claims = body.claims ?? {};
  const persist = body.claimsToPersist ?? [];
  if (!p.has('claimsToPersist') && !p.has('claims')) {
    for (const [i, k] of persist.entries()) if (!(k in claims)) p.add(`claimsToPersist.${i}`, 'Not a claim of this offer', k);
  }
  let ttlSeconds = DEFAULT_OFFER_TTL_SECONDS;
  if (body.expiresIn !== undefined && !p.has('expiresIn')) {
    ttlSeconds = (body.expiresIn.minutes ?? 0) * 60 + (body.expiresIn.seconds ?? 0);
    if (ttlSeconds < 1 || ttlSeconds > MAX_OFFER_TTL_SECONDS) p.add('expiresIn', 'From 1 second to 10 minutes', body.expiresIn);
  }
  const requirements = checkRequirements(body, p);
  p.throwIfAny(PreAuthorizedOfferBody);

  const tx = body.transactionCodeConfiguration;
  return {
    credentials: body.credentials,
    ...(body.userId !== undefined ? { userId: body.userId } : {}),
    ...(tx
      ? { txCode: { inputMode: tx.inputMode ?? 'numeric', length: tx.length ?? 6, ...(tx.description !== undefined ? { description: tx.description } : {}) } }
      : {}),
    claims,
    claimsToPersist: persist,
    ttlSeconds,
    byReference: body.byReference === true,
    ...requirements,
  };
}

/** What the offer tells the wallet about the code (OpenID4VCI `tx_code`). */
export function describeTxCode(tx: NonNullable<CheckedPreAuthorizedOffer['txCode']>): TxCodeDescription {
  return { length: tx.length, input_mode: tx.inputMode, ...(tx.description ? { description: tx.description } : {}) };
}

// Text codes avoid characters that are easy to misread (0/O, 1/I/L).
const TEXT_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

/**
 * Makes a transaction code from random bytes (taken from the Ids port by the caller). Uses
 * rejection sampling so every symbol is equally likely; leading zeros are kept (docs/decisions.md "Users, offers, the token and nonce endpoints").
 */
export function makeTransactionCode(tx: { inputMode: 'numeric' | 'text'; length: number }, randomBytes: (n: number) => Uint8Array): string {
  const alphabet = tx.inputMode === 'numeric' ? '0123456789' : TEXT_ALPHABET;
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < tx.length) {
    for (const b of randomBytes(tx.length * 2)) {
      if (b < limit && out.length < tx.length) out += alphabet[b % alphabet.length];
    }
  }
  return out;
}

/**
 * Authorization Code offers have no expiry of their own in a credential offer (OpenID4VCI 1.0 §4.1); Vellum keeps
 * their `issuer_state` (and serves a by-reference offer) for 30 days.
 */
export const AUTHORIZATION_CODE_OFFER_TTL_SECONDS = 30 * 24 * 3600;

export interface AuthorizationCodeOfferInput {
  credentials?: unknown;
  request_parameters?: unknown;
  byReference?: unknown;
  walletRequirements?: unknown;
  keyAttestationsRequired?: unknown;
}

export interface CheckedAuthorizationCodeOffer extends CheckedOfferRequirements {
  credentials: string[];
  requestParameters?: Record<string, unknown>;
  byReference: boolean;
}

/** Checks an Authorization Code offer request (OpenID4VCI 1.0 §4.1, docs/authorization-code.md) apart from what needs the store. */
export function checkAuthorizationCodeOffer(input: AuthorizationCodeOfferInput): CheckedAuthorizationCodeOffer {
  const p = new Problems();
  p.checkShape(AuthorizationCodeOfferBody, input);
  const body = input as Static<typeof AuthorizationCodeOfferBody>;
  checkCredentialIds(body.credentials, p);
  const requirements = checkRequirements(body, p);
  p.throwIfAny(AuthorizationCodeOfferBody);
  return {
    credentials: body.credentials,
    ...(body.request_parameters ? { requestParameters: body.request_parameters } : {}),
    byReference: body.byReference === true,
    ...requirements,
  };
}
