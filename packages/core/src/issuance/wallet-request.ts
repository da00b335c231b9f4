// What the wallet-facing resource endpoints (credential, notification) share: the access token
// and the body, read as plain values from whatever the HTTP layer received.

import { issuerOf } from '../metadata/service.ts';
import type { CredentialEncryption, WalletAccessClaims, WalletTokens } from '../ports.ts';
import { DomainError } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { refusal } from './request.ts';

/** A request to a wallet-facing endpoint as the HTTP layer received it. */
export interface WalletRequest {
  /** The `Authorization` header, as sent. */
  authorization?: string | undefined;
  /** The `Content-Type` header, as sent. */
  contentType?: string | undefined;
  /** The body text, not yet parsed (so that the token is checked before the body is read). */
  body?: string | undefined;
  /** Where the API is mounted under the origin ('' at the root): part of the issuer identifier. */
  basePath?: string;
}

/** RFC 6750 §2.1: `Bearer` and a b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MAX_AUTHORIZATION_LENGTH = 8 * 1024;

/** The 401 of a resource request without a valid access token (API.md §3, RFC 6750 §3.1). */
export function invalidToken(): DomainError {
  return new DomainError('Unauthorized', 'The access token is missing, malformed, expired or not for this issuer', { oauthError: 'invalid_token' });
}

/**
 * The claims of the request's wallet access token, verified for this tenant and this issuer
 * identifier (the origin and mount path the request came on). Anything else is `invalid_token`.
 */
export async function authenticateWallet(walletTokens: Pick<WalletTokens, 'verify'>, ctx: RequestContext, request: WalletRequest): Promise<WalletAccessClaims> {
  const header = request.authorization;
  const match = typeof header === 'string' && header.length <= MAX_AUTHORIZATION_LENGTH ? BEARER.exec(header) : null;
  if (!match) throw invalidToken();
  const claims = await walletTokens.verify(ctx.tenant.id, issuerOf(ctx, request.basePath), match[1] as string);
  if (!claims || claims.tenantId !== ctx.tenant.id) throw invalidToken();
  return claims;
}

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaType(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}

/** Parses a JSON body; anything that is not JSON is `error` (invalid_credential_request, invalid_notification_request, …). */
export function parseJsonBody(body: string | undefined, error: Parameters<typeof refusal>[0]): unknown {
  if (body === undefined || body.trim() === '') throw refusal(error, 'The request has no body');
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw refusal(error, 'The body is not valid JSON');
  }
}

/**
 * A credential request body: JSON, or a JWE (`application/jwt`) encrypted to the tenant's key
 * (API.md §9). An encrypted request that does not open is `invalid_encryption_parameters`.
 */
export async function readCredentialRequestBody(
  encryption: Pick<CredentialEncryption, 'decryptRequest'>,
  ctx: RequestContext,
  request: WalletRequest,
): Promise<{ json: unknown; encrypted: boolean }> {
  const type = mediaType(request.contentType);
  if (type === 'application/jwt') {
    const jwe = request.body?.trim();
    if (!jwe) throw refusal('invalid_credential_request', 'The request has no body');
    const opened = await encryption.decryptRequest(ctx.tenant.id, jwe);
    if (!opened.ok) throw refusal('invalid_encryption_parameters', opened.reason);
    return { json: parseJsonBody(opened.plaintext, 'invalid_credential_request'), encrypted: true };
  }
  if (type !== undefined && type !== 'application/json') {
    throw new DomainError('UnsupportedMediaType', 'The credential endpoint takes application/json or application/jwt', { oauthError: 'invalid_credential_request' });
  }
  return { json: parseJsonBody(request.body, 'invalid_credential_request'), encrypted: false };
}
