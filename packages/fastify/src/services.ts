import type { Addressing, AdminAuth, AnalyticsService, CustomDomainService } from '@vellum/core';

/** The use cases the HTTP layer calls; the host builds them (see apps/server) and passes them in. */
export interface VellumServices {
  addressing: Addressing;
  adminAuth: AdminAuth;
  customDomains: CustomDomainService;
  analytics: AnalyticsService;
}
