// Benchmark (issue 3): GET /.well-known/did-configuration of a tenant with 10 DIDs, served by the
// real server on SQLite, pinned to one CPU core. Prints requests per second and latency.
//
//   node src/did-configuration.ts [--seconds 10] [--connections 32] [--log-level info]
//
// The server runs as a child process (`vellum serve`) under `taskset -c 0` when taskset exists
// and the machine has another core; this process then moves itself off core 0, so the load
// generator never competes with the server for its core. Load is a keep-alive http.Agent with N
// connections, each sending its next request when the last answer has arrived (./http-load.ts).
import { HOST } from './http-load.ts';
import { runGetBench } from './well-known-get.ts';

const DIDS = [
  ...Array.from({ length: 4 }, () => ({ method: 'key' })),
  ...Array.from({ length: 3 }, () => ({ method: 'key', options: { keyType: 'P-256' } })),
  { method: 'web', options: { url: HOST } },
  { method: 'web', options: { url: `${HOST}/issuers/one` } },
  { method: 'web', options: { url: `${HOST}/issuers/two` } },
];

runGetBench({
  path: '/.well-known/did-configuration',
  creating: 'a DID',
  posts: DIDS.map((body) => ['/v1/dids', body] as const),
  details: (first) => {
    const entries = (JSON.parse(first.text) as { entries: unknown[] }).entries.length;
    if (entries !== 10) throw new Error(`expected 10 entries, got ${entries}`);
    return { dids: entries };
  },
});
