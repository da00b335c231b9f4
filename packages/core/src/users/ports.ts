// What users ask of the world: the Store's users. Each method's comment is its contract, which the
// Store contract suite in @vellum/testing asserts.

import type { PageRequest, Slice } from '../shared/pagination.ts';
import type { UserFilter, UserRecord } from './model.ts';

export interface UserRepository {
  /** Adds a user. Throws DomainError `Conflict` when the id exists. */
  insert(user: UserRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<UserRecord | undefined>;
  /**
   * The tenant's users in creation order; with a filter, only those matching all of it: each
   * `claims` key present on the user with an equal value (JSON equality at any depth), and
   * `subjectId` equal to the user's `authenticationProvider.subjectId`.
   */
  list(tenantId: string, page: PageRequest, filter?: UserFilter): Promise<Slice<UserRecord>>;
  /** Replaces `claims`, `authenticationProvider` and `updatedAt`. Returns false when the tenant has no such user. */
  update(user: UserRecord): Promise<boolean>;
  /**
   * Sets `claims` on the user (claims not named stay as they are) and `updatedAt`, atomically
   * against other writers of the same user; returns the user after it, or undefined when the tenant
   * has no such user. With no claims it changes nothing. Inside a transaction it also holds the user
   * until the transaction ends, so a concurrent delete waits for it.
   */
  mergeClaims(tenantId: string, id: string, claims: Record<string, unknown>, updatedAt: string): Promise<UserRecord | undefined>;
  /** Removes the user together with its offers. Returns false when the tenant has no such user. */
  delete(tenantId: string, id: string): Promise<boolean>;
}
