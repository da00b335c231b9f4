// The public surface of @vellum/node.

export { createNodeIds, systemClock } from './clock.ts';
export { createDnsResolver, parseDnsServers } from './dns.ts';
export type { DnsResolverOptions } from './dns.ts';
export { createHttpClient, isForbiddenAddress } from './http-client.ts';
export type { HttpClientOptions } from './http-client.ts';
// createInflater: bounded zlib inflation (Token Status Lists of wallet providers).
export { createInflater } from './inflate.ts';
// createIdentityProvider: the IdentityProvider port (OpenID Connect sign-in) over openid-client and the guarded HttpClient.
export { createIdentityProvider } from './identity-provider.ts';
export type { IdentityProviderOptions } from './identity-provider.ts';
// verifyWebhookDelivery: for receivers of Vellum webhooks, checks the digest and the signature against the JWKS.
export { verifyWebhookDelivery } from './webhook-verify.ts';
export type { WebhookDeliveryToVerify, WebhookVerification } from './webhook-verify.ts';
