import type { ClaimLabel, ClaimMapping, CredentialConfiguration, CredentialDisplay } from '../configurations/model.ts';
import type { CredentialFormatHandler, FormatRegistry } from '../credential-formats/port.ts';
import { PROOF_JWT_ALGORITHMS } from '../oauth/jwt-proofs.ts';
import type { IssuerDisplay } from './issuer-display.ts';

/** The parts of the issuance protocol that are live; metadata advertises exactly these. */
export interface IssuanceFeatures {
  /** Pre-authorized Code grant at the token endpoint. */
  preAuthorizedCode: boolean;
  /** Authorization Code flow (authorize endpoint, PKCE). */
  authorizationCode: boolean;
  /** The credential, nonce and notification endpoints. */
  credentialEndpoint: boolean;
  /** The tenant's JWKS for access tokens. */
  jwks: boolean;
  /** The public list of active IACAs (`mdoc_iacas_uri`). */
  iacaList: boolean;
  /** DPoP-bound access tokens (RFC 9449): `dpop_signing_alg_values_supported`. */
  dpop?: boolean;
  /** Client attestation (`attest_jwt_client_auth`) at the token and pushed authorization endpoints. */
  clientAttestation?: boolean;
  credentialResponseEncryption?: { alg_values_supported: string[]; enc_values_supported: string[]; encryption_required: boolean };
  credentialRequestEncryption?: { jwks: { keys: Record<string, unknown>[] }; enc_values_supported: string[]; encryption_required: boolean };
}

/**
 * What is live in this release: the one place to change when an endpoint ships, so that metadata
 * never advertises an endpoint that answers 404. The token, nonce and credential endpoints arrive
 * with issue 5; the IACA list with issue 4's mDoc PKI.
 */
export const LIVE_ISSUANCE_FEATURES: Readonly<IssuanceFeatures> = Object.freeze({
  preAuthorizedCode: true,
  // Issue 13: authorize, PAR, the sign-in and interaction callbacks, and the authorization_code grant.
  authorizationCode: true,
  credentialEndpoint: true,
  jwks: true,
  iacaList: true,
  // Issue 16: DPoP and client attestation.
  dpop: true,
  clientAttestation: true,
  // docs/decisions.md "The credential endpoint": ECDH-ES to the wallet's key; requests to the tenant's key, whose jwks the metadata
  // service fills in per tenant. Neither is required: TLS protects every request already.
  credentialResponseEncryption: { alg_values_supported: ['ECDH-ES'], enc_values_supported: ['A128GCM', 'A256GCM'], encryption_required: false },
  credentialRequestEncryption: { jwks: { keys: [] }, enc_values_supported: ['A128GCM', 'A256GCM'], encryption_required: false },
});

/** Paths of the endpoints under a tenant origin (docs/decisions.md "Users, offers, the token and nonce endpoints", docs/api-reference.md). */
export const ISSUER_PATHS = {
  authorization: '/v1/oauth/authorize',
  token: '/v1/oauth/token',
  par: '/v1/oauth/par',
  credential: '/v1/openid/credential',
  nonce: '/v1/openid/nonce',
  notification: '/v1/openid/notification',
  deferredCredential: '/v1/openid/deferred_credential',
  jwks: '/.well-known/jwks.json',
  iacas: '/v2/credentials/mobile/iacas',
} as const;

export const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/**
 * What the Authorization Code flow adds to both metadata documents (RFC 8414 §2, RFC 9126 §5,
 * RFC 9207 §3): the pushed request endpoint, PKCE S256 only, `code` by query, and the client
 * authentication methods wallet clients may register with.
 */
export function authorizationCodeMetadata(at: (path: string) => string, features: Pick<IssuanceFeatures, 'clientAttestation'>): Record<string, unknown> {
  return {
    pushed_authorization_request_endpoint: at(ISSUER_PATHS.par),
    require_pushed_authorization_requests: false,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    token_endpoint_auth_methods_supported: [
      'none',
      'client_secret_basic',
      'client_secret_post',
      ...(features.clientAttestation ? ['attest_jwt_client_auth'] : []),
    ],
  };
}

/**
 * The proofs the token endpoint takes, in both metadata documents: DPoP (RFC 9449 §5.1) and client
 * attestations with their proofs of possession (draft-ietf-oauth-attestation-based-client-auth §10).
 */
export function proofMetadata(features: Pick<IssuanceFeatures, 'dpop' | 'clientAttestation'>): Record<string, unknown> {
  return {
    ...(features.dpop ? { dpop_signing_alg_values_supported: [...PROOF_JWT_ALGORITHMS] } : {}),
    ...(features.clientAttestation
      ? {
          client_attestation_signing_alg_values_supported: [...PROOF_JWT_ALGORITHMS],
          client_attestation_pop_signing_alg_values_supported: [...PROOF_JWT_ALGORITHMS],
        }
      : {}),
  };
}
/** The scope a configuration is requested by: `<format>:<type>` (OpenID4VCI 1.0 §6.2, §12.2). */
export function scopeOf(c: Pick<CredentialConfiguration, 'format' | 'type'>): string {
  return `${c.format}:${c.type}`;
}

interface ClaimDescription {
  path: string[];
  mandatory: boolean;
  display?: ClaimLabel[];
}

/** Claim descriptions with each format's path convention (OpenID4VCI 1.0 §12.2). */
function claimsOf(c: CredentialConfiguration, handler: CredentialFormatHandler): ClaimDescription[] {
  const describe = (path: string[], required: boolean | undefined, labels: unknown): ClaimDescription => ({
    path,
    mandatory: required === true,
    ...(Array.isArray(labels) && labels.length > 0 ? { display: labels as ClaimLabel[] } : {}),
  });
  if (handler.claimLayout === 'namespaced') {
    return Object.entries(c.claimMappings as Record<string, Record<string, ClaimMapping>>).flatMap(([ns, elements]) =>
      Object.entries(elements).map(([el, m]) => describe([ns, el], m.required, (c.claimDisplay?.[ns] as Record<string, ClaimLabel[]> | undefined)?.[el])),
    );
  }
  return Object.entries(c.claimMappings as Record<string, ClaimMapping>).map(([claim, m]) =>
    describe([...handler.claimPathPrefix, claim], m.required, c.claimDisplay?.[claim]),
  );
}

function displayOf(c: CredentialConfiguration): CredentialDisplay[] {
  if (c.display && c.display.length > 0) return c.display;
  return c.name ? [{ name: c.name }] : [];
}

/**
 * The format's metadata with `key_attestations_required` (OpenID4VCI 1.0 §12.2.4) when the
 * configuration requires key attestations: the levels, never the roots. Such a configuration takes
 * the `attestation` proof type too (App. F.3): a key attestation from a provider it trusts, without
 * a proof of possession, whose signature algorithms are those Vellum verifies attestations with.
 */
function withKeyAttestations(metadata: Record<string, unknown>, c: CredentialConfiguration): Record<string, unknown> {
  const required = c.keyAttestationsRequired;
  const proofTypes = metadata.proof_types_supported as Record<string, Record<string, unknown>> | undefined;
  if (!required || !proofTypes?.jwt) return metadata;
  const levels = {
    ...(required.keyStorage?.length ? { key_storage: required.keyStorage } : {}),
    ...(required.userAuthentication?.length ? { user_authentication: required.userAuthentication } : {}),
  };
  return {
    ...metadata,
    proof_types_supported: {
      ...proofTypes,
      jwt: { ...proofTypes.jwt, key_attestations_required: levels },
      attestation: { proof_signing_alg_values_supported: [...PROOF_JWT_ALGORITHMS], key_attestations_required: { ...levels } },
    },
  };
}

/**
 * The format's members without what binds a credential to a key, for a configuration with
 * `holderBinding: false`: OpenID4VCI 1.0 §12.2.4 leaves `cryptographic_binding_methods_supported`
 * out when no key binding is required, and `proof_types_supported` with it, which tells the wallet
 * to send no proof (§6.3).
 */
function withoutBinding(metadata: Record<string, unknown>, c: CredentialConfiguration): Record<string, unknown> {
  if (c.holderBinding !== false) return metadata;
  const { cryptographic_binding_methods_supported: _methods, proof_types_supported: _proofs, ...rest } = metadata;
  return rest;
}

/** One entry of `credential_configurations_supported` (OpenID4VCI 1.0 §12.2): the common members, then the format's. */
export function configurationMetadata(c: CredentialConfiguration, formats: FormatRegistry): Record<string, unknown> {
  const handler = formats.of(c);
  // OpenID4VCI 1.0 §12.2.4: display, when present, is a non-empty array; without a name there is none.
  const display = displayOf(c);
  return {
    format: c.format,
    id: c.id,
    scope: scopeOf(c),
    ...withoutBinding(withKeyAttestations(handler.metadata(c as never), c), c),
    credential_metadata: { ...(display.length > 0 ? { display } : {}), claims: claimsOf(c, handler) },
  };
}

/** The deprecated draft-13 `credentials_supported` entry (OpenID4VCI 1.0 §12.2, OpenID4VCI draft 13). */
function legacyEntry(c: CredentialConfiguration, formats: FormatRegistry): Record<string, unknown> {
  return { format: c.format, id: c.id, scope: scopeOf(c), ...withoutBinding(formats.of(c).legacyMetadata(c as never), c) };
}

/**
 * The credential issuer metadata of a tenant as seen from `origin` (OpenID4VCI 1.0 §12.2, OpenID4VCI
 * 1.0 §12.2), advertising only the features that are live. `issuerDisplay` is the tenant's
 * (OpenID4VCI 1.0 §12.2.4 `display`), left out when there is none: the member is a non-empty array.
 * `batchSize` is the tenant's too: `batch_credential_issuance` is published only above 1 (§12.2.4:
 * its `batch_size` is 2 or more; without it a wallet sends one proof).
 */
export function buildIssuerMetadata(
  origin: string,
  configurations: readonly CredentialConfiguration[],
  features: IssuanceFeatures,
  formats: FormatRegistry,
  issuerDisplay: readonly IssuerDisplay[] = [],
  batchSize = 1,
): Record<string, unknown> {
  const at = (path: string) => `${origin}${path}`;
  const grants = [...(features.authorizationCode ? ['authorization_code'] : []), ...(features.preAuthorizedCode ? [PRE_AUTHORIZED_GRANT] : [])];
  return {
    issuer: origin,
    credential_issuer: origin,
    ...(issuerDisplay.length > 0 ? { display: issuerDisplay.map((d) => ({ ...d })) } : {}),
    ...(features.authorizationCode ? { authorization_endpoint: at(ISSUER_PATHS.authorization) } : {}),
    ...(grants.length > 0 ? { token_endpoint: at(ISSUER_PATHS.token) } : {}),
    ...(features.jwks ? { jwks_uri: at(ISSUER_PATHS.jwks) } : {}),
    ...(features.credentialEndpoint
      ? { credential_endpoint: at(ISSUER_PATHS.credential), nonce_endpoint: at(ISSUER_PATHS.nonce), notification_endpoint: at(ISSUER_PATHS.notification) }
      : {}),
    // OpenID4VCI 1.0 §12.2.4: only while some configuration defers (docs/deferred-issuance.md).
    ...(features.credentialEndpoint && configurations.some((c) => c.deferred !== undefined)
      ? { deferred_credential_endpoint: at(ISSUER_PATHS.deferredCredential) }
      : {}),
    ...(features.iacaList ? { mdoc_iacas_uri: at(ISSUER_PATHS.iacas) } : {}),
    scopes_supported: configurations.map(scopeOf),
    ...(features.authorizationCode ? authorizationCodeMetadata(at, features) : {}),
    ...(grants.length > 0 ? proofMetadata(features) : {}),
    grant_types_supported: grants,
    credentials_supported: configurations.map((c) => legacyEntry(c, formats)),
    credential_configurations_supported: Object.fromEntries(configurations.map((c) => [c.id, configurationMetadata(c, formats)])),
    ...(features.credentialResponseEncryption ? { credential_response_encryption: features.credentialResponseEncryption } : {}),
    ...(features.credentialRequestEncryption ? { credential_request_encryption: features.credentialRequestEncryption } : {}),
    ...(features.credentialEndpoint && batchSize > 1 ? { batch_credential_issuance: { batch_size: batchSize } } : {}),
  };
}
