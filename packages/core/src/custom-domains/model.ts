import type { TenantRecord } from '../shared/ports.ts';

/** docs/decisions.md "Custom domains": a tenant's custom domain (at most one per tenant). */
export interface CustomDomain extends TenantRecord {
  name?: string;
  logoUrl?: string;
  /** ASCII (punycode) host name, lowercase, without a trailing dot. */
  domain: string;
  verificationToken: string;
  isVerified: boolean;
  verifiedAt?: string;
}
