// The public surface of @vellum/core: what hosts and adapters may import.

export type {
  ClientRepository,
  Clock,
  CustomDomainRepository,
  DnsResolver,
  EventRepository,
  Ids,
  KeyManager,
  KeyRepository,
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
