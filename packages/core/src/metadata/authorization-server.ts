import { authorizationCodeMetadata, type IssuanceFeatures, ISSUER_PATHS, PRE_AUTHORIZED_GRANT, proofMetadata } from './issuer-metadata.ts';

/**
 * The OAuth 2.0 authorization server metadata of a tenant as seen from `issuer` (RFC 8414 §2,
 * OpenID4VCI 1.0 §12.3), with only live features. `response_types_supported` is required by RFC 8414
 * and `grant_types_supported` defaults to authorization_code and implicit when absent, so both are
 * always present, empty while no flow is live, rather than left to say something untrue.
 * `refresh`: some configuration of the tenant allows refresh, so token responses may carry refresh tokens.
 */
export function buildAuthorizationServerMetadata(issuer: string, features: IssuanceFeatures, refresh = false): Record<string, unknown> {
  const at = (path: string) => `${issuer}${path}`;
  const grants = [...(features.authorizationCode ? ['authorization_code'] : []), ...(features.preAuthorizedCode ? [PRE_AUTHORIZED_GRANT] : [])];
  // RFC 6749 §6: listed only while a configuration of the tenant allows refresh (docs/refresh-tokens.md).
  if (refresh && grants.length > 0) grants.push('refresh_token');
  return {
    issuer,
    ...(features.authorizationCode ? { authorization_endpoint: at(ISSUER_PATHS.authorization) } : {}),
    ...(grants.length > 0 ? { token_endpoint: at(ISSUER_PATHS.token) } : {}),
    ...(features.jwks ? { jwks_uri: at(ISSUER_PATHS.jwks) } : {}),
    response_types_supported: [],
    ...(features.authorizationCode ? authorizationCodeMetadata(at, features) : {}),
    // RFC 9396 §10, OpenID4VCI 1.0 §5.1.1: the authorization and PAR endpoints take
    // authorization_details of type openid_credential.
    ...(features.authorizationCode ? { authorization_details_types_supported: ['openid_credential'] } : {}),
    ...(grants.length > 0 ? proofMetadata(features) : {}),
    grant_types_supported: grants,
    // OpenID4VCI 1.0 §12.3: wallets may redeem a pre-authorized code without client authentication.
    ...(features.preAuthorizedCode ? { 'pre-authorized_grant_anonymous_access_supported': true } : {}),
  };
}
