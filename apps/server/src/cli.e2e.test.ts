import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pgAdminUrl, postgresBackend } from '../test/backends.ts';
import { cli, freePort, http, serverEnv, startServer, tempDir } from '../test/process.ts';
import { COMMANDS, commandHelp, overviewHelp } from './cli.ts';

/** The progress lines in some output, in the order they were written (they all go to stderr). */
const progressLines = (output: string) => output.split('\n').filter((line) => line.startsWith('vellum: '));

async function until(what: string, probe: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('node apps/server/src/main.ts --help, as a child process', () => {
  it('prints the overview to stdout and exits 0, even when a setting is wrong (help needs no configuration)', () => {
    const r = cli(['--help'], serverEnv({ VELLUM_PORT: 'seventy', DATABASE_URL: 'mysql://x' }));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${overviewHelp()}\n`);
    for (const command of COMMANDS) expect(r.stdout).toContain(`\n  ${command.name}`);
    expect(r.stdout.match(/^ {6}Example: vellum /gm)).toHaveLength(COMMANDS.length + 1);
  });

  it('prints one command’s help for `vellum help <command>` and `vellum <command> --help`', () => {
    const expected = `${commandHelp(COMMANDS.find((c) => c.name === 'clients rotate-secret')!)}\n`;
    for (const argv of [
      ['help', 'clients', 'rotate-secret'],
      ['clients', 'rotate-secret', '--help'],
    ]) {
      const r = cli(argv, serverEnv({}));
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(expected);
    }
  });

  it('answers an unknown command with the help on stderr, nothing on stdout, and exit code 2', () => {
    const r = cli(['frobnicate'], serverEnv({}));
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`vellum: unknown command "frobnicate"\n\n${overviewHelp()}\n`);
  });
});

describe('the workspace’s `vellum` bin (issue 28: `npx vellum --help` works in the workspace)', () => {
  const repo = new URL('../../../', import.meta.url).pathname;
  const bin = join(repo, 'node_modules', '.bin', 'vellum');
  const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  // The shim runs `node` from PATH: this Node, as npx would find it.
  const run = (args: string[]) =>
    spawnSync(bin, args, { encoding: 'utf8', timeout: 30_000, env: serverEnv({ PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` }) });

  it('prints the version for --version, and nothing else', () => {
    const r = run(['--version']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`vellum ${version}\n`);
    expect(r.stderr).toBe('');
  });

  it('prints the overview for --help, as main.ts does', () => {
    const r = run(['--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${overviewHelp()}\n`);
  });
});

describe('progress lines on stderr', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = tempDir();
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('say what migrate and tenants create are doing, leave their stdout as it was, and print no secret', () => {
    const dir = dataDir();
    const env = serverEnv({ VELLUM_DATA_DIR: dir });
    const migrated = cli(['migrate'], env);
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(migrated.stdout).toBe('The database schema is up to date.\n');
    expect(progressLines(migrated.stderr)).toEqual([
      `vellum: migrating the database (SQLite ${join(dir, 'vellum.db')})…`,
      `vellum: generating a development master key in ${join(dir, 'master.key')}…`,
    ]);

    const created = cli(['tenants', 'create', '--subdomain', 'acme', '--region', 'eu01'], env);
    expect(created.status, created.stderr).toBe(0);
    const credentials = JSON.parse(created.stdout) as Record<string, string>;
    expect(Object.keys(credentials)).toEqual(['tenantId', 'tenantUrl', 'authUrl', 'audience', 'clientId', 'clientSecret']);
    // Under the default platform domain (vellum.localhost) the printed URL is one a browser here opens (issue 28).
    expect(credentials.tenantUrl).toBe('http://acme.eu01.vellum.localhost:3000');
    expect(progressLines(created.stderr)).toEqual([
      `vellum: migrating the database (SQLite ${join(dir, 'vellum.db')})…`,
      'vellum: creating the tenant "acme" in eu01 and its admin client…',
    ]);

    const rotated = cli(['clients', 'rotate-secret', '--tenant', 'acme', '--client', credentials.clientId!], env);
    expect(rotated.status, rotated.stderr).toBe(0);
    const { clientSecret } = JSON.parse(rotated.stdout) as { clientSecret: string };
    expect(progressLines(rotated.stderr).at(-1)).toBe(`vellum: rotating the secret of ${credentials.clientId} (tenant "acme")…`);
    for (const stderr of [created.stderr, rotated.stderr]) {
      expect(stderr).not.toContain(credentials.clientSecret);
      expect(stderr).not.toContain(clientSecret);
    }
    // The server warns about the development master key; the commands an operator types do not, each time (issue 28).
    for (const stderr of [migrated.stderr, created.stderr, rotated.stderr]) expect(stderr).not.toContain('VELLUM_MASTER_KEY is not set');
  });

  it('rotate a tenant’s signing key with `keys rotate`, as the API does, and refuse what cannot be done with exit code 1', () => {
    const env = serverEnv({ VELLUM_DATA_DIR: dataDir(), VELLUM_LOG_LEVEL: 'silent' });
    expect(cli(['tenants', 'create', '--subdomain', 'acme', '--region', 'eu01'], env).status).toBe(0);
    const rotate = (...more: string[]) => cli(['keys', 'rotate', '--tenant', 'acme', ...more], env);
    // The tenant has no access-token key yet: the first rotation makes it, and retires nothing.
    const first = rotate('--role', 'access-token');
    expect(first.status, first.stderr).toBe(0);
    const made = JSON.parse(first.stdout) as { active: string[]; retired: unknown[] };
    expect(made).toMatchObject({ role: 'access-token', active: [expect.any(String)], retired: [] });
    const second = rotate('--role', 'access-token', '--overlap', '3600');
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({
      active: [expect.not.stringMatching(made.active[0] as string)],
      retired: [{ id: made.active[0], until: expect.any(String) }],
    });
    const third = rotate('--role', 'access-token');
    expect(third.status).toBe(1);
    expect(third.stderr).toContain('overlaps until');
    const webhook = rotate('--role', 'webhook');
    expect(webhook.status, webhook.stderr).toBe(0);
    expect(JSON.parse(webhook.stdout)).toMatchObject({ role: 'webhook', active: [expect.any(String)] });
    for (const [args, message] of [
      [['--role', 'certificates'], '--role must be one of access-token, webhook, document-signers, issuer-certificates, dids, verifier-applications'],
      [['--role', 'webhook', '--overlap', '60'], '--overlap is a whole number of seconds, for --role access-token or dids only'],
      [['--role', 'dids'], '--did names the did:web to rotate, with --role dids and only then'],
      [['--role', 'dids', '--did', 'did:web:nowhere.example'], 'The tenant has no such DID'],
    ] as const) {
      const refused = rotate(...args);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain(message);
    }
    const nobody = cli(['keys', 'rotate', '--tenant', 'nobody', '--role', 'webhook'], env);
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toContain('No tenant has the subdomain "nobody"');
  });

  it('are off with VELLUM_LOG_LEVEL=silent', () => {
    const r = cli(['tenants', 'list'], serverEnv({ VELLUM_DATA_DIR: dataDir(), VELLUM_LOG_LEVEL: 'silent' }));
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ data: [] });
    expect(r.stderr).toBe('');
  });

  it('follow serve from the migrations to "ready at" and "stopped", around demo credentials that still parse', async () => {
    const port = await freePort();
    const env = serverEnv({ VELLUM_DATA_DIR: dataDir(), VELLUM_PORT: String(port) });
    const server = await startServer(env);
    let stopped = false;
    try {
      await until('the ready line', () => server.output().includes('vellum: ready at'));
      // As tools/interop/src/issuer-server.ts and the other e2e tests read the demo tenant's credentials.
      const printed = server.output();
      const start = printed.indexOf('{', printed.indexOf('shown only this once'));
      const demo = JSON.parse(printed.slice(start, printed.indexOf('\n}', start) + 2)) as Record<string, string>;
      expect(demo).toMatchObject({ tenantUrl: `http://localhost:${port}`, clientId: expect.any(String), clientSecret: expect.any(String) });
      // After the credentials, the next commands (issue 28); the token request printed there works as printed.
      const next = printed.slice(printed.indexOf('\n}', start) + 2);
      expect(next).toContain(`curl -s http://localhost:${port}/oauth/token`);
      expect(next).toContain(`http://localhost:${port}/docs`);
      const body = JSON.parse(/-d '(\{.*\})'/.exec(next)?.[1] ?? 'null') as Record<string, string>;
      const token = await http(port, 'POST', '/oauth/token', { host: `localhost:${port}`, body });
      expect(token.status, token.text).toBe(200);
      expect((await http(port, 'GET', '/', { host: `localhost:${port}` })).status).toBe(200);
      // A tenant made beside it answers at the URL printed for it (*.localhost is loopback in browsers).
      const acme = JSON.parse(cli(['tenants', 'create', '--subdomain', 'acme', '--region', 'eu01'], env).stdout) as Record<string, string>;
      expect(acme.tenantUrl).toBe(`http://acme.eu01.vellum.localhost:${port}`);
      const acmeHost = new URL(acme.tenantUrl as string).host;
      const acmePage = await http(port, 'GET', '/', { host: acmeHost, headers: { accept: 'application/json' } });
      expect(acmePage.json()).toMatchObject({ credentialIssuer: acme.tenantUrl });
      const acmeToken = await http(port, 'POST', '/oauth/token', {
        host: acmeHost,
        body: { grant_type: 'client_credentials', client_id: acme.clientId, client_secret: acme.clientSecret, audience: acme.audience },
      });
      expect(acmeToken.status, acmeToken.text).toBe(200);
      expect(await server.stop('SIGTERM')).toBe(0);
      stopped = true;
      const lines = progressLines(server.output());
      expect(lines).toEqual([
        expect.stringMatching(/^vellum: migrating the database \(SQLite .*vellum\.db\)…$/),
        expect.stringMatching(/^vellum: generating a development master key in .*master\.key…$/),
        'vellum: creating the demo tenant "demo" (first start)…',
        `vellum: ready at http://127.0.0.1:${port} (public URL http://localhost:${port})`,
        'vellum: stopping (SIGTERM; requests in flight have up to 10000 ms)…',
        'vellum: stopped',
      ]);
      expect(lines.join('\n')).not.toContain(demo.clientSecret);
      expect(server.output().match(/VELLUM_MASTER_KEY is not set/g)).toHaveLength(1);
    } finally {
      if (!stopped) await server.stop();
    }
  });

  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  it.skipIf(!pgAdminUrl)('name a PostgreSQL database by host and database only, never its password', async () => {
    const backend = postgresBackend('vellum_cli');
    try {
      const env = await backend.env();
      const url = new URL(env.DATABASE_URL!);
      // The test server trusts local connections, so a password in the URL is never checked; it must not be shown.
      url.username = 'postgres';
      url.password = 'never-shown-9f2c';
      const r = cli(['migrate'], serverEnv({ ...env, DATABASE_URL: url.toString() }));
      expect(r.status, r.stderr).toBe(0);
      expect(progressLines(r.stderr)).toEqual([`vellum: migrating the database (PostgreSQL ${url.host}${url.pathname})…`]);
      expect(r.stderr).not.toContain('never-shown-9f2c');
    } finally {
      await backend.cleanup();
    }
  });
});
