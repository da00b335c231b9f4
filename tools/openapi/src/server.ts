// The reference server as CI runs it, on loopback in this process: SQLite in a temporary folder and
// the single-tenant mode's default tenant, so that a client needs no Host header of its own.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, createLogger, loadConfig, openRuntime, tenantCredentials } from '@vellum/server';
// The port helper the server's own end-to-end tests use: a port nothing listens on now.
import { freePort } from '../../../apps/server/test/process.ts';

/** A running server and the credentials of its default tenant's first admin client. */
export interface LoopbackServer {
  baseUrl: string;
  credentials: { clientId: string; clientSecret: string; audience: string };
  close(): Promise<void>;
}

/** Starts the reference server on 127.0.0.1 with a fresh database and a default tenant. */
export async function startLoopbackServer(): Promise<LoopbackServer> {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-openapi-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    VELLUM_DATA_DIR: dir,
    VELLUM_MASTER_KEY: randomBytes(32).toString('base64'),
    VELLUM_PORT: String(port),
    VELLUM_PUBLIC_URL: baseUrl,
    VELLUM_LOG_LEVEL: 'silent',
  });
  const logger = createLogger('silent');
  const runtime = await openRuntime(config, logger);
  const app = await buildApp(runtime, config, logger);
  await app.listen({ port, host: '127.0.0.1' });
  // Single-tenant mode is on unless VELLUM_DEFAULT_TENANT is set empty, which this config does not do.
  const subdomain = config.defaultTenant ?? 'demo';
  const created = await runtime.vellum.tenants.createTenant({ subdomain, region: 'eu01', name: 'OpenAPI check' });
  const credentials = await tenantCredentials(runtime, config, created);
  return {
    baseUrl,
    credentials,
    async close() {
      await app.close();
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
