// The public surface of @vellum/core: what hosts and adapters may import.

// Every port the core asks the world for, as ports.ts gathers them.
export type * from './ports.ts';

export {
  conflict,
  DomainError,
  ERROR_CODES,
  invalidField,
  isDomainError,
  notFound,
  OAUTH_DESCRIPTION_CHARACTERS,
  OAUTH_ERROR_CODES,
  oauthErrorDescription,
  validationError,
} from './shared/errors.ts';
export type { DomainErrorOptions, ErrorCode, ErrorDetail, OAuthErrorCode } from './shared/errors.ts';

export { DEFAULT_RATE_LIMITS, secondsLeft, tooManyRequests, windowStartOf } from './rate-limits/model.ts';
export type { RateLimitHit, RateLimitRule, RateLimitSettings } from './rate-limits/model.ts';
export { createAdminTokenLimiter, createTxCodeLimiter } from './rate-limits/limiters.ts';
export type { AdminTokenAttempt, AdminTokenLimiter, RateLimitDeps, TxCodeLimiter } from './rate-limits/limiters.ts';
export {
  decodeCursor,
  DEFAULT_PAGE_LIMIT,
  encodeCursor,
  MAX_PAGE_LIMIT,
  parsePageQuery,
  toPage,
} from './shared/pagination.ts';
export type { Page, PageQuery, PageRequest, Slice } from './shared/pagination.ts';

export { checkAdminClientInput, checkLoggingLevel, checkTenantInput, REGIONS } from './tenancy/model.ts';
export type { AdminClient, LoggingLevel, Region, RequestContext, Requestor, Tenant } from './tenancy/model.ts';
export {
  decodePermissions,
  encodePermissions,
  isRole,
  PERMISSIONS,
  ROLE_PERMISSIONS,
  ROLES,
} from './tenancy/permissions.ts';
export type { Permission, Role } from './tenancy/permissions.ts';
export { createAddressing, hostName } from './tenancy/addressing.ts';
export type { Addressing, AddressingOptions, ResolvedTenant } from './tenancy/addressing.ts';
export { createAdminAuth, requirePermission } from './tenancy/admin-auth.ts';
export type { AdminAuth, AdminAuthDeps, AdminTokenCaller, AdminTokenRequest, AdminTokenResponse } from './tenancy/admin-auth.ts';
export { createAdminClientService } from './tenancy/admin-clients.ts';
export type { AdminClientInput, AdminClientService, AdminClientServiceDeps } from './tenancy/admin-clients.ts';
export { clientView, createTenantAdmin } from './tenancy/tenants.ts';
export type { ClientView, CreatedClient, TenantAdmin, TenantAdminDeps } from './tenancy/tenants.ts';

export type { CustomDomain } from './custom-domains/model.ts';
export { checkCustomDomainInput, normaliseDomain } from './custom-domains/rules.ts';
export type { CustomDomainInput } from './custom-domains/rules.ts';
export { createCustomDomainService, customDomainView } from './custom-domains/service.ts';
export type { CustomDomainDeps, CustomDomainService, CustomDomainView } from './custom-domains/service.ts';

export { DID_METHODS } from './dids/model.ts';
export type { DidDocument, DidKey, DidMethod, DidRecord, VerificationMethod } from './dids/model.ts';
export { didKeyOf, keyFingerprint, parseDidKey, publicKeyBytes } from './dids/did-key.ts';
export type { DecodedDidKey } from './dids/did-key.ts';
export { didWebOf, MAX_DID_WEB_PATH_SEGMENTS, parseDidWebUrl } from './dids/did-web.ts';
export type { DidWebLocation } from './dids/did-web.ts';
export { base58btcDecode, base58btcEncode } from './dids/multibase.ts';
export { DID_CONTEXT_V1, didDocumentOf, ED25519_2018_CONTEXT_V1, JWS_2020_CONTEXT_V1 } from './dids/documents.ts';
export { checkCreateDidInput, checkDidParam } from './dids/rules.ts';
export type { CreateDidInput } from './dids/rules.ts';
export { createDidService, didView } from './dids/service.ts';
export type { CreatedDidView, DidDeps, DidLocalMetadata, DidService, DidView } from './dids/service.ts';
export { cacheDidConfiguration, cacheLinkageCredentials } from './dids/cached-configuration.ts';
export type { DidConfigurationCacheOptions, LinkageCredentialsCacheOptions } from './dids/cached-configuration.ts';
export {
  CREDENTIALS_CONTEXT_V1,
  createDidConfigurationService,
  createLinkageCredentials,
  DID_CONFIGURATION_CONTEXT,
  signingKeyOf,
} from './dids/configuration.ts';
export type {
  BuiltDidConfiguration,
  DidConfiguration,
  DidConfigurationBuilder,
  DidConfigurationDeps,
  DidConfigurationService,
  DomainLinkageCredential,
  LinkageCredential,
  LinkageCredentials,
  LinkageCredentialsDeps,
} from './dids/configuration.ts';

export { EVENT_OUTCOMES, EVENT_PREFIXES } from './events/catalogue.ts';
export type { EventOutcome, EventPrefix } from './events/catalogue.ts';
export type { AnalyticEvent, EventFilter } from './events/model.ts';
export { createEventRecorder, eventDataFor, maskSecrets, withEvents } from './events/recorder.ts';
export type { EventData, EventLosses, EventRecorder, EventRecorderOptions } from './events/recorder.ts';
export { EVENT_DATA_LIMITS, isSecretName, sanitizeEventData } from './events/sanitize.ts';
export type { EventDataLimits } from './events/sanitize.ts';
export { createAnalyticsService } from './events/service.ts';
export type { AnalyticsService, EventQuery } from './events/service.ts';

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
  LdpVcConfiguration,
  MdocClaimMappings,
  MdocConfiguration,
  MdocValueType,
  SdJwtConfiguration,
} from './configurations/model.ts';
export { addDuration, durationSeconds } from './configurations/duration.ts';
export { DEFAULT_EXPIRES_IN, isMdlDocType, MAX_MDL_VALIDITY_DAYS, MAX_VALIDITY_DAYS } from './configurations/rules.ts';
export { checkConfigurationInput } from './configurations/input.ts';
export { LDP_PROOF_TYPES, createLdpVcFormat } from './credential-formats/ldp-vc.ts';
export type { LdpVcFormatDeps } from './credential-formats/ldp-vc.ts';
export { createCwtFormat } from './credential-formats/cwt.ts';
export type { CwtFormatDeps } from './credential-formats/cwt.ts';
export { createSdJwtFormat } from './credential-formats/sd-jwt.ts';
export type { SdJwtFormatDeps } from './credential-formats/sd-jwt.ts';
export { createMdocFormat } from './credential-formats/mso-mdoc.ts';
export type { MdocFormatDeps } from './credential-formats/mso-mdoc.ts';
export { createFormatRegistry } from './credential-formats/registry.ts';
export { createCredentialIssuance } from './credential-formats/issuance.ts';
export type { CredentialIssuance, CredentialIssuanceDeps, IssueCredentialRequest } from './credential-formats/issuance.ts';
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
  SdJwtSignInput,
  StatusEntryKind,
} from './credential-formats/port.ts';
export { signingDidOf } from './credential-formats/signing-did.ts';
export type { SigningDid } from './credential-formats/signing-did.ts';
export { isoSeconds, validityOf } from './credential-formats/validity.ts';
export type { AssignedFields, CheckContext } from './configurations/input.ts';
export { resolveFlatClaims, resolveMdocClaims } from './configurations/claims.ts';
export type { ClaimSubject, MdocClaims, TypedValue } from './configurations/claims.ts';
export {
  checkConfigurationId,
  configurationEventPrefix,
  createCredentialConfigurationService,
  credentialConfigurationView,
} from './configurations/service.ts';
export type {
  CredentialConfigurationDeps,
  CredentialConfigurationListQuery,
  CredentialConfigurationService,
  CredentialConfigurationView,
} from './configurations/service.ts';

export { buildIssuerMetadata, configurationMetadata, ISSUER_PATHS, LIVE_ISSUANCE_FEATURES, PRE_AUTHORIZED_GRANT, scopeOf } from './metadata/issuer-metadata.ts';
export type { IssuanceFeatures } from './metadata/issuer-metadata.ts';
export { buildAuthorizationServerMetadata } from './metadata/authorization-server.ts';
export { createIssuerMetadataService } from './metadata/service.ts';
export type { IssuerMetadataDeps, IssuerMetadataService } from './metadata/service.ts';
export { cacheIssuerMetadata } from './metadata/cached-service.ts';
export type { IssuerMetadataCacheOptions } from './metadata/cached-service.ts';

export {
  DEFAULT_IACA_VALIDITY_YEARS,
  DOCUMENT_SIGNERS_PATH,
  IACAS_PATH,
  MANAGED_SIGNER_VALIDITY_DAYS,
  MAX_SIGNER_ROTATION_DAYS,
  MAX_IACAS_PER_TENANT,
  MAX_REQUESTED_DOCUMENT_SIGNERS,
  MDL_DOCUMENT_SIGNER_EKU,
  SIGNER_ROTATION_DAYS,
} from './mdoc-pki/model.ts';
export type { CertificateData, CertificateView, DocumentSignerRecord, IacaRecord, IacaRevocation } from './mdoc-pki/model.ts';
export { checkCreateIacaInput, defaultIacaCommonName, IACA_MAX_VALIDITY_YEARS } from './mdoc-pki/rules.ts';
export type { CreateDocumentSignerInput, CreateIacaInput, UpdateDocumentSignerInput, UpdateIacaInput } from './mdoc-pki/rules.ts';
export { createIacaService, CRL_REFRESH_MS, CRL_VALIDITY_MS, iacaView } from './mdoc-pki/iacas.ts';
export type { IacaDeps, IacaService, IacaView } from './mdoc-pki/iacas.ts';
export { createDocumentSignerService, documentSignerView } from './mdoc-pki/document-signers.ts';
export type { DocumentSignerDeps, DocumentSignerService, DocumentSignerView } from './mdoc-pki/document-signers.ts';
export { createIssuingChains, noActiveIaca } from './mdoc-pki/signers.ts';
export { cacheIssuingChains, type IssuingChainsCacheOptions } from './mdoc-pki/cached-chains.ts';
export type { IssuingChain, IssuingChains, IssuingChainsDeps } from './mdoc-pki/signers.ts';
export { createMdocIssuance, statusListsUnavailable } from './mdoc-issuance/service.ts';
export type { IssuedMdoc, IssueMdocRequest, MdocIssuance, MdocIssuanceDeps } from './mdoc-issuance/service.ts';

export { CREDENTIAL_PROFILES, NOTIFICATION_EVENTS } from './issuance/model.ts';
export type {
  IssuedCredentialFilter,
  IssuedCredentialRecord,
  IssuedCredentialStatus,
  NotificationEvent,
  WalletNotification,
} from './issuance/model.ts';
export { createCredentialEndpoint, LEGACY_DEPRECATION_HEADERS } from './issuance/credential-endpoint.ts';
export type { CredentialEndpoint, CredentialEndpointDeps, CredentialEndpointResponse } from './issuance/credential-endpoint.ts';
export { parseCredentialRequest } from './issuance/request.ts';
export type { CredentialRequest, LegacyCredentialTarget } from './issuance/request.ts';
export type { WalletRequest } from './issuance/wallet-request.ts';
export { checkProofClaims, PROOF_ALGS, PROOF_TYP } from './issuance/proof-rules.ts';
export type { ProofExpectations, VerifiedProof } from './issuance/proof-rules.ts';
export { createIssuedCredentialService, issuedCredentialView } from './issuance/issued-credentials.ts';
export type { IssuedCredentialDeps, IssuedCredentialListQuery, IssuedCredentialService, IssuedCredentialView } from './issuance/issued-credentials.ts';
export { JWE_ENCRYPTION_ALGORITHMS } from './ports.ts';
export { completeWalletClaims } from './oauth/ports.ts';

export { checkWebhookInput, nextAttemptDelay, normaliseWebhookUrl, WEBHOOK_EVENTS, WEBHOOK_RETRIES } from './webhooks/rules.ts';
export type { WebhookEvent, WebhookInput } from './webhooks/rules.ts';
export {
  bytesToBase64,
  contentDigest,
  parseSignatureField,
  parseSignatureInput,
  receivedSignatureBase,
  serializeSignatureInput,
  SIGNED_COMPONENTS,
  signatureBase,
  signatureHeaders,
  signatureParams,
} from './webhooks/signature.ts';
export type { ParsedSignatureInput, Sha256, SignatureParams, SignatureParamValue, SignedRequest } from './webhooks/signature.ts';
export { DELIVERY_STATUSES, EMITTED_WEBHOOK_EVENTS, SIGNING_KEY_STATUSES } from './webhooks/model.ts';
export type {
  ClaimedDelivery,
  DeliveryAttempt,
  DeliveryOutcome,
  DeliveryStatus,
  EmittedWebhookEvent,
  SigningKeyStatus,
  Webhook,
  WebhookDelivery,
  WebhookSigningKey,
} from './webhooks/model.ts';
export { createWebhookOutbox } from './webhooks/outbox.ts';
export type { WebhookOutboxDeps } from './webhooks/outbox.ts';
export { createWebhookSigningKeys, webhookJwk } from './webhooks/keys.ts';
export type { WebhookJwk, WebhookJwks, WebhookSigningKeys, WebhookSigningKeysDeps } from './webhooks/keys.ts';
export {
  createWebhookDeliveryWorker,
  DEFAULT_DELIVERY_LEASE_MS,
  DEFAULT_RETRY_BASE_DELAY_MS,
  deliveryPayload,
  renderDeliveryBody,
  WEBHOOK_TIMEOUT_MS,
} from './webhooks/delivery.ts';
export type { WebhookDeliveryBody, WebhookDeliveryDeps, WebhookDeliveryWorker } from './webhooks/delivery.ts';
export { createWebhookService, webhookDeliveryView, webhookView } from './webhooks/service.ts';
export type { WebhookDeliveryView, WebhookListQuery, WebhookService, WebhookServiceDeps, WebhookView } from './webhooks/service.ts';

export { canonicalJson, userMatches } from './users/model.ts';
export type { AuthenticationProviderRef, UserFilter, UserRecord } from './users/model.ts';
export { checkUserId, checkUserInput, checkUserSearch, MAX_CLAIM_DEPTH, MAX_CLAIM_NAME, MAX_SEARCH_CLAIMS } from './users/rules.ts';
export type { UserSearchInput } from './users/rules.ts';
export { createUserService, userView } from './users/service.ts';
export type { UserDeps, UserListQuery, UserService, UserView } from './users/service.ts';
export { MAX_TX_CODE_ATTEMPTS, offerState } from './offers/model.ts';
export type { OfferKind, OfferRecord, OfferStatus, RedeemOutcome, StoredTxCode } from './offers/model.ts';
export {
  AUTHORIZATION_CODE_OFFER_TTL_SECONDS,
  checkAuthorizationCodeOffer,
  checkPreAuthorizedOffer,
  DEFAULT_OFFER_TTL_SECONDS,
  describeTxCode,
  makeTransactionCode,
  MAX_OFFER_TTL_SECONDS,
} from './offers/rules.ts';
export type {
  AuthorizationCodeOfferInput,
  CheckedAuthorizationCodeOffer,
  CheckedPreAuthorizedOffer,
  PreAuthorizedOfferInput,
  TransactionCodeConfiguration,
} from './offers/rules.ts';
export { buildCredentialOffer, OFFER_SCHEME, offerUriByReference, offerUriByValue, PRE_AUTHORIZED_CODE_GRANT } from './offers/uri.ts';
export type { CredentialOffer, OfferGrant, TxCodeDescription } from './offers/uri.ts';
export { createOfferService, OFFERS_PATH } from './offers/service.ts';
export type { OfferDeps, OfferService, PreAuthorizedOfferView } from './offers/service.ts';
export { ACCESS_TOKEN_TTL_SECONDS, createTokenEndpoint } from './oauth/token.ts';
export type { TokenEndpoint, TokenEndpointDeps, TokenRequestProofs, TokenResponse } from './oauth/token.ts';
export { createNonceService, NONCE_TTL_SECONDS } from './oauth/nonces.ts';
export type { NonceDeps, NonceService } from './oauth/nonces.ts';
export { createDpop, DPOP_MAX_AGE_SECONDS, DPOP_MAX_SKEW_SECONDS, DPOP_NONCE_TTL_SECONDS } from './oauth/dpop.ts';
export type { Dpop, DpopDeps, DpopEndpoint, DpopTarget, VerifiedDpopProof } from './oauth/dpop.ts';
export { attestedClientId, checkClientAttestation } from './oauth-clients/attestation.ts';
export type { AttestationContext, AttestationHeaders, AttestedInstance, ClientAttestationDeps } from './oauth-clients/attestation.ts';
export type { JwtProofVerifier, JwtCheck, VerifiedJwt } from './oauth/jwt-proofs.ts';
export { PROOF_JWT_ALGORITHMS } from './oauth/jwt-proofs.ts';
export {
  AUTHENTICATION_CALLBACK_PATH,
  AUTHORIZATION_CODE_TTL_SECONDS,
  createAuthorizationFlow,
  INTERACTION_CALLBACK_PATH,
  PUSHED_REQUEST_TTL_SECONDS,
  REQUEST_URI_PREFIX,
} from './oauth/authorize.ts';
export type { AuthorizationFlow, AuthorizationFlowDeps, Redirect, RequestFields } from './oauth/authorize.ts';
export type { AuthorizationAdvance, AuthorizationRecord, AuthorizationRepository, AuthorizationStage } from './oauth/authorization-model.ts';
export type { IdentityProvider, ProviderSettings, ProviderFailure, SessionTokens } from './authentication/ports.ts';
export { PROVIDER_AUTH_METHODS } from './authentication/model.ts';
export type {
  AuthenticationProvider,
  AuthenticationProviderRepository,
  InteractionHook,
  OpenIdSettings,
  OpenIdSettingsRepository,
  ProviderAuthMethod,
} from './authentication/model.ts';
export { checkOpenIdSettingsInput, checkProviderInput, DEFAULT_PROVIDER_SCOPE, HOOK_TIMEOUT, RESERVED_PROVIDER_PARAMETERS } from './authentication/rules.ts';
export type { CheckedInteractionHook, CheckedProvider, ProviderInput } from './authentication/rules.ts';
export {
  authenticationProviderView,
  createAuthenticationProviderService,
  createOpenIdSettingsService,
  interactionHookSecretContext,
  openInteractionHook,
  providerSecretContext,
  providerSettings,
} from './authentication/service.ts';
export type {
  AuthenticationDeps,
  AuthenticationProviderService,
  AuthenticationProviderView,
  InteractionHookView,
  OpenIdSettingsService,
  OpenIdSettingsView,
  ProviderListQuery,
} from './authentication/service.ts';
export type { ClaimSource, ClaimSourceAuthorization, ClaimSourceParameter, ClaimSourceRepository } from './claim-sources/model.ts';
export { checkClaimSourceInput, CLAIM_SOURCE_AUTH_TYPES, MAX_CLAIM_SOURCE_PARAMETERS } from './claim-sources/rules.ts';
export type { CheckedClaimSource, ClaimSourceAuthorizationInput } from './claim-sources/rules.ts';
export { claimSourceSecretContext, claimSourceView, createClaimSourceService } from './claim-sources/service.ts';
export type { ClaimSourceAuthorizationView, ClaimSourceDeps, ClaimSourceListQuery, ClaimSourceService, ClaimSourceView } from './claim-sources/service.ts';
export { CLAIM_SOURCE_MAX_BYTES, CLAIM_SOURCE_TIMEOUT_MS, createClaimSourceClient } from './claim-sources/fetch.ts';
export type { ClaimSourceClient, ClaimSourceClientDeps, ClaimSourceResult } from './claim-sources/fetch.ts';
export { normaliseOutboundUrl } from './shared/outbound-url.ts';
export { WALLET_CLIENT_AUTH_METHODS, WALLET_CLIENT_GRANT_TYPES } from './oauth-clients/model.ts';
export type { WalletClient, WalletClientAuthMethod, WalletClientGrantType, WalletClientRepository } from './oauth-clients/model.ts';
export {
  checkWalletClientId,
  checkWalletClientInput,
  isWalletClientId,
  MAX_REDIRECT_URI_LENGTH,
  MAX_REDIRECT_URIS,
  MAX_ROOT_CERTIFICATE_LENGTH,
  MAX_ROOT_CERTIFICATES,
  MAX_WALLET_CLIENT_ID,
  MAX_WALLET_CLIENT_NAME,
  redirectUriProblem,
} from './oauth-clients/rules.ts';
export type { WalletClientSettings } from './oauth-clients/rules.ts';
export { createWalletClientService, walletClientView } from './oauth-clients/service.ts';
export type { WalletClientDeps, WalletClientListQuery, WalletClientService, WalletClientView, WalletClientWithSecret } from './oauth-clients/service.ts';
export { authenticateWalletClient, checkClientCredentials, clientCredentials, redirectUriRegistered } from './oauth-clients/authenticate.ts';
export type { ClientCredentials, PresentedClient, WalletClientAuthDeps } from './oauth-clients/authenticate.ts';
export { issuerOf } from './metadata/service.ts';

export { createVellum } from './compose.ts';
export type { Vellum, VellumDeps } from './compose.ts';

export { KEY_ALGORITHMS } from './keys/model.ts';
export type { KeyAlgorithm, ManagedKey, PublicJwk, StoredKey } from './keys/model.ts';

// Status lists (docs/status-lists.md).
export { CREDENTIAL_STATUSES, STATUS_BITS, STATUS_LIST_FORMATS, STATUS_LIST_SIZE, STATUS_VALUE } from './status-lists/model.ts';
export type {
  CredentialStatus,
  StatusEntry,
  StatusListConfiguration,
  StatusListConfigurationRepository,
  StatusListFormat,
  StatusListKind,
  StatusListRecord,
  StatusListRepository,
  StoredStatusToken,
} from './status-lists/model.ts';
export type {
  RevocationListInput,
  RevocationListSigner,
  StatusListTokenInput,
  StatusListTokenSigner,
  TokenStatusListInput,
  TokenStatusListSigner,
} from './status-lists/ports.ts';
export { REFERENCED_LIST_FORMS } from './status-lists/model.ts';
export type { ReferencedListForm } from './status-lists/model.ts';
export {
  createStatusListService,
  DEFAULT_STATUS_LIST_SETTINGS,
  REFERENCED_LIST_MEDIA_TYPES,
  REFERENCED_LIST_PATHS,
  REVOCATION_PROFILES,
  STATUS_LIST_MEDIA_TYPES,
  STATUS_LIST_PATHS,
} from './status-lists/service.ts';
export type {
  MdocStatusAllocation,
  ReferencedStatusAllocation,
  RevocationProfile,
  StatusListConfigurationInput,
  StatusListConfigurationView,
  StatusListDeps,
  StatusListService,
} from './status-lists/service.ts';
export { packStatuses } from './status-lists/bits.ts';
export { shuffledIndex, shuffleKeyWords } from './status-lists/shuffle.ts';
