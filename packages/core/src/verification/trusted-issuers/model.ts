// Trusted issuers (docs/verification.md "Trusted issuers"): per tenant, who it trusts to issue the
// credentials it verifies. Each holds one kind of anchor: CA certificates (IACAs for mDocs, X.509
// roots for SD-JWT VC) or a DID.

import type { CredentialFormat } from '../../configurations/model.ts';
import type { PageRequest, Slice } from '../../shared/pagination.ts';
import type { TenantRecord } from '../../shared/ports.ts';

/** Most trusted issuers a tenant may hold (docs/verification.md). */
export const MAX_TRUSTED_ISSUERS_PER_TENANT = 50;

/** A trusted issuer of a tenant: exactly one of `certificates` and `did`. */
export interface TrustedIssuer extends TenantRecord {
  /** A UUID Vellum makes. */
  id: string;
  name: string;
  /** The formats it is trusted for; never empty. */
  formats: CredentialFormat[];
  /** The vcts or docTypes it may issue; absent: any. */
  types?: string[];
  /** PEM CA certificates. */
  certificates?: string[];
  did?: string;
}

/** The Store's trusted issuers. */
export interface TrustedIssuerRepository {
  /**
   * Adds an issuer unless the tenant already holds `limit`, counted and written atomically. Returns
   * false (nothing written) at the limit. Throws DomainError `Conflict` when the id exists.
   */
  insert(issuer: TrustedIssuer, limit: number): Promise<boolean>;
  get(tenantId: string, id: string): Promise<TrustedIssuer | undefined>;
  /** The tenant's issuers in creation order. */
  list(tenantId: string, page: PageRequest): Promise<Slice<TrustedIssuer>>;
  /** Replaces every field but `tenantId`, `id` and `createdAt`. False when the tenant has no such issuer. */
  update(issuer: TrustedIssuer): Promise<boolean>;
  /** False when the tenant has no such issuer. */
  delete(tenantId: string, id: string): Promise<boolean>;
}
