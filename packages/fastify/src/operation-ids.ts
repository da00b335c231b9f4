// The `operationId` of every operation, by method and path as the document shows them (without a
// host's prefix). A table rather than a rule: generated clients name their methods after these, so
// a change to a path or to how ids would be derived must not rename them (docs/api-reference.md).

/** Verbs an `operationId` may start with; openapi.test.ts holds every id to one of them. */
export const OPERATION_VERBS = [
  'get',
  'list',
  'search',
  'create',
  'update',
  'delete',
  'revoke',
  'rotate',
  'retry',
  'issue',
  'verify',
  'start',
  'complete',
  'push',
  'notify',
  'approve',
  'deny',
] as const;

const FORMATS = [
  ['mobile', 'Mobile'],
  ['web-semantic', 'WebSemantic'],
  ['compact', 'Compact'],
  ['compact-semantic', 'CompactSemantic'],
  ['sd-jwt', 'SdJwt'],
] as const;

/** The five operations of a collection at `path` of things called `name` (plural: `plural`). */
function collection(path: string, item: string, name: string, plural = `${name}s`): Array<[string, string]> {
  return [
    [`POST ${path}`, `create${name}`],
    [`GET ${path}`, `list${plural}`],
    [`GET ${path}/${item}`, `get${name}`],
    [`PUT ${path}/${item}`, `update${name}`],
    [`DELETE ${path}/${item}`, `delete${name}`],
  ];
}

/** `METHOD /path` → operationId. */
export const OPERATION_IDS: ReadonlyMap<string, string> = new Map<string, string>([
  // Admin token and the document itself.
  ['POST /oauth/token', 'issueAdminToken'],
  ['GET /openapi.json', 'getOpenApiDocument'],
  // Custom domain and analytics settings.
  ['POST /v1/config/domain', 'createCustomDomain'],
  ['GET /v1/config/domain', 'getCustomDomain'],
  ['PUT /v1/config/domain', 'updateCustomDomain'],
  ['DELETE /v1/config/domain', 'deleteCustomDomain'],
  ['POST /v1/config/domain/verify', 'verifyCustomDomain'],
  ['GET /v1/config/analytics', 'getAnalyticsSettings'],
  ['PUT /v1/config/analytics', 'updateAnalyticsSettings'],
  ['GET /v1/config/issuer-display', 'getIssuerDisplay'],
  ['PUT /v1/config/issuer-display', 'updateIssuerDisplay'],
  ['GET /v1/config/batch-issuance', 'getBatchIssuance'],
  ['PUT /v1/config/batch-issuance', 'updateBatchIssuance'],
  ['GET /v1/config/key-custody', 'getKeyCustody'],
  ['PUT /v1/config/key-custody', 'updateKeyCustody'],
  ['POST /v1/signing-keys/access-token/rotate', 'rotateAccessTokenKey'],
  ['POST /v1/signing-keys/webhook/rotate', 'rotateWebhookKey'],
  ['POST /v1/signing-keys/document-signers/rotate', 'rotateDocumentSigners'],
  ['POST /v1/signing-keys/issuer-certificates/rotate', 'rotateIssuerCertificates'],
  ['POST /v1/signing-keys/dids/rotate', 'rotateDidKeys'],
  ['POST /v1/signing-keys/verifier-applications/rotate', 'rotateVerifierApplicationKey'],
  ['GET /v1/events', 'listEvents'],
  // DIDs and their public documents.
  ['POST /v1/dids', 'createDid'],
  ['GET /v1/dids', 'listDids'],
  ['GET /v1/dids/{did}', 'getDid'],
  ['DELETE /v1/dids/{did}', 'deleteDid'],
  ['GET /.well-known/did-configuration', 'getDidConfiguration'],
  ['GET /.well-known/did-configuration.json', 'getDidConfigurationJson'],
  ['GET /.well-known/did.json', 'getRootDidDocument'],
  ['GET /{p0}/did.json', 'getDidDocumentAtDepth1'],
  ['GET /{p0}/{p1}/did.json', 'getDidDocumentAtDepth2'],
  ['GET /{p0}/{p1}/{p2}/did.json', 'getDidDocumentAtDepth3'],
  ['GET /{p0}/{p1}/{p2}/{p3}/did.json', 'getDidDocumentAtDepth4'],
  ['GET /{p0}/{p1}/{p2}/{p3}/{p4}/did.json', 'getDidDocumentAtDepth5'],
  // Credential configurations, and the status of issued credentials, per format.
  ...FORMATS.flatMap(([format, name]) => collection(`/v2/credentials/${format}/configurations`, '{id}', `${name}Configuration`)),
  ...FORMATS.filter(([format]) => format !== 'mobile').flatMap(
    ([format, name]): Array<[string, string]> => [
      [`GET /v2/credentials/${format}/{id}/revocation-status`, `get${name}RevocationStatus`],
      [`POST /v2/credentials/${format}/{id}/revocation-status`, `update${name}RevocationStatus`],
    ],
  ),
  ['GET /v2/credentials/mobile/{credentialId}/status', 'getMobileCredentialStatus'],
  ['POST /v2/credentials/{credentialId}/refresh-tokens/revoke', 'revokeCredentialRefreshTokens'],
  ['POST /v2/credentials/mobile/{credentialId}/status', 'updateMobileCredentialStatus'],
  // Metadata.
  ['GET /.well-known/openid-credential-issuer', 'getCredentialIssuerMetadata'],
  ['GET /.well-known/oauth-authorization-server', 'getAuthorizationServerMetadata'],
  ['GET /.well-known/jwt-vc-issuer', 'getJwtVcIssuerMetadata'],
  ['GET /types/{name}', 'getSdJwtTypeMetadata'],
  ['GET /.well-known/jwks.json', 'getIssuerJwks'],
  // mDoc PKI.
  ...collection('/v2/credentials/mobile/iacas', '{id}', 'Iaca'),
  ['GET /v2/credentials/mobile/iacas/{id}/crl', 'getIacaCrl'],
  ...collection('/v2/credentials/mobile/document-signers', '{id}', 'DocumentSigner'),
  ['POST /v2/credentials/mobile/document-signers/{id}/revoke', 'revokeDocumentSigner'],
  ...collection('/v2/credentials/issuer-cas', '{id}', 'IssuerCa'),
  ['GET /v2/credentials/issuer-cas/{id}/crl', 'getIssuerCaCrl'],
  ...collection('/v2/credentials/issuer-signers', '{id}', 'IssuerSigner'),
  ['POST /v2/credentials/issuer-signers/{id}/revoke', 'revokeIssuerSigner'],
  // Status lists.
  ...collection('/v2/credentials/mobile/status-lists/configurations', '{id}', 'MobileStatusListConfiguration'),
  ['GET /v2/credentials/mobile/status-lists/distribution', 'getMobileStatusListDistribution'],
  ['GET /v2/credentials/mobile/status-lists/{statusListId}/token', 'getMobileStatusListToken'],
  ['GET /v2/credentials/sd-jwt/status-lists/{listId}', 'getSdJwtStatusList'],
  ['GET /v2/credentials/compact/status-lists/{listId}', 'getCompactStatusList'],
  ['GET /v2/credentials/web-semantic/revocation-lists/{listId}', 'getWebSemanticRevocationList'],
  // Webhooks.
  ['GET /v1/webhooks/jwks', 'getWebhookJwks'],
  ['POST /v1/webhooks/jwks/rotate', 'rotateWebhookSigningKey'],
  ...collection('/v1/webhooks', '{id}', 'Webhook'),
  ['GET /v1/webhooks/{id}/deliveries', 'listWebhookDeliveries'],
  ['POST /v1/webhooks/{id}/deliveries/{deliveryId}/retry', 'retryWebhookDelivery'],
  // Users, their sign-in and claims.
  ['POST /v1/users/search', 'searchUsers'],
  ...collection('/v1/users', '{id}', 'User'),
  ['GET /v1/users/{id}/credentials', 'listUserCredentials'],
  ['POST /v1/users/{id}/refresh-tokens/revoke', 'revokeUserRefreshTokens'],
  ...collection('/v1/users/authentication-providers', '{id}', 'AuthenticationProvider'),
  ...collection('/v1/claim-sources', '{id}', 'ClaimSource'),
  ['GET /v1/openid/configuration', 'getOpenIdSettings'],
  ['PUT /v1/openid/configuration', 'updateOpenIdSettings'],
  // Offers.
  ['POST /v1/openid/offers', 'createOffer'],
  ['POST /v1/openid/offers/pre-authorized', 'createPreAuthorizedOffer'],
  ['DELETE /v1/openid/offers/pre-authorized/{id}', 'deletePreAuthorizedOffer'],
  ['GET /v1/openid/offers/{id}', 'getOffer'],
  ['GET /v1/openid/offers/{id}/page', 'getOfferPage'],
  // The wallet's side.
  ['POST /v1/oauth/token', 'issueWalletAccessToken'],
  ['POST /v1/openid/nonce', 'issueNonce'],
  ['GET /v1/oauth/authorize', 'startAuthorization'],
  ['GET /v1/oauth/authentication/callback', 'completeAuthentication'],
  ['GET /v1/oauth/interaction/callback', 'completeInteraction'],
  ['POST /v1/oauth/par', 'pushAuthorizationRequest'],
  ['POST /v1/openid/credential', 'issueCredential'],
  ['POST /v1/openid/notification', 'notifyCredentialEvent'],
  ['POST /v1/openid/deferred_credential', 'issueDeferredCredential'],
  // Issued credentials.
  ['GET /v2/credentials', 'listIssuedCredentials'],
  // Deferred issuance (docs/deferred-issuance.md).
  ['GET /v2/credentials/deferred', 'listDeferredIssuances'],
  ['GET /v2/credentials/deferred/{id}', 'getDeferredIssuance'],
  ['POST /v2/credentials/deferred/{id}/approve', 'approveDeferredIssuance'],
  ['POST /v2/credentials/deferred/{id}/deny', 'denyDeferredIssuance'],
  // Admin and wallet clients.
  ['POST /v1/admin-clients', 'createAdminClient'],
  ['GET /v1/admin-clients', 'listAdminClients'],
  ['POST /v1/admin-clients/{clientId}/rotate-secret', 'rotateAdminClientSecret'],
  ['POST /v1/admin-clients/{clientId}/revoke', 'revokeAdminClient'],
  ...collection('/v1/openid/clients', '{clientId}', 'WalletClient'),
  ['POST /v1/openid/clients/{clientId}/rotate-secret', 'rotateWalletClientSecret'],
  ...collection('/v1/openid/wallet-providers', '{id}', 'WalletProvider'),
  // Verification (docs/verification.md).
  ...collection('/v2/credentials/trusted-issuers', '{id}', 'TrustedIssuer'),
  ['POST /v2/credentials/sd-jwt/verify', 'verifySdJwtCredential'],
  ['POST /v2/credentials/mobile/verify', 'verifyMobileCredential'],
  ['POST /v2/credentials/web-semantic/verify', 'verifyWebSemanticCredential'],
  ...collection('/v2/presentations/applications', '{id}', 'VerifierApplication'),
  ['PUT /v2/presentations/applications/{id}/certificate', 'updateVerifierApplicationCertificate'],
  ['POST /v2/presentations/sessions', 'createPresentationSession'],
  ['GET /v2/presentations/sessions/{id}', 'getPresentationSession'],
  ['GET /v1/openid/presentations/{id}/request', 'getPresentationRequest'],
  ['POST /v1/openid/presentations/{id}/request', 'getPresentationRequestByPost'],
  ['POST /v1/openid/presentations/{id}/response', 'completePresentation'],
  ['GET /v1/openid/presentations/{id}/page', 'getPresentationPage'],
]);
