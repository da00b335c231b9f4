// A CPU profile of one server under the peer kit's load, taken over the saturated window only, and
// broken down by area and by flow step (docs/performance.md, "Where a flow's CPU goes").
//
// The server runs as one process with the inspector on loopback. The kit's driver
// (../shared/peer-bench/flow-load.mjs, installed as its README says) runs the Pre-authorized flow
// against it; after `--skip` seconds the profiler starts through the inspector, and it stops
// `--seconds` later, before the driver's last flows. The same driver and the same window serve
// Vellum (SQLite, the mDL mDoc, the default configuration but one process) and the peer (the
// Sphereon issuer server in the kit).
//
//   node tools/bench/src/flow-profile.ts --kit DIR [--system vellum|peer] [--vellum DIR]
//     [--conc 48] [--seconds 12] [--skip 4] [--out FILE.cpuprofile]
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { analyseProfile, type CpuProfile, printProfileTables } from './cpu-profile-table.ts';
import { runKitDriver, startKitPeer, startKitVellum, stopGroup } from './kit-servers.ts';

const { values } = parseArgs({
  options: {
    kit: { type: 'string' },
    system: { type: 'string', default: 'vellum' },
    vellum: { type: 'string', default: resolve(import.meta.dirname, '../../..') },
    conc: { type: 'string', default: '48' },
    seconds: { type: 'string', default: '12' },
    skip: { type: 'string', default: '4' },
    out: { type: 'string' },
    'inspect-port': { type: 'string', default: '9339' },
  },
});
if (!values.kit) throw new Error('--kit DIR: the peer-bench kit, installed as its README.md says');
const kit = resolve(values.kit);
const system = values.system;
if (system !== 'vellum' && system !== 'peer') throw new Error(`--system must be vellum or peer, not ${system}`);
const seconds = Number(values.seconds);
const skip = Number(values.skip);
const inspectPort = Number(values['inspect-port']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The inspector's WebSocket, one request at a time. */
async function inspector(port: number) {
  const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const ws = new WebSocket(list[0]!.webSocketDebuggerUrl);
  await new Promise((ok, fail) => {
    ws.onopen = ok;
    ws.onerror = fail;
  });
  let id = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  };
  return {
    send: (method: string, params: object = {}) =>
      new Promise<unknown>((ok) => {
        id += 1;
        waiting.set(id, ok);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

const server =
  system === 'vellum'
    ? await startKitVellum({ vellumDir: resolve(values.vellum), port: 3950, workers: 1, nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`] })
    : await startKitPeer({ kit, port: 8195, nodeArgs: [`--inspect=127.0.0.1:${inspectPort}`] });
const results = join(mkdtempSync(join(tmpdir(), 'vellum-profile-')), 'driver.json');
try {
  const done = runKitDriver(kit, server, {
    concurrency: values.conc,
    seconds: skip + seconds + 2,
    warmupFlows: 300,
    out: results,
    serverPid: server.child.pid!,
  });
  const session = await inspector(inspectPort);
  await session.send('Profiler.enable');
  await session.send('Profiler.setSamplingInterval', { interval: 200 });
  await sleep(skip * 1000);
  await session.send('Profiler.start');
  await sleep(seconds * 1000);
  const { profile } = (await session.send('Profiler.stop')) as { profile: CpuProfile };
  session.close();
  await done;
  const run = JSON.parse(readFileSync(results, 'utf8')) as { flows_per_sec: number; flows_failed: number; server_cpu_ms_per_flow: number | null };
  const flows = run.flows_per_sec * seconds;
  if (values.out) writeFileSync(values.out, JSON.stringify(profile));
  console.log(
    `${system}: ${run.flows_per_sec} flows/s over the driver's whole run, ${run.flows_failed} failed, server CPU ${run.server_cpu_ms_per_flow} ms per flow`,
  );
  printProfileTables(analyseProfile(profile), flows);
} finally {
  await stopGroup(server.child);
}
