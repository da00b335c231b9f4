// Helpers for the in-process throughput benchmarks (mdoc-issue.ts, mdoc-issuance.ts, the cwt,
// sd-jwt and ldp_vc ones): operations per second of wall-clock and of CPU time, operations timed
// in turns, holder keys, their --seconds option, and what machine the figures come from.
import { generateKeyPairSync } from 'node:crypto';
import { availableParallelism, cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { CredentialConfiguration, CredentialFormatHandler, FormatIssueRequest, PublicJwk } from '@vellum/core';

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

/** Two runs of one operation taken together: their counts added, their rates averaged. */
export const meanRate = (a: Rate, b: Rate): Rate => ({
  count: a.count + b.count,
  perSecond: (a.perSecond + b.perSecond) / 2,
  perCpuSecond: (a.perCpuSecond + b.perCpuSecond) / 2,
});

/**
 * Warms the operations up (`warmUp`: seconds each, in its own order), then times each of `ops`
 * for `slice` seconds, in turn and twice over, so that drift hits all alike; the mean of the two.
 */
export async function alternate<K extends string>(
  ops: Record<K, (i: number) => Promise<unknown>>,
  warmUp: Record<K, number>,
  slice: number,
): Promise<Record<K, Rate>> {
  for (const [name, seconds] of Object.entries(warmUp) as Array<[K, number]>) await rate(seconds, ops[name]);
  const entries = Object.entries(ops) as Array<[K, (i: number) => Promise<unknown>]>;
  const first = {} as Record<K, Rate>;
  const out = {} as Record<K, Rate>;
  for (const [name, op] of entries) first[name] = await rate(slice, op);
  for (const [name, op] of entries) out[name] = meanRate(first[name], await rate(slice, op));
  return out;
}

/** The `--seconds` option of a throughput benchmark. */
export function secondsOption(fallback: number): number {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: String(fallback) } } });
  return Number(values.seconds);
}

/** A figure rounded, with thousands separators, for the tables. */
export const thousands = (n: number) => Math.round(n).toLocaleString('en-US');

/** `count` fresh P-256 public keys: each credential binds another holder key, as real issuance does. */
export function holderKeys(count: number): PublicJwk[] {
  return Array.from({ length: count }, () => {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    return { kty: 'EC', crv: 'P-256', x: jwk.x as string, y: jwk.y as string };
  });
}

/**
 * One credential per call through a format handler, as the credential endpoint asks for it: the
 * same request but for the holder key, the `i`-th of `holders` in turn, and the time.
 */
export function handlerIssue<C extends CredentialConfiguration>(
  handler: CredentialFormatHandler<C>,
  request: Omit<FormatIssueRequest<C>, 'holderKey' | 'now'>,
  holders: readonly PublicJwk[],
) {
  const { tenant, configuration, subject, credentialIssuer, form } = request;
  return (i: number) =>
    handler.issue({ tenant, configuration, subject, holderKey: holders[i % holders.length] as PublicJwk, credentialIssuer, now: new Date(), form });
}

/** Prints the node version and CPU, and warns when the process is not pinned to one core. */
export function printMachine(): void {
  console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'}, CPUs available to this process: ${availableParallelism()}`);
  if (availableParallelism() > 1) console.log('warning: not pinned to one core; run under `taskset -c 0` for the issue-4 figure');
}
