// The retention job (docs/retention.md): deletes what is past its life, in small batches, one runner
// at a time across every process sharing the store. The host runs it now and then (apps/server every
// VELLUM_RETENTION_INTERVAL_MS); an embedder may call `run` from its own scheduler.

import type { Repositories, Store } from '../ports.ts';
import type { Clock } from '../shared/ports.ts';
import { type ExpiringKind, RETENTION_GRACE_MS, RETENTION_KINDS, type RetentionKind, retentionCutoff, retentionOf } from './policy.ts';

/** The lease runners take in the store: whoever holds it is the one runner purging. */
export const RETENTION_LEASE = 'retention';

export interface RetentionJobDeps {
  store: Store;
  clock: Clock;
  /** Names this runner in the lease: unique per process (a random id). */
  holder: string;
  /** Most rows one statement deletes (default 500): each batch is its own short transaction, so no lock is held long. */
  batchSize?: number;
  /** How long the lease holds without renewal (default 60 s); every batch renews it. */
  leaseMs?: number;
  /**
   * How long after a complete run the lease is kept (default 0: given up at once), so that other
   * runners sharing the store skip their turns until then: servers that each run the job every
   * interval then purge about once per interval between them.
   */
  holdAfterRunMs?: number;
  /** Told after each batch that deleted rows (the server counts them in `vellum_retention_purged_total`). */
  onPurged?: (kind: RetentionKind, count: number) => void;
}

/** What one run did. */
export interface RetentionRun {
  /** False when another runner held the lease: this one did nothing. */
  ran: boolean;
  /** True when every kind was purged to the end; false when the run was stopped or lost its lease. */
  complete: boolean;
  /** Rows deleted, by kind. */
  purged: Record<RetentionKind, number>;
}

export interface RetentionJob {
  /** One run over every kind and tenant. `signal` stops it between batches (a server shutting down). */
  run(options?: { signal?: { readonly aborted: boolean } }): Promise<RetentionRun>;
}

const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_LEASE_MS = 60_000;
const TENANT_PAGE = 100;

/** Deletes one batch of a kind past `before`, on a transaction's repositories. */
type TxPurge = (tx: Repositories, before: string, limit: number) => Promise<number>;
type TxKind = Exclude<ExpiringKind, 'rate_limits'>;

/** The kinds purged past their expiry inside a transaction, with the renewal of the lease. */
const IN_TRANSACTION: Readonly<Record<TxKind, TxPurge>> = {
  authorizations: (tx, before, limit) => tx.authorizations.purgeExpired(before, limit),
  offers: (tx, before, limit) => tx.offers.purgeExpired(before, limit),
  nonces: (tx, before, limit) => tx.nonces.purgeExpired(before, limit),
  deferred_issuances: (tx, before, limit) => tx.deferredIssuances.purgeExpired(before, limit),
  refresh_tokens: (tx, before, limit) => tx.refreshTokens.purgeExpired(before, limit),
  presentation_sessions: (tx, before, limit) => tx.presentationSessions.purgeExpired(before, limit),
};

/** Builds the retention job on a store (docs/retention.md). */
export function createRetentionJob(deps: RetentionJobDeps): RetentionJob {
  const { store, clock, holder, onPurged } = deps;
  const batchSize = deps.batchSize ?? DEFAULT_BATCH_SIZE;
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const holdAfterRunMs = deps.holdAfterRunMs ?? 0;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be a whole number from 1');

  const take = (tx: Pick<Repositories, 'leases'>, forMs: number) => {
    const now = clock.now();
    return tx.leases.acquire(RETENTION_LEASE, holder, new Date(now.getTime() + forMs).toISOString(), now.toISOString());
  };

  return {
    async run(options = {}) {
      const purged = Object.fromEntries(RETENTION_KINDS.map((k) => [k, 0])) as Record<RetentionKind, number>;
      if (!(await take(store, leaseMs))) return { ran: false, complete: false, purged };
      const started = clock.now();

      /**
       * Purges one kind batch by batch until a batch comes back short. Each batch renews the lease
       * in its own transaction: a runner that lost the lease (it stalled past `leaseMs` and another
       * took over) deletes nothing more, and on PostgreSQL the renewal's row lock keeps any other
       * runner from taking the lease while the batch is open. False when the run must stop.
       */
      const purgeAll = async (kind: RetentionKind, purge: (tx: Repositories, limit: number) => Promise<number>): Promise<boolean> =>
        loop(kind, () => store.transaction(async (tx) => ((await take(tx, leaseMs)) ? purge(tx, batchSize) : undefined)));

      const loop = async (kind: RetentionKind, batch: () => Promise<number | undefined>): Promise<boolean> => {
        for (;;) {
          if (options.signal?.aborted) return false;
          const count = await batch();
          if (count === undefined) return false;
          if (count > 0) {
            purged[kind] += count;
            onPurged?.(kind, count);
          }
          if (count < batchSize) return true;
        }
      };

      const everything = async (): Promise<boolean> => {
        const before = (kind: ExpiringKind) => new Date(started.getTime() - RETENTION_GRACE_MS[kind]).toISOString();
        // Claims that can no longer be used are erased at their expiry, with no grace: a redeemed offer's
        // or authorization's expiry is that of its access token.
        const now = started.toISOString();
        if (!(await purgeAll('offer_claims', (tx, limit) => tx.offers.eraseExpiredClaims(now, limit)))) return false;
        if (!(await purgeAll('authorization_claims', (tx, limit) => tx.authorizations.eraseExpiredClaims(now, limit)))) return false;
        // A presentation session's decryption key is of no use past its expiry.
        if (!(await purgeAll('presentation_keys', (tx, limit) => tx.presentationSessions.eraseExpiredKeys(now, limit)))) return false;
        for (const [kind, purge] of Object.entries(IN_TRANSACTION) as [TxKind, TxPurge][]) {
          const cutoff = before(kind);
          if (!(await purgeAll(kind, (tx, limit) => purge(tx, cutoff, limit)))) return false;
        }
        // Rate-limit counters live outside transactions (RateLimitRepository): each batch runs right after the lease is renewed.
        const windows = before('rate_limits');
        const renewed = () => store.transaction((tx) => take(tx, leaseMs));
        if (!(await loop('rate_limits', async () => ((await renewed()) ? store.rateLimits.purgeExpired(windows, batchSize) : undefined)))) return false;
        // Each tenant's own retention periods; tenants are read a page at a time.
        let after: number | undefined;
        for (;;) {
          const page = await store.tenants.list(after === undefined ? { limit: TENANT_PAGE } : { limit: TENANT_PAGE, after });
          for (const tenant of page.items) {
            const { eventRetentionDays, webhookDeliveryRetentionDays } = retentionOf(tenant);
            const events = retentionCutoff(started, eventRetentionDays);
            const deliveries = retentionCutoff(started, webhookDeliveryRetentionDays);
            if (!(await purgeAll('analytic_events', (tx, limit) => tx.events.purgeBefore(tenant.id, events, limit)))) return false;
            if (!(await purgeAll('webhook_deliveries', (tx, limit) => tx.webhookDeliveries.purgeFinishedBefore(tenant.id, deliveries, limit)))) return false;
          }
          if (page.items.length < TENANT_PAGE || page.last === undefined) return true;
          after = page.last;
        }
      };

      let complete = false;
      try {
        complete = await everything();
      } finally {
        // A complete run keeps the lease for holdAfterRunMs; otherwise, or when there is none, it is given up.
        if (!(complete && holdAfterRunMs > 0 && (await take(store, holdAfterRunMs)))) await store.leases.release(RETENTION_LEASE, holder);
      }
      return { ran: true, complete, purged };
    },
  };
}
