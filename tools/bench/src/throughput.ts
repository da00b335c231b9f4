// Helpers for the in-process throughput benchmarks (mdoc-issue.ts, mdoc-issuance.ts): operations
// per second of wall-clock and of CPU time, holder keys, and what machine the figures come from.
import { generateKeyPairSync } from 'node:crypto';
import { availableParallelism, cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { PublicJwk } from '@vellum/core';

export interface Rate {
  count: number;
  /** Operations per second of wall-clock time. */
  perSecond: number;
  /**
   * Operations per second of CPU time used by this process. Pinned to one core, that is the
   * core's capacity, and it holds up when other work on the machine steals wall-clock time.
   */
  perCpuSecond: number;
}

/** Runs `op` back to back for `seconds` of wall-clock time. */
export async function rate(seconds: number, op: (i: number) => Promise<unknown>): Promise<Rate> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const until = start + seconds * 1000;
  let count = 0;
  while (performance.now() < until) {
    for (let i = 0; i < 100; i++) await op(count++);
  }
  const used = process.cpuUsage(cpu);
  return { count, perSecond: count / ((performance.now() - start) / 1000), perCpuSecond: count / ((used.user + used.system) / 1e6) };
}

/** `count` fresh P-256 public keys: each credential binds another holder key, as real issuance does. */
export function holderKeys(count: number): PublicJwk[] {
  return Array.from({ length: count }, () => {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    return { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
  });
}

/** Prints the node version and CPU, and warns when the process is not pinned to one core. */
export function printMachine(): void {
  console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}, CPUs available to this process: ${availableParallelism()}`);
  if (availableParallelism() > 1) console.log('warning: not pinned to one core; run under `taskset -c 0` for the issue-4 figure');
}
