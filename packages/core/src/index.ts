// The public surface of @vellum/core: what hosts and adapters may import. A module re-exported
// with `export *` is public as a whole; one whose names are listed keeps its other exports for the
// core's own features and tests (docs/architecture.md "Inside the core", its point "The public surface").

// Every port the core asks the world for, as ports.ts gathers them.
export type * from './ports.ts';

export * from './shared/errors.ts';

export * from './rate-limits/model.ts';
export * from './rate-limits/limiters.ts';
export * from './shared/pagination.ts';

export * from './tenancy/model.ts';
export * from './tenancy/permissions.ts';
export * from './tenancy/addressing.ts';
export * from './tenancy/admin-auth.ts';
export * from './tenancy/admin-clients.ts';
export { clientView, createTenantAdmin } from './tenancy/tenants.ts';
export type { ClientView, CreatedClient, TenantAdmin, TenantAdminDeps } from './tenancy/tenants.ts';

export * from './custom-domains/model.ts';
export { checkCustomDomainInput, normaliseDomain } from './custom-domains/rules.ts';
export type { CustomDomainInput } from './custom-domains/rules.ts';
export * from './custom-domains/service.ts';

export * from './dids/model.ts';
export * from './dids/did-key.ts';
export { didWebOf, MAX_DID_WEB_PATH_SEGMENTS, parseDidWebUrl } from './dids/did-web.ts';
export type { DidWebLocation } from './dids/did-web.ts';
export { base58btcDecode, base58btcEncode } from './dids/multibase.ts';
export { DID_CONTEXT_V1, didDocumentOf, ED25519_2018_CONTEXT_V1, JWS_2020_CONTEXT_V1 } from './dids/documents.ts';
export { checkCreateDidInput, checkDidParam } from './dids/rules.ts';
export type { CreateDidInput } from './dids/rules.ts';
export * from './dids/service.ts';
export * from './dids/cached-configuration.ts';
export * from './dids/configuration.ts';

export * from './events/catalogue.ts';
export * from './events/model.ts';
export * from './events/recorder.ts';
export { EVENT_DATA_LIMITS, isSecretName, sanitizeEventData } from './events/sanitize.ts';
export type { EventDataLimits } from './events/sanitize.ts';
export * from './events/service.ts';

export { CREDENTIAL_FORMATS, MDOC_VALUE_TYPES } from './configurations/model.ts';
export type {
  ClaimDisplay,
  ClaimLabel,
  ClaimMapping,
  CredentialConfiguration,
  CredentialConfigurationInput,
  CredentialDisplay,
  CredentialFormat,
  CwtConfiguration,
  Duration,
  FlatClaimMappings,
  IssuerProfile,
  KeyAttestationLevels,
  KeyAttestationRequirement,
  LdpVcConfiguration,
  MdocClaimMappings,
  MdocConfiguration,
  MdocValueType,
  SdJwtConfiguration,
  DisclosureRule,
  TypeMetadata,
  WalletRequirements,
} from './configurations/model.ts';
export type { WalletProviderPurpose, WalletProviderTrust } from './wallet-providers/trust.ts';
export { addDuration, durationSeconds } from './configurations/duration.ts';
export { DEFAULT_EXPIRES_IN, DEFAULT_REFRESH_MAX_AGE, isMdlDocType, MAX_MDL_VALIDITY_DAYS, MAX_VALIDITY_DAYS } from './configurations/rules.ts';
export * from './configurations/input.ts';
export { LDP_PROOF_TYPES, createLdpVcFormat } from './credential-formats/ldp-vc.ts';
export type { LdpVcFormatDeps } from './credential-formats/ldp-vc.ts';
export * from './credential-formats/cwt.ts';
export * from './credential-formats/sd-jwt.ts';
export * from './credential-formats/mso-mdoc.ts';
export * from './credential-formats/registry.ts';
export * from './credential-formats/issuance.ts';
export type {
  CommonConfiguration,
  CredentialFormatHandler,
  CwtClaims,
  CwtSigner,
  CwtSignInput,
  FormatIssueRequest,
  FormatRegistry,
  IssuedCredential,
  SdJwtSigner,
  SdJwtDisclosureRule,
  SdJwtSignInput,
  StatusEntryKind,
} from './credential-formats/port.ts';
export { signingDidOf } from './credential-formats/signing-did.ts';
export { TYPE_METADATA_PATH, TYPE_NAME, typeMetadataOf } from './credential-formats/type-metadata.ts';
export type { PublishedTypeMetadata } from './credential-formats/type-metadata.ts';
export type { SigningDid } from './credential-formats/signing-did.ts';
export { isoSeconds, validityOf } from './credential-formats/validity.ts';
export * from './configurations/claims.ts';
export * from './configurations/service.ts';

export { buildIssuerMetadata, configurationMetadata, ISSUER_PATHS, LIVE_ISSUANCE_FEATURES, PRE_AUTHORIZED_GRANT, scopeOf } from './metadata/issuer-metadata.ts';
export type { IssuanceFeatures } from './metadata/issuer-metadata.ts';
export * from './metadata/authorization-server.ts';
export * from './metadata/service.ts';
export * from './metadata/cached-service.ts';
export { buildJwtVcIssuerMetadata, SIGNED_METADATA_LIFETIME_SECONDS, SIGNED_METADATA_TYP, signIssuerMetadata } from './metadata/signed-metadata.ts';
export type { SignedIssuerMetadata, SignIssuerMetadataInput } from './metadata/signed-metadata.ts';
export { checkIssuerDisplayInput, createIssuerDisplayService, MAX_ISSUER_DISPLAYS } from './metadata/issuer-display.ts';
export type { IssuerDisplay, IssuerDisplayService, IssuerDisplaySettings } from './metadata/issuer-display.ts';

export * from './mdoc-pki/model.ts';
export { checkCreateIacaInput, defaultIacaCommonName, IACA_MAX_VALIDITY_YEARS } from './mdoc-pki/rules.ts';
export type { CreateDocumentSignerInput, CreateIacaInput, UpdateDocumentSignerInput, UpdateIacaInput } from './mdoc-pki/rules.ts';
export * from './mdoc-pki/iacas.ts';
export * from './mdoc-pki/document-signers.ts';
export { createIssuingChains, noActiveIaca, rotateManagedDocumentSigners } from './mdoc-pki/signers.ts';
export * from './mdoc-pki/cached-chains.ts';
export type { DocumentSignerRotationDeps, IssuingChain, IssuingChains, IssuingChainsDeps, SignerRotationResult } from './mdoc-pki/signers.ts';
export * from './mdoc-pki/profiles.ts';
export * from './issuer-pki/model.ts';
export * from './issuer-pki/service.ts';
export { createIssuerSigners, leafCommonName, leafNamesFor, rotateManagedIssuerLeaves, x509SignerOf } from './issuer-pki/signers.ts';
export type { IssuerLeafRotationDeps, IssuerSignersDeps } from './issuer-pki/signers.ts';
export * from './issuer-pki/cached-signers.ts';
export * from './mdoc-issuance/service.ts';
export { createMdocVerifier } from './verification/mso-mdoc.ts';
export type { MdocVerifierDeps } from './verification/mso-mdoc.ts';
export type * from './verification/mdoc-ports.ts';
export { createLdpVcVerifier, type LdpVcVerifierDeps } from './verification/ldp-vc.ts';
export type * from './verification/ldp-vc-ports.ts';
export * from './verification/revocation-list-2020.ts';
export * from './dids/resolver.ts';

export * from './issuance/model.ts';
export * from './issuance/credential-endpoint.ts';
export { parseCredentialRequest } from './issuance/request.ts';
export type { CredentialRequest, KeyProofs, LegacyCredentialTarget } from './issuance/request.ts';
export { MAX_BATCH_SIZE } from './issuance/request.ts';
export { createBatchIssuanceService } from './issuance/batch-issuance.ts';
export type { BatchIssuanceService, BatchIssuanceSettings } from './issuance/batch-issuance.ts';
export { checkKeyAttestation, KEY_ATTESTATION_TYPES, trustConfiguredRoots, verifyKeyAttestation } from './issuance/key-attestation.ts';
export type { KeyAttestationTrust, VerifiedKeyAttestation, VerifyKeyAttestationInput } from './issuance/key-attestation.ts';
export type { WalletRequest } from './issuance/wallet-request.ts';
export * from './issuance/proof-rules.ts';
export * from './issuance/issued-credentials.ts';
export * from './issuance/deferred-model.ts';
export { createDeferredCredentialEndpoint, deferredClaimsContext } from './issuance/deferred.ts';
export type { DeferredAnswer, DeferredCredentialEndpoint, DeferredCredentialEndpointDeps } from './issuance/deferred.ts';
export * from './issuance/deferred-admin.ts';
export * from './configurations/deferred.ts';
export { JWE_ENCRYPTION_ALGORITHMS } from './ports.ts';
export * from './oauth/wallet-claims.ts';

export * from './webhooks/rules.ts';
export * from './webhooks/signature.ts';
export * from './webhooks/model.ts';
export * from './webhooks/outbox.ts';
export * from './webhooks/keys.ts';
export * from './webhooks/delivery.ts';
export * from './webhooks/service.ts';

export * from './users/model.ts';
export { checkUserId, checkUserInput, checkUserSearch, MAX_CLAIM_DEPTH, MAX_CLAIM_NAME, MAX_SEARCH_CLAIMS } from './users/rules.ts';
export type { UserSearchInput } from './users/rules.ts';
export * from './users/service.ts';
export { MAX_TX_CODE_ATTEMPTS, meetsWalletRequirements, offerState, txCodeDigest, txCodeDigests } from './offers/model.ts';
export type { OfferKind, OfferRecord, OfferStatus, RedeemAttempt, RedeemOutcome, StoredTxCode, WalletProofs } from './offers/model.ts';
export { authorizationClaimsContext, offerClaimsContext, openClaims, sealClaims } from './shared/sealed-claims.ts';
export * from './offers/rules.ts';
export * from './offers/uri.ts';
export * from './offers/service.ts';
export { ACCESS_TOKEN_TTL_SECONDS, createTokenEndpoint, WALLET_TOKEN_KEY_REFRESH_SECONDS } from './oauth/token.ts';
export { createRefreshTokenService } from './oauth/refresh-revocation.ts';
export type { RefreshRevocation, RefreshTokenService, RefreshTokenServiceDeps } from './oauth/refresh-revocation.ts';
export { refreshClaimsContext } from './oauth/refresh-tokens.ts';
export type { TokenEndpoint, TokenEndpointDeps, TokenRequestProofs, TokenResponse } from './oauth/token.ts';
export * from './oauth/nonces.ts';
export * from './oauth/dpop.ts';
export * from './oauth-clients/attestation.ts';
export * from './oauth/jwt-proofs.ts';
export * from './verification/model.ts';
export { createSdJwtVcVerifier, type SdJwtVcVerifierDeps } from './verification/sd-jwt-vc.ts';
export * from './oauth/authorize.ts';
export * from './oauth/authorization-model.ts';
export * from './authentication/ports.ts';
export * from './authentication/model.ts';
export { checkOpenIdSettingsInput, checkProviderInput, DEFAULT_PROVIDER_SCOPE, HOOK_TIMEOUT, RESERVED_PROVIDER_PARAMETERS } from './authentication/rules.ts';
export type { CheckedInteractionHook, CheckedProvider, ProviderInput } from './authentication/rules.ts';
export * from './authentication/service.ts';
export * from './claim-sources/model.ts';
export { checkClaimSourceInput, CLAIM_SOURCE_AUTH_TYPES, MAX_CLAIM_SOURCE_PARAMETERS } from './claim-sources/rules.ts';
export type { CheckedClaimSource, ClaimSourceAuthorizationInput } from './claim-sources/rules.ts';
export * from './claim-sources/service.ts';
export * from './claim-sources/fetch.ts';
export * from './shared/outbound-url.ts';
export * from './oauth-clients/model.ts';
export * from './oauth-clients/rules.ts';
export * from './oauth-clients/service.ts';
export * from './oauth-clients/authenticate.ts';
export * from './wallet-providers/model.ts';
export * from './wallet-providers/rules.ts';
export * from './wallet-providers/service.ts';
export * from './wallet-providers/trust.ts';
export {
  createStatusListLookup,
  jwtStatusListClaims,
  type StatusListClaims,
  type StatusListLookup,
  type StatusListReference,
  statusListReferenceOf,
} from './shared/token-status-lists.ts';
export * from './wallet-providers/trusted-list.ts';
export * from './verification/model.ts';
export * from './verification/schema.ts';
export * from './verification/dcql/index.ts';
export * from './verification/service.ts';
export * from './verification/trusted-issuers/model.ts';
export * from './verification/trusted-issuers/schema.ts';
export * from './verification/trusted-issuers/service.ts';
export * from './verification/applications/model.ts';
export * from './verification/applications/schema.ts';
export * from './verification/applications/service.ts';
export * from './verification/sessions/model.ts';
export type * from './verification/sessions/ports.ts';
export * from './verification/sessions/schema.ts';
export * from './verification/sessions/service.ts';
export { encodeCbor, openId4VpSessionTranscript, thumbprintInput, type HandoverInput } from './verification/sessions/transcript.ts';

export * from './compose.ts';

export * from './keys/model.ts';
// routeKeysByCustody: one KeyManager over software keys and a PKCS#11 token's (docs/key-custody.md).
export * from './keys/custody.ts';
export * from './keys/custody-settings.ts';
// Rotation of each signing role's key on request (docs/key-custody.md "Rotation").
export * from './keys/rotation.ts';

// Status lists (docs/status-lists.md).
export * from './status-lists/model.ts';
export * from './status-lists/ports.ts';
export * from './status-lists/service.ts';
export * from './status-lists/bits.ts';
export * from './status-lists/shuffle.ts';
// The retention job (docs/retention.md).
export {
  checkRetentionDays,
  DEFAULT_EVENT_RETENTION_DAYS,
  DEFAULT_WEBHOOK_DELIVERY_RETENTION_DAYS,
  MAX_RETENTION_DAYS,
  RETENTION_GRACE_MS,
  RETENTION_KINDS,
  retentionCutoff,
  retentionOf,
} from './retention/policy.ts';
export type { ExpiringKind, RetentionKind, TenantRetention } from './retention/policy.ts';
export { createRetentionJob, RETENTION_LEASE } from './retention/job.ts';
export type { RetentionJob, RetentionJobDeps, RetentionRun } from './retention/job.ts';
