import type { TenantRecord, TenantRecordRepository } from '../shared/ports.ts';

/** A parameter sent to a claim source: a value from the user object, or a fixed one (docs/authentication.md). */
export interface ClaimSourceParameter {
  /** A dotted path into the user object `{ claims, authenticationProvider }`. */
  mapFrom?: string;
  defaultValue?: string | number | boolean;
}

/** How Vellum authenticates to a claim source; secrets are sealed (SecretBox, context `claim-source:{tenantId}:{id}`). */
export type ClaimSourceAuthorization =
  | { type: 'api-key'; sealedValue: string }
  | {
      type: 'oauth-client-credentials';
      tokenEndpoint: string;
      clientId: string;
      sealedClientSecret: string;
      audience?: string;
      tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post';
    };

/** An HTTP API of the issuer that Vellum asks for a user's claims at issuance (docs/authentication.md `/v1/claim-sources`). */
export interface ClaimSource extends TenantRecord {
  id: string;
  name: string;
  /** https, no fragment. GET sends the parameters in the query, POST as a JSON body. */
  url: string;
  requestMethod: 'GET' | 'POST';
  requestParameters: Record<string, ClaimSourceParameter>;
  authorization: ClaimSourceAuthorization;
}

export type ClaimSourceRepository = TenantRecordRepository<ClaimSource>;
