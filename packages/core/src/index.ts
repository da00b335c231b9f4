// The public surface of @vellum/core: what hosts and adapters may import.

export type {
  ClientRepository,
  Clock,
  CustomDomainRepository,
  DidRepository,
  DidStamp,
  DnsResolver,
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

export { createVellum } from './compose.ts';
export type { Vellum, VellumDeps } from './compose.ts';

export { KEY_ALGORITHMS } from './keys/model.ts';
export type { KeyAlgorithm, ManagedKey, PublicJwk, StoredKey } from './keys/model.ts';
