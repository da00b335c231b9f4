// Issuer certificates for the formats that sign with JOSE or COSE other than mDocs (HAIP 1.0,
// docs/decisions.md "Issuer certificates"): a tenant's issuer CA, managed or imported like an IACA,
// and the leaf certificates under it that sign SD-JWT VCs, issuer metadata and status list tokens.

import type { PublicJwk } from '../keys/model.ts';
import type { Tenant } from '../tenancy/model.ts';

/**
 * What a leaf certificate under an issuer CA signs. `credential`: SD-JWT VCs and the signed issuer
 * metadata, its SAN naming the credential issuer; `status-list`: Token Status List tokens (JWT and CWT).
 */
export const ISSUER_SIGNER_USES = ['credential', 'status-list'] as const;
export type IssuerSignerUse = (typeof ISSUER_SIGNER_USES)[number];

/** A leaf certificate's key and chain, ready to sign with. */
export interface X509Signer {
  /** The issuer CA the certificate chains to (the verifier's trust anchor, never in the chain). */
  caId: string;
  signerId: string;
  /** The KeyManager key that signs: P-256, ES256. */
  key: { tenantId: string; keyId: string };
  publicJwk: PublicJwk;
  /** The JOSE `x5c` header (RFC 7515 §4.1.6): standard base64 DER, the leaf first, the CA left out. */
  x5c: string[];
  /** The same certificates as DER, for a COSE `x5chain` (RFC 9360). */
  x5chain: Uint8Array[];
  /** When the leaf certificate ends: nothing it signs should outlive it. */
  notAfter: Date;
}

/**
 * The leaf certificates that sign for a tenant under its issuer CA (docs/decisions.md "Issuer certificates").
 */
export interface IssuerSigners {
  /**
   * The signer for `use` now: under the tenant's active issuer CA (of several, the one activated
   * last), the usable leaf of that use whose SAN names `issuer` (the credential issuer identifier,
   * an https URL) and whose certificate lasts longest. For a managed CA the leaf is created or
   * rotated when needed, so it lasts `lifetimeMs` more where the CA allows. Throws a 400 that says
   * what to do when the tenant has no active issuer CA, or (imported CA) no usable leaf for `issuer`.
   */
  current(tenant: Tenant, use: IssuerSignerUse, issuer: string, now: Date, lifetimeMs?: number): Promise<X509Signer>;
  /**
   * Every leaf of `use` whose SAN names `issuer` and which is valid at `now` (within its validity,
   * not revoked, under an active issuer CA of the tenant that is valid too), the current signer
   * first: the keys `/.well-known/jwt-vc-issuer` publishes, so that what an earlier leaf signed still
   * verifies while that leaf lasts. Creates and rotates nothing; empty when the tenant has no active issuer CA.
   */
  published(tenant: Tenant, use: IssuerSignerUse, issuer: string, now: Date): Promise<X509Signer[]>;
  /** Whether the tenant has an active issuer CA valid at `now` (the default key resolution of new configurations depends on it). */
  available(tenant: Tenant, now: Date): Promise<boolean>;
  /** Told that the tenant's issuer CAs or leaves changed: a cache in front forgets the tenant. */
  invalidate(tenantId: string): void;
}
