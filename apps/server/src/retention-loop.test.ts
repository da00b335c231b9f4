import type { RetentionJob, RetentionRun } from '@vellum/core';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startRetentionLoop } from './retention-loop.ts';

const purged = {
  offer_claims: 0,
  authorization_claims: 0,
  presentation_keys: 0,
  authorizations: 0,
  offers: 0,
  nonces: 2,
  deferred_issuances: 0,
  refresh_tokens: 0,
  presentation_sessions: 0,
  rate_limits: 0,
  webhook_deliveries: 0,
  analytic_events: 0,
};

/** A job that answers each run from `outcomes` in turn (a thrown Error for a failed run), and tells `ran` each time. */
function fakeJob(outcomes: (RetentionRun | Error)[], ran: (signal: { readonly aborted: boolean } | undefined) => void): RetentionJob {
  let i = 0;
  return {
    async run(options) {
      ran(options?.signal);
      const outcome = outcomes[Math.min(i++, outcomes.length - 1)] as RetentionRun | Error;
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  };
}

describe('the retention loop of vellum serve (docs/retention.md)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs the job again after a failed run, and once stopped passes an aborted signal and runs no more', async () => {
    vi.useFakeTimers();
    const signals: ({ readonly aborted: boolean } | undefined)[] = [];
    const job = fakeJob([new Error('database down'), { ran: true, complete: true, purged }, { ran: false, complete: false, purged }], (signal) =>
      signals.push(signal),
    );
    const loop = startRetentionLoop({ job, logger: pino({ level: 'silent' }), intervalMs: 1000, firstRunAfterMs: 10 });
    await vi.advanceTimersByTimeAsync(10);
    expect(signals).toHaveLength(1);
    // The failure did not stop the loop: a run each interval after.
    await vi.advanceTimersByTimeAsync(2000);
    expect(signals).toHaveLength(3);
    await loop.stop();
    expect(signals[0]?.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(signals).toHaveLength(3);
  });
});
