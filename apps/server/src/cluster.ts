// The primary of `vellum serve` with VELLUM_WORKERS above 1: it forks the workers (node:cluster),
// which share the listening socket, keeps their number up when one dies, gives up when they keep
// dying, and on a signal asks each to stop the way a single server stops (its SIGTERM handler).
import type { Logger } from 'pino';

/** One forked worker, as the supervisor sees it (a node:cluster Worker, or a fake in tests). */
export interface ForkedWorker {
  id: number;
  process: { pid?: number | undefined; kill(signal?: NodeJS.Signals): boolean };
}

/** The part of node:cluster the supervisor uses. */
export interface WorkerForker {
  fork(): ForkedWorker;
  on(event: 'online', listener: (worker: ForkedWorker) => void): unknown;
  on(event: 'listening', listener: (worker: ForkedWorker, address: { address: string | null; port: number }) => void): unknown;
  on(event: 'exit', listener: (worker: ForkedWorker, code: number | null, signal: string | null) => void): unknown;
}

export interface SuperviseOptions {
  cluster: WorkerForker;
  /** How many workers to keep running. */
  workers: number;
  logger: Logger;
  /** How long to wait before replacing a worker that died (default 1 s): a failing start does not spin. */
  restartDelayMs?: number;
  /** More unexpected deaths than this within `deathWindowMs` and the primary gives up (default workers × 3). */
  maxDeaths?: number;
  deathWindowMs?: number;
  /** How long workers get to stop after a signal before they are killed (default 30 s). */
  shutdownTimeoutMs?: number;
}

export interface Supervisor {
  /** Asks every worker to stop (SIGTERM: Fastify closes, events are flushed, storage closed). */
  stop(reason: string): void;
  /**
   * Settles once every worker is gone after `stop` or after giving up: 0 when every worker
   * stopped cleanly on request, 1 when the primary gave up or a worker failed or had to be killed.
   */
  done: Promise<number>;
}

/** Forks the workers and supervises them until `stop` is called or they keep dying. */
export function superviseWorkers(options: SuperviseOptions): Supervisor {
  const { cluster, workers, logger } = options;
  const restartDelayMs = options.restartDelayMs ?? 1000;
  const maxDeaths = options.maxDeaths ?? workers * 3;
  const deathWindowMs = options.deathWindowMs ?? 30_000;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 30_000;

  const live = new Set<ForkedWorker>();
  const restarts = new Set<ReturnType<typeof setTimeout>>();
  const deaths: number[] = [];
  let stopping = false;
  let exitCode = 0;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  let finish: (code: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });

  const about = (worker: ForkedWorker) => ({ worker: worker.id, workerPid: worker.process.pid });

  function fork(): void {
    live.add(cluster.fork());
  }

  function finishWhenAllGone(): void {
    if (!stopping || live.size > 0) return;
    if (killTimer) clearTimeout(killTimer);
    finish(exitCode);
  }

  function stop(reason: string, code = 0): void {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    logger.info({ reason, workers: live.size }, 'shutting down: asking every worker to stop');
    for (const worker of live) worker.process.kill('SIGTERM');
    killTimer = setTimeout(() => {
      logger.error({ workers: [...live].map((w) => w.process.pid) }, 'workers did not stop in time: killing them');
      exitCode = 1;
      for (const worker of live) worker.process.kill('SIGKILL');
    }, shutdownTimeoutMs);
    finishWhenAllGone();
  }

  cluster.on('online', (worker) => logger.info(about(worker), 'worker started'));
  cluster.on('listening', (worker, address) => logger.info({ ...about(worker), address: address.address, port: address.port }, 'worker listening'));
  cluster.on('exit', (worker, code, signal) => {
    if (!live.delete(worker)) return;
    if (stopping) {
      // SIGTERM before a worker installed its handler ends it by the signal: nothing was running yet.
      const clean = code === 0 || signal === 'SIGTERM';
      if (!clean) exitCode = 1;
      logger[clean ? 'info' : 'error']({ ...about(worker), code, signal }, 'worker stopped');
      finishWhenAllGone();
      return;
    }
    const now = Date.now();
    deaths.push(now);
    while (deaths.length > 0 && (deaths[0] as number) <= now - deathWindowMs) deaths.shift();
    if (deaths.length > maxDeaths) {
      logger.fatal({ ...about(worker), code, signal, deaths: deaths.length, withinMs: deathWindowMs }, 'workers keep dying: giving up');
      stop('workers keep dying', 1);
      return;
    }
    logger.error({ ...about(worker), code, signal, restartInMs: restartDelayMs }, 'worker exited unexpectedly: starting another');
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork();
    }, restartDelayMs);
    restarts.add(timer);
  });

  logger.info({ workers }, 'starting workers');
  for (let i = 0; i < workers; i++) fork();
  return { stop: (reason) => stop(reason), done };
}
