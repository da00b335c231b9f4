// Verifier applications (docs/verification.md "Verifier applications"): per tenant, the parties that
// ask wallets for presentations (OpenID4VP 1.0), each with its client identifier prefix (§5.9) and,
// where requests are signed, what signs them. Contract A of issue 31 (docs/decisions.md).

import type { PageRequest, Slice } from '../../shared/pagination.ts';
import type { TenantRecord } from '../../shared/ports.ts';

/** The client identifier prefixes Vellum supports (OpenID4VP 1.0 §5.9.3). */
export const CLIENT_ID_PREFIXES = ['x509_hash', 'redirect_uri', 'decentralized_identifier'] as const;
export type ClientIdPrefix = (typeof CLIENT_ID_PREFIXES)[number];

/** The response modes a session of the application may use (OpenID4VP 1.0 §8.2, §8.3). */
export const VP_RESPONSE_MODES = ['direct_post', 'direct_post.jwt'] as const;
export type VpResponseMode = (typeof VP_RESPONSE_MODES)[number];

/** Most verifier applications a tenant may hold (docs/verification.md). */
export const MAX_VERIFIER_APPLICATIONS_PER_TENANT = 50;

/** The `typ` of a signed authorization request (RFC 9101 §10.8, OpenID4VP 1.0 §5). */
export const REQUEST_OBJECT_TYP = 'oauth-authz-req+jwt';

/** An x509_hash application's request-signing key and certificate. */
export interface VerifierX509 {
  /** The KeyManager key (P-256) that signs requests; never leaves it. */
  keyId: string;
  /** The PKCS#10 request for that key (PEM), for a CA Vellum does not hold. */
  csrPem: string;
  /** The chain, leaf first, PEM; absent until a certificate is issued or uploaded. */
  certificates?: string[];
  /** The tenant's managed issuer CA that issued the leaf, when Vellum issued it. */
  issuerCaId?: string;
  /**
   * A rotation's next key and its CSR (docs/key-custody.md "Rotation"): the current key signs until
   * a certificate for this one is uploaded, which makes it the key that signs.
   */
  next?: { keyId: string; csrPem: string };
}

export interface VerifierApplication extends TenantRecord {
  /** A UUID Vellum makes. */
  id: string;
  name: string;
  clientIdPrefix: ClientIdPrefix;
  /** The response modes allowed; never empty. */
  responseModes: VpResponseMode[];
  /** Same-device redirects (https); may be empty. */
  redirectUris: string[];
  /** For the wallet (client_metadata). */
  display?: { name: string; logoUri?: string };
  /** decentralized_identifier: one of the tenant's DIDs. */
  did?: string;
  /** x509_hash only. */
  x509?: VerifierX509;
}

/** What a session needs to address and sign its authorization request. */
export interface RequestObjectSigner {
  /**
   * The whole client_id, prefix included: `x509_hash:<base64url SHA-256 of the leaf DER>`,
   * `decentralized_identifier:<did>`, or `redirect_uri:<responseUri>`.
   */
  clientId: string;
  /**
   * Signs the request object's claims as a compact JWS, header typ `oauth-authz-req+jwt`, with `x5c`
   * (x509_hash) or `kid` = a verification method of the DID. Absent for redirect_uri: that prefix's
   * requests are unsigned.
   */
  sign?(claims: Record<string, unknown>): Promise<string>;
}

/** The Store's verifier applications. */
export interface VerifierApplicationRepository {
  /**
   * Adds an application unless the tenant already holds `limit`, counted and written atomically.
   * Returns false (nothing written) at the limit. Throws DomainError `Conflict` when the id exists.
   */
  insert(application: VerifierApplication, limit: number): Promise<boolean>;
  get(tenantId: string, id: string): Promise<VerifierApplication | undefined>;
  /** The tenant's applications in creation order. */
  list(tenantId: string, page: PageRequest): Promise<Slice<VerifierApplication>>;
  /** Replaces every field but `tenantId`, `id` and `createdAt`. False when the tenant has no such application. */
  update(application: VerifierApplication): Promise<boolean>;
  /** False when the tenant has no such application. */
  delete(tenantId: string, id: string): Promise<boolean>;
}
