// Benchmark (issue 3): GET /.well-known/did-configuration of a tenant with 10 DIDs, served by the
// real server on SQLite, pinned to one CPU core. Prints requests per second and latency.
//
//   node src/did-configuration.ts [--seconds 10] [--connections 32] [--log-level info]
//
// The server runs as a child process (`vellum serve`) under `taskset -c 0` when taskset exists
// and the machine has another core; this process then moves itself off core 0, so the load
// generator never competes with the server for its core. Load is a keep-alive http.Agent with N
// connections, each sending its next request when the last answer has arrived (./http-load.ts).
import { parseArgs } from 'node:util';
import { benchGet, HOST, startBenchServer } from './http-load.ts';

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' }, 'log-level': { type: 'string', default: 'info' } },
});
const seconds = Number(args.seconds);
const connections = Number(args.connections);

const PATH = '/.well-known/did-configuration';

async function main(): Promise<void> {
  const server = await startBenchServer({ connections, logLevel: args['log-level'] as string });
  try {
    const auth = await server.auth();
    const bodies = [
      ...Array.from({ length: 4 }, () => ({ method: 'key' })),
      ...Array.from({ length: 3 }, () => ({ method: 'key', options: { keyType: 'P-256' } })),
      { method: 'web', options: { url: HOST } },
      { method: 'web', options: { url: `${HOST}/issuers/one` } },
      { method: 'web', options: { url: `${HOST}/issuers/two` } },
    ];
    for (const body of bodies) {
      const res = await server.call('POST', '/v1/dids', { headers: auth, body });
      if (res.status !== 201) throw new Error(`creating a DID failed: ${res.status} ${res.text}`);
    }
    const first = await server.call('GET', PATH);
    const entries = (JSON.parse(first.text) as { entries: unknown[] }).entries.length;
    if (entries !== 10) throw new Error(`expected 10 entries, got ${entries}`);

    await benchGet(server, { path: PATH, seconds, connections, logLevel: args['log-level'], sample: first, details: { dids: entries } });
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
