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
} as const;
export type EventPrefix = keyof typeof EVENT_PREFIXES;

export const EVENT_OUTCOMES = ['START', 'SUCCESS', 'FAIL'] as const;
export type EventOutcome = (typeof EVENT_OUTCOMES)[number];
