// docs/api-reference.md "Linting the document and generating a client": the document the reference
// server serves lints clean under the checked-in ruleset, generates client types that are checked
// in, and a client typed with them calls the real server on loopback.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { CLIENT_TYPES_FILE, clientTypes } from './client-types.ts';
import type { operations, paths } from './generated/vellum.ts';
import { type LoopbackServer, startLoopbackServer } from './server.ts';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const REDOCLY = join(PACKAGE, 'node_modules', '.bin', 'redocly');

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
}

/** Runs `redocly lint` on a file with the checked-in ruleset; its problems (its JSON report). */
function lint(file: string): Promise<{ status: number | null; problems: LintProblem[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    // No telemetry and no update check: the linter reaches nothing beyond this machine.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const child = spawn(REDOCLY, ['lint', file, '--config', join(PACKAGE, 'redocly.yaml'), '--format', 'json', '--max-problems', '10000'], {
      cwd: PACKAGE,
      env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => {
      try {
        resolve({ status, problems: (JSON.parse(stdout) as { problems: LintProblem[] }).problems, stderr });
      } catch (error) {
        reject(new Error(`redocly printed no JSON report (exit ${status}): ${stderr}${stdout}`, { cause: error }));
      }
    });
  });
}

describe('the OpenAPI document of the reference server, for client generators', () => {
  let server: LoopbackServer;
  let dir: string;
  let file: string;
  let document: { paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>> };

  beforeAll(async () => {
    server = await startLoopbackServer();
    const res = await fetch(`${server.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    document = (await res.json()) as typeof document;
    dir = mkdtempSync(join(tmpdir(), 'vellum-openapi-lint-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lints with no error under tools/openapi/redocly.yaml', async () => {
    const started = performance.now();
    const { status, problems, stderr } = await lint(file);
    const errors = problems.filter((p) => p.severity === 'error');
    const warnings = problems.filter((p) => p.severity === 'warn');
    console.log(`redocly lint: ${errors.length} errors, ${warnings.length} warnings in ${Math.round(performance.now() - started)} ms`);
    expect(
      errors.map((p) => `${p.ruleId}: ${p.message}`),
      stderr,
    ).toEqual([]);
    expect(status).toBe(0);
  });

  it('the linter fails a document that breaks the ruleset (a missing operationId, a validator keyword)', async () => {
    // So that the check above cannot pass by linting nothing.
    const broken = structuredClone(document) as typeof document & { components: { schemas: Record<string, Record<string, unknown>> } };
    const health = broken.paths['/health']?.get;
    expect(health?.operationId).toBe('getHealth');
    delete health?.operationId;
    const errorBody = broken.components.schemas.ErrorBody;
    expect(errorBody).toBeDefined();
    if (errorBody) errorBody.errorMessage = 'what ajv-errors would show';
    const brokenFile = join(dir, 'broken.json');
    writeFileSync(brokenFile, JSON.stringify(broken));
    const { status, problems } = await lint(brokenFile);
    expect(
      problems
        .filter((p) => p.severity === 'error')
        .map((p) => p.ruleId)
        .sort(),
    ).toEqual(['operation-operationId', 'struct']);
    expect(status).not.toBe(0);
  });

  it('generates client types with a non-empty `operations`, the same as the checked-in ones', async () => {
    const started = performance.now();
    const generated = await clientTypes(document);
    console.log(`openapi-typescript: ${generated.length} characters in ${Math.round(performance.now() - started)} ms`);
    const body = /^export interface operations \{\n([\s\S]*?)^\}/m.exec(generated)?.[1] ?? '';
    const names = [...body.matchAll(/^ {4}([A-Za-z0-9]+): \{$/gm)].map((m) => m[1]);
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(names.sort()).toEqual(ids.sort());
    expect(names.length).toBeGreaterThan(130);
    expectTypeOf<keyof operations>().not.toBeNever();
    expectTypeOf<'getHealth' | 'issueAdminToken' | 'listUsers'>().toMatchTypeOf<keyof operations>();
    // A route or schema changed without the types: run `pnpm --filter @vellum/openapi generate`.
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8') === generated, 'tools/openapi/src/generated/vellum.ts is up to date').toBe(true);
  });

  it('calls the server through a client typed by the generated types: health, admin token, then users', async () => {
    const client = createClient<paths>({ baseUrl: server.baseUrl });

    const health = await client.GET('/health');
    expect(health.response.status).toBe(200);
    expect(health.data?.status).toBe('ok');

    const { clientId, clientSecret, audience } = server.credentials;
    const token = await client.POST('/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience },
    });
    expect(token.response.status, JSON.stringify(token.error)).toBe(200);
    expect(token.data?.token_type).toBe('Bearer');
    const accessToken = token.data?.access_token ?? '';

    const users = await client.GET('/v1/users', { headers: { authorization: `Bearer ${accessToken}` } });
    expect(users.response.status, JSON.stringify(users.error)).toBe(200);
    expect(users.data).toBeDefined();

    // The 4xx answer the document lists for the routes that take no input, over real HTTP.
    for (const path of ['/health', '/ready', '/openapi.json'] as const) {
      expect(Object.keys(document.paths[path]?.get?.responses ?? {}), path).toContain('431');
      const res = await fetch(`${server.baseUrl}${path}`, { headers: { 'x-padding': 'a'.repeat(17 * 1024) } });
      expect(res.status, path).toBe(431);
      expect(await res.json(), path).toMatchObject({ code: 'RequestHeaderFieldsTooLarge' });
    }

    // An error answer is typed by the document too: the error body the specification names.
    const denied = await client.GET('/v1/users', { headers: { authorization: 'Bearer not-a-token' } });
    expect(denied.response.status).toBe(401);
    expect(denied.data).toBeUndefined();
  });
});
