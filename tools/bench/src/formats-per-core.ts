// Credentials per CPU-second of one core, for every format (issue 27, point 4): mso_mdoc, dc+sd-jwt,
// cwt, cwt_vc and ldp_vc, each issued in process through the format handler the credential
// endpoint calls (the registry's, for mso_mdoc), with the real signer and KeyManager, on one SQLite
// store (a temporary file, the server's default store). The credentials are those of the
// per-format benchmarks (format-issuers.ts): a 10-claim mDL, a 7-claim PID with every claim
// disclosable, an 8-claim CWT, a 10-claim ldp_vc (Ed25519Signature2018, the default proof type).
// Target: at least 3,000 per CPU-second for every format but ldp_vc, whose rate is reported.
//
//   node tools/bench/src/formats-per-core.ts [--seconds 3] [--formats cwt,ldp_vc] [--read-cache] [--no-pin]
//
// --read-cache puts the SQLite store behind the per-process read cache the server puts in front of
// it (cacheReads, VELLUM_READ_CACHE_TTL_MS's default of 1 s), which serves the KeyManager's key
// row from memory; without it every read reaches SQLite, as in the per-format benchmarks.
//
// The process pins itself and its threads to core 0 with `taskset` when the machine has it (as
// `taskset -c 0 node …` would); rates are per CPU-second of the process, which hold up when other
// work takes wall-clock time from it (under `nice`, say). Each format is warmed up, then timed for
// half of --seconds twice, in turns with the others, so drift hits all alike.
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, getPriority, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Store } from '@vellum/core';
import { cacheReads } from '@vellum/store-cache';
import { prepareCwt, prepareLdpVc, prepareMdoc, prepareSdJwt } from './format-issuers.ts';
import { eachStore } from './in-process.ts';
import { alternate, printMachine, type Rate, thousands as f } from './throughput.ts';

const FORMATS = ['mso_mdoc', 'dc+sd-jwt', 'cwt', 'cwt_vc', 'ldp_vc'] as const;
type Format = (typeof FORMATS)[number];
const TARGET = 3000;
/** The formats whose rate is reported against no target. */
const REPORTED: readonly Format[] = ['ldp_vc'];

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    formats: { type: 'string', default: FORMATS.join(',') },
    'read-cache': { type: 'boolean', default: false },
    'no-pin': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const chosen = values.formats.split(',').map((s) => s.trim());
for (const name of chosen) if (!(FORMATS as readonly string[]).includes(name)) throw new Error(`--formats: ${name} is not one of ${FORMATS.join(', ')}`);
if (!(SECONDS > 0)) throw new Error('--seconds must be a positive number');
const formats = FORMATS.filter((name) => chosen.includes(name));

/** Pins this process and every thread it has to core 0, when there is more than one and `taskset` is there. */
function pinToCoreZero(): void {
  if (values['no-pin'] || availableParallelism() === 1) return;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  } catch {
    console.log('taskset failed or is missing: not pinned (run under `taskset -c 0` yourself)');
  }
}

pinToCoreZero();
printMachine();
console.log(
  `machine: ${cpus().length} CPUs, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, this process's nice ${getPriority()}`,
);

/** One credential of `format` per call (the i-th holder key), on `store`. */
async function issuerOf(format: Format, store: Store): Promise<(i: number) => Promise<{ credential: unknown }>> {
  switch (format) {
    case 'mso_mdoc':
      // 1000 ms: the signing chain cache's default (mdocSignerCacheMs).
      return (await prepareMdoc(store, 1000)).handlerOne;
    case 'dc+sd-jwt':
      return (await prepareSdJwt(store)).issueOne;
    case 'cwt':
      return (await prepareCwt(store)).cwt;
    case 'cwt_vc':
      return (await prepareCwt(store)).cwtVc;
    case 'ldp_vc':
      return (await prepareLdpVc(store)).issueWith('Ed25519Signature2018', 'current');
  }
}

let rates = {} as Record<Format, Rate>;
/** The server's default VELLUM_READ_CACHE_TTL_MS. */
const SERVER_READ_CACHE_MS = 1000;
const storeName = values['read-cache']
  ? `SQLite behind the ${SERVER_READ_CACHE_MS} ms read cache (as the server runs it)`
  : 'SQLite, every read to the database';

await eachStore('formats', ['sqlite'], async (opened) => {
  const store = values['read-cache'] ? cacheReads(opened, { ttlMs: SERVER_READ_CACHE_MS }) : opened;
  const ops = {} as Record<Format, (i: number) => Promise<unknown>>;
  const sizes: string[] = [];
  for (const format of formats) {
    const issueOne = await issuerOf(format, store);
    const { credential } = await issueOne(0);
    const text = typeof credential === 'string' ? credential : JSON.stringify(credential);
    if (text.length === 0) throw new Error(`${format}: issued an empty credential`);
    sizes.push(`${format} ${text.length}`);
    ops[format] = issueOne;
  }
  console.log(`one credential, in characters: ${sizes.join(', ')}`);
  const warmUp = Object.fromEntries(formats.map((name) => [name, Math.min(1, SECONDS / 3)])) as Record<Format, number>;
  rates = await alternate(ops, warmUp, SECONDS / 2);
});

console.log(`\nstore: ${storeName}; ${SECONDS} s per format`);
console.log('\n| format | credentials per CPU-second | µs per credential (CPU) | credentials/s (wall) | target | met |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const format of formats) {
  const r = rates[format];
  const reported = REPORTED.includes(format);
  const met = reported ? '–' : r.perCpuSecond >= TARGET ? 'met' : 'NOT met';
  console.log(
    `| ${format} | ${f(r.perCpuSecond)} | ${(1e6 / r.perCpuSecond).toFixed(1)} | ${f(r.perSecond)} | ${reported ? 'reported' : `≥ ${f(TARGET)}`} | ${met} |`,
  );
}
