// What the wallet-facing resource endpoints (credential, notification) share: the access token
// and the body, read as plain values from whatever the HTTP layer received.

import { issuerOf } from '../metadata/service.ts';
import type { Dpop } from '../oauth/dpop.ts';
import type { WalletAccessClaims, WalletTokens } from '../oauth/ports.ts';
import type { CredentialEncryption } from './ports.ts';
import { DomainError } from '../shared/errors.ts';
import type { RequestContext } from '../tenancy/model.ts';
import { refusal } from './request.ts';

/** A request to a wallet-facing endpoint as the HTTP layer received it. */
export interface WalletRequest {
  /** The `Authorization` header, as sent. */
  authorization?: string | undefined;
  /** The `DPoP` header, as sent (RFC 9449 §4.1). */
  dpop?: string | string[] | undefined;
  /** The `Content-Type` header, as sent. */
  contentType?: string | undefined;
  /** The body text, not yet parsed (so that the token is checked before the body is read). */
  body?: string | undefined;
  /** Where the API is mounted under the origin ('' at the root): part of the issuer identifier. */
  basePath?: string;
}

/** RFC 6750 §2.1 and RFC 9449 §7.1: the `Bearer` or `DPoP` scheme and a b64token. */
const ACCESS_TOKEN = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MAX_AUTHORIZATION_LENGTH = 8 * 1024;

/**
 * The 401 of a resource request without a valid access token (docs/errors.md, RFC 6750 §3.1), with the
 * challenge of the scheme it used: a DPoP one (RFC 9449 §7.1) when it came with `DPoP`.
 */
export function invalidToken(message = 'The access token is missing, malformed, expired or not for this issuer', dpopChallenge?: string): DomainError {
  return new DomainError('Unauthorized', message, {
    oauthError: 'invalid_token',
    ...(dpopChallenge !== undefined ? { headers: { 'www-authenticate': dpopChallenge } } : {}),
  });
}

/** What a resource endpoint checks a wallet's token with. */
export interface WalletAuthenticationDeps {
  walletTokens: Pick<WalletTokens, 'verify'>;
  dpop: Dpop;
}

/**
 * The claims of the request's wallet access token, verified for this tenant and this issuer
 * identifier (the origin and mount path the request came on), at the endpoint `path`. A
 * DPoP-bound token must come with the `DPoP` scheme and a proof by its key for this request and
 * this token (RFC 9449 §7); a bearer token with `Bearer`. Anything else is `invalid_token` or
 * `invalid_dpop_proof`.
 */
export async function authenticateWallet(
  deps: WalletAuthenticationDeps,
  ctx: RequestContext,
  request: WalletRequest,
  path: string,
): Promise<WalletAccessClaims> {
  const header = request.authorization;
  const match = typeof header === 'string' && header.length <= MAX_AUTHORIZATION_LENGTH ? ACCESS_TOKEN.exec(header) : null;
  if (!match) throw invalidToken();
  const byDpop = (match[1] as string).toLowerCase() === 'dpop';
  const token = match[2] as string;
  const issuer = issuerOf(ctx, request.basePath);
  const claims = await deps.walletTokens.verify(ctx.tenant.id, issuer, token);
  const challenge = (error: string) => deps.dpop.challenge(error);
  if (!claims || claims.tenantId !== ctx.tenant.id) throw invalidToken(undefined, byDpop ? challenge('invalid_token') : undefined);
  if (claims.dpopJkt === undefined) {
    if (byDpop) throw invalidToken('This access token is not DPoP-bound: send it with the Bearer scheme', challenge('invalid_token'));
    return claims;
  }
  // RFC 9449 §7.2: a bound token is no bearer token.
  if (!byDpop) throw invalidToken('This access token is DPoP-bound: send it as Authorization: DPoP, with a DPoP proof', challenge('invalid_token'));
  const proof = await deps.dpop.check(ctx, request.dpop, { method: 'POST', url: `${issuer}${path}`, accessToken: token, endpoint: 'resource' });
  const refuse = (message: string) =>
    new DomainError('Unauthorized', message, {
      oauthError: 'invalid_dpop_proof',
      headers: { 'www-authenticate': deps.dpop.challenge('invalid_dpop_proof', message) },
    });
  if (!proof) throw refuse('A DPoP-bound access token needs a DPoP proof (DPoP header)');
  if (proof.jkt !== claims.dpopJkt) throw refuse('The DPoP proof was not signed with the key this access token is bound to');
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
 * (docs/decisions.md "The credential endpoint"). An encrypted request that does not open is `invalid_encryption_parameters`.
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
    throw new DomainError('UnsupportedMediaType', 'The credential endpoint takes application/json or application/jwt', {
      oauthError: 'invalid_credential_request',
    });
  }
  return { json: parseJsonBody(request.body, 'invalid_credential_request'), encrypted: false };
}
