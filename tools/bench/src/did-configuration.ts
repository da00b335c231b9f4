// Benchmark (issue 3): GET /.well-known/did-configuration of a tenant with 10 DIDs, served by the
// real server on SQLite, pinned to one CPU core. Prints requests per second and latency.
//
//   node src/did-configuration.ts [--seconds 10] [--connections 32] [--log-level info]
//
// The server runs as a child process (`vellum serve`) under `taskset -c 0` when taskset exists
// and the machine has another core; this process then moves itself off core 0, so the load
// generator never competes with the server for its core. Load is a keep-alive http.Agent with N
// connections, each sending its next request when the last answer has arrived.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const MAIN = fileURLToPath(new URL('../../../apps/server/src/main.ts', import.meta.url));
const PLATFORM = 'vellum.bench';
const HOST = `acme.eu01.${PLATFORM}`;

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '32' }, 'log-level': { type: 'string', default: 'info' } },
});
const seconds = Number(args.seconds);
const connections = Number(args.connections);

function hasTaskset(): boolean {
  return spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
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

const agent = new Agent({ keepAlive: true, maxSockets: connections });

function call(port: number, method: string, path: string, options: { headers?: Record<string, string>; body?: unknown } = {}): Promise<{ status: number; text: string }> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers = { host: HOST, ...(payload ? { 'content-type': 'application/json' } : {}), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

async function waitUntilUp(port: number, child: ReturnType<typeof spawn>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await call(port, 'GET', '/health')).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server did not start within 20 s');
}

/** Keeps `connections` requests in flight for `ms`; returns each latency (ms) and the failures. */
async function drive(port: number, ms: number): Promise<{ latencies: number[]; failures: number; elapsed: number }> {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const until = started + ms;
  const worker = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      try {
        const res = await call(port, 'GET', '/.well-known/did-configuration');
        if (res.status === 200) latencies.push(performance.now() - t0);
        else failures += 1;
      } catch {
        failures += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return { latencies, failures, elapsed: performance.now() - started };
}

/**
 * CPU seconds the server process has used (Linux /proc), or undefined elsewhere. Requests per
 * CPU-second is what one core can serve whatever else the machine is doing at the time.
 */
function cpuSeconds(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
    // utime and stime are fields 14 and 15 of stat; after the command name they are 12th and 13th.
    return (Number(fields[11]) + Number(fields[12])) / ticks;
  } catch {
    return undefined;
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

async function main(): Promise<void> {
  const pin = hasTaskset() && availableParallelism() > 1;
  const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-'));
  const port = await freePort();
  const env = { PATH: process.env.PATH ?? '', VELLUM_DATA_DIR: dir, VELLUM_PORT: String(port), VELLUM_PLATFORM_DOMAIN: PLATFORM, VELLUM_DEFAULT_TENANT: '', VELLUM_LOG_LEVEL: args['log-level'] as string };
  const created = spawnSync(process.execPath, [MAIN, 'tenants', 'create', '--subdomain', 'acme', '--region', 'eu01'], { env, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`tenants create failed: ${created.stderr}`);
  const tenant = JSON.parse(created.stdout) as { clientId: string; clientSecret: string; audience: string };

  // The server's log goes nowhere: a benchmark should not measure a terminal.
  const command = pin ? ['taskset', ['-c', '0', process.execPath, MAIN, 'serve']] as const : [process.execPath, [MAIN, 'serve']] as const;
  const child = spawn(command[0], [...command[1]], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  if (pin) spawnSync('taskset', ['-cp', `1-${availableParallelism() - 1}`, String(process.pid)], { stdio: 'ignore' });
  try {
    await waitUntilUp(port, child);
    const token = JSON.parse((await call(port, 'POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret, audience: tenant.audience } })).text).access_token as string;
    const auth = { authorization: `Bearer ${token}` };
    const bodies = [
      ...Array.from({ length: 4 }, () => ({ method: 'key' })),
      ...Array.from({ length: 3 }, () => ({ method: 'key', options: { keyType: 'P-256' } })),
      { method: 'web', options: { url: HOST } },
      { method: 'web', options: { url: `${HOST}/issuers/one` } },
      { method: 'web', options: { url: `${HOST}/issuers/two` } },
    ];
    for (const body of bodies) {
      const res = await call(port, 'POST', '/v1/dids', { headers: auth, body });
      if (res.status !== 201) throw new Error(`creating a DID failed: ${res.status} ${res.text}`);
    }
    const first = await call(port, 'GET', '/.well-known/did-configuration');
    const entries = (JSON.parse(first.text) as { entries: unknown[] }).entries.length;
    if (entries !== 10) throw new Error(`expected 10 entries, got ${entries}`);

    await drive(port, 2000); // warm-up: JIT, caches, connections
    const cpuBefore = cpuSeconds(child.pid);
    const { latencies, failures, elapsed } = await drive(port, seconds * 1000);
    const cpuAfter = cpuSeconds(child.pid);
    const serverCpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    const sorted = latencies.sort((a, b) => a - b);
    const result = {
      endpoint: 'GET /.well-known/did-configuration',
      dids: entries,
      responseBytes: Buffer.byteLength(first.text),
      serverPinnedToCore0: pin,
      logLevel: args['log-level'],
      connections,
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
      `${result.requestsPerSecond} requests/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms; ${result.requestsPerServerCpuSecond ?? '?'} requests per server CPU-second (${pin ? 'server on core 0' : 'server not pinned: taskset or a second core is missing'})\n`,
    );
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
