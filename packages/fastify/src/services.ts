import type {
  Addressing,
  AdminAuth,
  AnalyticsService,
  CredentialConfigurationService,
  CustomDomainService,
  DidConfigurationService,
  DidService,
  DocumentSignerService,
  IacaService,
  IssuerMetadataService,
} from '@vellum/core';

/** The use cases the HTTP layer calls; the host builds them (see apps/server) and passes them in. */
export interface VellumServices {
  addressing: Addressing;
  adminAuth: AdminAuth;
  customDomains: CustomDomainService;
  dids: DidService;
  didConfiguration: DidConfigurationService;
  analytics: AnalyticsService;
  iacas: IacaService;
  documentSigners: DocumentSignerService;
  credentialConfigurations: CredentialConfigurationService;
  issuerMetadata: IssuerMetadataService;
}
