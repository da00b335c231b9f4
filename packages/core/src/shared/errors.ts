/** The stable codes of the error body (specification 2.9, API.md §3). Each names a class of failure. */
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
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** One problem with one input value (specification 2.9 `details`). */
export interface ErrorDetail {
  value?: unknown;
  msg: string;
  param: string;
  location: 'body' | 'query' | 'params' | 'headers';
}

export interface DomainErrorOptions {
  details?: ErrorDetail[];
  oauthError?: OAuthErrorCode;
  cause?: unknown;
  /** With `TooManyRequests`: whole seconds until a retry may succeed (the `Retry-After` header). */
  retryAfterSeconds?: number;
}

/** The one error type that crosses a port or leaves the core. `message` is safe to show. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly oauthError: OAuthErrorCode | undefined;

  readonly retryAfterSeconds: number | undefined;
  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.code = code;
    this.details = options.details;
    this.oauthError = options.oauthError;
  }
    this.retryAfterSeconds = options.retryAfterSeconds;
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
