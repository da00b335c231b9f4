import type { TenantRecord, TenantRecordRepository } from '../shared/ports.ts';

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
export interface WalletClient extends TenantRecord {
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
}

/** Named by `clientId`, unique within the tenant. */
export type WalletClientRepository = TenantRecordRepository<WalletClient>;
