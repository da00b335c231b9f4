/**
 * Every operation's analytic event prefix and its category (specification 6, API.md §4). Each
 * operation records `<PREFIX>_START` and then `<PREFIX>_SUCCESS` or `<PREFIX>_FAIL`.
 */
export const EVENT_PREFIXES = {
  CONFIG_CUSTOM_DOMAIN_CREATE: 'custom-domain',
  CONFIG_CUSTOM_DOMAIN_RETRIEVE: 'custom-domain',
  CONFIG_CUSTOM_DOMAIN_UPDATE: 'custom-domain',
  CONFIG_CUSTOM_DOMAIN_DELETE: 'custom-domain',
  CONFIG_CUSTOM_DOMAIN_VERIFY: 'custom-domain',
  CONFIG_ANALYTICS_RETRIEVE: 'analytics',
  CONFIG_ANALYTICS_UPDATE: 'analytics',
  ANALYTICS_EVENTS_LIST: 'analytics',
  DID_CREATE: 'did',
  DID_RETRIEVE: 'did',
  DID_LIST: 'did',
  DID_DELETE: 'did',
  // Credential configurations, one group per format (API.md §4, §6).
  MOBILE_CREDENTIAL_CONFIGURATION_CREATE: 'mobile-credential',
  MOBILE_CREDENTIAL_CONFIGURATION_LIST: 'mobile-credential',
  MOBILE_CREDENTIAL_CONFIGURATION_RETRIEVE: 'mobile-credential',
  MOBILE_CREDENTIAL_CONFIGURATION_UPDATE: 'mobile-credential',
  MOBILE_CREDENTIAL_CONFIGURATION_DELETE: 'mobile-credential',
  WEB_SEMANTIC_CREDENTIAL_CONFIGURATION_CREATE: 'web-semantic-credential',
  WEB_SEMANTIC_CREDENTIAL_CONFIGURATION_LIST: 'web-semantic-credential',
  WEB_SEMANTIC_CREDENTIAL_CONFIGURATION_RETRIEVE: 'web-semantic-credential',
  WEB_SEMANTIC_CREDENTIAL_CONFIGURATION_UPDATE: 'web-semantic-credential',
  WEB_SEMANTIC_CREDENTIAL_CONFIGURATION_DELETE: 'web-semantic-credential',
  COMPACT_CREDENTIAL_CONFIGURATION_CREATE: 'compact-credential',
  COMPACT_CREDENTIAL_CONFIGURATION_LIST: 'compact-credential',
  COMPACT_CREDENTIAL_CONFIGURATION_RETRIEVE: 'compact-credential',
  COMPACT_CREDENTIAL_CONFIGURATION_UPDATE: 'compact-credential',
  COMPACT_CREDENTIAL_CONFIGURATION_DELETE: 'compact-credential',
  COMPACT_SEMANTIC_CREDENTIAL_CONFIGURATION_CREATE: 'compact-semantic-credential',
  COMPACT_SEMANTIC_CREDENTIAL_CONFIGURATION_LIST: 'compact-semantic-credential',
  COMPACT_SEMANTIC_CREDENTIAL_CONFIGURATION_RETRIEVE: 'compact-semantic-credential',
  COMPACT_SEMANTIC_CREDENTIAL_CONFIGURATION_UPDATE: 'compact-semantic-credential',
  COMPACT_SEMANTIC_CREDENTIAL_CONFIGURATION_DELETE: 'compact-semantic-credential',
  SD_JWT_CREDENTIAL_CONFIGURATION_CREATE: 'sd-jwt-credential',
  SD_JWT_CREDENTIAL_CONFIGURATION_LIST: 'sd-jwt-credential',
  SD_JWT_CREDENTIAL_CONFIGURATION_RETRIEVE: 'sd-jwt-credential',
  SD_JWT_CREDENTIAL_CONFIGURATION_UPDATE: 'sd-jwt-credential',
  SD_JWT_CREDENTIAL_CONFIGURATION_DELETE: 'sd-jwt-credential',
  // mDoc PKI: IACAs and document signers (API.md §7).
  MOBILE_IACA_CREATE: 'mobile-credential',
  MOBILE_IACA_LIST: 'mobile-credential',
  MOBILE_IACA_RETRIEVE: 'mobile-credential',
  MOBILE_IACA_UPDATE: 'mobile-credential',
  MOBILE_IACA_DELETE: 'mobile-credential',
  MOBILE_DOCUMENT_SIGNER_CREATE: 'mobile-credential',
  MOBILE_DOCUMENT_SIGNER_LIST: 'mobile-credential',
  MOBILE_DOCUMENT_SIGNER_RETRIEVE: 'mobile-credential',
  MOBILE_DOCUMENT_SIGNER_UPDATE: 'mobile-credential',
  MOBILE_DOCUMENT_SIGNER_REVOKE: 'mobile-credential',
  MOBILE_DOCUMENT_SIGNER_DELETE: 'mobile-credential',
} as const;
export type EventPrefix = keyof typeof EVENT_PREFIXES;

export const EVENT_OUTCOMES = ['START', 'SUCCESS', 'FAIL'] as const;
export type EventOutcome = (typeof EVENT_OUTCOMES)[number];
