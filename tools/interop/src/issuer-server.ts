// The real server over TLS on loopback, signed in as the demo tenant's admin: what the interop
// suites that drive it over HTTP start from. SQLite in a temp directory unless a suite gives its
// own database; a suite that must know the address before the server runs (an identity provider
// registered with its callback URL, a tenant made with the CLI) prepares it first and starts it after.
import { rmSync } from 'node:fs';
import { writeLocalhostCertificate } from '@vellum/testing';
import { expect } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../../../apps/server/test/backends.ts';
import { freePort, type RunningServer, serverEnv, startServer, tempDir } from '../../../apps/server/test/process.ts';
import { fetchTrusting } from './tls.ts';

/**
 * The databases a suite runs the server on, as describe.each rows [name, backend, skip]: SQLite, and
 * a fresh PostgreSQL database named after `postgresPrefix` when VELLUM_TEST_DATABASE_URL names a
 * server (CI always sets it).
 */
export function issuerDatabases(postgresPrefix: string): Array<[string, () => Backend, boolean]> {
  return [
    ['SQLite', () => sqliteBackend({ masterKey: true }), false],
    ['PostgreSQL', () => postgresBackend(postgresPrefix), !pgAdminUrl],
  ];
}

export interface IssuerServerOptions {
  /** The database's settings (a test Backend's env()); without them, SQLite in the server's temp directory. */
  database?: Record<string, string>;
  /** Lets the server call loopback services that present the same localhost certificate (identity provider, hook, claim source). */
  outboundToLoopback?: boolean;
  /** More settings for the server (and a second server), such as its key custody. */
  env?: Record<string, string>;
}

export interface IssuerServer {
  origin: string;
  /** The temp directory that holds the certificate (and the SQLite database when no other is given). */
  dir: string;
  cert: ReturnType<typeof writeLocalhostCertificate>;
  /** fetch that trusts the server's localhost certificate. */
  tlsFetch: typeof fetch;
  /** The environment the server starts with (also what the CLI takes to act on the same database). */
  env: Record<string, string>;
  /** A JSON call to the server, with the admin's token unless other headers are given. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; json: () => any; text: string }>;
  admin: Record<string, string>;
  /** The server process, once start() has run. */
  server: RunningServer;
  /** Starts the server and signs in as the demo tenant's admin. */
  start(): Promise<void>;
  /**
   * Another server process on the same database, with the same public URL but its own port (as
   * behind a load balancer), and `extra` settings. Returns it and the base URL that reaches it; the
   * caller stops it.
   */
  secondServer(extra?: Record<string, string>): Promise<{ server: RunningServer; base: string }>;
  stop(): Promise<void>;
}

/** Everything but the running server: the address, the certificate, the environment. */
export async function prepareIssuerServer(options: IssuerServerOptions = {}): Promise<IssuerServer> {
  const dir = tempDir();
  const cert = writeLocalhostCertificate(dir);
  const port = await freePort();
  const origin = `https://localhost:${port}`;
  const tlsFetch = fetchTrusting(cert.certPem);
  const database = options.database ?? { VELLUM_DATA_DIR: dir };
  const settingsOn = (onPort: number) => ({
    ...database,
    ...options.env,
    VELLUM_PORT: String(onPort),
    VELLUM_PUBLIC_URL: origin,
    VELLUM_TLS_CERT_FILE: cert.certFile,
    VELLUM_TLS_KEY_FILE: cert.keyFile,
  });
  let running: RunningServer | undefined;
  const self: IssuerServer = {
    origin,
    dir,
    cert,
    tlsFetch,
    env: serverEnv({
      ...settingsOn(port),
      ...(options.outboundToLoopback ? { VELLUM_OUTBOUND_ALLOW_PRIVATE: 'true', VELLUM_OUTBOUND_CA_FILE: cert.certFile } : {}),
    }),
    admin: {},
    get server() {
      if (!running) throw new Error('The issuer server has not been started');
      return running;
    },
    async call(method, path, body, headers = self.admin) {
      const res = await tlsFetch(`${origin}${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, json: () => JSON.parse(text), text };
    },
    async start() {
      running = await startServer(self.env);
      const printed = running.output();
      const start = printed.indexOf('{', printed.indexOf('shown only this once'));
      const demo = JSON.parse(printed.slice(start, printed.indexOf('\n}', start) + 2));
      const token = await self.call(
        'POST',
        '/oauth/token',
        { grant_type: 'client_credentials', client_id: demo.clientId, client_secret: demo.clientSecret, audience: origin },
        {},
      );
      expect(token.status, token.text).toBe(200);
      self.admin = { authorization: `Bearer ${token.json().access_token}` };
    },
    async secondServer(extra = {}) {
      const secondPort = await freePort();
      const server = await startServer(serverEnv({ ...settingsOn(secondPort), ...extra }));
      return { server, base: `https://localhost:${secondPort}` };
    },
    async stop() {
      await running?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return self;
}

/** The server prepared and started, the admin signed in. */
export async function startIssuerServer(options: IssuerServerOptions = {}): Promise<IssuerServer> {
  const issuer = await prepareIssuerServer(options);
  await issuer.start();
  return issuer;
}

/**
 * A managed IACA created and activated through the API; returns the certificate as the public
 * IACA list (no token) serves it to wallets and verifiers.
 */
export async function activeIaca(issuer: IssuerServer): Promise<string> {
  const iaca = await issuer.call('POST', '/v2/credentials/mobile/iacas', { country: 'US', commonName: 'Acme IACA' });
  expect(iaca.status, iaca.text).toBe(201);
  expect((await issuer.call('PUT', `/v2/credentials/mobile/iacas/${iaca.json().id}`, { active: true })).status).toBe(200);
  return (await issuer.call('GET', '/v2/credentials/mobile/iacas', undefined, {})).json().data[0].certificatePem;
}
