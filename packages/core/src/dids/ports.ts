// What DIDs ask of the world: the Store's DIDs. Each method's comment is its contract, which the
// Store contract suite in @vellum/testing asserts.

import type { TenantRecordRepository } from '../shared/ports.ts';
import type { DidKey, DidRecord } from './model.ts';

/** Which DIDs a tenant holds, without their keys. */
export interface DidStamp {
  did: string;
  /** Opaque; differs between a DID and the same DID deleted and created again. */
  revision: string;
}

/** Named by the DID; a DID is never replaced, only created, its keys rotated, and deleted. */
export interface DidRepository extends Omit<TenantRecordRepository<DidRecord>, 'update'> {
  /**
   * Every DID of the tenant in creation order, as stamps only: a cheap read for hot public
   * endpoints, to learn whether any DID has come, gone, been created again or had its keys
   * rotated since a full read.
   */
  listStamps(tenantId: string): Promise<DidStamp[]>;
  /**
   * Replaces the DID's keys with `to` if they are still `from` (compare-and-set, so that of two
   * rotations at once one wins), and changes its stamp's revision. False when it was not (nothing changed).
   */
  replaceKeys(tenantId: string, did: string, from: DidKey[], to: DidKey[]): Promise<boolean>;
}
