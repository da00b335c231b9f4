import { createStatusListLookup } from './shared/token-status-lists.ts';
import { createSdJwtVcVerifier } from './verification/sd-jwt-vc.ts';
import { createMdocVerifier } from './verification/mso-mdoc.ts';
import type { CertificateChainValidator, MdocReader } from './verification/mdoc-ports.ts';
import { createLdpVcVerifier } from './verification/ldp-vc.ts';
import type { Gunzip, LinkedDataProofVerifier } from './verification/ldp-vc-ports.ts';
import { createRevocationListLookup } from './verification/revocation-list-2020.ts';
import { createDidResolver } from './dids/resolver.ts';
import { type AnalyticsService, createAnalyticsService } from './events/service.ts';
import { createEventRecorder, type EventLosses, type EventRecorder } from './events/recorder.ts';
import { type CredentialConfigurationService, createCredentialConfigurationService } from './configurations/service.ts';
import { type CustomDomainService, createCustomDomainService } from './custom-domains/service.ts';
import { cacheDidConfiguration, cacheLinkageCredentials } from './dids/cached-configuration.ts';
import { createDidConfigurationService, createLinkageCredentials, type DidConfigurationService } from './dids/configuration.ts';
import { createDidService, type DidService } from './dids/service.ts';
import { createMdocIssuance, type MdocIssuance } from './mdoc-issuance/service.ts';
import { createCwtFormat } from './credential-formats/cwt.ts';
import { type CredentialIssuance, createCredentialIssuance } from './credential-formats/issuance.ts';
import { createLdpVcFormat } from './credential-formats/ldp-vc.ts';
import { createMdocFormat } from './credential-formats/mso-mdoc.ts';
import type { CwtSigner, FormatRegistry, LinkedDataSigner, MdocEngine, SdJwtSigner } from './credential-formats/port.ts';
import { createFormatRegistry } from './credential-formats/registry.ts';
import { createSdJwtFormat } from './credential-formats/sd-jwt.ts';
import type { RevocationListSigner, StatusListTokenSigner, TokenStatusListSigner } from './status-lists/ports.ts';
import { createStatusListService, type StatusListService } from './status-lists/service.ts';
import { createDocumentSignerService, type DocumentSignerService } from './mdoc-pki/document-signers.ts';
import { createIacaService, type IacaService } from './mdoc-pki/iacas.ts';
import { cacheIssuingChains } from './mdoc-pki/cached-chains.ts';
import { ISSUER_CA_PROFILE } from './mdoc-pki/profiles.ts';
import { validAt } from './mdoc-pki/signers.ts';
import { cacheIssuerSigners } from './issuer-pki/cached-signers.ts';
import type { IssuerSigners } from './issuer-pki/model.ts';
import { createIssuerSignerService, type IssuerSignerService } from './issuer-pki/service.ts';
import { createIssuerSigners, rotateManagedIssuerLeaves } from './issuer-pki/signers.ts';
import { createIssuingChains, rotateManagedDocumentSigners } from './mdoc-pki/signers.ts';
import { type IssuanceFeatures, LIVE_ISSUANCE_FEATURES } from './metadata/issuer-metadata.ts';
import { cacheIssuerMetadata } from './metadata/cached-service.ts';
import { createIssuerMetadataService, type IssuerMetadataService } from './metadata/service.ts';
import { createIssuerDisplayService, type IssuerDisplayService } from './metadata/issuer-display.ts';
import { type BatchIssuanceService, createBatchIssuanceService } from './issuance/batch-issuance.ts';
import { createKeyCustodyService, type KeyCustodyOptions, type KeyCustodyService } from './keys/custody-settings.ts';
import { createSigningKeyRotationService, type SignerRotation, type SigningKeyRotationService } from './keys/rotation.ts';
import type { DnsResolver } from './custom-domains/ports.ts';
import type { CredentialEncryption, ProofVerifier } from './issuance/ports.ts';
import type { KeyManager } from './keys/ports.ts';
import type { X509Authority } from './mdoc-pki/ports.ts';
import type { NonceCodec, WalletTokens } from './oauth/ports.ts';
import type { Store } from './ports.ts';
import type { Clock, Digests, DomainEventSink, HttpClient, Ids, SecretBox, SecretHasher } from './shared/ports.ts';
import type { TokenSigner } from './tenancy/ports.ts';
import { type Addressing, type AddressingOptions, createAddressing } from './tenancy/addressing.ts';
import { type AdminAuth, createAdminAuth } from './tenancy/admin-auth.ts';
import { type AdminClientService, createAdminClientService } from './tenancy/admin-clients.ts';
import { createTenantAdmin, type TenantAdmin } from './tenancy/tenants.ts';
import { createOfferService, type OfferService } from './offers/service.ts';
import { createNonceService, type NonceService } from './oauth/nonces.ts';
import { createDpop, type Dpop } from './oauth/dpop.ts';
import type { JwtProofVerifier } from './oauth/jwt-proofs.ts';
import { ACCESS_TOKEN_TTL_SECONDS, createTokenEndpoint, type TokenEndpoint } from './oauth/token.ts';
import { type AuthorizationFlow, createAuthorizationFlow } from './oauth/authorize.ts';
import type { IdentityProvider, ProviderFailureReport, SessionTokens } from './authentication/ports.ts';
import { createClaimSourceClient } from './claim-sources/fetch.ts';
import { createAdminTokenLimiter, createParLimiter, createTxCodeLimiter } from './rate-limits/limiters.ts';
import type { RateLimitSettings } from './rate-limits/model.ts';
import { createUserService, type UserService } from './users/service.ts';
import { createRefreshTokenService, type RefreshTokenService } from './oauth/refresh-revocation.ts';
import {
  type AuthenticationProviderService,
  createAuthenticationProviderService,
  createOpenIdSettingsService,
  type OpenIdSettingsService,
} from './authentication/service.ts';
import { type ClaimSourceService, createClaimSourceService } from './claim-sources/service.ts';
import { createWalletClientService, type WalletClientService } from './oauth-clients/service.ts';
import { createWalletProviderService, type WalletProviderService } from './wallet-providers/service.ts';
import type { FormatVerifiers } from './verification/model.ts';
import { createVerificationService, type VerificationService } from './verification/service.ts';
import { createTrustedIssuerService, type TrustedIssuerService } from './verification/trusted-issuers/service.ts';
import { createVerifierApplicationService, type VerifierApplicationService } from './verification/applications/service.ts';
import type { PresentationCrypto, SessionApplications, SessionDcql } from './verification/sessions/ports.ts';
import { sessionDcql } from './verification/sessions/dcql.ts';
import { createPresentationSessionService, type PresentationSessionService, unavailablePresentationSessions } from './verification/sessions/service.ts';
import { createWalletProviderTrust, type Inflater, type WalletProviderTrust } from './wallet-providers/trust.ts';
import { type CredentialEndpoint, createCredentialEndpoint } from './issuance/credential-endpoint.ts';
import { createIssuedCredentialService, type IssuedCredentialService } from './issuance/issued-credentials.ts';
import { createDeferredCredentialEndpoint, type DeferredCredentialEndpoint } from './issuance/deferred.ts';
import { createDeferredIssuanceService, type DeferredIssuanceService } from './issuance/deferred-admin.ts';
import { createWebhookSigningKeys, type WebhookSigningKeys } from './webhooks/keys.ts';
import { createWebhookOutbox } from './webhooks/outbox.ts';
import { createWebhookService, type WebhookService } from './webhooks/service.ts';

/** Everything the use cases need from the world, plus the few settings they read. */
export interface VellumDeps extends AddressingOptions {
  /** SHA-256 and HMAC for values kept only as digests (pre-authorized and transaction codes): @vellum/crypto's loadDigests. */
  digests: Digests;
  /** Signs and verifies wallet access tokens with per-tenant keys: @vellum/crypto's createWalletTokens. */
  walletTokens: WalletTokens;
  /** Lifetime of wallet access tokens, in seconds (default 600; docs/decisions.md "Users, offers, the token and nonce endpoints"). */
  accessTokenTtlSeconds?: number;
  store: Store;
  clock: Clock;
  ids: Ids;
  hasher: SecretHasher;
  tokens: TokenSigner;
  dns: DnsResolver;
  /** Tenants' signing keys (the private halves never leave it). */
  keys: KeyManager;
  /** Signs JSON-LD documents with Linked Data proofs (ldp_vc credentials and the DID configuration's). */
  linkedDataSigner: LinkedDataSigner;
  /** Lifetime of admin access tokens, in seconds. */
  adminTokenTtlSeconds: number;
  /** X.509 for mDocs (IACAs, document signers, CSRs, CRLs) over `keys`: @vellum/crypto's createX509Authority. */
  x509: X509Authority;
  /** The mso_mdoc engine signing through `keys`: @vellum/formats' createMdocEngine. */
  mdocEngine: MdocEngine;
  /** Signs cwt and cwt_vc credentials (COSE_Sign1, ES256) through `keys`: @vellum/formats' createCwtSigner. */
  cwtSigner: CwtSigner;
  /** Issues dc+sd-jwt credentials through `keys`: @vellum/formats' createSdJwtSigner. */
  sdJwtSigner: SdJwtSigner;
  /** Signs mDoc status list tokens (CWT) with a document signer's key: @vellum/formats' createStatusListTokenSigner. */
  statusListTokens: StatusListTokenSigner;
  /** Signs the Token Status Lists of dc+sd-jwt (JWT), cwt and cwt_vc (CWT) with a DID key: @vellum/formats' createTokenStatusListSigner. */
  tokenStatusLists: TokenStatusListSigner;
  /** Signs the RevocationList2020 credentials of ldp_vc with a DID key: @vellum/formats' createRevocationListSigner. */
  revocationLists: RevocationListSigner;
  /**
   * How long the IACA and document signer that sign a tenant's mDocs are reused before the store is
   * read again, in ms (default 1000; 0 reads them for every credential). Bounds how long another
   * server may keep using a deactivated IACA. Concurrent credentials of a tenant share one read
   * even at 0.
   */
  mdocSignerCacheMs?: number;
  /** Told when a batch of analytic events could not be written (its rows are retried one by one); at most once a minute. */
  onEventWriteError?: (error: unknown) => void;
  /** Told how many analytic events were dropped or truncated so far, when that changed; at most once a minute. */
  onEventLoss?: (losses: EventLosses) => void;
  /** At most this many analytic events wait in memory for the store (default 10,000). */
  eventQueueMax?: number;
  /**
   * What of the issuance protocol the host serves, which metadata advertises (default
   * LIVE_ISSUANCE_FEATURES: what this release implements).
   */
  issuanceFeatures?: IssuanceFeatures;
  /**
   * Where issuance writes its domain events, inside the transaction that records the credential
   * (default: the webhook outbox, createWebhookOutbox).
   */
  domainEvents?: DomainEventSink;
  /** Federates sign-in to tenants' OpenID Connect providers: @vellum/node's createIdentityProvider. */
  identityProvider: IdentityProvider;
  /** Told why a tenant's identity provider failed (the wallet is told less), for the operator's log. */
  onProviderFailure?: (report: ProviderFailureReport) => void;
  /**
   * Outbound HTTP for claim sources (docs/authentication.md): @vellum/node's createHttpClient. Without it,
   * configurations' claim sources are not asked, and their claims are missing at issuance.
   */
  http?: HttpClient;
  /** HS256 session tokens for the interaction hook: @vellum/crypto's createSessionTokens. */
  sessionTokens: SessionTokens;
  /**
   * Seals secrets Vellum must read again (provider and claim source secrets, the interaction hook
   * key) and the claims of offers and authorizations at rest: @vellum/crypto's createSecretBox.
   */
  secretBox: SecretBox;
  /** Verifies the signatures of wallets' key proof JWTs: @vellum/crypto's createProofVerifier. */
  proofVerifier: ProofVerifier;
  /** Verifies DPoP proofs, client and key attestations (signatures and X.509 chains): @vellum/crypto's createJwtProofVerifier. */
  jwtProofs: JwtProofVerifier;
  /**
   * Replaces the trust in the tenant's wallet providers (`/v1/openid/wallet-providers`) that
   * wallet and key attestations from wallets that are not registered clients are checked against
   * (docs/dpop-and-attestation.md "Wallet requirements"); for tests and hosts with their own list.
   */
  walletProviderTrust?: WalletProviderTrust;
  /** Whether DPoP proofs must carry a nonce the server handed out (RFC 9449 §8; `DPoP-Nonce`). Default false. */
  dpopNonceRequired?: boolean;
  /** Encrypted credential requests and responses (JWE): @vellum/crypto's loadCredentialEncryption. */
  credentialEncryption: CredentialEncryption;
  /** Self-authenticating c_nonces, with a key every server sharing the store has: @vellum/crypto's loadNonceCodec. */
  nonceCodec: NonceCodec;
  /**
   * Limits on failed admin token requests, wrong transaction codes and pushed authorization
   * requests, counted in `store.rateLimits` (docs/limits.md). Absent: no limits (the server passes
   * DEFAULT_RATE_LIMITS unless configured).
   */
  rateLimits?: RateLimitSettings;
  /**
   * The key custodies this server has and where a tenant's new keys go by default
   * (docs/key-custody.md); absent: software only. What `/v1/config/key-custody` lets a tenant choose.
   */
  keyCustody?: KeyCustodyOptions;
  /**
   * zlib decompression for the Token Status Lists of wallet providers (@vellum/node's createInflater).
   * Without it, an attestation that names a status list is refused (its status cannot be read).
   */
  inflater?: Inflater;
  /** How long a tenant's trusted wallet providers are reused before the store is read again, in ms (default 5000). */
  walletProviderCacheMs?: number;
  /**
   * Verifiers of credential formats for the verify API (docs/verification.md), added to the ones
   * Vellum registers itself; a format with none is refused with 503.
   */
  formatVerifiers?: FormatVerifiers;
  /** How long a tenant's trusted issuers are reused before the store is read again, in ms (default 5000). */
  trustedIssuerCacheMs?: number;
  /**
   * Reads mDocs (CBOR, COSE) and validates certificate chains for the mDoc verifier: @vellum/formats'
   * createMdocReader and @vellum/crypto's createCertificateChainValidator. Without both, mso_mdoc is
   * not verified (the verify API answers 503).
   */
  mdocReader?: MdocReader;
  certificateChains?: CertificateChainValidator;
  /**
   * Checks Linked Data proofs for the ldp_vc verifier: @vellum/formats' createLinkedDataProofVerifier.
   * Without it, ldp_vc is not verified (the verify API answers 503). RevocationList2020 lists are
   * read through `http` and decompressed by `gunzip` (@vellum/node's createInflater).
   */
  linkedDataProofs?: LinkedDataProofVerifier;
  gunzip?: Gunzip;
  /** direct_post.jwt keys and the mDoc handover's SHA-256 for presentation sessions: @vellum/crypto's createPresentationCrypto. */
  presentationCrypto?: PresentationCrypto;
  /**
   * Replaces what presentation sessions consume (issue 31 contracts A and B): the request signers
   * (default: the tenant's verifier applications) and DCQL (default: the DCQL module). For tests and
   * hosts with their own. Without `presentationCrypto`, sessions answer 503.
   */
  presentationParts?: { applications?: SessionApplications; dcql?: SessionDcql };
}

/** Every use case of the platform, wired once. */
export interface Vellum {
  /** Users and their persisted claims (docs/decisions.md "Users, offers, the token and nonce endpoints"). */
  users: UserService;
  /** Authorization Code and Pre-authorized Code offers (OpenID4VCI 1.0 §4.1; docs/authorization-code.md). */
  offers: OfferService;
  /** `POST /v1/oauth/token`: the Pre-authorized Code and Authorization Code grants (OpenID4VCI 1.0 §6). */
  tokenEndpoint: TokenEndpoint;
  /** `GET /v1/oauth/authorize`, `POST /v1/oauth/par` and the sign-in and interaction callbacks (docs/authorization-code.md). */
  authorizationFlow: AuthorizationFlow;
  /** `POST /v1/openid/nonce`: single-use nonces for key proofs. */
  nonces: NonceService;
  /** DPoP proofs (RFC 9449): the checks, the server nonces the routes send as `DPoP-Nonce`, the challenge. */
  dpop: Dpop;
  /** `/v1/users/authentication-providers`: the tenant's OpenID Connect provider (docs/authentication.md). */
  authenticationProviders: AuthenticationProviderService;
  /** `GET`/`PUT /v1/openid/configuration`: the interaction hook (docs/authentication.md). */
  openIdSettings: OpenIdSettingsService;
  /** `/v1/claim-sources`: the issuer's APIs asked for claims at issuance (docs/authentication.md). */
  claimSources: ClaimSourceService;
  /** `/v1/openid/clients`: the wallet (OAuth) clients the Authorization Code flow accepts (docs/wallet-clients.md). */
  walletClients: WalletClientService;
  /** `/v1/openid/wallet-providers`: the wallet providers the tenant trusts (docs/dpop-and-attestation.md "Trusted wallet providers"). */
  walletProviders: WalletProviderService;
  /**
   * Whether a wallet or key attestation was signed by a wallet provider the tenant trusts (and not
   * revoked in its status list): the port the token and credential endpoints ask.
   */
  walletProviderTrust: WalletProviderTrust;
  /** `/v2/credentials/trusted-issuers`: who the tenant trusts to issue what it verifies (docs/verification.md). */
  trustedIssuers: TrustedIssuerService;
  /** `/v2/presentations/applications` and the request signers of presentation sessions (docs/verification.md "Verifier applications"). */
  verifierApplications: VerifierApplicationService;
  /** `POST /v2/credentials/{profile}/verify`: one credential checked against the tenant's trusted issuers. */
  verification: VerificationService;
  /** OpenID4VP presentation sessions: the admin API and the wallet's request and response endpoints (docs/verification.md). */
  presentationSessions: PresentationSessionService;
  /** Wallet access tokens: `deps.walletTokens` (the credential endpoint verifies with it; its JWKS is public). */
  walletTokens: WalletTokens;
  addressing: Addressing;
  adminAuth: AdminAuth;
  customDomains: CustomDomainService;
  dids: DidService;
  didConfiguration: DidConfigurationService;
  analytics: AnalyticsService;
  tenants: TenantAdmin;
  /** The tenant's admin clients through the API (list, create, rotate secret, revoke). */
  adminClients: AdminClientService;
  credentialConfigurations: CredentialConfigurationService;
  issuerMetadata: IssuerMetadataService;
  /** `GET`/`PUT /v1/config/issuer-display`: the issuer's `display` in its metadata (OpenID4VCI 1.0 §12.2.4). */
  issuerDisplay: IssuerDisplayService;
  /** `GET`/`PUT /v1/config/batch-issuance`: how many credentials one request may ask for (OpenID4VCI 1.0 §12.2.4). */
  batchIssuance: BatchIssuanceService;
  /** `GET`/`PUT /v1/config/key-custody`: where the tenant's new signing keys are made (docs/key-custody.md). */
  keyCustody: KeyCustodyService;
  /** `POST /v1/signing-keys/{role}/rotate`: a signing role's new key, the old one verifying through an overlap (docs/key-custody.md "Rotation"). */
  signingKeys: SigningKeyRotationService;
  /**
   * Forced rotation of managed document signers and issuer leaves (rotateManagedDocumentSigners,
   * rotateManagedIssuerLeaves), over the caches issuance uses: the new signers sign in this process at once.
   */
  signerRotation: SignerRotation;
  /** mDoc PKI (docs/decisions.md "mDoc PKI"; ISO/IEC 18013-5 Annex B): IACAs and document signers. */
  iacas: IacaService;
  documentSigners: DocumentSignerService;
  /** Issuer CAs (docs/decisions.md "Issuer certificates"): the roots of SD-JWT VC, signed metadata and status list chains. */
  issuerCas: IacaService;
  /** The leaves under issuer CAs: the CSR flow for imported ones, revocation. */
  issuerSigners: IssuerSignerService;
  /** The leaf that signs for a tenant now, per use and issuer identifier (made and rotated under a managed issuer CA). */
  issuerSigning: IssuerSigners;
  /** Issues mDocs for a configuration, a user's claims and a holder key, independent of OpenID4VCI. */
  mdocIssuance: MdocIssuance;
  /** Issues a credential of any format for a configuration, a user's claims and a holder key, independent of OpenID4VCI. */
  credentialIssuance: CredentialIssuance;
  /** The handler of each credential format (the CredentialFormat port). */
  formats: FormatRegistry;
  /** mDoc status lists: per-docType settings, revocation and suspension, and the public tokens (docs/status-lists.md). */
  statusLists: StatusListService;
  /** The analytic event buffer: the host flushes it on a timer and at shutdown. */
  recorder: EventRecorder;
  /** Webhook subscriptions, the delivery log and the signing keys' JWKS (docs/decisions.md "Webhooks"). */
  webhooks: WebhookService;
  /** Tenants' webhook signing keys; the host's delivery worker (createWebhookDeliveryWorker) signs with them. */
  webhookSigningKeys: WebhookSigningKeys;
  /** Where issuance publishes domain events: `deps.domainEvents`, or the webhook outbox. */
  domainEvents: DomainEventSink;
  /** `POST /v1/openid/credential` and `POST /v1/openid/notification` (OpenID4VCI 1.0 §8, §11). */
  credentialEndpoint: CredentialEndpoint;
  /** Issued-credential records (docs/decisions.md "The credential endpoint"): `GET /v2/credentials`, `GET /v1/users/{id}/credentials`. */
  issuedCredentials: IssuedCredentialService;
  /** `POST /v1/openid/deferred_credential` (OpenID4VCI 1.0 §9; docs/deferred-issuance.md). */
  deferredCredentialEndpoint: DeferredCredentialEndpoint;
  /** `/v2/credentials/deferred`: requests held for review, approved or denied (docs/deferred-issuance.md). */
  deferredIssuances: DeferredIssuanceService;
  /** Revocation of refresh token families by user or credential (docs/refresh-tokens.md). */
  refreshTokens: RefreshTokenService;
}

/** Builds all use cases over one set of adapters: the one call a host (or a test) needs. */
export function createVellum(deps: VellumDeps): Vellum {
  const { store, clock, ids, hasher, tokens, dns } = deps;
  const addressing = createAddressing(store, {
    platformDomain: deps.platformDomain,
    publicUrl: deps.publicUrl,
    ...(deps.defaultTenant ? { defaultTenant: deps.defaultTenant } : {}),
  });
  const recorder = createEventRecorder({
    events: store.events,
    clock,
    ids,
    ...(deps.onEventWriteError ? { onError: deps.onEventWriteError } : {}),
    ...(deps.onEventLoss ? { onLoss: deps.onEventLoss } : {}),
    ...(deps.eventQueueMax !== undefined ? { maxQueue: deps.eventQueueMax } : {}),
  });
  const { keys, x509 } = deps;
  // Chosen (and rotated) afresh by the domain service; the cache in front reuses each tenant's chain
  // for mdocSignerCacheMs and shares concurrent loads (docs/decisions.md, Caches live outside the core).
  const chains = cacheIssuingChains(createIssuingChains({ store, clock, ids, keys, x509 }), { cacheMs: deps.mdocSignerCacheMs ?? 1000, clock });
  // The same for the leaves of issuer CAs, per use and issuer identifier (docs/decisions.md "Issuer certificates").
  const issuerSigners = cacheIssuerSigners(createIssuerSigners({ store, clock, ids, keys, x509 }), { cacheMs: deps.mdocSignerCacheMs ?? 1000, clock });
  // A forced rotation's new signers sign at once in this process (it invalidates the caches above);
  // other processes pick them within their caches' time (mdocSignerCacheMs), the old ones staying valid.
  const rotationDeps = { store, keys, x509, ids, chains, issuerSigners };
  const signerRotation: SignerRotation = {
    documentSigners: (tenant, now) => rotateManagedDocumentSigners(rotationDeps, tenant, now),
    issuerLeaves: (tenant, now) => rotateManagedIssuerLeaves(rotationDeps, tenant, now),
  };
  const webhookSigningKeys = createWebhookSigningKeys({ store, keys, clock });
  const domainEvents = deps.domainEvents ?? createWebhookOutbox({ clock, ids });
  const statusLists = createStatusListService({
    store,
    clock,
    ids,
    events: recorder,
    chains,
    tokens: deps.statusListTokens,
    tokenStatusLists: deps.tokenStatusLists,
    revocationLists: deps.revocationLists,
    domainEvents,
    // The lists of SD-JWT VCs signed with x5c are signed under the same issuer CA (issue 29 point 4).
    issuerSigners,
  });
  const mdocIssuance = createMdocIssuance({ clock, engine: deps.mdocEngine, chains, statusLists });
  const formats = createFormatRegistry([
    createMdocFormat({ issuance: mdocIssuance }),
    createLdpVcFormat({ store, ids, signer: deps.linkedDataSigner, statusLists }),
    createCwtFormat({ store, signer: deps.cwtSigner, format: 'cwt', statusLists, issuerSigners }),
    createCwtFormat({ store, signer: deps.cwtSigner, format: 'cwt_vc', statusLists, issuerSigners }),
    createSdJwtFormat({ store, signer: deps.sdJwtSigner, statusLists, issuerSigners, digests: deps.digests }),
  ]);
  const credentialIssuance = createCredentialIssuance({ clock, formats });
  const limits = deps.rateLimits && { repository: store.rateLimits, clock, settings: deps.rateLimits };
  const adminTokenLimiter = limits && createAdminTokenLimiter(limits);
  const txCodeLimiter = limits && createTxCodeLimiter(limits);
  const parLimiter = limits && createParLimiter(limits);
  const tenants = createTenantAdmin({ store, clock, ids, hasher });
  const dpop = createDpop({
    store,
    clock,
    digests: deps.digests,
    verifier: deps.jwtProofs,
    nonces: deps.nonceCodec,
    ...(deps.dpopNonceRequired !== undefined ? { requireNonce: deps.dpopNonceRequired } : {}),
  });
  const jwtProofs = deps.jwtProofs;
  // Trusted lists and status lists are read through the guarded client; the admin service tells the
  // trust a tenant's providers changed, so this process uses the change at once.
  const walletProviderTrust = createWalletProviderTrust({
    store,
    clock,
    verifier: jwtProofs,
    ...(deps.http ? { http: deps.http } : {}),
    ...(deps.inflater ? { inflater: deps.inflater } : {}),
    ...(deps.walletProviderCacheMs !== undefined ? { cacheMs: deps.walletProviderCacheMs } : {}),
  });
  // What the endpoints check attestations against: the tenant's providers, unless the host gives its own.
  const attestationTrust = deps.walletProviderTrust ?? walletProviderTrust;
  const trustedIssuers = createTrustedIssuerService({
    store,
    clock,
    ids,
    events: recorder,
    x509,
    ...(deps.trustedIssuerCacheMs !== undefined ? { cacheMs: deps.trustedIssuerCacheMs } : {}),
  });
  const verifierApplications = createVerifierApplicationService({ store, clock, ids, events: recorder, keys: deps.keys, x509 });
  // ── Format verifiers (docs/verification.md) ──────────────────────────────────────────────────────
  // Vellum's own verifiers first, so that a host's own verifier of a format still replaces one.
  // The status lists credentials name, read through the outbound guard and kept for their ttl.
  const readStatusLists = createStatusListLookup({ clock, ...(deps.http ? { http: deps.http } : {}), ...(deps.inflater ? { inflater: deps.inflater } : {}) });
  // Issuer DIDs: did:key decoded, did:web read through the outbound guard and kept a few minutes.
  const didService = createDidService({ store, clock, keys: deps.keys, events: recorder, addressing });
  const dids = createDidResolver({ clock, ...(deps.http ? { http: deps.http } : {}) });
  const formatVerifiers: FormatVerifiers = {
    'dc+sd-jwt': createSdJwtVcVerifier({
      jwtProofs,
      digests: deps.digests,
      statusLists: readStatusLists,
      dids,
      ...(deps.certificateChains ? { certificates: deps.certificateChains } : {}),
    }),
    ...(deps.mdocReader && deps.certificateChains
      ? { mso_mdoc: createMdocVerifier({ reader: deps.mdocReader, chains: deps.certificateChains, statusLists: readStatusLists }) }
      : {}),
    ...(deps.linkedDataProofs
      ? {
          ldp_vc: createLdpVcVerifier({
            proofs: deps.linkedDataProofs,
            dids,
            revocationLists: createRevocationListLookup({ clock, ...(deps.http ? { http: deps.http } : {}), ...(deps.gunzip ? { gunzip: deps.gunzip } : {}) }),
          }),
        }
      : {}),
    ...deps.formatVerifiers,
  };
  return {
    dpop,
    users: createUserService({ store, clock, ids, events: recorder }),
    authenticationProviders: createAuthenticationProviderService({ store, clock, ids, events: recorder, secrets: deps.secretBox }),
    openIdSettings: createOpenIdSettingsService({ store, clock, ids, events: recorder, secrets: deps.secretBox }),
    claimSources: createClaimSourceService({ store, clock, ids, events: recorder, secrets: deps.secretBox }),
    walletClients: createWalletClientService({ store, clock, ids, hasher, events: recorder }),
    walletProviders: createWalletProviderService({
      store,
      clock,
      ids,
      events: recorder,
      x509,
      onChange: (tenantId) => walletProviderTrust.invalidate(tenantId),
    }),
    walletProviderTrust,
    trustedIssuers,
    verifierApplications,
    verification: createVerificationService({ clock, events: recorder, trustedIssuers, verifiers: formatVerifiers }),
    presentationSessions: deps.presentationCrypto
      ? createPresentationSessionService({
          store,
          clock,
          ids,
          digests: deps.digests,
          secrets: deps.secretBox,
          events: recorder,
          domainEvents,
          crypto: deps.presentationCrypto,
          applications: deps.presentationParts?.applications ?? verifierApplications,
          dcql: deps.presentationParts?.dcql ?? sessionDcql,
          trustedIssuers,
          verifiers: formatVerifiers,
        })
      : unavailablePresentationSessions(),
    offers: createOfferService({ store, clock, ids, digests: deps.digests, secrets: deps.secretBox, events: recorder }),
    tokenEndpoint: createTokenEndpoint({
      store,
      clock,
      digests: deps.digests,
      walletTokens: deps.walletTokens,
      events: recorder,
      hasher,
      dpop,
      jwtProofs,
      ids,
      secrets: deps.secretBox,
      walletProviderTrust: attestationTrust,
      ...(deps.accessTokenTtlSeconds !== undefined ? { accessTokenTtlSeconds: deps.accessTokenTtlSeconds } : {}),
      ...(txCodeLimiter ? { txCodeLimiter } : {}),
    }),
    authorizationFlow: createAuthorizationFlow({
      store,
      clock,
      ids,
      digests: deps.digests,
      hasher,
      secrets: deps.secretBox,
      identityProvider: deps.identityProvider,
      sessionTokens: deps.sessionTokens,
      events: recorder,
      dpop,
      jwtProofs,
      walletProviderTrust: attestationTrust,
      ...(deps.onProviderFailure ? { onProviderFailure: deps.onProviderFailure } : {}),
      ...(parLimiter ? { parLimiter } : {}),
    }),
    nonces: createNonceService({ clock, codec: deps.nonceCodec, events: recorder }),
    walletTokens: deps.walletTokens,
    addressing,
    webhooks: createWebhookService({ store, clock, ids, events: recorder, signingKeys: webhookSigningKeys }),
    webhookSigningKeys,
    domainEvents,
    iacas: createIacaService({ store, clock, ids, keys, x509, events: recorder, addressing, chains }),
    documentSigners: createDocumentSignerService({ store, clock, ids, keys, x509, events: recorder, chains }),
    issuerCas: createIacaService({
      store,
      clock,
      ids,
      keys,
      x509,
      events: recorder,
      addressing,
      chains: issuerSigners,
      profile: ISSUER_CA_PROFILE,
      // The credential leaf for the tenant's public origin, so /.well-known/jwt-vc-issuer lists a key
      // as soon as the CA is active (docs/decisions.md "Issuer certificates").
      afterActivation: async (ctx, ca, now) => {
        if (validAt(ca.certificateData, now.getTime())) await issuerSigners.current(ctx.tenant, 'credential', await addressing.publicOrigin(ctx.tenant), now);
      },
    }),
    issuerSigners: createIssuerSignerService({ store, clock, ids, keys, x509, events: recorder, addressing, signers: issuerSigners }),
    issuerSigning: issuerSigners,
    mdocIssuance,
    credentialIssuance,
    formats,
    statusLists,
    credentialEndpoint: createCredentialEndpoint({
      store,
      clock,
      ids,
      walletTokens: deps.walletTokens,
      proofs: deps.proofVerifier,
      jwtProofs,
      walletProviderTrust: attestationTrust,
      dpop,
      nonces: deps.nonceCodec,
      encryption: deps.credentialEncryption,
      issuance: credentialIssuance,
      formats,
      domainEvents,
      events: recorder,
      secrets: deps.secretBox,
      digests: deps.digests,
      ...(deps.http ? { claimSources: createClaimSourceClient({ http: deps.http, secrets: deps.secretBox, clock }) } : {}),
    }),
    issuedCredentials: createIssuedCredentialService({ store, events: recorder }),
    deferredCredentialEndpoint: createDeferredCredentialEndpoint({
      store,
      clock,
      ids,
      digests: deps.digests,
      secrets: deps.secretBox,
      domainEvents,
      walletTokens: deps.walletTokens,
      dpop,
      encryption: deps.credentialEncryption,
      issuance: credentialIssuance,
      events: recorder,
    }),
    deferredIssuances: createDeferredIssuanceService({ store, clock, secrets: deps.secretBox, events: recorder }),
    refreshTokens: createRefreshTokenService({ store, clock, events: recorder }),
    recorder,
    adminAuth: createAdminAuth({
      store,
      hasher,
      tokens,
      addressing,
      tokenTtlSeconds: deps.adminTokenTtlSeconds,
      events: recorder,
      ...(adminTokenLimiter ? { limiter: adminTokenLimiter } : {}),
    }),
    customDomains: createCustomDomainService({ store, clock, ids, dns, events: recorder, platformDomain: deps.platformDomain }),
    dids: didService,
    // Built and signed afresh by the domain service; the caches around it keep each DID's credential
    // until shortly before it expires, and the last document while the DIDs' stamps and the origin
    // are unchanged (docs/architecture.md, Caches live outside the core).
    didConfiguration: cacheDidConfiguration(
      createDidConfigurationService({
        store,
        clock,
        addressing,
        linkage: cacheLinkageCredentials(createLinkageCredentials({ signer: deps.linkedDataSigner })),
      }),
      { stamps: (tenantId) => store.dids.listStamps(tenantId), origin: (tenant) => addressing.publicOrigin(tenant), clock },
    ),
    analytics: createAnalyticsService({ store, events: recorder }),
    issuerDisplay: createIssuerDisplayService({ store, events: recorder }),
    batchIssuance: createBatchIssuanceService({ store, events: recorder }),
    keyCustody: createKeyCustodyService({ store, events: recorder, options: deps.keyCustody ?? { available: ['software'], platformDefault: 'software' } }),
    signingKeys: createSigningKeyRotationService({
      events: recorder,
      clock,
      walletTokens: deps.walletTokens,
      webhookSigningKeys,
      signers: signerRotation,
      dids: didService,
      verifierApplications,
      accessTokenTtlSeconds: deps.accessTokenTtlSeconds ?? ACCESS_TOKEN_TTL_SECONDS,
    }),
    signerRotation,
    tenants,
    adminClients: createAdminClientService({ store, clock, ids, hasher, events: recorder, tenants }),
    credentialConfigurations: createCredentialConfigurationService({
      store,
      clock,
      ids,
      events: recorder,
      formats,
      x509: { signers: issuerSigners, addressing },
    }),
    // Built (and signed) afresh by the domain service; the cache around it serves the last document
    // while the configurations' stamps are unchanged, and the last signed one while its signer is
    // too and it is not due for renewal (docs/architecture.md, Caches live outside the core).
    issuerMetadata: cacheIssuerMetadata(
      createIssuerMetadataService({
        store,
        features: deps.issuanceFeatures ?? LIVE_ISSUANCE_FEATURES,
        formats,
        requestEncryptionKeys: (tenantId) => deps.credentialEncryption.requestEncryptionKeys(tenantId),
        signing: { signers: issuerSigners, keys, clock },
        digests: deps.digests,
      }),
      { stamps: (tenantId) => store.credentialConfigurations.listStamps(tenantId), clock },
    ),
  };
}
