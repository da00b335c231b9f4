import type { KeyCustody } from '../keys/model.ts';
// What tenancy asks of the world: tenants and admin clients in the Store, and the signer of admin
// access tokens. Each method's comment is its contract, which the Store contract suite in
// @vellum/testing asserts against every adapter.

import type { PageRequest, Slice } from '../shared/pagination.ts';
import type { TenantRetention } from '../retention/policy.ts';
import type { IssuerDisplay } from '../metadata/issuer-display.ts';
import type { AdminClient, LoggingLevel, Tenant } from './model.ts';

export interface TenantRepository {
  /** Adds a tenant. Throws DomainError `Conflict` when the subdomain is taken. */
  insert(tenant: Tenant): Promise<void>;
  findById(id: string): Promise<Tenant | undefined>;
  findBySubdomain(subdomain: string): Promise<Tenant | undefined>;
  /** All tenants in creation order (an operator view, not tenant-scoped). */
  list(page: PageRequest): Promise<Slice<Tenant>>;
  /** Returns false when there is no such tenant. */
  setLoggingLevel(id: string, level: LoggingLevel): Promise<boolean>;
  /** Replaces the tenant's retention periods (an absent one: the default). Returns false when there is no such tenant. */
  setRetention(id: string, retention: TenantRetention): Promise<boolean>;
  /**
   * Replaces the tenant's issuer display (`issuerDisplay`): the entries as given, in order; an empty
   * list removes it (the tenant then reads without `issuerDisplay`). Returns false when there is no such tenant.
   */
  setIssuerDisplay(id: string, display: readonly IssuerDisplay[]): Promise<boolean>;
  /**
   * Sets the tenant's batch size (`batchSize`, 1 to 100); 1 removes it (the tenant then reads
   * without `batchSize`). Returns false when there is no such tenant.
   */
  setBatchSize(id: string, batchSize: number): Promise<boolean>;
  /** Sets where the tenant's new keys are made (`keyCustody`). Returns false when there is no such tenant. */
  setKeyCustody(id: string, custody: KeyCustody): Promise<boolean>;
}

export interface ClientRepository {
  /** Adds an admin client. Throws DomainError `Conflict` when the client id exists. */
  insert(client: AdminClient): Promise<void>;
  /** Client ids are global, so token requests can find the client before the tenant. */
  findByClientId(clientId: string): Promise<AdminClient | undefined>;
  list(tenantId: string, page: PageRequest): Promise<Slice<AdminClient>>;
  /**
   * Replaces the secret hash of the tenant's client, adds one to its `secretVersion` and sets
   * `rotatedAt`, in one write. Returns the client as stored afterwards, or undefined when the tenant
   * has no such client or it is revoked (nothing changes then).
   */
  rotateSecret(tenantId: string, clientId: string, secretHash: string, rotatedAt: string): Promise<AdminClient | undefined>;
  /**
   * Sets `revokedAt` on the tenant's client. `not-found` when the tenant has no such client,
   * `already-revoked` (nothing changes) when it is revoked, `last-admin` (nothing changes) when it
   * is the tenant's last unrevoked client with role `admin`. The check and the write are atomic
   * against concurrent revocations, so two admins revoking each other cannot both succeed.
   */
  revoke(tenantId: string, clientId: string, revokedAt: string): Promise<'revoked' | 'already-revoked' | 'not-found' | 'last-admin'>;
}

/** Signs and verifies JWTs with the platform key (admin access tokens). */
export interface TokenSigner {
  sign(claims: Record<string, unknown>, options: { subject: string; audience: string; expiresInSeconds: number }): Promise<string>;
  /** The verified claims, or undefined for a bad signature, a malformed token or an expired one. */
  verify(token: string): Promise<Record<string, unknown> | undefined>;
}
