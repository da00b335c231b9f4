// The identity provider of the Authorization Code flow benchmark in a process of its own: the real
// OpenID Connect provider of @vellum/testing (oidc-provider over HTTPS on 127.0.0.1) and its
// scripted browser, which plays the user. Apart from the driver, the provider's CPU time can be read
// on its own, and its latency is not the driver's event loop's. The driver asks for sign-ins over
// the IPC channel; the provider also times each request it serves (the `http.server.*` diagnostics
// channels, from the request's head to the answer's end: TLS handshakes and queueing before the
// head are outside) by method and path, the server's token requests among them.
//
// The driver side is `startProviderProcess`; the child is this file run with the argument `child`.
import { fork, type ChildProcess } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { percentile } from './http-load.ts';

export interface ProviderStart {
  certPem: string;
  keyPem: string;
  clients: Array<{ clientId: string; clientSecret: string; redirectUris: string[] }>;
  accounts: Record<string, Record<string, unknown>>;
  scopes: Record<string, string[]>;
}

/** The provider's own timing of the requests it served, by `METHOD /path` (ids in paths as `:uid`). */
export type ProviderRequestStats = Record<
  string,
  { count: number; p50: number; p99: number; totalMs: number /** TLS connections these requests opened (the others reused one). */; connections: number }
>;

type ToChild =
  | { type: 'start'; options: ProviderStart }
  | { type: 'signIn'; id: number; url: string; account: string }
  | { type: 'stats'; id: number; reset: boolean };

type FromChild =
  | { type: 'started'; issuer: string }
  | { type: 'failed'; error: string }
  | { type: 'signedIn'; id: number; location?: string; error?: string; ms: number }
  | { type: 'stats'; id: number; requests: ProviderRequestStats; cpuSeconds: number };

export interface ProviderProcess {
  issuer: string;
  /** Signs `account` in at `url` (the provider's authorization URL); the URL it sends the browser back to, and the time it took inside the provider's process. */
  signIn(url: string, account: string): Promise<{ location: string; ms: number }>;
  /** The provider's timing of its requests since the last reset, and its process's CPU seconds so far. */
  stats(reset: boolean): Promise<{ requests: ProviderRequestStats; cpuSeconds: number }>;
  stop(): Promise<void>;
}

/** Forks the provider and starts it; resolves with its issuer. */
export async function startProviderProcess(options: ProviderStart): Promise<ProviderProcess> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
  const waiting = new Map<number, (message: FromChild) => void>();
  let next = 0;
  let onStart: ((message: FromChild) => void) | undefined;
  child.on('message', (message: FromChild) => {
    if (message.type === 'started' || message.type === 'failed') return onStart?.(message);
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve?.(message);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const resolve of waiting.values()) resolve({ type: 'signedIn', id: -1, error: 'the provider process exited', ms: 0 });
    waiting.clear();
    onStart?.({ type: 'failed', error: 'the provider process exited' });
  });
  const ask = (message: ToChild & { id: number }) =>
    new Promise<FromChild>((resolve) => {
      waiting.set(message.id, resolve);
      child.send(message);
    });

  const started = await new Promise<FromChild>((resolve) => {
    onStart = resolve;
    child.send({ type: 'start', options } satisfies ToChild);
  });
  if (started.type !== 'started') {
    child.kill();
    throw new Error(`the identity provider did not start: ${started.type === 'failed' ? started.error : started.type}`);
  }
  return {
    issuer: started.issuer,
    async signIn(url, account) {
      const answer = await ask({ type: 'signIn', id: (next += 1), url, account });
      if (answer.type !== 'signedIn' || answer.location === undefined) throw new Error(`sign-in: ${answer.type === 'signedIn' ? answer.error : answer.type}`);
      return { location: answer.location, ms: answer.ms };
    },
    async stats(reset) {
      const answer = await ask({ type: 'stats', id: (next += 1), reset });
      if (answer.type !== 'stats') throw new Error('the provider process did not answer its statistics');
      return { requests: answer.requests, cpuSeconds: answer.cpuSeconds };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** `GET /interaction/Xy…` → `GET /interaction/:uid`: the provider's paths, with their ids folded. */
function label(request: IncomingMessage): string {
  const path = (request.url ?? '/').split('?')[0] as string;
  const folded = path.replace(/^\/(interaction|auth)\/[^/]+/, '/$1/:uid');
  return `${request.method ?? '?'} ${folded}`;
}

async function runChild(): Promise<void> {
  const send = (message: FromChild) => process.send?.(message);
  // Loaded here only: the driver that imports this file for `startProviderProcess` does not load
  // oidc-provider. By path, not from '@vellum/testing', whose index loads vitest, which refuses to
  // run outside its runner.
  const { startOidcProvider } = await import('../../../packages/testing/src/oidc-provider.ts');

  const began = new WeakMap<ServerResponse, number>();
  const sockets = new WeakSet<object>();
  let durations = new Map<string, number[]>();
  let connections = new Map<string, number>();
  subscribe('http.server.request.start', (message) => {
    const { request, response, socket } = message as { request: IncomingMessage; response: ServerResponse; socket: object };
    began.set(response, performance.now());
    if (!sockets.has(socket)) {
      sockets.add(socket);
      const key = label(request);
      connections.set(key, (connections.get(key) ?? 0) + 1);
    }
  });
  subscribe('http.server.response.finish', (message) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    const t0 = began.get(response);
    if (t0 === undefined) return;
    const key = label(request);
    let list = durations.get(key);
    if (!list) durations.set(key, (list = []));
    list.push(performance.now() - t0);
  });

  let provider: Awaited<ReturnType<typeof startOidcProvider>> | undefined;
  process.on('message', (message: ToChild) => {
    if (message.type === 'start') {
      startOidcProvider(message.options).then(
        (p) => {
          provider = p;
          send({ type: 'started', issuer: p.issuer });
        },
        (error: unknown) => send({ type: 'failed', error: String(error) }),
      );
    } else if (message.type === 'signIn') {
      const t0 = performance.now();
      if (!provider) return send({ type: 'signedIn', id: message.id, error: 'not started', ms: 0 });
      provider.signIn(message.url, message.account).then(
        (location) => send({ type: 'signedIn', id: message.id, location, ms: performance.now() - t0 }),
        (error: unknown) => send({ type: 'signedIn', id: message.id, error: String(error), ms: performance.now() - t0 }),
      );
    } else if (message.type === 'stats') {
      const requests: ProviderRequestStats = {};
      for (const [key, list] of durations) {
        const sorted = list.sort((a, b) => a - b);
        requests[key] = {
          count: sorted.length,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          totalMs: sorted.reduce((a, b) => a + b, 0),
          connections: connections.get(key) ?? 0,
        };
      }
      if (message.reset) {
        durations = new Map();
        connections = new Map();
      }
      const cpu = process.cpuUsage();
      send({ type: 'stats', id: message.id, requests, cpuSeconds: (cpu.user + cpu.system) / 1e6 });
    }
  });
  process.on('SIGTERM', () => {
    void (provider?.close() ?? Promise.resolve()).finally(() => process.exit(0));
  });
  // The driver went away without stopping us.
  process.on('disconnect', () => process.exit(0));
}

if (process.argv[2] === 'child' && process.send) await runChild();
