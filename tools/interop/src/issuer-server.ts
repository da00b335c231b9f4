// The real server over TLS on loopback with SQLite in a temp directory, signed in as the demo
// tenant's admin: what the interop suites that drive it over HTTP start from.
import { rmSync } from 'node:fs';
import { writeLocalhostCertificate } from '@vellum/testing';
import { expect } from 'vitest';
import { freePort, type RunningServer, serverEnv, startServer, tempDir } from '../../../apps/server/test/process.ts';
import { fetchTrusting } from './tls.ts';

export interface IssuerServer {
  origin: string;
  /** fetch that trusts the server's localhost certificate. */
  tlsFetch: typeof fetch;
  /** A JSON call to the server, with the admin's token unless other headers are given. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; json: () => any; text: string }>;
  admin: Record<string, string>;
  stop(): Promise<void>;
}

export async function startIssuerServer(): Promise<IssuerServer> {
  const dir = tempDir();
  const cert = writeLocalhostCertificate(dir);
  const port = await freePort();
  const origin = `https://localhost:${port}`;
  const tlsFetch = fetchTrusting(cert.certPem);
  let server: RunningServer | undefined;
  const self: IssuerServer = {
    origin,
    tlsFetch,
    admin: {},
    async call(method, path, body, headers = self.admin) {
      const res = await tlsFetch(`${origin}${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, headers: res.headers, json: () => JSON.parse(text), text };
    },
    async stop() {
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  server = await startServer(
    serverEnv({
      VELLUM_DATA_DIR: dir,
      VELLUM_PORT: String(port),
      VELLUM_PUBLIC_URL: origin,
      VELLUM_TLS_CERT_FILE: cert.certFile,
      VELLUM_TLS_KEY_FILE: cert.keyFile,
    }),
  );
  const printed = server.output();
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
  return self;
}
