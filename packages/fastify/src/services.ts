import type {
  Addressing,
  AdminAuth,
  AdminClientService,
  AnalyticsService,
  CredentialEndpoint,
  IssuedCredentialService,
  DeferredCredentialEndpoint,
  DeferredIssuanceService,
  RefreshTokenService,
  CredentialConfigurationService,
  CustomDomainService,
  DidConfigurationService,
  DidService,
  DocumentSignerService,
  IacaService,
  IssuerSignerService,
  IssuerMetadataService,
  IssuerDisplayService,
  BatchIssuanceService,
  KeyCustodyService,
  SigningKeyRotationService,
  WebhookService,
  NonceService,
  Dpop,
  OfferService,
  TokenEndpoint,
  AuthorizationFlow,
  UserService,
  AuthenticationProviderService,
  ClaimSourceService,
  OpenIdSettingsService,
  WalletClientService,
  WalletProviderService,
  TrustedIssuerService,
  VerifierApplicationService,
  VerificationService,
  PresentationSessionService,
  WalletTokens,
  StatusListService,
} from '@vellum/core';

/** The use cases the HTTP layer calls; the host builds them (see apps/server) and passes them in. */
export interface VellumServices {
  addressing: Addressing;
  adminAuth: AdminAuth;
  /** `/v1/admin-clients`: the tenant's admin clients (list, create, rotate secret, revoke). */
  adminClients: AdminClientService;
  customDomains: CustomDomainService;
  dids: DidService;
  didConfiguration: DidConfigurationService;
  analytics: AnalyticsService;
  iacas: IacaService;
  documentSigners: DocumentSignerService;
  /** Issuer CAs and their leaves (docs/decisions.md "Issuer certificates"). */
  issuerCas: IacaService;
  issuerSigners: IssuerSignerService;
  credentialConfigurations: CredentialConfigurationService;
  issuerMetadata: IssuerMetadataService;
  /** `GET`/`PUT /v1/config/issuer-display`: the issuer's `display` in its metadata. */
  issuerDisplay: IssuerDisplayService;
  /** `GET`/`PUT /v1/config/batch-issuance`: how many credentials one request may ask for. */
  batchIssuance: BatchIssuanceService;
  /** `GET`/`PUT /v1/config/key-custody`: where the tenant's new signing keys are made. */
  keyCustody: KeyCustodyService;
  /** `POST /v1/signing-keys/{role}/rotate`: a signing role's new key (docs/key-custody.md "Rotation"). */
  signingKeys: SigningKeyRotationService;
  /** Webhook subscriptions, the delivery log and the public signing keys (docs/decisions.md "Webhooks"). */
  webhooks: WebhookService;
  users: UserService;
  /** `/v1/users/authentication-providers`: the tenant's OpenID Connect provider. */
  authenticationProviders: AuthenticationProviderService;
  /** `GET`/`PUT /v1/openid/configuration`: the interaction hook. */
  openIdSettings: OpenIdSettingsService;
  /** `/v1/claim-sources`: the issuer's APIs asked for claims at issuance. */
  claimSources: ClaimSourceService;
  offers: OfferService;
  tokenEndpoint: TokenEndpoint;
  /** The Authorization Code flow's browser steps: authorize, PAR and the two callbacks. */
  authorizationFlow: AuthorizationFlow;
  /** DPoP (RFC 9449): the routes send its nonces as `DPoP-Nonce`. */
  dpop: Dpop;
  nonces: NonceService;
  walletTokens: WalletTokens;
  /** `POST /v1/openid/credential` and `POST /v1/openid/notification`. */
  credentialEndpoint: CredentialEndpoint;
  /** `GET /v2/credentials` and `GET /v1/users/{id}/credentials`. */
  issuedCredentials: IssuedCredentialService;
  /** `POST /v1/openid/deferred_credential` (docs/deferred-issuance.md). */
  deferredCredentialEndpoint: DeferredCredentialEndpoint;
  /** `/v2/credentials/deferred`: review of held credential requests. */
  deferredIssuances: DeferredIssuanceService;
  /** `POST /v1/users/{id}/refresh-tokens/revoke` and `POST /v2/credentials/{credentialId}/refresh-tokens/revoke`. */
  refreshTokens: RefreshTokenService;
  /** `/v1/openid/clients`: the wallet (OAuth) clients the Authorization Code flow accepts. */
  walletClients: WalletClientService;
  /** `/v1/openid/wallet-providers`: the wallet providers the tenant trusts (docs/dpop-and-attestation.md). */
  walletProviders: WalletProviderService;
  /** `/v2/credentials/trusted-issuers`: who the tenant trusts to issue what it verifies (docs/verification.md). */
  trustedIssuers: TrustedIssuerService;
  /** `/v2/presentations/applications`: the tenant's verifier applications (docs/verification.md "Verifier applications"). */
  verifierApplications: VerifierApplicationService;
  /** `POST /v2/credentials/{profile}/verify` (docs/verification.md). */
  verification: VerificationService;
  /** OpenID4VP presentation sessions (docs/verification.md "Presentation sessions"). */
  presentationSessions: PresentationSessionService;
  /** mDoc status lists: settings, the status of issued mDocs, the public distribution and tokens (docs/status-lists.md). */
  statusLists: StatusListService;
}
