export {
  fakeClock,
  fakeDns,
  fakeHasher,
  fakeIds,
  fakeKeyManager,
  fakeLinkedDataSigner,
  fakeCwtSigner,
  fakeSdJwtSigner,
  fakeSecretBox,
  fakeStatusListTokenSigner,
  fakeTokenStatusListSigner,
  fakeRevocationListSigner,
  readFakeStatusListToken,
  fakeTokenSigner,
} from './fakes.ts';
export type { FakeClock } from './fakes.ts';
export { describeStoreContract, makeClient, makeConfiguration, makeDid, makeDomain, makeEvent } from './store-contract.ts';
export { makeTenant } from './store-contract-support.ts';
export { startDnsServer } from './dns-server.ts';
export { children, tlv } from './der.ts';
export type { Tlv } from './der.ts';
export { DIF_DOMAIN_LINKAGE_CREDENTIAL } from './vectors.ts';
export type { DnsTestServer } from './dns-server.ts';
export { fakeCertificatePem, fakeCsrBody, fakeMdocEngine, fakeX509Authority, readFakeMdoc } from './mdoc-fakes.ts';
export type { FakeCertificateBody, FakeMdoc } from './mdoc-fakes.ts';
export { makeDocumentSigner, makeIaca } from './store-contract-mdoc.ts';
export { fakeDigests, fakeNonceCodec, fakeWalletTokens } from './token-fakes.ts';
export { makeOffer, makeUser } from './store-contract-offers.ts';
export { describeAuthenticationContract, makeAuthenticationProvider, makeClaimSource } from './store-contract-authentication.ts';
export { makeIssuedCredential } from './store-contract-issuance.ts';
export {
  decryptJwe,
  dpopProof,
  encryptionKey,
  encryptJwe,
  fakeCredentialEncryption,
  fakeJwtProofVerifier,
  fakeProofVerifier,
  jwkThumbprint,
  fakeRequestJwe,
  proofJwt,
  readFakeJwe,
  signJwt,
  walletKey,
} from './wallet.ts';
export type { ProofOptions, WalletKey } from './wallet.ts';
export { makeDelivery, makeSigningKey, makeWebhook } from './store-contract-webhooks.ts';
export { describeWalletClientContract, makeWalletClient } from './store-contract-wallet-clients.ts';
export { describeAuthorizationContract, makeAuthorization, raceAdvances } from './store-contract-authorizations.ts';
export { describeStatusListContract, makeStatusList, makeStatusListConfiguration } from './store-contract-status-lists.ts';
export { localhostCertificate, startWebhookReceiver, writeLocalhostCertificate } from './webhook-receiver.ts';
export type { LocalhostCertificate, ReceivedRequest, ReceiverAnswer, WebhookReceiver } from './webhook-receiver.ts';
export { startOidcProvider } from './oidc-provider.ts';
export type { OidcProviderClient, OidcProviderOptions, OidcSignInOptions, OidcTestProvider } from './oidc-provider.ts';
export { fakeIdentityProvider, fakeSessionTokens, readFakeSessionToken } from './auth-fakes.ts';
export type { FakeIdentityProvider } from './auth-fakes.ts';
export { resolveDidKey } from './did-key-resolver.ts';
export { addDidKey } from './did-records.ts';
export { fakeFormatSigners } from './format-fakes.ts';
export {
  API_KEY_CLAIM_SOURCE,
  API_KEY_CLAIM_SOURCE_VIEW,
  AUTHENTICATION_PROVIDER,
  AUTHENTICATION_PROVIDER_VIEW,
  documentSignerAwaitingCertificate,
  MDL_DISPLAY,
  mdlIssuerMetadata,
  OAUTH_CLAIM_SOURCE,
  OAUTH_CLAIM_SOURCE_AUTHORIZATION_VIEW,
} from './samples.ts';
