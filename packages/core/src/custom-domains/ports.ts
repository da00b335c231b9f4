// What custom domains ask of the world: the Store's custom domains, and DNS for verification. Each
// method's comment is its contract, which the Store contract suite in @vellum/testing asserts.

import type { CustomDomain } from './model.ts';

export interface CustomDomainRepository {
  get(tenantId: string): Promise<CustomDomain | undefined>;
  /** Throws DomainError `Conflict` when the tenant already has a custom domain. */
  insert(domain: CustomDomain): Promise<void>;
  /** Replaces the tenant's custom domain. Returns false when it has none. */
  update(domain: CustomDomain): Promise<boolean>;
  /** Returns false when the tenant has none. */
  delete(tenantId: string): Promise<boolean>;
  /**
   * Marks the tenant's domain verified. Throws DomainError `Conflict` when another tenant has
   * verified the same domain (only one tenant may ever own a verified name). False when none exists.
   */
  markVerified(tenantId: string, verifiedAt: string): Promise<boolean>;
  /** The verified custom domain with this host name, whoever owns it: used to route requests. */
  findVerified(domain: string): Promise<CustomDomain | undefined>;
}

export type TxtLookup =
  | { status: 'found'; records: string[] }
  | { status: 'none' }
  /** `reason` is short and safe to show the tenant: it names no server or internal detail. */
  | { status: 'failed'; reason: string };

/** DNS for custom domain verification. Each TXT record's strings are joined into one. */
export interface DnsResolver {
  resolveTxt(name: string): Promise<TxtLookup>;
}
