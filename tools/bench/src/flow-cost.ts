// Server CPU per Pre-authorized flow, from the server processes' own counters (/proc), under the
// peer kit's driver (../shared/peer-bench/flow-load.mjs). Throughput on a shared two-core machine
// moves with everything else running on it; the CPU a flow costs the server moves far less, so
// this is the figure to compare two checkouts by when the machine is not quiet. With `--workers 2`
// it sums the primary and both workers.
//
//   node tools/bench/src/flow-cost.ts --kit DIR [--vellum DIR] [--workers 1] [--conc 48] [--seconds 12]
//     [--postgres postgres://postgres@127.0.0.1:5432/postgres]   (instead of the embedded SQLite)
//   node tools/bench/src/flow-cost.ts --kit DIR --system peer      (the kit's peer, its one process)
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
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
  },
});
if (!values.kit) throw new Error('--kit DIR: the peer-bench kit, installed as its README.md says');
if (values.system !== 'vellum' && values.system !== 'peer') throw new Error('--system vellum|peer');
if (values.system === 'peer' && values.postgres) throw new Error('--postgres is for Vellum; the peer keeps nothing');
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
const server = await (peer
  ? startKitPeer({ kit, port: Number(values.port) })
  : startKitVellum({
      vellumDir: resolve(values.vellum),
      port: Number(values.port),
      workers: Number(values.workers),
      // PostgreSQL wants the master key given (servers sharing a database share it): a fresh one per run.
      ...(database ? { env: { DATABASE_URL: database.url, VELLUM_MASTER_KEY: randomBytes(32).toString('base64') } } : {}),
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
  console.log(
    `${peer ? 'peer (in memory)' : `${database ? 'PostgreSQL' : 'SQLite'}, workers ${values.workers}`}: ${run.flows_per_sec} flows/s, ${run.flows_failed} failed, server CPU ${((used * 1000) / run.flows_ok).toFixed(3)} ms per flow (${pids.length} processes, ${(used / run.seconds).toFixed(2)} cores)`,
  );
} finally {
  await stopGroup(server.child);
  await database?.drop();
}
