// Trusted wallet providers (docs/dpop-and-attestation.md "Trusted wallet providers"): the tenant's
// trust anchors for wallet attestations (draft-ietf-oauth-attestation-based-client-auth) and key
// attestations (OpenID4VCI 1.0 App. D), whatever wallet client presents them.

import type { PageRequest, Slice } from '../shared/pagination.ts';
import type { TenantRecord } from '../shared/ports.ts';

/** What a provider may be trusted for, as the API names it. */
export const WALLET_PROVIDER_TRUSTED_FOR = ['walletAttestations', 'keyAttestations'] as const;
export type WalletProviderTrustedFor = (typeof WALLET_PROVIDER_TRUSTED_FOR)[number];

/** Most wallet providers a tenant may hold (docs/limits.md). */
export const MAX_WALLET_PROVIDERS_PER_TENANT = 20;

/** A public key of a provider's JWKS, as stored: only the members a signature check needs. */
export interface WalletProviderJwk {
  kty: 'EC' | 'OKP';
  crv: 'P-256' | 'Ed25519';
  x: string;
  y?: string;
  /** What a JWT's `kid` header must name to be checked with this key; unique within the provider. */
  kid: string;
  alg?: string;
}

/**
 * A wallet provider the tenant trusts. It holds exactly one kind of trust anchor: `x509` (PEM CA
 * certificates a JWT's x5c must chain to), `jwks` (keys a JWT's `kid` names), or `trustedListUrl`
 * (an ETSI TS 119 612 trusted list whose certificates serve as `x509` does).
 */
export interface WalletProvider extends TenantRecord {
  /** A UUID Vellum makes. */
  id: string;
  name: string;
  /** Never empty. */
  trustedFor: WalletProviderTrustedFor[];
  x509?: string[];
  jwks?: { keys: WalletProviderJwk[] };
  trustedListUrl?: string;
}

/** The Store's wallet providers. */
export interface WalletProviderRepository {
  /**
   * Adds a provider unless the tenant already holds `limit`, checked and written atomically so that
   * racing creates never pass the limit together. Returns false (nothing written) at the limit.
   * Throws DomainError `Conflict` when the id exists.
   */
  insert(provider: WalletProvider, limit: number): Promise<boolean>;
  get(tenantId: string, id: string): Promise<WalletProvider | undefined>;
  /** The tenant's providers in creation order. */
  list(tenantId: string, page: PageRequest): Promise<Slice<WalletProvider>>;
  /** Replaces every field but `tenantId`, `id` and `createdAt`. Returns false when the tenant has no such provider. */
  update(provider: WalletProvider): Promise<boolean>;
  /** Returns false when the tenant has no such provider. */
  delete(tenantId: string, id: string): Promise<boolean>;
}
