// `@vellum/core/schemas`: the request bodies' shapes, written once beside each feature's rules, and
// the one check that runs them (docs/decisions.md "One validation path"). The core's services check
// every body with these; an HTTP adapter validates and documents its routes with the same objects,
// so a bad body gets the same answer through either door.

export { Problems } from './shared/body-problems.ts';
export { WebhookBody } from './webhooks/schema.ts';

// Users, authentication providers, claim sources, wallet clients, admin clients:
export { UserBody, UserSearchBody } from './users/schema.ts';
export { OpenIdConfigurationBody, ProviderBody } from './authentication/schema.ts';
export { ClaimSourceBody } from './claim-sources/schema.ts';
export { WalletClientBody } from './oauth-clients/schema.ts';
export { WalletProviderBody } from './wallet-providers/schema.ts';
export { TrustedIssuerBody } from './verification/trusted-issuers/schema.ts';
export { VerifierApplicationBody, VerifierCertificateBody } from './verification/applications/schema.ts';
export { VerifyBody } from './verification/schema.ts';
export { CreateSessionBody, PresentationResponseBody, RequestUriPostBody } from './verification/sessions/schema.ts';
export { AdminClientBody } from './tenancy/schema.ts';
export { CustomDomainBody } from './custom-domains/schema.ts';
export { IssuerDisplayBody } from './metadata/issuer-display.ts';
export { BatchIssuanceBody } from './issuance/batch-issuance.ts';
export { KeyCustodyBody } from './keys/custody-settings.ts';
export { RotateAccessTokenKeyBody, RotateDidKeysBody, RotateVerifierApplicationKeyBody } from './keys/rotation.ts';

// Credential configurations:
export { CONFIGURATION_BODIES, CwtConfigurationBody, LdpVcConfigurationBody, MdocConfigurationBody, SdJwtConfigurationBody } from './configurations/schema.ts';
export { AuthorizationCodeOfferBody, PreAuthorizedOfferBody } from './offers/schema.ts';

// Offers, custom domains, DIDs, mDoc PKI, status lists:
export { CreateDidBody } from './dids/schema.ts';
export { CreateDocumentSignerBody, CreateIacaBody, UpdateDocumentSignerBody, UpdateIacaBody } from './mdoc-pki/schema.ts';
export { CreateIssuerSignerBody, UpdateIssuerSignerBody } from './issuer-pki/schema.ts';

// Wallet requests (token, PAR, credential, notification):
