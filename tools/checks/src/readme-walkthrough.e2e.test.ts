import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, sqliteBackend } from '../../../apps/server/test/backends.ts';
import { freePort, http, type RunningServer, serverEnv, startServer, tempDir } from '../../../apps/server/test/process.ts';

// README.md "Walk-through: issue and revoke an mDL", followed literally: the README's shell blocks
// marked `<!-- walkthrough -->` are read out of the README (so the two cannot drift) and run in order
// in one bash session (`set -euo pipefail`, so a failed step fails the test) against a real server
// on loopback with a fresh SQLite database, in its single-tenant mode as `npm start` runs it. The
// only inputs are the variables the README itself names: BASE, CLIENT_ID and CLIENT_SECRET.
const repo = new URL('../../../', import.meta.url).pathname;

/** The bodies of the README's ```sh blocks that come right after the marker line, in order. */
export function walkthroughBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^<!-- walkthrough -->\r?\n```(?:sh|bash)\r?\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Runs `script` with bash in `cwd`; resolves with its exit status and output. */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The first value of `"name": "…"` in the server's output after the demo tenant's header. */
function printed(output: string, name: string): string {
  const after = output.slice(output.indexOf('Created the demo tenant'));
  const value = new RegExp(`"${name}"\\s*:\\s*"([^"]+)"`).exec(after)?.[1];
  if (!value) throw new Error(`the server did not print ${name}:\n${output}`);
  return value;
}

describe('the README walk-through, run as written', () => {
  const blocks = walkthroughBlocks(readFileSync(join(repo, 'README.md'), 'utf8'));
  let backend: Backend;
  let server: RunningServer;
  let work: string;

  beforeAll(async () => {
    backend = sqliteBackend();
    const port = await freePort();
    server = await startServer(serverEnv({ ...(await backend.env()), VELLUM_PORT: String(port) }));
    // The blocks run in a directory of their own (they write holder-key.json and status.cwt), which
    // sees the checkout's tools/ as a user in the repository would.
    work = tempDir();
    symlinkSync(join(repo, 'tools'), join(work, 'tools'));
  });

  afterAll(async () => {
    await server?.stop();
    await backend?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('finds the marked blocks, covering every step from the admin token to the revocation and the verification', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const all = blocks.join('\n');
    for (const step of [
      '/oauth/token',
      'IACA_ID=$(',
      '"includeStatus": true',
      '/v1/openid/offers/pre-authorized',
      'tools/dev/src/proof.ts',
      '/v1/openid/credential',
      '/status',
      '/v2/credentials/trusted-issuers',
      '/v2/credentials/mobile/verify',
      '/v2/presentations/applications',
      '/v2/presentations/sessions',
    ]) {
      expect(all).toContain(step);
    }
  });

  it('issues an mDL and revokes it, verifies it and opens a presentation session, every step succeeding', async () => {
    const base = `http://localhost:${server.port}`;
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: work,
      BASE: base,
      CLIENT_ID: printed(server.output(), 'clientId'),
      CLIENT_SECRET: printed(server.output(), 'clientSecret'),
    };
    // What the steps kept, written out by bash (an indirect expansion, `${!v}`) for the checks below.
    const trailer =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
      'for v in IACA_ID CONFIG_ID USER_ID CREDENTIAL CREDENTIAL_ID REVOKED VERIFIED APP_ID SESSION_ID; do printf "%s=%s\\n" "$v" "${!v}"; done > walkthrough.vars';
    const script = ['set -euo pipefail', ...blocks, trailer].join('\n');
    const run = await bash(script, work, env);
    expect(run.status, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}\nserver:\n${server.output().slice(-4000)}`).toBe(0);

    const vars = Object.fromEntries(
      readFileSync(join(work, 'walkthrough.vars'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const name of ['IACA_ID', 'CONFIG_ID', 'USER_ID', 'CREDENTIAL_ID']) expect(vars[name], name).toMatch(uuid);
    // The credential: base64url CBOR IssuerSigned, a map (major type 5) with nameSpaces and issuerAuth.
    expect(vars.CREDENTIAL).toMatch(/^[A-Za-z0-9_-]{200,}$/);
    const issuerSigned = Buffer.from(vars.CREDENTIAL!, 'base64url');
    expect(issuerSigned[0]! >> 5).toBe(5);
    expect(issuerSigned.includes(Buffer.from('issuerAuth'))).toBe(true);
    expect(issuerSigned.includes(Buffer.from('Turner'))).toBe(true);
    // The revocation: the README's own output, and the server's record read here independently.
    expect(run.stdout).toContain('{"status":"invalid"}');
    expect(vars.REVOKED).toBe('invalid');
    const token = await http(server.port, 'POST', '/oauth/token', {
      host: `localhost:${server.port}`,
      body: { grant_type: 'client_credentials', client_id: env.CLIENT_ID, client_secret: env.CLIENT_SECRET, audience: base },
    });
    expect(token.status, token.text).toBe(200);
    const status = await http(server.port, 'GET', `/v2/credentials/mobile/${vars.CREDENTIAL_ID}/status`, {
      host: `localhost:${server.port}`,
      headers: { authorization: `Bearer ${token.json().access_token}` },
    });
    expect(status.json()).toEqual({ status: 'invalid' });
    // The status list token the last step saved, and the holder key the proof helper kept.
    expect(statSync(join(work, 'status.cwt')).size).toBeGreaterThan(50);
    expect(existsSync(join(work, 'holder-key.json'))).toBe(true);

    // Verification: the tenant's own IACA trusted, every check passing but the status, which a local
    // http server cannot serve to a verifier (status lists are fetched over https only).
    const verified = JSON.parse(vars.VERIFIED!) as {
      verified: boolean;
      issuer: { trusted: boolean };
      checks: Array<{ check: string; ok: boolean; reason?: string }>;
    };
    expect(verified.issuer.trusted).toBe(true);
    expect(verified.verified).toBe(false);
    expect(verified.checks.filter((c) => !c.ok)).toEqual([
      { check: 'status', ok: false, reason: 'status.status_list must have an integer idx and an https uri' },
    ]);
    expect(run.stdout).toContain('org.iso.18013.5.1.mDL');
    // The presentation session waits for a wallet.
    for (const name of ['APP_ID', 'SESSION_ID']) expect(vars[name], name).toMatch(uuid);
    const session = await http(server.port, 'GET', `/v2/presentations/sessions/${vars.SESSION_ID}`, {
      host: `localhost:${server.port}`,
      headers: { authorization: `Bearer ${token.json().access_token}` },
    });
    expect(session.json()).toMatchObject({ id: vars.SESSION_ID, state: 'pending' });
    expect(run.stdout).toContain('openid4vp://');
  });
});
