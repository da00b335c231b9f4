// Reading OAuth request fields (RFC 6749 §3.1, §3.2): each at most once, as text; shared by the
// authorization, pushed authorization and token endpoints.

import { DomainError, type OAuthErrorCode } from '../shared/errors.ts';

export const oauthError = (error: OAuthErrorCode, description: string) => new DomainError('BadRequest', description, { oauthError: error });
export const invalidRequest = (description: string) => oauthError('invalid_request', description);
export const invalidGrant = (description: string) => oauthError('invalid_grant', description);

// Longer transaction codes name no code Vellum made; refusing them early keeps hashing cheap.
export const MAX_FIELD = 512;
/** More entries than an offer can hold configurations name nothing a token could grant. */
const MAX_AUTHORIZATION_DETAILS = 100;

export const invalidDetails = (description: string) => oauthError('invalid_authorization_details', description);

/**
 * The configuration ids a token request's `authorization_details` asks for (RFC 9396 §2, OpenID4VCI
 * 1.0 §5.1.1, §6.1): a JSON array of `{ type: "openid_credential", credential_configuration_id }`,
 * or undefined when the request sent none. Entries that name the same configuration are one.
 */
export function requestedConfigurations(form: Readonly<Record<string, unknown>>): string[] | undefined {
  const text = field(form, 'authorization_details');
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidDetails('authorization_details must be a JSON array');
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length > MAX_AUTHORIZATION_DETAILS) {
    throw invalidDetails(`authorization_details must be a JSON array of 1 to ${MAX_AUTHORIZATION_DETAILS} objects`);
  }
  const ids = parsed.map((entry: unknown) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw invalidDetails('Each authorization_details entry must be an object');
    const { type, credential_configuration_id: id, format } = entry as Record<string, unknown>;
    if (type !== 'openid_credential') throw invalidDetails('Each authorization_details entry must be of type openid_credential');
    if (format !== undefined) throw invalidDetails('Name the credential by credential_configuration_id, not format');
    if (typeof id !== 'string' || id.length === 0 || id.length > 200)
      throw invalidDetails('Each authorization_details entry must name a credential_configuration_id');
    return id;
  });
  return [...new Set(ids)];
}

/** A single-valued text field of the form, or undefined when absent; anything else is invalid_request. */
export function field(form: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = form[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw invalidRequest(`${name} must be given once, as text`);
  return value;
}
