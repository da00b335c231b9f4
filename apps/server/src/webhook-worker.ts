// The webhook delivery loop of `vellum serve`. Every server runs one; they share the outbox
// through the database (claims are leased, FOR UPDATE SKIP LOCKED on PostgreSQL), so adding
// servers adds senders and no delivery is sent twice at once.
import type { WebhookDeliveryWorker, WebhookSigningKeys } from '@vellum/core';
import type { Logger } from 'pino';

export interface WebhookLoopOptions {
  worker: WebhookDeliveryWorker;
  signingKeys: WebhookSigningKeys;
  logger: Logger;
  /** How long to wait when nothing was due (VELLUM_WEBHOOK_POLL_INTERVAL_MS). */
  pollIntervalMs: number;
  /** How often retired signing keys no pending delivery needs are destroyed (default 60 s). */
  pruneIntervalMs?: number;
}

export interface WebhookLoop {
  /** Stops claiming; resolves once the round in flight has recorded its attempts. */
  stop(): Promise<void>;
}

/** Runs delivery rounds back to back while there is work, and polls when there is none. */
export function startWebhookLoop(options: WebhookLoopOptions): WebhookLoop {
  const { worker, signingKeys, logger, pollIntervalMs } = options;
  const pruneIntervalMs = options.pruneIntervalMs ?? 60_000;
  let stopped = false;
  let wake: (() => void) | undefined;
  let lastPrune = 0;
  let failures = 0;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const running = (async () => {
    while (!stopped) {
      let claimed = 0;
      try {
        claimed = await worker.deliverDue();
        if (Date.now() - lastPrune >= pruneIntervalMs) {
          lastPrune = Date.now();
          const pruned = await signingKeys.pruneSpent();
          if (pruned > 0) logger.info({ pruned }, 'destroyed retired webhook signing keys no delivery needs');
        }
        failures = 0;
      } catch (err) {
        // Storage trouble: log it and back off (up to 30 s); claimed deliveries come back when their lease ends.
        failures += 1;
        logger.error({ err }, 'webhook delivery round failed');
        await sleep(Math.min(30_000, pollIntervalMs * 2 ** Math.min(failures, 6)));
        continue;
      }
      if (claimed === 0 && !stopped) await sleep(pollIntervalMs);
    }
  })();

  return {
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
  };
}
