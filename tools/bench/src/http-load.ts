// Helpers to benchmark one public GET endpoint of the real server (`vellum serve` on SQLite, in a
// child process pinned to CPU core 0 when taskset and a second core exist; this process moves to
// the other cores). Load is an undici Pool with N keep-alive connections, each sending its next
// request when the last answer has arrived.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const MAIN = fileURLToPath(new URL('../../../apps/server/src/main.ts', import.meta.url));
export const PLATFORM = 'vellum.bench';
export const HOST = `acme.eu01.${PLATFORM}`;

export interface Answer {
  status: number;
  text: string;
}

export interface BenchServer {
  pinned: boolean;
  /** The server's data directory (its SQLite database is `vellum.db` there); removed by `stop`. */
  dataDir: string;
  /** The server's port on 127.0.0.1 (requests must carry `host: HOST`). */
  port: number;
  /** One request to the server, on the tenant's host. */
  call(method: string, path: string, options?: { headers?: Record<string, string>; body?: unknown; raw?: string }): Promise<Answer>;
  /** An admin bearer header for the tenant. */
  auth(): Promise<Record<string, string>>;
  /** Keeps `connections` GETs of `path` in flight for `ms`; every answer must be 200. */
  drive(path: string, ms: number): Promise<{ latencies: number[]; failures: number; elapsed: number }>;
  /** CPU seconds the server process has used so far (Linux /proc), or undefined elsewhere. */
  cpuSeconds(): number | undefined;
  /** Stops the server and removes its data directory, unless `keepData` (a later `stop` removes it). */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/** Creates the tenant `acme` on a fresh SQLite data directory and starts the server. */
/**
 * `workers` > 1 runs `vellum serve` with VELLUM_WORKERS (a primary and its workers) and pins
 * nothing: the server's processes and this driver then share every core.
 */
/** The kernel's clock ticks per second (`getconf CLK_TCK`), in which /proc reports CPU time; asked once. */
let ticksPerSecond: number | undefined;
export function clockTicksPerSecond(): number {
  ticksPerSecond ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  return ticksPerSecond;
}

export async function startBenchServer(options: { connections: number; logLevel: string; workers?: number }): Promise<BenchServer> {
  const workers = options.workers ?? 1;
  const pinned = workers === 1 && spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0 && availableParallelism() > 1;
  const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-'));
  const port = await freePort();
  // VELLUM_* settings of this shell reach the server (e.g. VELLUM_SQLITE_GROUP_COMMIT=false for an
  // A/B run), except those the benchmark sets itself.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('VELLUM_')));
  const env = {
    ...inherited,
    PATH: process.env.PATH ?? '',
    VELLUM_DATA_DIR: dir,
    VELLUM_PORT: String(port),
    VELLUM_PLATFORM_DOMAIN: PLATFORM,
    VELLUM_DEFAULT_TENANT: '',
    VELLUM_LOG_LEVEL: options.logLevel,
    VELLUM_WORKERS: String(workers),
    // e.g. BENCH_SERVER_NODE_OPTIONS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the server.
    ...(process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {}),
  };
  const created = spawnSync(process.execPath, [MAIN, 'tenants', 'create', '--subdomain', 'acme', '--region', 'eu01'], { env, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`tenants create failed: ${created.stderr}`);
  const tenant = JSON.parse(created.stdout) as { clientId: string; clientSecret: string; audience: string };

  // The server's log goes nowhere: a benchmark should not measure a terminal.
  const command = pinned ? (['taskset', ['-c', '0', process.execPath, MAIN, 'serve']] as const) : ([process.execPath, [MAIN, 'serve']] as const);
  const child = spawn(command[0], [...command[1]], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  if (pinned) spawnSync('taskset', ['-cp', `1-${availableParallelism() - 1}`, String(process.pid)], { stdio: 'ignore' });
  // undici rather than node:http: the driver shares the machine with the server, and node:http's
  // client cost about 1.4 ms of CPU per four-request flow, more than the server it measured.
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: options.connections, pipelining: 1 });

  const call: BenchServer['call'] = async (method, path, o = {}) => {
    const payload = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
    const headers = { host: HOST, ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers };
    const res = await pool.request({ method: method as 'GET', path, headers, ...(payload === undefined ? {} : { body: payload }) });
    return { status: res.statusCode, text: await res.body.text() };
  };

  let destroyed = false;
  const stop = async ({ keepData = false } = {}) => {
    if (!destroyed) await pool.destroy();
    destroyed = true;
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    if (!keepData) rmSync(dir, { recursive: true, force: true });
  };

  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      if (i >= 200) throw new Error('the server did not start within 20 s');
      const up = await call('GET', '/health').then(
        (r) => r.status === 200,
        () => false,
      );
      if (up) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    pinned,
    dataDir: dir,
    port,
    call,
    async auth() {
      const res = await call('POST', '/oauth/token', {
        body: { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret, audience: tenant.audience },
      });
      return { authorization: `Bearer ${(JSON.parse(res.text) as { access_token: string }).access_token}` };
    },
    async drive(path, ms) {
      const latencies: number[] = [];
      let failures = 0;
      const started = performance.now();
      const until = started + ms;
      const worker = async () => {
        while (performance.now() < until) {
          const t0 = performance.now();
          try {
            const res = await call('GET', path);
            if (res.status === 200) latencies.push(performance.now() - t0);
            else failures += 1;
          } catch {
            failures += 1;
          }
        }
      };
      await Promise.all(Array.from({ length: options.connections }, worker));
      return { latencies, failures, elapsed: performance.now() - started };
    },
    cpuSeconds() {
      try {
        // The server and its cluster workers: every process whose parent chain leads to the child.
        const stats = new Map<number, string[]>();
        for (const entry of readdirSync('/proc')) {
          if (!/^\d+$/.test(entry)) continue;
          try {
            stats.set(Number(entry), readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []);
          } catch {
            // the process ended meanwhile
          }
        }
        const tree = new Set([child.pid as number]);
        for (let grew = true; grew; ) {
          grew = false;
          for (const [pid, fields] of stats) {
            if (!tree.has(pid) && tree.has(Number(fields[1]))) {
              tree.add(pid);
              grew = true;
            }
          }
        }
        // utime and stime are fields 14 and 15 of stat; after the command name they are 12th and 13th.
        let ticks = 0;
        for (const pid of tree) ticks += Number(stats.get(pid)?.[11] ?? 0) + Number(stats.get(pid)?.[12] ?? 0);
        return ticks / clockTicksPerSecond();
      } catch {
        return undefined;
      }
    },
    stop,
  };
}

/**
 * Measures GETs of `path` (a 2 s warm-up, then `seconds`) and prints the result as JSON, then as
 * one line for people. `sample` is one answer read beforehand; `details` says what the tenant holds.
 * Requests per server CPU-second is what one core can serve whatever else the machine is doing.
 */
export async function benchGet(
  server: BenchServer,
  o: { path: string; seconds: number; connections: number; logLevel: string | undefined; sample: Answer; details: Record<string, unknown> },
): Promise<void> {
  await server.drive(o.path, 2000); // warm-up: JIT, caches, connections
  const cpuBefore = server.cpuSeconds();
  const { latencies, failures, elapsed } = await server.drive(o.path, o.seconds * 1000);
  const cpuAfter = server.cpuSeconds();
  const serverCpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  const sorted = latencies.sort((a, b) => a - b);
  const result = {
    endpoint: `GET ${o.path}`,
    ...o.details,
    responseBytes: Buffer.byteLength(o.sample.text),
    serverPinnedToCore0: server.pinned,
    logLevel: o.logLevel,
    connections: o.connections,
    seconds: Math.round(elapsed / 100) / 10,
    requests: latencies.length,
    failures,
    requestsPerSecond: Math.round(latencies.length / (elapsed / 1000)),
    serverCpuSeconds: serverCpu === undefined ? null : Number(serverCpu.toFixed(2)),
    requestsPerServerCpuSecond: serverCpu ? Math.round(latencies.length / serverCpu) : null,
    p50Ms: Number(percentile(sorted, 50).toFixed(2)),
    p99Ms: Number(percentile(sorted, 99).toFixed(2)),
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(
    `${result.requestsPerSecond} requests/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms; ${result.requestsPerServerCpuSecond ?? '?'} requests per server CPU-second (${server.pinned ? 'server on core 0' : 'server not pinned: taskset or a second core is missing'})\n`,
  );
}
