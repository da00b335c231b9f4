import { REGIONS, ROLES } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createProgress, describeDatabase, describeOpeningStep, listeningUrl } from './cli-progress.ts';
import type { ServerConfig } from './config.ts';
import { masterKey, type OpeningStep } from './runtime.ts';

const silent = { warn: () => {} } as unknown as Logger;
import {
  COMMANDS,
  commandHelp,
  EXIT_BAD_OPTIONS,
  nextSteps,
  EXIT_UNKNOWN_COMMAND,
  HELP_WIDTH,
  type Invocation,
  overviewHelp,
  parseInvocation,
  usageLine,
} from './cli.ts';

/** The words a shell would pass for an example line: quotes removed, `NAME=value` prefixes and `vellum` dropped. */
function argvOf(example: string): string[] {
  const words = (example.match(/"[^"]*"|\S+/g) ?? []).map((w) => w.replace(/^"(.*)"$/, '$1'));
  const start = words.indexOf('vellum');
  expect(start, example).toBeGreaterThanOrEqual(0);
  expect(
    words.slice(0, start).every((w) => /^[A-Z][A-Z0-9_]*=/.test(w)),
    example,
  ).toBe(true);
  return words.slice(start + 1);
}

function expectUsageError(invocation: Invocation, exitCode: number, message: RegExp): string {
  if (invocation.kind !== 'usage-error') throw new Error(`expected a usage error, got ${JSON.stringify(invocation)}`);
  expect(invocation.exitCode).toBe(exitCode);
  expect(invocation.message).toMatch(message);
  return invocation.text;
}

const helpText = (invocation: Invocation): string => {
  if (invocation.kind !== 'help') throw new Error(`expected help, got ${JSON.stringify(invocation)}`);
  return invocation.text;
};

describe('the next steps the first start prints after the credentials (issue 28)', () => {
  const creds = {
    tenantUrl: 'http://localhost:3000',
    authUrl: 'http://auth.localhost:3000',
    audience: 'http://localhost:3000',
    clientId: 'cid',
    clientSecret: 's3cr3t',
  };

  it('give a token request with those credentials, at the auth URL, for the tenant as audience', () => {
    const text = nextSteps(creds);
    const command = text.split('\n').find((line) => line.trimStart().startsWith('curl '));
    expect(command).toBe(
      `  curl -s http://auth.localhost:3000/oauth/token -H 'content-type: application/json' -d '{"grant_type":"client_credentials","client_id":"cid","client_secret":"s3cr3t","audience":"http://localhost:3000"}'`,
    );
  });

  it('point to the API reference and the tenant’s page', () => {
    const text = nextSteps(creds);
    expect(text).toContain('http://localhost:3000/docs');
    expect(text).toContain('http://localhost:3000/.well-known/openid-credential-issuer');
    expect(text.startsWith('Next:\n')).toBe(true);
  });
});

describe('vellum --version', () => {
  it('is asked for by --version, -V or version alone', () => {
    for (const argv of [['--version'], ['-V'], ['version']]) expect(parseInvocation(argv), argv.join(' ')).toEqual({ kind: 'version' });
  });

  it('is not a command option: after a command it is refused like any unknown option', () => {
    expectUsageError(parseInvocation(['migrate', '--version']), EXIT_BAD_OPTIONS, /has no option --version/);
  });

  it('is listed in the overview', () => {
    expect(overviewHelp()).toContain('\n  vellum --version\n');
  });
});

describe('vellum --help: the overview', () => {
  const overview = overviewHelp();

  it('names every command main.ts runs, and help itself', () => {
    expect(COMMANDS.map((c) => c.name)).toEqual([
      'serve',
      'migrate',
      'tenants create',
      'tenants list',
      'clients create',
      'clients list',
      'clients rotate-secret',
      'clients revoke',
      'keys rotate',
      'keys rotate-admin-token',
      'keys wrapping',
      'keys rewrap',
      'keys recover',
    ]);
    for (const command of COMMANDS) expect(overview).toContain(`\n  ${command.name}`);
    expect(overview).toContain('\n  help [COMMAND]');
  });

  it.each(COMMANDS.map((c) => [c.name, c] as const))('gives %s its usage line, its one-line description, every option and an example', (_name, command) => {
    const block = overview.slice(overview.indexOf(`\n  ${usageLine(command).slice('vellum '.length)}\n`));
    const lines = block.split('\n\n')[0]!.split('\n').slice(1);
    expect(lines[1]).toBe(`      ${command.summary}`);
    for (const option of command.options) expect(block.split('\n\n')[0]).toMatch(new RegExp(`\\n      --${option.name} ${option.value} +\\S`));
    expect(lines.at(-1)).toBe(`      Example: ${command.examples[0]}`);
    expect(command.summary).not.toContain('\n');
  });

  it('marks required options in the usage line and optional ones in brackets', () => {
    const create = COMMANDS.find((c) => c.name === 'tenants create')!;
    expect(usageLine(create)).toBe('vellum tenants create --subdomain SUBDOMAIN --region REGION [--name NAME]');
    expect(overview).toMatch(/--name NAME +a display name \(optional\)/);
  });

  it('lists the regions and roles the core accepts, so the help cannot fall behind them', () => {
    for (const region of REGIONS) expect(overview).toContain(region);
    for (const role of ROLES) expect(overview).toContain(role);
  });

  it('says where settings come from and that progress goes to stderr', () => {
    expect(overview).toContain('VELLUM_DATA_DIR');
    expect(overview).toContain('DATABASE_URL');
    expect(overview).toMatch(/Progress and errors go to\s+stderr/);
  });

  it(`fits every line of every help text in ${HELP_WIDTH} columns`, () => {
    const texts = [overview, ...COMMANDS.map(commandHelp), helpText(parseInvocation(['tenants', '--help'])), helpText(parseInvocation(['help', 'clients']))];
    for (const line of texts.flatMap((t) => t.split('\n'))) expect([...line].length, line).toBeLessThanOrEqual(HELP_WIDTH);
  });

  it.each([[['--help']], [['-h']], [['help']], [['help', '--help']]])('is what %j prints, to stdout', (argv) => {
    expect(parseInvocation(argv)).toEqual({ kind: 'help', text: overview });
  });
});

describe('vellum <command> --help', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s: usage, description, each option marked required or optional, and every example', (name, command) => {
    const text = commandHelp(command);
    expect(text.startsWith(`Usage: ${usageLine(command)}\n`)).toBe(true);
    expect(text).toContain(command.summary);
    for (const option of command.options) {
      const line = text.split('\n').find((l) => l.startsWith(`  --${option.name} `));
      expect(line, option.name).toBeDefined();
      expect(line!.endsWith('(optional)')).toBe(!option.required);
    }
    for (const example of command.examples) expect(text).toContain(`\n  ${example}`);
    // The same text whichever way it is asked for.
    const words = name.split(' ');
    expect(parseInvocation([...words, '--help'])).toEqual({ kind: 'help', text });
    expect(parseInvocation([...words, '-h'])).toEqual({ kind: 'help', text });
    expect(parseInvocation(['help', ...words])).toEqual({ kind: 'help', text });
  });

  it('wins over missing or wrong options, so asking for help never runs a command', () => {
    expect(parseInvocation(['clients', 'revoke', '--help'])).toMatchObject({ kind: 'help' });
    expect(parseInvocation(['tenants', 'create', '--bogus', 'x', '--help'])).toMatchObject({ kind: 'help' });
    expect(parseInvocation(['serve', '--help'])).toEqual({ kind: 'help', text: commandHelp(COMMANDS[0]) });
  });

  it('for a group lists its commands with an example each', () => {
    const text = helpText(parseInvocation(['clients', '--help']));
    for (const command of COMMANDS.filter((c) => c.name.startsWith('clients '))) {
      expect(text).toContain(usageLine(command).slice('vellum '.length));
      expect(text).toContain(`Example: ${command.examples[0]}`);
    }
    expect(text).not.toContain('tenants create');
    expect(parseInvocation(['help', 'clients'])).toEqual({ kind: 'help', text });
  });
});

describe('the examples in the help', () => {
  it.each(COMMANDS.flatMap((c) => c.examples.map((e) => [e, c.name] as const)))('%s runs %s with options the parser accepts', (example, name) => {
    const invocation = parseInvocation(argvOf(example));
    expect(invocation).toMatchObject({ kind: 'run', command: name });
  });
});

describe('reading a command line', () => {
  it('runs a command with its options, in either --name value or --name=value form', () => {
    expect(parseInvocation(['tenants', 'create', '--subdomain', 'acme', '--region=eu01', '--name', 'Acme Ltd'])).toEqual({
      kind: 'run',
      command: 'tenants create',
      options: { subdomain: 'acme', region: 'eu01', name: 'Acme Ltd' },
    });
    expect(parseInvocation(['serve'])).toEqual({ kind: 'run', command: 'serve', options: {} });
    expect(parseInvocation(['tenants', 'list'])).toEqual({ kind: 'run', command: 'tenants list', options: {} });
  });

  it('takes a value that starts with - only after =, so a forgotten value is not the next option', () => {
    const text = expectUsageError(parseInvocation(['tenants', 'create', '--subdomain', '--region', 'eu01']), EXIT_BAD_OPTIONS, /--subdomain needs a value/);
    expect(text).toBe(commandHelp(COMMANDS.find((c) => c.name === 'tenants create')!));
    expect(parseInvocation(['clients', 'revoke', '--tenant', 'acme', '--client=-old-id'])).toMatchObject({ kind: 'run', options: { client: '-old-id' } });
    expectUsageError(parseInvocation(['clients', 'revoke', '--tenant', 'acme', '--client']), EXIT_BAD_OPTIONS, /--client needs a value/);
    expectUsageError(parseInvocation(['clients', 'revoke', '--tenant', 'acme', '--client=']), EXIT_BAD_OPTIONS, /--client needs a value/);
  });

  it('refuses a missing required option by name, with exit code 1 and the command’s help', () => {
    const text = expectUsageError(parseInvocation(['clients', 'revoke', '--tenant', 'acme']), EXIT_BAD_OPTIONS, /^--client is required$/);
    expect(text).toContain('Usage: vellum clients revoke --tenant SUBDOMAIN --client CLIENT_ID');
    expectUsageError(parseInvocation(['tenants', 'create', '--region', 'eu01']), EXIT_BAD_OPTIONS, /^--subdomain is required$/);
  });

  it('refuses an option the command does not have, and stray arguments', () => {
    expectUsageError(parseInvocation(['tenants', 'list', '--tenant', 'acme']), EXIT_BAD_OPTIONS, /`vellum tenants list` has no option --tenant/);
    expectUsageError(parseInvocation(['serve', '--port', '80']), EXIT_BAD_OPTIONS, /has no option --port/);
    expectUsageError(parseInvocation(['migrate', 'now']), EXIT_BAD_OPTIONS, /unexpected argument "now"/);
  });

  it('refuses an unknown or missing command with exit code 2 and the whole help', () => {
    expect(EXIT_UNKNOWN_COMMAND).toBe(2);
    expect(expectUsageError(parseInvocation(['frobnicate']), 2, /unknown command "frobnicate"/)).toBe(overviewHelp());
    expect(expectUsageError(parseInvocation([]), 2, /no command given/)).toBe(overviewHelp());
    expect(expectUsageError(parseInvocation(['--port', '80']), 2, /unknown option --port/)).toBe(overviewHelp());
    expect(expectUsageError(parseInvocation(['frobnicate', '--help']), 2, /unknown command "frobnicate"/)).toBe(overviewHelp());
    expect(expectUsageError(parseInvocation(['help', 'frobnicate']), 2, /no command named "frobnicate"/)).toBe(overviewHelp());
  });

  it('answers a group without its command, or with a wrong one, with the group’s help', () => {
    const tenants = helpText(parseInvocation(['help', 'tenants']));
    expect(expectUsageError(parseInvocation(['tenants']), 2, /`tenants` needs a command/)).toBe(tenants);
    expect(expectUsageError(parseInvocation(['tenants', 'delete', '--subdomain', 'acme']), 2, /unknown command "tenants delete"/)).toBe(tenants);
    expect(expectUsageError(parseInvocation(['tenants', 'delete', '--help']), 2, /unknown command "tenants delete"/)).toBe(tenants);
  });
});

describe('progress lines', () => {
  it('are "vellum: …" lines, and VELLUM_LOG_LEVEL=silent turns them off', () => {
    const written: string[] = [];
    createProgress({ logLevel: 'info' }, (t) => written.push(t)).step('migrating the database (SQLite ./data/vellum.db)…');
    createProgress({ logLevel: 'error' }, (t) => written.push(t)).step('ready at http://127.0.0.1:3000');
    createProgress({ logLevel: 'silent' }, (t) => written.push(t)).step('not shown');
    expect(written).toEqual(['vellum: migrating the database (SQLite ./data/vellum.db)…\n', 'vellum: ready at http://127.0.0.1:3000\n']);
  });

  it('name the SQLite file as the operator would type it', () => {
    expect(describeDatabase({ databaseUrl: undefined, dataDir: '/srv/vellum/data' }, '/srv/vellum')).toBe('SQLite ./data/vellum.db');
    expect(describeDatabase({ databaseUrl: undefined, dataDir: '/var/lib/vellum' }, '/srv/vellum')).toBe('SQLite /var/lib/vellum/vellum.db');
  });

  it.each([
    ['postgres://vellum:s3cret-pass@db.internal:5433/issuer?sslmode=require&password=other-secret', 'PostgreSQL db.internal:5433/issuer'],
    ['postgresql://vellum:s3cret-pass@db.internal/issuer', 'PostgreSQL db.internal/issuer'],
    ['postgres://vellum:s3cret-pass@[::1]:5432/', 'PostgreSQL [::1]:5432'],
    ['postgres:///issuer?host=/var/run/postgresql&password=other-secret', 'PostgreSQL'],
  ])('name a PostgreSQL database without its user, password or query (%s)', (databaseUrl, shown) => {
    const text = describeDatabase({ databaseUrl, dataDir: '/srv/data' }, '/srv');
    expect(text).toBe(shown);
    expect(text).not.toMatch(/s3cret|other-secret|vellum:/);
  });

  it('announce a development master key only when this start generates one (runtime.ts masterKey)', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vellum-key-'));
    try {
      const steps: OpeningStep[] = [];
      const base = { masterKey: undefined, databaseUrl: undefined, dataDir } as unknown as ServerConfig;
      const first = masterKey(base, silent, (s) => steps.push(s));
      expect(steps).toEqual([{ step: 'generate-master-key', file: join(dataDir, 'master.key') }]);
      expect(masterKey(base, silent, (s) => steps.push(s))).toEqual(first);
      masterKey({ ...base, masterKey: Buffer.alloc(32, 7).toString('base64') }, silent, (s) => steps.push(s));
      expect(() => masterKey({ ...base, databaseUrl: 'postgres://db/vellum' }, silent, (s) => steps.push(s))).toThrow(/VELLUM_MASTER_KEY/);
      expect(steps).toHaveLength(1);
      expect(describeOpeningStep(base, { step: 'generate-master-key', file: '/srv/data/master.key' }, '/srv')).toBe(
        'generating a development master key in ./data/master.key…',
      );
      expect(describeOpeningStep({ ...base, dataDir: '/srv/data' }, { step: 'migrate' }, '/srv')).toBe('migrating the database (SQLite ./data/vellum.db)…');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('warn about a development master key only where a logger is given: once by the server, not by each CLI command (issue 28)', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vellum-key-'));
    try {
      const base = { masterKey: undefined, databaseUrl: undefined, dataDir } as unknown as ServerConfig;
      const warnings: unknown[][] = [];
      const recording = { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger;
      masterKey(base, recording);
      expect(warnings).toEqual([[{ file: join(dataDir, 'master.key') }, expect.stringContaining('VELLUM_MASTER_KEY is not set')]]);
      masterKey(base, undefined);
      masterKey({ ...base, masterKey: Buffer.alloc(32, 7).toString('base64') }, recording);
      expect(warnings).toHaveLength(1);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('give the listening address as a URL', () => {
    expect(listeningUrl({ address: '127.0.0.1', port: 3000 }, false, 'localhost')).toBe('http://127.0.0.1:3000');
    expect(listeningUrl({ address: '::1', port: 8443 }, true, 'localhost')).toBe('https://[::1]:8443');
    expect(listeningUrl({ address: null, port: 3000 }, false, '0.0.0.0')).toBe('http://0.0.0.0:3000');
  });
});
