// The cluster primary's supervision rules, on a fake cluster and fake timers: workers are replaced
// after a delay, a crash loop makes the primary give up, and a signal stops every worker.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ForkedWorker, superviseWorkers, type WorkerForker } from './cluster.ts';
import { createLogger } from './logger.ts';

class FakeWorker implements ForkedWorker {
  readonly id: number;
  readonly signals: string[] = [];
  readonly process: ForkedWorker['process'];
  readonly #cluster: FakeCluster;
  constructor(id: number, cluster: FakeCluster) {
    this.id = id;
    this.#cluster = cluster;
    this.process = { pid: 1000 + id, kill: (signal = 'SIGTERM') => (this.signals.push(signal), true) };
  }
  /** The worker process ends. */
  exit(code: number | null, signal: string | null = null): void {
    this.#cluster.emit('exit', this, code, signal);
  }
}

class FakeCluster extends EventEmitter implements WorkerForker {
  readonly forked: FakeWorker[] = [];
  fork(): FakeWorker {
    const worker = new FakeWorker(this.forked.length + 1, this);
    this.forked.push(worker);
    return worker;
  }
}

describe('the cluster primary (VELLUM_WORKERS > 1)', () => {
  const logger = createLogger('silent');
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('forks the workers, replaces one that dies after the restart delay, and keeps the others', async () => {
    const cluster = new FakeCluster();
    superviseWorkers({ cluster, workers: 3, logger, restartDelayMs: 1000 });
    expect(cluster.forked).toHaveLength(3);
    cluster.forked[1]?.exit(null, 'SIGKILL');
    await vi.advanceTimersByTimeAsync(999);
    expect(cluster.forked).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(cluster.forked).toHaveLength(4);
  });

  it('gives up with exit code 1 when workers die more than workers × 3 times within 30 s', async () => {
    const cluster = new FakeCluster();
    const supervisor = superviseWorkers({ cluster, workers: 2, logger, restartDelayMs: 1000 });
    let settled: number | undefined;
    void supervisor.done.then((code) => (settled = code));
    // Six deaths in 30 s are tolerated: each is replaced.
    for (let death = 0; death < 6; death++) {
      const newest = cluster.forked[cluster.forked.length - 1] as FakeWorker;
      newest.exit(1);
      await vi.advanceTimersByTimeAsync(1000);
    }
    expect(cluster.forked).toHaveLength(8);
    // The seventh gives up: no replacement, the remaining worker is asked to stop.
    const survivor = cluster.forked[0] as FakeWorker;
    (cluster.forked[cluster.forked.length - 1] as FakeWorker).exit(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(cluster.forked).toHaveLength(8);
    expect(survivor.signals).toEqual(['SIGTERM']);
    expect(settled).toBeUndefined();
    survivor.exit(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(1);
  });

  it('forgets deaths older than the window: a worker dying now and then is always replaced', async () => {
    const cluster = new FakeCluster();
    superviseWorkers({ cluster, workers: 1, logger, restartDelayMs: 1000 });
    for (let death = 0; death < 10; death++) {
      (cluster.forked[cluster.forked.length - 1] as FakeWorker).exit(1);
      await vi.advanceTimersByTimeAsync(11_000); // four within any 30 s: more than 1 × 3 would give up
    }
    expect(cluster.forked).toHaveLength(11);
  });

  it('on a signal asks every worker to stop with SIGTERM, replaces none, and settles with 0 once all are gone', async () => {
    const cluster = new FakeCluster();
    const supervisor = superviseWorkers({ cluster, workers: 2, logger, restartDelayMs: 1000 });
    let settled: number | undefined;
    void supervisor.done.then((code) => (settled = code));
    const [a, b] = cluster.forked as [FakeWorker, FakeWorker];
    a.exit(1); // dies; its replacement is pending when the signal comes
    supervisor.stop('SIGTERM');
    expect(b.signals).toEqual(['SIGTERM']);
    await vi.advanceTimersByTimeAsync(5000);
    expect(cluster.forked).toHaveLength(2);
    expect(settled).toBeUndefined();
    b.exit(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(0);
  });

  it('settles with 1 when a worker fails to stop cleanly, and kills workers that outlast the shutdown timeout', async () => {
    const cluster = new FakeCluster();
    const supervisor = superviseWorkers({ cluster, workers: 2, logger, shutdownTimeoutMs: 30_000 });
    let settled: number | undefined;
    void supervisor.done.then((code) => (settled = code));
    const [a, b] = cluster.forked as [FakeWorker, FakeWorker];
    supervisor.stop('SIGINT');
    a.exit(0);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(b.signals).toEqual(['SIGTERM', 'SIGKILL']);
    b.exit(null, 'SIGKILL');
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(1);
  });
});
