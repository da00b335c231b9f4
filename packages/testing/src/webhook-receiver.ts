// A real HTTPS webhook receiver on loopback for tests and benchmarks: a self-signed certificate for
// `localhost` made with openssl (the machine image ships it), requests kept with their raw bodies,
// and answers chosen by the test.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalhostCertificate {
  /** A directory holding `localhost.crt` and `localhost.key`; remove it with `dispose`. */
  dir: string;
  certFile: string;
  keyFile: string;
  certPem: string;
  keyPem: string;
  dispose(): void;
}

/** Writes a self-signed P-256 certificate and key for `localhost` (and 127.0.0.1), valid two days, into `dir`. */
export function writeLocalhostCertificate(dir: string): Omit<LocalhostCertificate, 'dir' | 'dispose'> {
  const certFile = join(dir, 'localhost.crt');
  const keyFile = join(dir, 'localhost.key');
  // prettier-ignore
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { certFile, keyFile, certPem: readFileSync(certFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8') };
}

/** A fresh self-signed P-256 certificate for `localhost` (and 127.0.0.1), valid two days, in a directory of its own. */
export function localhostCertificate(): LocalhostCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-tls-'));
  return { dir, ...writeLocalhostCertificate(dir), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

/** What the receiver answers: a status, or `'hang'` to answer nothing (the sender times out). */
export type ReceiverAnswer = number | 'hang';

export interface WebhookReceiver {
  port: number;
  /** `https://localhost:<port><path>`. */
  url(path?: string): string;
  requests: ReceivedRequest[];
  /** Chooses the answer for each request (default 200). */
  answer: (request: ReceivedRequest, index: number) => ReceiverAnswer;
  /** Resolves once `count` requests have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** Starts an HTTPS receiver on 127.0.0.1 with the given certificate. */
export async function startWebhookReceiver(tls: { certPem: string; keyPem: string }, options: { keepRequests?: boolean } = {}): Promise<WebhookReceiver> {
  const keep = options.keepRequests ?? true;
  const hanging = new Set<ServerResponse>();
  let count = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const receiver: WebhookReceiver = {
    port: 0,
    url: (path = '/hook') => `https://localhost:${receiver.port}${path}`,
    requests: [],
    answer: () => 200,
    waitFor(n, timeoutMs = 20_000) {
      if (count >= n) return Promise.resolve(receiver.requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got ${count} of ${n} requests`)), timeoutMs);
        waiters.push({ count: n, resolve: () => (clearTimeout(timer), resolve(receiver.requests)) });
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
  const server: Server = createServer({ cert: tls.certPem, key: tls.keyPem, keepAliveTimeout: 30_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      const index = count;
      count += 1;
      if (keep) receiver.requests.push(received);
      const answer = receiver.answer(received, index);
      if (answer === 'hang') hanging.add(res);
      else res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer >= 200 && answer < 300 ? 'ok' : 'no');
      for (const w of waiters.filter((x) => x.count <= count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as { port: number }).port;
  return receiver;
}
