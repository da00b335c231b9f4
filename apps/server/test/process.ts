// Runs the real `vellum` command as a child process, for end-to-end tests over loopback.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAIN = new URL('../src/main.ts', import.meta.url).pathname;

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'vellum-e2e-'));
}

/**
 * A port for a test server to listen on. Not one the kernel hands out (listen(0) gives a port of the
 * ephemeral range, 32768–60999 on Linux, which the machine's outgoing connections also take, so on a
 * busy machine a client socket could hold it by the time the server binds: EADDRINUSE under load).
 * A random port below that range, checked free by binding it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
  }
  throw new Error('No free port between 20000 and 32000');
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** The environment a test server runs with: only what the test sets, plus PATH. */
export function serverEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', VELLUM_LOG_LEVEL: 'info', ...extra };
}

/** Runs one CLI command to completion. */
export function cli(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { env, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface RunningServer {
  proc: ChildProcess;
  port: number;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Where the server runs from, when not from this checkout with this process's Node (a replayed image, say). */
export interface ServerProcessOptions {
  main?: string;
  args?: string[];
  execPath?: string;
  uid?: number;
  gid?: number;
}

/** How long `startServer` waits for the server to listen. */
const START_DEADLINE_MS = 50_000;

/** Starts `vellum serve` and resolves once it listens; rejects if it exits first. */
export async function startServer(env: Record<string, string>, options: ServerProcessOptions = {}): Promise<RunningServer> {
  const port = Number(env.VELLUM_PORT);
  const { main = MAIN, args = ['serve'], execPath = process.execPath, uid, gid } = options;
  const proc = spawn(execPath, [main, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(uid === undefined ? {} : { uid }),
    ...(gid === undefined ? {} : { gid }),
  });
  let out = '';
  proc.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    // A liveness bound, not a speed check: starting takes about 2 s on a quiet machine (loading the
    // sources, migrating, the first tenant) and is CPU-bound, so on a machine oversubscribed several
    // times over it took more than 20 s (issue 26). It stays inside the tiers' 60 s hook timeout.
    const timer = setTimeout(() => reject(new Error(`server did not start within ${START_DEADLINE_MS} ms:\n${out}`)), START_DEADLINE_MS);
    const check = () => {
      if (out.includes('Server listening at')) {
        clearTimeout(timer);
        resolve();
      }
    };
    proc.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  return {
    proc,
    port,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null) proc.kill(signal);
      return exited;
    },
  };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json(): any;
}

/** One HTTP request over loopback, with full control of the Host header. */
export function http(
  port: number,
  method: string,
  path: string,
  options: { host?: string; headers?: Record<string, string>; body?: unknown; raw?: string } = {},
): Promise<HttpAnswer> {
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers };
  if (options.host) headers.host = options.host;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) }));
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
