// The retention job's loop in `vellum serve` (docs/retention.md). Every server process runs one;
// the job's lease in the database lets one of them purge at a time, and a complete run keeps the
// lease for the interval, so that servers sharing a database purge about once per interval between them.
import type { RetentionJob } from '@vellum/core';
import type { Logger } from 'pino';

export interface RetentionLoopOptions {
  job: RetentionJob;
  logger: Logger;
  /** VELLUM_RETENTION_INTERVAL_MS (never 0 here: 0 means the loop is not started). */
  intervalMs: number;
  /** Before the first run (default: a tenth of the interval, at most 30 s), so that a start is not slowed by it. */
  firstRunAfterMs?: number;
}

export interface RetentionLoop {
  /** Stops the loop; resolves once the batch in flight has committed. */
  stop(): Promise<void>;
}

/** Runs the job now and then until stopped; a failed run is logged and tried again at the next turn. */
export function startRetentionLoop(options: RetentionLoopOptions): RetentionLoop {
  const { job, logger, intervalMs } = options;
  const signal = { aborted: false };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const turn = () => {
    running = (async () => {
      try {
        const run = await job.run({ signal });
        if (run.ran) logger.info({ purged: run.purged, complete: run.complete }, 'retention run');
      } catch (err) {
        logger.error({ err }, 'retention run failed; trying again at the next turn');
      }
      if (!signal.aborted) schedule(intervalMs);
    })();
  };
  const schedule = (ms: number) => {
    timer = setTimeout(turn, ms);
    timer.unref();
  };
  schedule(options.firstRunAfterMs ?? Math.min(30_000, Math.floor(intervalMs / 10)));

  return {
    async stop() {
      signal.aborted = true;
      clearTimeout(timer);
      await running;
    },
  };
}
