import type { PageRequest, Slice } from '../shared/pagination.ts';

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
export interface ClaimSource {
  id: string;
  tenantId: string;
  name: string;
  /** https, no fragment. GET sends the parameters in the query, POST as a JSON body. */
  url: string;
  requestMethod: 'GET' | 'POST';
  requestParameters: Record<string, ClaimSourceParameter>;
  authorization: ClaimSourceAuthorization;
  createdAt: string;
  updatedAt: string;
}

export interface ClaimSourceRepository {
  /** Throws DomainError `Conflict` when the id exists. */
  insert(source: ClaimSource): Promise<void>;
  get(tenantId: string, id: string): Promise<ClaimSource | undefined>;
  /** The tenant's claim sources in creation order. */
  list(tenantId: string, page: PageRequest): Promise<Slice<ClaimSource>>;
  /** Replaces every field but `tenantId`, `id` and `createdAt`. Returns false when the tenant has no such source. */
  update(source: ClaimSource): Promise<boolean>;
  /** Returns false when the tenant has no such source. */
  delete(tenantId: string, id: string): Promise<boolean>;
}
