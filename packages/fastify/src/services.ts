import type { Addressing, AdminAuth, AnalyticsService, CustomDomainService, DidConfigurationService, DidService } from '@vellum/core';

/** The use cases the HTTP layer calls; the host builds them (see apps/server) and passes them in. */
export interface VellumServices {
  addressing: Addressing;
  adminAuth: AdminAuth;
  customDomains: CustomDomainService;
  dids: DidService;
  didConfiguration: DidConfigurationService;
  analytics: AnalyticsService;
}
