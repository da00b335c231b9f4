// What the GET benchmarks of one endpoint share (did-configuration.ts, issuer-metadata.ts): their
// options, a real server on SQLite (./http-load.ts) with a tenant filled through the admin API,
// a check of the first answer, the measured run, and a clean stop whatever happens.
import { parseArgs } from 'node:util';
import { type Answer, benchGet, startBenchServer } from './http-load.ts';

export interface GetBench {
  /** The endpoint measured. */
  path: string;
  /** What each `posts` entry makes, for the error when the server refuses one (e.g. "a DID"). */
  creating: string;
  /** Admin API calls that give the tenant what the endpoint lists: [path, body], each answered 201. */
  posts: ReadonlyArray<readonly [string, object]>;
  /** Checks the first answer of the endpoint; what it returns goes into the printed result. */
  details: (first: Answer) => Record<string, unknown>;
}

/** Parses `--seconds`, `--connections` and `--log-level`, runs the benchmark, and exits 1 when it fails. */
export function runGetBench(bench: GetBench): void {
  const { values: args } = parseArgs({
    options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' }, 'log-level': { type: 'string', default: 'info' } },
  });
  const seconds = Number(args.seconds);
  const connections = Number(args.connections);
  const main = async () => {
    const server = await startBenchServer({ connections, logLevel: args['log-level'] as string });
    try {
      const auth = await server.auth();
      for (const [path, body] of bench.posts) {
        const res = await server.call('POST', path, { headers: auth, body });
        if (res.status !== 201) throw new Error(`creating ${bench.creating} failed: ${res.status} ${res.text}`);
      }
      const first = await server.call('GET', bench.path);
      const details = bench.details(first);
      await benchGet(server, { path: bench.path, seconds, connections, logLevel: args['log-level'], sample: first, details });
    } finally {
      await server.stop();
    }
  };
  main().catch((error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
