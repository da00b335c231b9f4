// The start the end-to-end tests share: a tenant made with the CLI on the test's database, the server
// started on it, the tenant's admin client signed in, and, for mDoc issuance, an IACA made active.
import { expect } from 'vitest';
import { cli, type HttpAnswer, http, type RunningServer, startServer } from './process.ts';

/** What `vellum tenants create` prints: the tenant and its first admin client's credentials. */
export interface CreatedTenant {
  tenantId: string;
  tenantUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  audience: string;
}

/** Creates the tenant `acme` in region eu01 (with a display name when given), then starts the server on `env`. */
export async function startWithTenant(env: Record<string, string>, name?: string): Promise<{ server: RunningServer; creds: CreatedTenant }> {
  const created = cli(['tenants', 'create', '--subdomain', 'acme', '--region', 'eu01', ...(name === undefined ? [] : ['--name', name])], env);
  expect(created.status, created.stderr).toBe(0);
  const creds = JSON.parse(created.stdout) as CreatedTenant;
  return { server: await startServer(env), creds };
}

/** The admin client's Authorization header, from a client-credentials grant at the platform token endpoint. */
export async function adminAuthorization(server: RunningServer, host: string, creds: CreatedTenant): Promise<{ authorization: string }> {
  const token = await http(server.port, 'POST', '/oauth/token', {
    host,
    body: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, audience: creds.audience },
  });
  expect(token.status, token.text).toBe(200);
  return { authorization: `Bearer ${token.json().access_token}` };
}

/** Creates a managed IACA through the admin API and makes it the active one; its id. */
export async function activeIaca(call: (method: string, path: string, body?: unknown) => Promise<HttpAnswer>): Promise<string> {
  const iaca = await call('POST', '/v2/credentials/mobile/iacas', { country: 'US' });
  expect(iaca.status, iaca.text).toBe(201);
  const id = iaca.json().id as string;
  expect((await call('PUT', `/v2/credentials/mobile/iacas/${id}`, { active: true })).status).toBe(200);
  return id;
}
