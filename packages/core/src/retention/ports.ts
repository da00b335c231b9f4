// What the retention job asks of the world besides the repositories' purge methods: a lease in the
// Store, so that one runner at a time purges across processes and servers. Its comments are its
// contract, which the Store contract suite in @vellum/testing asserts.

/**
 * Named leases with a holder and an expiry, shared by every process using the store. Part of the
 * Repositories, so that renewing a lease and the work it guards can commit together.
 */
export interface LeaseRepository {
  /**
   * Takes or renews the lease `name` for `holder` until `until`, in one atomic write: it succeeds
   * (true) when nobody holds the lease, when `holder` holds it already, or when the other holder's
   * lease ended at or before `now`; otherwise nothing changes (false). Of racing callers for a free
   * lease, in one process or several sharing a database, exactly one gets true.
   */
  acquire(name: string, holder: string, until: string, now: string): Promise<boolean>;
  /** Gives the lease up when `holder` holds it; nothing otherwise. */
  release(name: string, holder: string): Promise<void>;
}
