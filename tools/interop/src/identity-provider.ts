// The identity provider of the Authorization Code suites: node oidc-provider (through
// @vellum/testing) on loopback with the issuer's localhost certificate, knowing Vellum as a
// confidential client that redirects to the tenant's callback, and registered with the tenant.
import { startOidcProvider } from '@vellum/testing';
import { expect } from 'vitest';
import type { IssuerServer } from './issuer-server.ts';

export type IdentityProvider = Awaited<ReturnType<typeof startOidcProvider>>;

/** What Vellum authenticates with at the provider; a registration's answer must never show the secret. */
export const PROVIDER_CLIENT = { clientId: 'vellum', clientSecret: 'vellum-secret-at-the-provider' };

/** The provider with `accounts` (subject → ID token claims); it needs only the issuer's address, so it can start before the server. */
export function startIdentityProvider(issuer: IssuerServer, accounts: Record<string, Record<string, unknown>>): Promise<IdentityProvider> {
  return startOidcProvider({
    certPem: issuer.cert.certPem,
    keyPem: issuer.cert.keyPem,
    clients: [{ ...PROVIDER_CLIENT, redirectUris: [`${issuer.origin}/v1/oauth/authentication/callback`] }],
    accounts,
  });
}

/** The provider registered with the tenant, family_name kept on the user; `extra` adds to the registration. Returns the answer. */
export async function registerIdentityProvider(issuer: IssuerServer, provider: IdentityProvider, extra: Record<string, unknown> = {}) {
  const registered = await issuer.call('POST', '/v1/users/authentication-providers', {
    url: provider.issuer,
    ...PROVIDER_CLIENT,
    claimsToPersist: ['family_name'],
    ...extra,
  });
  expect(registered.status, registered.text).toBe(201);
  return registered;
}
