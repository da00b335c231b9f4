// Server CPU per Pre-authorized flow, from the server processes' own counters (/proc), under the
// peer kit's driver (../shared/peer-bench/flow-load.mjs). Throughput on a shared two-core machine
// moves with everything else running on it; the CPU a flow costs the server moves far less, so
// this is the figure to compare two checkouts by when the machine is not quiet. With `--workers 2`
// it sums the primary and both workers.
//
//   node tools/bench/src/flow-cost.ts --kit DIR [--vellum DIR] [--workers 1] [--conc 48] [--seconds 12]
//     [--postgres postgres://postgres@127.0.0.1:5432/postgres]   (instead of the embedded SQLite)
//   node tools/bench/src/flow-cost.ts --kit DIR --system peer      (the kit's peer, its one process)
//   node tools/bench/src/flow-cost.ts --kit DIR --sql-timings       (SQLite: also each statement's time per flow)
//   node tools/bench/src/flow-cost.ts --kit DIR --custody pkcs11 [--pkcs11-thread-pool false]
//     (every key in a fresh SoftHSM 2 token; signing on the thread pool, the default, or the event loop)
//   node tools/bench/src/flow-cost.ts --kit DIR --wrapping master|pkcs11
//     (software keys sealed under data keys wrapped by the master key or a fresh SoftHSM 2 token's AES key)
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { initSoftHsmToken, softHsmInstalled } from '@vellum/testing/fakes';
import { cpuSeconds, family, runKitDriver, startKitPeer, startKitVellum, stopGroup } from './kit-servers.ts';

const { values } = parseArgs({
  options: {
    kit: { type: 'string' },
    vellum: { type: 'string', default: resolve(import.meta.dirname, '../../..') },
    workers: { type: 'string', default: '1' },
    conc: { type: 'string', default: '48' },
    seconds: { type: 'string', default: '12' },
    port: { type: 'string', default: '3970' },
    // A fresh PostgreSQL database made for the run and dropped after it, on this server (postgres://…/postgres).
    postgres: { type: 'string' },
    system: { type: 'string', default: 'vellum' },
    // Times every SQLite statement in the server (sql-timings-hook.ts) and prints them per flow.
    'sql-timings': { type: 'boolean', default: false },
    // Where the server makes its keys: `software` (the default) or `pkcs11` (a fresh SoftHSM 2 token).
    custody: { type: 'string', default: 'software' },
    'pkcs11-thread-pool': { type: 'string', default: 'true' },
    // How software keys are sealed (VELLUM_KEY_WRAPPING): `off` (the default), `master` or `pkcs11`.
    wrapping: { type: 'string', default: 'off' },
  },
});
if (!values.kit) throw new Error('--kit DIR: the peer-bench kit, installed as its README.md says');
if (values.system !== 'vellum' && values.system !== 'peer') throw new Error('--system vellum|peer');
if (values.system === 'peer' && values.postgres) throw new Error('--postgres is for Vellum; the peer keeps nothing');
if (values['sql-timings'] && (values.system === 'peer' || values.postgres)) throw new Error('--sql-timings times SQLite statements: Vellum on SQLite only');
if (values.custody !== 'software' && values.custody !== 'pkcs11') throw new Error('--custody software|pkcs11');
if (values.custody === 'pkcs11' && (values.system === 'peer' || !softHsmInstalled)) {
  throw new Error('--custody pkcs11: Vellum only, and SoftHSM 2 must be installed');
}
if (!['off', 'master', 'pkcs11'].includes(values.wrapping)) throw new Error('--wrapping off|master|pkcs11');
if (values.wrapping === 'pkcs11' && (values.system === 'peer' || !softHsmInstalled)) {
  throw new Error('--wrapping pkcs11: Vellum only, and SoftHSM 2 must be installed');
}
/** The server's key custody and wrapping settings: none for software keys; a fresh SoftHSM 2 token for pkcs11. */
function custodyEnv(): Record<string, string> {
  const wrapping: Record<string, string> = values.wrapping === 'off' ? {} : { VELLUM_KEY_WRAPPING: values.wrapping };
  if (values.custody !== 'pkcs11' && values.wrapping !== 'pkcs11') return wrapping;
  const hsm = initSoftHsmToken({ label: 'vellum-flow-cost' });
  return {
    ...hsm.env,
    ...wrapping,
    ...(values.custody === 'pkcs11' ? { VELLUM_KEY_CUSTODY: 'pkcs11' } : {}),
    VELLUM_PKCS11_MODULE: hsm.module,
    VELLUM_PKCS11_TOKEN_LABEL: hsm.label,
    VELLUM_PKCS11_PIN: hsm.pin,
    VELLUM_PKCS11_THREAD_POOL: values['pkcs11-thread-pool'],
  };
}
const timings = values['sql-timings'] ? mkdtempSync(join(tmpdir(), 'vellum-sql-timings-')) : undefined;
const kit = resolve(values.kit);
const peer = values.system === 'peer';

let database: { url: string; drop(): Promise<void> } | undefined;
if (values.postgres) {
  // psql rather than a client library: the benchmark needs two statements, and the machine's
  // PostgreSQL comes with it.
  const admin = values.postgres;
  const psql = (statement: string) => {
    const done = spawnSync('psql', [admin, '-v', 'ON_ERROR_STOP=1', '-qc', statement], { encoding: 'utf8' });
    if (done.status !== 0) throw new Error(`psql: ${done.stderr || done.error}`);
  };
  const name = `vellum_flow_cost_${process.pid}_${Date.now()}`;
  psql(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  database = { url: url.toString(), drop: async () => psql(`drop database if exists ${name} with (force)`) };
}
let flows = 0;
const server = await (peer
  ? startKitPeer({ kit, port: Number(values.port) })
  : startKitVellum({
      vellumDir: resolve(values.vellum),
      port: Number(values.port),
      workers: Number(values.workers),
      ...(timings ? { nodeArgs: ['--import', join(import.meta.dirname, 'sql-timings-hook.ts')] } : {}),
      env: {
        ...(timings ? { VELLUM_BENCH_SQL_TIMINGS: timings } : {}),
        // PostgreSQL wants the master key given (servers sharing a database share it): a fresh one per run.
        ...(database ? { DATABASE_URL: database.url, VELLUM_MASTER_KEY: randomBytes(32).toString('base64') } : {}),
        ...custodyEnv(),
      },
    })
).catch(async (error: unknown) => {
  await database?.drop();
  throw error;
});
try {
  const pids = family(server.child.pid!);
  const out = join(mkdtempSync(join(tmpdir(), 'vellum-cost-')), 'driver.json');
  const seconds = Number(values.seconds);
  // A warm-up run, then the measured one: the counters are read around the second only.
  const drive = (s: number, file: string) => runKitDriver(kit, server, { concurrency: values.conc, seconds: s, warmupFlows: 0, out: file });
  await drive(3, `${out}.warm`);
  const before = cpuSeconds(pids);
  await drive(seconds, out);
  const used = cpuSeconds(pids) - before;
  const run = JSON.parse(readFileSync(out, 'utf8')) as { flows_ok: number; flows_failed: number; flows_per_sec: number; seconds: number };
  // The statement timings cover the warm-up too: they are divided by every flow the server ran.
  flows = run.flows_ok + (JSON.parse(readFileSync(`${out}.warm`, 'utf8')) as { flows_ok: number }).flows_ok;
  console.log(
    `${peer ? 'peer (in memory)' : `${database ? 'PostgreSQL' : 'SQLite'}, workers ${values.workers}, ${values.custody} keys${values.custody === 'pkcs11' ? ` (thread pool ${values['pkcs11-thread-pool']})` : ''}${values.wrapping === 'off' ? '' : `, wrapped (${values.wrapping})`}`}: ${run.flows_per_sec} flows/s, ${run.flows_failed} failed, server CPU ${((used * 1000) / run.flows_ok).toFixed(3)} ms per flow (${pids.length} processes, ${(used / run.seconds).toFixed(2)} cores)`,
  );
} finally {
  await stopGroup(server.child);
  await database?.drop();
}
if (timings) printSqlTimings(timings, flows);

/**
 * Each statement's count and time per flow, summed over the server's processes: the whole run's
 * totals (warm-up included) over every flow the server ran. A statement of the flow shows 1.00 per
 * flow; the set-up's statements show counts far below it and add a little to the sum.
 */
function printSqlTimings(directory: string, ranFlows: number): void {
  const totals = new Map<string, { count: number; ns: number }>();
  for (const file of readdirSync(directory).filter((f) => f.endsWith('.tsv'))) {
    for (const line of readFileSync(join(directory, file), 'utf8').split('\n')) {
      const [count, ns, sql] = line.split('\t');
      if (!count || !ns || !sql) continue;
      const t = totals.get(sql) ?? { count: 0, ns: 0 };
      t.count += Number(count);
      t.ns += Number(ns);
      totals.set(sql, t);
    }
  }
  if (totals.size === 0 || ranFlows === 0) {
    console.log('no statement timings were written (did the server exit cleanly?)');
    return;
  }
  const rows = [...totals].sort((a, b) => b[1].ns - a[1].ns);
  const all = rows.reduce((sum, [, t]) => sum + t.ns, 0);
  console.log(`\nSQLite statements: ${(all / 1000 / ranFlows).toFixed(0)} µs per flow in all (the whole run's time over its flows)\n`);
  console.log('| per flow | µs per flow | µs each | statement |');
  console.log('| --- | --- | --- | --- |');
  for (const [sql, t] of rows.slice(0, 20)) {
    console.log(
      `| ${(t.count / ranFlows).toFixed(2)} | ${(t.ns / 1000 / ranFlows).toFixed(1)} | ${(t.ns / 1000 / t.count).toFixed(1)} | \`${sql.slice(0, 90)}\` |`,
    );
  }
}
