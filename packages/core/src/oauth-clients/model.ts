import type { PageRequest, Slice } from '../shared/pagination.ts';

/** How a wallet client authenticates at the token endpoint (RFC 7591 §2 names). */
export const WALLET_CLIENT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
export type WalletClientAuthMethod = (typeof WALLET_CLIENT_AUTH_METHODS)[number];

/** The grants a wallet client may use (RFC 7591 `grant_types`). */
export const WALLET_CLIENT_GRANT_TYPES = ['authorization_code', 'urn:ietf:params:oauth:grant-type:pre-authorized_code'] as const;
export type WalletClientGrantType = (typeof WALLET_CLIENT_GRANT_TYPES)[number];

/**
 * A wallet (OAuth) client of a tenant (docs/wallet-clients.md `/v1/openid/clients`). The Authorization Code flow
 * accepts only registered clients, and only their registered redirect URIs, compared exactly.
 */
export interface WalletClient {
  tenantId: string;
  /** Unique within the tenant; given on create or made by Vellum. */
  clientId: string;
  clientName: string;
  redirectUris: string[];
  grantTypes: WalletClientGrantType[];
  tokenEndpointAuthMethod: WalletClientAuthMethod;
  /** SecretHasher hash of the client secret: present exactly when the method is not `none`. */
  secretHash?: string;
  dpop?: { required: boolean };
  clientAttestation?: { rootCertificates: string[]; dpopRequired?: boolean };
  credentialResponseEncryption?: { required: boolean };
  createdAt: string;
  updatedAt: string;
}

export interface WalletClientRepository {
  /** Adds a client. Throws DomainError `Conflict` when the tenant already has this client id. */
  insert(client: WalletClient): Promise<void>;
  get(tenantId: string, clientId: string): Promise<WalletClient | undefined>;
  /** The tenant's clients in creation order. */
  list(tenantId: string, page: PageRequest): Promise<Slice<WalletClient>>;
  /** Replaces every field but `tenantId`, `clientId` and `createdAt`. Returns false when the tenant has no such client. */
  update(client: WalletClient): Promise<boolean>;
  /** Returns false when the tenant has no such client. */
  delete(tenantId: string, clientId: string): Promise<boolean>;
}
