/** The stable codes of the error body (docs/errors.md). Each names a class of failure. */
export const ERROR_CODES = [
  'BadRequest',
  'Unauthorized',
  'Forbidden',
  'NotFound',
  'Conflict',
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'RequestHeaderFieldsTooLarge',
  'TooManyRequests',
  'InternalServerError',
  'ServiceUnavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** OAuth 2.0 and OpenID4VCI `error` values that wallet-facing and token endpoints add to the body. */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_authorization_details',
  'access_denied',
  'invalid_token',
  'invalid_proof',
  'invalid_nonce',
  'unknown_credential_configuration',
  'unknown_credential_identifier',
  'invalid_credential_request',
  'invalid_encryption_parameters',
  'credential_request_denied',
  'invalid_dpop_proof',
  'use_dpop_nonce',
  'invalid_client_attestation',
  'invalid_notification_id',
  'invalid_notification_request',
  // OpenID4VCI 1.0 §9.3: the deferred credential endpoint's transaction_id.
  'invalid_transaction_id',
  // RFC 6749 §4.1.2.1: what the authorization endpoint redirects with.
  'unsupported_response_type',
  'unauthorized_client',
  'server_error',
  'temporarily_unavailable',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** One problem with one input value (docs/errors.md `details`). */
export interface ErrorDetail {
  value?: unknown;
  msg: string;
  param: string;
  location: 'body' | 'query' | 'params' | 'headers';
}

export interface DomainErrorOptions {
  details?: ErrorDetail[];
  oauthError?: OAuthErrorCode;
  /** With `TooManyRequests`: whole seconds until a retry may succeed (the `Retry-After` header). */
  retryAfterSeconds?: number;
  /**
   * Protocol headers the answer must carry: a `WWW-Authenticate` challenge (RFC 9449 §7.1) or a
   * `DPoP-Nonce` (RFC 9449 §8). Names in lower case.
   */
  headers?: Readonly<Record<string, string>>;
  cause?: unknown;
}

/** The one error type that crosses a port or leaves the core. `message` is safe to show. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly oauthError: OAuthErrorCode | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.code = code;
    this.details = options.details;
    this.oauthError = options.oauthError;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers;
  }
}

/** A 400 whose details name each offending field, as every schema failure is reported. */
export function validationError(details: ErrorDetail[]): DomainError {
  return new DomainError('BadRequest', 'Validation Error', { details });
}

/** A validation error about a single body field. */
export function invalidField(param: string, msg: string, value?: unknown, location: ErrorDetail['location'] = 'body'): DomainError {
  return validationError([{ value, msg, param, location }]);
}

export function notFound(message: string): DomainError {
  return new DomainError('NotFound', message);
}

export function conflict(message: string, details?: ErrorDetail[]): DomainError {
  return new DomainError('Conflict', message, details ? { details } : {});
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}

/** RFC 6749 §5.2: `error_description` is %x20-21 / %x23-5B / %x5D-7E (printable ASCII without `"` and `\`). */
export const OAUTH_DESCRIPTION_CHARACTERS = /^[\x20\x21\x23-\x5B\x5D-\x7E]*$/;

const DESCRIPTION_SUBSTITUTES: Readonly<Record<string, string>> = {
  '\u2018': "'",
  '\u2019': "'",
  '"': "'",
  '\u201C': "'",
  '\u201D': "'",
  '\\': '/',
  '\u2026': '...',
  '\u2013': '-',
  '\u2014': '-',
};

/**
 * A message as an OAuth `error_description` may carry it (RFC 6749 §5.2): typographic quotes and
 * `"` become `'`, `\` becomes `/`, dashes and the ellipsis their ASCII forms, white space a space,
 * and any other character outside the allowed set `?`. `message` keeps the original words.
 */
export function oauthErrorDescription(message: string): string {
  if (OAUTH_DESCRIPTION_CHARACTERS.test(message)) return message;
  let out = '';
  for (const ch of message) {
    if (OAUTH_DESCRIPTION_CHARACTERS.test(ch)) out += ch;
    else out += DESCRIPTION_SUBSTITUTES[ch] ?? (/\s/.test(ch) ? ' ' : '?');
  }
  return out;
}
