import { isPlainObject, Problems } from '../shared/body-problems.ts';
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
}

export interface CheckedPreAuthorizedOffer {
  credentials: string[];
  userId?: string;
  txCode?: Required<Pick<TransactionCodeConfiguration, 'inputMode' | 'length'>> & { description?: string };
  claims: Record<string, unknown>;
  claimsToPersist: string[];
  ttlSeconds: number;
  byReference: boolean;
}

/** An offer's `credentials`: a non-empty list of distinct configuration ids (both kinds of offer). */
function checkCredentialIds(credentials: unknown, p: Problems): void {
  if (!Array.isArray(credentials) || credentials.length === 0 || !credentials.every((c) => typeof c === 'string' && c.length > 0)) {
    p.add('credentials', 'A non-empty list of credential configuration ids', credentials);
  } else if (new Set(credentials).size !== credentials.length) {
    p.add('credentials', 'Each configuration id may appear once', credentials);
  }
}

/**
 * Checks a pre-authorized offer request (OpenID4VCI 1.0 §4.1, docs/decisions.md "Users, offers, the token and nonce endpoints") apart from what needs the
 * store (that each id names an mDoc configuration of the tenant), reporting every problem at once.
 */
export function checkPreAuthorizedOffer(input: PreAuthorizedOfferInput): CheckedPreAuthorizedOffer {
  const p = new Problems();

  const credentials = input.credentials;
  checkCredentialIds(credentials, p);
  if (input.userId !== undefined && (typeof input.userId !== 'string' || input.userId.length === 0)) p.add('userId', 'A user id', input.userId);

  let txCode: CheckedPreAuthorizedOffer['txCode'];
  const tx = input.transactionCodeConfiguration;
  if (tx !== undefined) {
    if (!isPlainObject(tx)) p.add('transactionCodeConfiguration', 'An object such as { "inputMode": "numeric", "length": 6 }', tx);
    else {
      const inputMode = tx.inputMode ?? 'numeric';
      const length = tx.length ?? 6;
      if (inputMode !== 'numeric' && inputMode !== 'text') p.add('transactionCodeConfiguration.inputMode', 'numeric or text', tx.inputMode);
      if (!Number.isInteger(length) || (length as number) < 4 || (length as number) > 8)
        p.add('transactionCodeConfiguration.length', 'A whole number from 4 to 8', tx.length);
      if (tx.description !== undefined && (typeof tx.description !== 'string' || tx.description.length > 300)) {
        p.add('transactionCodeConfiguration.description', 'Text of at most 300 characters', tx.description);
      }
      txCode = {
        inputMode: inputMode as 'numeric' | 'text',
        length: length as number,
        ...(typeof tx.description === 'string' ? { description: tx.description } : {}),
      };
    }
  }

  const claims = input.claims ?? {};
  if (!isPlainObject(claims)) p.add('claims', 'An object of claims', input.claims);
  const persist = input.claimsToPersist ?? [];
  if (!Array.isArray(persist) || !persist.every((k) => typeof k === 'string')) p.add('claimsToPersist', 'A list of claim names', input.claimsToPersist);
  else {
    for (const [i, k] of persist.entries()) {
      if (isPlainObject(claims) && !(k in claims)) p.add(`claimsToPersist.${i}`, 'Not a claim of this offer', k);
    }
  }

  let ttlSeconds = DEFAULT_OFFER_TTL_SECONDS;
  const e = input.expiresIn;
  if (e !== undefined) {
    if (!isPlainObject(e) || Object.keys(e).some((k) => k !== 'minutes' && k !== 'seconds'))
      p.add('expiresIn', 'An object of minutes and seconds, such as { "minutes": 5 }', e);
    else {
      const { minutes = 0, seconds = 0 } = e as { minutes?: unknown; seconds?: unknown };
      if (!Number.isInteger(minutes) || !Number.isInteger(seconds) || (minutes as number) < 0 || (seconds as number) < 0)
        p.add('expiresIn', 'Whole numbers of minutes and seconds', e);
      else {
        ttlSeconds = (minutes as number) * 60 + (seconds as number);
        if (ttlSeconds < 1 || ttlSeconds > MAX_OFFER_TTL_SECONDS) p.add('expiresIn', 'From 1 second to 10 minutes', e);
      }
    }
  }
  if (input.byReference !== undefined && typeof input.byReference !== 'boolean') p.add('byReference', 'true or false', input.byReference);

  p.throwIfAny();
  return {
    credentials: credentials as string[],
    ...(typeof input.userId === 'string' ? { userId: input.userId } : {}),
    ...(txCode ? { txCode } : {}),
    claims: claims as Record<string, unknown>,
    claimsToPersist: persist as string[],
    ttlSeconds,
    byReference: input.byReference === true,
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
}

export interface CheckedAuthorizationCodeOffer {
  credentials: string[];
  requestParameters?: Record<string, unknown>;
  byReference: boolean;
}

/** Checks an Authorization Code offer request (OpenID4VCI 1.0 §4.1, docs/authorization-code.md) apart from what needs the store. */
export function checkAuthorizationCodeOffer(input: AuthorizationCodeOfferInput): CheckedAuthorizationCodeOffer {
  const p = new Problems();
  const credentials = input.credentials;
  checkCredentialIds(credentials, p);
  const parameters = input.request_parameters;
  if (parameters !== undefined && !isPlainObject(parameters))
    p.add('request_parameters', 'An object of request parameters, such as { "login_hint": "..." }', parameters);
  if (input.byReference !== undefined && typeof input.byReference !== 'boolean') p.add('byReference', 'true or false', input.byReference);
  p.throwIfAny();
  return {
    credentials: credentials as string[],
    ...(isPlainObject(parameters) ? { requestParameters: parameters } : {}),
    byReference: input.byReference === true,
  };
}
