// What credential configurations ask of the world: the Store's configurations. Each method's
// comment is its contract, which the Store contract suite in @vellum/testing asserts.

import type { PageRequest, Slice } from '../shared/pagination.ts';
import type { CredentialConfiguration, CredentialFormat } from './model.ts';

/** Which configurations a tenant has, without their contents. */
export interface ConfigurationStamp {
  id: string;
  /** Opaque; the store gives a new one on every insert and update. */
  revision: string;
}

export interface CredentialConfigurationRepository {
  /**
   * Adds a configuration. Throws DomainError `Conflict` when the tenant already has one of the same
   * format and type (a unique index is the rule), or when the id exists. The same type in two
   * formats, or in two tenants, is fine.
   */
  insert(configuration: CredentialConfiguration): Promise<void>;
  /** The tenant's configuration with this id, whatever its format. */
  get(tenantId: string, id: string): Promise<CredentialConfiguration | undefined>;
  /** The tenant's configurations of one format in creation order, only those of `type` when given. */
  list(tenantId: string, filter: { format: CredentialFormat; type?: string }, page: PageRequest): Promise<Slice<CredentialConfiguration>>;
  /** Every configuration of the tenant, all formats, in creation order (one query: issuer metadata). */
  listAll(tenantId: string): Promise<CredentialConfiguration[]>;
  /**
   * Every configuration of the tenant in creation order, as stamps only: a cheap read for the hot
   * public metadata, to learn whether anything was created, replaced or deleted since a full read.
   */
  listStamps(tenantId: string): Promise<ConfigurationStamp[]>;
  /**
   * Replaces the configuration with the same tenant, id and format (its format never changes).
   * Returns false when there is none; throws DomainError `Conflict` when its type is another's of that format.
   */
  update(configuration: CredentialConfiguration): Promise<boolean>;
  /** Returns false when the tenant has no such configuration. */
  delete(tenantId: string, id: string): Promise<boolean>;
}
