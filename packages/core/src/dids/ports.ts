// What DIDs ask of the world: the Store's DIDs. Each method's comment is its contract, which the
// Store contract suite in @vellum/testing asserts.

import type { PageRequest, Slice } from '../shared/pagination.ts';
import type { DidRecord } from './model.ts';

/** Which DIDs a tenant holds, without their keys. */
export interface DidStamp {
  did: string;
  /** Opaque; differs between a DID and the same DID deleted and created again. */
  revision: string;
}

export interface DidRepository {
  /** Throws DomainError `Conflict` when the tenant already holds this DID. */
  insert(record: DidRecord): Promise<void>;
  get(tenantId: string, did: string): Promise<DidRecord | undefined>;
  /** The tenant's DIDs in creation order. */
  list(tenantId: string, page: PageRequest): Promise<Slice<DidRecord>>;
  /**
   * Every DID of the tenant in creation order, as stamps only: a cheap read for hot public
   * endpoints, to learn whether any DID has come, gone or been created again since a full read.
   */
  listStamps(tenantId: string): Promise<DidStamp[]>;
  /** Returns false when the tenant has no such DID. */
  delete(tenantId: string, did: string): Promise<boolean>;
}
