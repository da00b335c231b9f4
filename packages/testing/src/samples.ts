// Request bodies, and what the API shows for them, that the core's tests and the HTTP tests both
// send: one copy, so that the service and its routes are held to the same sample. The views leave
// out what depends on the host or the clock (redirect URLs, createdAt/updatedAt); each test adds those.
import type { ClaimDisplay, CredentialDisplay } from '@vellum/core';
import { expect } from 'vitest';

const anyUuid = () => expect.stringMatching(/^[0-9a-f-]{36}$/);

/** The tenant's OpenID provider with only the required fields (docs/authentication.md). */
export const AUTHENTICATION_PROVIDER = { url: 'https://login.example.com/realms/acme', clientId: 'vellum', clientSecret: 'provider-secret-1' };

/** AUTHENTICATION_PROVIDER as created: every optional field at its default, and never the secret. */
export const AUTHENTICATION_PROVIDER_VIEW = {
  id: anyUuid(),
  url: AUTHENTICATION_PROVIDER.url,
  clientId: 'vellum',
  scope: 'openid profile email',
  tokenEndpointAuthMethod: 'client_secret_basic',
  staticRequestParameters: {},
  forwardedRequestParameters: [],
  claimsToPersist: [],
};

/**
 * A claim source behind an API key. Its parameters take a claim, the provider's subject with a
 * fallback, and constants, one of them `false` so that a falsy default is seen to survive.
 */
export const API_KEY_CLAIM_SOURCE = {
  name: 'CRM',
  url: 'https://crm.example.com/claims',
  requestMethod: 'GET',
  requestParameters: {
    email: { mapFrom: 'claims.email' },
    subject: { mapFrom: 'authenticationProvider.subjectId', defaultValue: 'anonymous' },
    tier: { defaultValue: 3 },
    vip: { defaultValue: false },
  },
  authorization: { type: 'api-key', value: 'api-key-secret-1' },
};

/** API_KEY_CLAIM_SOURCE as created: the key never shows. */
export const API_KEY_CLAIM_SOURCE_VIEW = {
  id: anyUuid(),
  name: 'CRM',
  url: 'https://crm.example.com/claims',
  requestMethod: 'GET',
  requestParameters: API_KEY_CLAIM_SOURCE.requestParameters,
  authorization: { type: 'api-key' },
};

/** A claim source that gets its token with the OAuth 2.0 client credentials grant, and no parameters. */
export const OAUTH_CLAIM_SOURCE = {
  name: 'HR',
  url: 'https://hr.example.com/people',
  requestMethod: 'POST',
  authorization: {
    type: 'oauth-client-credentials',
    tokenEndpoint: 'https://auth.example.com/oauth/token',
    clientId: 'vellum',
    clientSecret: 'oauth-secret-1',
    audience: 'hr-api',
  },
};

/** The authorization OAUTH_CLAIM_SOURCE shows: no secret, and the default client authentication. */
export const OAUTH_CLAIM_SOURCE_AUTHORIZATION_VIEW = {
  type: 'oauth-client-credentials',
  tokenEndpoint: 'https://auth.example.com/oauth/token',
  clientId: 'vellum',
  audience: 'hr-api',
  tokenEndpointAuthMethod: 'client_secret_basic',
};

/**
 * What an mDL configuration shows a wallet (OpenID4VCI 1.0 §12.2.4): its card, and its family
 * name's labels in English and French. `satisfies` keeps the literal type, so a test can point at
 * the labels it expects back in the issuer metadata.
 */
export const MDL_DISPLAY = {
  claimDisplay: {
    'org.iso.18013.5.1': {
      family_name: [
        { name: 'Family name', locale: 'en' },
        { name: 'Nom de famille', locale: 'fr' },
      ],
    },
  },
  display: [
    {
      name: 'Driver licence',
      locale: 'en',
      logo: { uri: 'https://licensing.example/logo.png', alt_text: 'Licensing' },
      background_color: '#12107c',
      text_color: '#ffffff',
    },
  ],
} satisfies { display: CredentialDisplay[]; claimDisplay: ClaimDisplay };

/**
 * The issuer metadata entry (OpenID4VCI 1.0 §12.2.4, Appendix A.2) of an mDL configuration that
 * shows MDL_DISPLAY; `claims` are what the configuration's claim mappings make, in their order.
 */
export const mdlIssuerMetadata = (id: string, claims: Record<string, unknown>[]) => ({
  format: 'mso_mdoc',
  id,
  scope: 'mso_mdoc:org.iso.18013.5.1.mDL',
  doctype: 'org.iso.18013.5.1.mDL',
  credential_signing_alg_values_supported: [-7],
  cryptographic_binding_methods_supported: ['cose_key'],
  proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
  credential_metadata: { display: MDL_DISPLAY.display, claims },
});

/** A document signer just created under an imported IACA: our key and its CSR, inactive until the IACA certifies it. */
export const documentSignerAwaitingCertificate = (iacaId: string) => ({
  id: expect.any(String),
  iacaId,
  active: false,
  isManaged: false,
  csrPem: expect.stringMatching(/^-----BEGIN CERTIFICATE REQUEST-----/),
});
