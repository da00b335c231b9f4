// Every port the core asks the world for, gathered in one place. A feature owns its ports: each is
// declared beside the feature's model, in `<feature>/ports.ts` (some repositories in `model.ts`), and
// the cross-cutting ones (Clock, Ids, Digests, SecretHasher, SecretBox, outbound HTTP, domain events)
// in `shared/ports.ts`. This file only re-exports them and defines the aggregates: Repositories and
// the Store. Adapters implement these; the core never imports an adapter. Each method's comment is
// its contract, and the Store contract suite in @vellum/testing asserts exactly what is written
// there against every Store adapter.

import type { AuthenticationProviderRepository, OpenIdSettingsRepository } from './authentication/model.ts';
import type { ClaimSourceRepository } from './claim-sources/model.ts';
import type { CredentialConfigurationRepository } from './configurations/ports.ts';
import type { CustomDomainRepository } from './custom-domains/ports.ts';
import type { DidRepository } from './dids/ports.ts';
import type { EventRepository } from './events/ports.ts';
import type { DeferredIssuanceRepository } from './issuance/deferred-model.ts';
import type { IssuedCredentialRepository } from './issuance/ports.ts';
import type { DataKeyRepository, KeyRepository, PlatformKeyRepository, TenantSigningKeyRepository } from './keys/ports.ts';
import type { DocumentSignerRepository, IacaRepository } from './mdoc-pki/ports.ts';
import type { WalletClientRepository } from './oauth-clients/model.ts';
import type { WalletProviderRepository } from './wallet-providers/model.ts';
import type { TrustedIssuerRepository } from './verification/trusted-issuers/model.ts';
import type { VerifierApplicationRepository } from './verification/applications/model.ts';
import type { PresentationSessionRepository } from './verification/sessions/model.ts';
import type { AuthorizationRepository } from './oauth/authorization-model.ts';
import type { NonceRepository } from './oauth/ports.ts';
import type { RefreshTokenRepository } from './oauth/refresh-tokens.ts';
import type { OfferRepository } from './offers/ports.ts';
import type { RateLimitRepository } from './rate-limits/ports.ts';
import type { LeaseRepository } from './retention/ports.ts';
import type { StatusListConfigurationRepository, StatusListRepository } from './status-lists/model.ts';
import type { ClientRepository, TenantRepository } from './tenancy/ports.ts';
import type { UserRepository } from './users/ports.ts';
import type { WebhookDeliveryRepository, WebhookKeyRepository, WebhookRepository } from './webhooks/ports.ts';

export type { AuthenticationProviderRepository, OpenIdSettingsRepository } from './authentication/model.ts';
export type { IdentityProvider, ProviderFailure, ProviderFailureReport, ProviderSettings, SessionTokens } from './authentication/ports.ts';
export type { ClaimSourceRepository } from './claim-sources/model.ts';
export type { ConfigurationStamp, CredentialConfigurationRepository } from './configurations/ports.ts';
export type { LinkedDataProof, LinkedDataProofType, LinkedDataSigner, LinkedDataSignInput, MdocEngine, MdocEngineInput } from './credential-formats/port.ts';
export type { CustomDomainRepository, DnsResolver, TxtLookup } from './custom-domains/ports.ts';
export type { DidRepository, DidStamp } from './dids/ports.ts';
export type { EventRepository } from './events/ports.ts';
export type { DeferredIssuanceRepository } from './issuance/deferred-model.ts';
export { JWE_ENCRYPTION_ALGORITHMS } from './issuance/ports.ts';
export type {
  CredentialEncryption,
  IssuedCredentialRepository,
  JweEncryption,
  KeyProofVerification,
  ProofVerifier,
  ResponseEncryptionParameters,
  VerifiedKeyProof,
} from './issuance/ports.ts';
export type {
  DataKeyRepository,
  KeyCreateOptions,
  KeyManager,
  KeyRepository,
  KeyWrapper,
  PlatformKeyHolder,
  PlatformKeyRecord,
  PlatformKeyRepository,
  TenantSigningKeyRecord,
  TenantSigningKeyRepository,
} from './keys/ports.ts';
export type { CertificateInfo, DocumentSignerRepository, HeldKeyRef, IacaRepository, X509Authority } from './mdoc-pki/ports.ts';
export type { WalletClientRepository } from './oauth-clients/model.ts';
export type { WalletProviderRepository } from './wallet-providers/model.ts';
export type { TrustedIssuerRepository } from './verification/trusted-issuers/model.ts';
export type { VerifierApplicationRepository } from './verification/applications/model.ts';
export type { PresentationSessionRepository } from './verification/sessions/model.ts';
export type { PresentationCrypto } from './verification/sessions/ports.ts';
export type { AuthorizationRepository } from './oauth/authorization-model.ts';
export type { NonceCodec, NonceRecord, NonceRepository, WalletAccessClaims, WalletClaimsToIssue, WalletTokens } from './oauth/ports.ts';
export type { OfferRepository } from './offers/ports.ts';
export type { RefreshFamilyFilter, RefreshFamilyGrant, RefreshTokenRecord, RefreshTokenRepository } from './oauth/refresh-tokens.ts';
export type { RateLimitRepository } from './rate-limits/ports.ts';
export type { LeaseRepository } from './retention/ports.ts';
export type {
  Clock,
  CredentialIssuedEvent,
  CredentialReviewRequestedEvent,
  PresentationCompletedEvent,
  CredentialStatusUpdatedEvent,
  Digests,
  DomainEvent,
  DomainEventSink,
  HttpClient,
  Ids,
  OutboundFetch,
  OutboundRequest,
  OutboundResponse,
  OutboundResult,
  SecretBox,
  SecretHasher,
} from './shared/ports.ts';
export type { StatusListConfigurationRepository, StatusListRepository } from './status-lists/model.ts';
export type { ClientRepository, TenantRepository, TokenSigner } from './tenancy/ports.ts';
export type { UserRepository } from './users/ports.ts';
export type { WebhookDeliveryRepository, WebhookKeyRepository, WebhookRepository } from './webhooks/ports.ts';

export interface Repositories {
  tenants: TenantRepository;
  keys: KeyRepository;
  dids: DidRepository;
  clients: ClientRepository;
  customDomains: CustomDomainRepository;
  events: EventRepository;
  platformKeys: PlatformKeyRepository;
  /** The tenants' data keys, when software keys are sealed under them (docs/key-custody.md "Envelope encryption"). */
  dataKeys: DataKeyRepository;
  credentialConfigurations: CredentialConfigurationRepository;
  iacas: IacaRepository;
  documentSigners: DocumentSignerRepository;
  users: UserRepository;
  offers: OfferRepository;
  nonces: NonceRepository;
  tenantSigningKeys: TenantSigningKeyRepository;
  issuedCredentials: IssuedCredentialRepository;
  /** Credential requests held for review (docs/deferred-issuance.md). */
  deferredIssuances: DeferredIssuanceRepository;
  webhooks: WebhookRepository;
  webhookDeliveries: WebhookDeliveryRepository;
  webhookKeys: WebhookKeyRepository;
  /** Wallet (OAuth) clients (docs/wallet-clients.md). */
  walletClients: WalletClientRepository;
  /** The tenant's trusted wallet providers (docs/dpop-and-attestation.md "Trusted wallet providers"). */
  walletProviders: WalletProviderRepository;
  /** The tenant's trusted issuers of the credentials it verifies (docs/verification.md). */
  trustedIssuers: TrustedIssuerRepository;
  verifierApplications: VerifierApplicationRepository;
  /** OpenID4VP presentation sessions and their results (docs/verification.md "Presentation sessions"). */
  presentationSessions: PresentationSessionRepository;
  /** The tenant's OpenID Connect provider (docs/authentication.md). */
  authenticationProviders: AuthenticationProviderRepository;
  /** The tenant's OpenID settings: the interaction hook (docs/authentication.md). */
  openIdSettings: OpenIdSettingsRepository;
  /** Claim sources (docs/authentication.md). */
  claimSources: ClaimSourceRepository;
  /** Runs of the Authorization Code flow (OpenID4VCI 1.0 §5, §6). */
  authorizations: AuthorizationRepository;
  /** Refresh tokens and their families (docs/refresh-tokens.md). */
  refreshTokens: RefreshTokenRepository;
  /** Status lists, their entries and their signed tokens (docs/status-lists.md). */
  statusLists: StatusListRepository;
  /** How each docType's mDocs are listed (docs/status-lists.md). */
  statusListConfigurations: StatusListConfigurationRepository;
  /** Leases that keep background jobs to one runner at a time across processes (docs/retention.md). */
  leases: LeaseRepository;
}

/** Persistence. Repositories used directly run on their own; `transaction` makes several atomic. */
export interface Store extends Repositories {
  /** Rate-limit counters (kept outside transactions). */
  rateLimits: RateLimitRepository;
  /**
   * Runs `work` atomically: every write inside commits together or not at all (it rolls back on
   * throw). A Conflict thrown by a write inside ends the transaction on PostgreSQL: let it propagate
   * rather than catching it and writing on.
   */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Resolves when the store can serve queries (readiness); throws otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
