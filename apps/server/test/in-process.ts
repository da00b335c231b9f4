// Servers built in process (runtime and Fastify app, answering through app.inject) that share one
// fresh database, for the sql-tier tests of what several servers do together, and a tenant's admin
// sign-in and mDL configuration on them.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { openRuntime, type Runtime } from '../src/runtime.ts';
import type { Backend } from './backends.ts';

export interface InProcessServers {
  runtimes: Runtime[];
  apps: FastifyInstance[];
  close(): Promise<void>;
}

/** `count` servers on the backend's database (one master key, silent logs), with `env` added to their settings. */
export async function serversOnOneDatabase(backend: Backend, count: number, env: Record<string, string> = {}): Promise<InProcessServers> {
  const config = loadConfig({
    ...(await backend.env()),
    VELLUM_MASTER_KEY: randomBytes(32).toString('base64'),
    VELLUM_PLATFORM_DOMAIN: 'vellum.test',
    VELLUM_DEFAULT_TENANT: '',
    VELLUM_LOG_LEVEL: 'silent',
    ...env,
  });
  const logger = createLogger('silent');
  const runtimes: Runtime[] = [];
  const apps: FastifyInstance[] = [];
  // One after the other: the first migrates the fresh database.
  for (let i = 0; i < count; i++) {
    const runtime = await openRuntime(config, logger);
    runtimes.push(runtime);
    apps.push(await buildApp(runtime, config, logger));
  }
  return {
    runtimes,
    apps,
    async close() {
      for (const app of apps) await app.close();
      for (const runtime of runtimes) await runtime.close();
    },
  };
}

/** Creates the tenant `subdomain` in eu01 and signs its first admin client in; the headers its admin calls carry. */
export async function tenantAdmin(servers: InProcessServers, subdomain: string): Promise<{ host: string; authorization: string }> {
  const host = `${subdomain}.eu01.vellum.test`;
  const { client, clientSecret } = await (servers.runtimes[0] as Runtime).vellum.tenants.createTenant({ subdomain, region: 'eu01' });
  const token = await (servers.apps[0] as FastifyInstance).inject({
    method: 'POST',
    url: '/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret, audience: `https://${host}` },
  });
  expect(token.statusCode, token.body).toBe(200);
  return { host, authorization: `Bearer ${token.json().access_token}` };
}

/** Creates an mDL configuration (family name from `claims.familyName`) through `app`; its id. */
export async function createMdlConfiguration(app: FastifyInstance, admin: { host: string; authorization: string }): Promise<string> {
  const configuration = await app.inject({
    method: 'POST',
    url: '/v2/credentials/mobile/configurations',
    headers: admin,
    payload: {
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 30 },
      claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName' } } },
    },
  });
  expect(configuration.statusCode, configuration.body).toBe(201);
  return configuration.json().id as string;
}
