// The public surface of @vellum/core: what hosts and adapters may import.

export type {
  ClientRepository,
  Clock,
  ConfigurationStamp,
  CredentialConfigurationRepository,
  CertificateInfo,
  DocumentSignerRepository,
  HeldKeyRef,
  IacaRepository,
  MdocEngine,
  MdocEngineInput,
  X509Authority,
  CustomDomainRepository,
  DidRepository,
  DidStamp,
  DnsResolver,
  DomainEvent,
  DomainEventSink,
  EventRepository,
  Ids,
  KeyManager,
  KeyRepository,
  LinkedDataProof,
  LinkedDataProofType,
  LinkedDataSignInput,
  LinkedDataSigner,
  PlatformKeyRecord,
  PlatformKeyRepository,
  Repositories,
  SecretHasher,
  Store,
  TenantRepository,
  TokenSigner,
  TxtLookup,
} from './ports.ts';

export {
  conflict,
  DomainError,
  ERROR_CODES,
  invalidField,
  isDomainError,
  notFound,
  OAUTH_ERROR_CODES,
  validationError,
} from './shared/errors.ts';
export type { DomainErrorOptions, ErrorCode, ErrorDetail, OAuthErrorCode } from './shared/errors.ts';
export {
  decodeCursor,
  DEFAULT_PAGE_LIMIT,
  encodeCursor,
  MAX_PAGE_LIMIT,
  parsePageQuery,
  toPage,
} from './shared/pagination.ts';
export type { Page, PageRequest, Slice } from './shared/pagination.ts';

export { checkLoggingLevel, checkTenantInput, REGIONS } from './tenancy/model.ts';
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
export type { AdminAuth, AdminAuthDeps, AdminTokenRequest, AdminTokenResponse } from './tenancy/admin-auth.ts';
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
export { createDidConfigurationService, CREDENTIALS_CONTEXT_V1, DID_CONFIGURATION_CONTEXT } from './dids/configuration.ts';
export type { DidConfiguration, DidConfigurationDeps, DidConfigurationService, DomainLinkageCredential } from './dids/configuration.ts';

export { EVENT_OUTCOMES, EVENT_PREFIXES } from './events/catalogue.ts';
export type { EventOutcome, EventPrefix } from './events/catalogue.ts';
export type { AnalyticEvent, EventFilter } from './events/model.ts';
export { createEventRecorder, eventDataFor, maskSecrets, withEvents } from './events/recorder.ts';
export type { EventData, EventRecorder, EventRecorderOptions } from './events/recorder.ts';
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
export { isMdlDocType, MAX_MDL_VALIDITY_DAYS, MAX_VALIDITY_DAYS } from './configurations/rules.ts';
export { checkConfigurationInput, FORMAT_FIELDS, LDP_PROOF_TYPES, RESERVED_CLAIMS } from './configurations/input.ts';
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
export type { CertificateData, DocumentSignerRecord, IacaRecord, IacaRevocation } from './mdoc-pki/model.ts';
export { checkCreateIacaInput, defaultIacaCommonName, IACA_MAX_VALIDITY_YEARS } from './mdoc-pki/rules.ts';
export type { CreateDocumentSignerInput, CreateIacaInput, UpdateDocumentSignerInput, UpdateIacaInput } from './mdoc-pki/rules.ts';
export { createIacaService, CRL_REFRESH_MS, CRL_VALIDITY_MS, iacaView } from './mdoc-pki/iacas.ts';
export type { IacaDeps, IacaService, IacaView } from './mdoc-pki/iacas.ts';
export { createDocumentSignerService, documentSignerView } from './mdoc-pki/document-signers.ts';
export type { DocumentSignerDeps, DocumentSignerService, DocumentSignerView } from './mdoc-pki/document-signers.ts';
export { createIssuingChains, noActiveIaca } from './mdoc-pki/signers.ts';
export type { IssuingChain, IssuingChains, IssuingChainsDeps } from './mdoc-pki/signers.ts';
export { createMdocIssuance, statusListsUnavailable } from './mdoc-issuance/service.ts';
export type { IssuedMdoc, IssueMdocRequest, MdocIssuance, MdocIssuanceDeps } from './mdoc-issuance/service.ts';

export { createVellum } from './compose.ts';
export type { Vellum, VellumDeps } from './compose.ts';

export { KEY_ALGORITHMS } from './keys/model.ts';
export type { KeyAlgorithm, ManagedKey, PublicJwk, StoredKey } from './keys/model.ts';
