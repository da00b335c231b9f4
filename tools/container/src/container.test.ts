import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../apps/server/src/config.ts';
import * as yaml from 'yaml';
import { environmentOf, interpolate, MissingVariable } from './compose.ts';
import {
  contextFiles,
  copyPaths,
  envPairs,
  execForm,
  instructions,
  isIgnored,
  parseDockerfile,
  parseDockerignore,
  resolveImage,
  splitFlags,
  type Stage,
} from './dockerfile.ts';

// The image's recipe checked without a container engine (docs/container.md): what a build would
// copy, how the container starts and what it is configured with. tools/container/check.sh builds
// and runs it where an engine exists.
const repo = new URL('../../../', import.meta.url).pathname;
const read = (path: string) => readFileSync(join(repo, path), 'utf8');

const dockerfile = parseDockerfile(read('Dockerfile'));
const build = dockerfile.stages.find((s) => s.name === 'build');
const runtime = dockerfile.stages[dockerfile.stages.length - 1] as Stage;
const ignore = parseDockerignore(read('.dockerignore'));
const context = contextFiles(repo, ignore);
const compose = yaml.parse(read('compose.yaml')) as { services: Record<string, Record<string, unknown>>; volumes?: Record<string, unknown> };

/** The one value a stage gives an instruction that may appear once (the last one counts, as in Docker). */
function last(stage: Stage, keyword: string): string {
  const found = instructions(stage, keyword);
  expect(found.length, `${keyword} in the stage FROM ${stage.image}`).toBeGreaterThan(0);
  return (found[found.length - 1] as { args: string }).args;
}

function stageEnv(stage: Stage): Record<string, string> {
  return Object.assign({}, ...instructions(stage, 'ENV').map((i) => envPairs(i.args))) as Record<string, string>;
}

/** A path inside the image, as the file of the repository that the runtime stage's `COPY --from=build /app /app` put there. */
function repoPathOf(imagePath: string): string {
  const workdir = last(runtime, 'WORKDIR');
  expect(imagePath.startsWith(`${workdir}/`), `${imagePath} is under ${workdir}`).toBe(true);
  return imagePath.slice(workdir.length + 1);
}

/** Every variable apps/server/src/config.ts reads from the environment. */
const configVariables = new Set(
  [...read('apps/server/src/config.ts').matchAll(/\(env, '([A-Z0-9_]+)'|env\.([A-Z0-9_]+)/g)].map((m) => (m[1] ?? m[2]) as string),
);

const runtimeEnv = stageEnv(runtime);

describe('reading config.ts for the variables it reads', () => {
  it('finds the ones the README documents first, so that an empty set cannot pass the checks below', () => {
    for (const name of ['VELLUM_PORT', 'VELLUM_HOST', 'VELLUM_DATA_DIR', 'DATABASE_URL', 'VELLUM_MASTER_KEY', 'VELLUM_PUBLIC_URL', 'VELLUM_DEFAULT_TENANT']) {
      expect(configVariables).toContain(name);
    }
  });
});

describe('Dockerfile', () => {
  it('is multi-stage: a Node 24 build stage, and a runtime stage that copies only its result', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(2);
    expect(build, 'a stage named "build"').toBeDefined();
    expect(build).not.toBe(runtime);
    expect(resolveImage(dockerfile, (build as Stage).image)).toMatch(/^node:24(?:[.-]|$)/);
    expect(resolveImage(dockerfile, runtime.image)).toMatch(/^node:24(?:[.-]|$)/);
    const fromBuild = instructions(runtime, 'COPY')
      .map((i) => copyPaths(i.args))
      .filter((c) => c.from !== undefined);
    expect(fromBuild.map((c) => c.from)).toEqual(['build']);
    // The runtime stage has neither pnpm nor the build's caches: it installs nothing itself.
    expect(
      instructions(runtime, 'RUN')
        .map((i) => i.args)
        .join('\n'),
    ).not.toMatch(/\b(pnpm|npm|corepack|apt-get)\b/);
  });

  it('installs with the pnpm that package.json pins (corepack) and with the lockfile, production dependencies only', () => {
    const stage = build as Stage;
    const runs = instructions(stage, 'RUN').map((i) => i.args);
    expect(runs.some((r) => /\bcorepack enable\b/.test(r))).toBe(true);
    expect(JSON.parse(read('package.json')).packageManager).toMatch(/^pnpm@\d/);
    const install = stage.instructions.find((i) => i.keyword === 'RUN' && /\bpnpm install\b/.test(i.args));
    expect(install, 'a RUN with pnpm install').toBeDefined();
    const { rest } = splitFlags((install as { args: string }).args);
    expect(rest).toContain('--frozen-lockfile');
    expect(rest).toContain('--prod');
    // Without dev edges, so that the test helpers (and vitest with them) stay out of the image.
    expect(rest).toMatch(/--filter-prod[= ]'?@vellum\/server\.\.\./);
    const lockCopied = stage.instructions.findIndex((i) => i.keyword === 'COPY' && copyPaths(i.args).sources.includes('pnpm-lock.yaml'));
    expect(lockCopied).toBeGreaterThanOrEqual(0);
    expect(lockCopied).toBeLessThan(stage.instructions.indexOf(install as (typeof stage.instructions)[number]));
  });

  it('leaves install scripts to pnpm-workspace.yaml (better-sqlite3 allowed, cbor-extract not) and proves the SQLite binding loads', () => {
    const workspace = yaml.parse(read('pnpm-workspace.yaml')) as { onlyBuiltDependencies?: string[] };
    expect(workspace.onlyBuiltDependencies).toContain('better-sqlite3');
    expect(workspace.onlyBuiltDependencies).not.toContain('cbor-extract');
    const runs = instructions(build as Stage, 'RUN')
      .map((i) => i.args)
      .join('\n');
    expect(runs).not.toMatch(/approve-builds|dangerously-allow-all-builds|--ignore-scripts|only-built-dependencies/);
    expect(runs).toMatch(/require\('better-sqlite3'\)[\s\S]*:memory:/);
  });

  it('runs as a user other than root in the final stage', () => {
    const user = last(runtime, 'USER');
    const [name] = user.split(':');
    expect(name).not.toMatch(/^(root|0)$/);
    // The instruction that follows USER runs as that user; the data directory must be theirs before.
    const userAt = runtime.instructions.findIndex((i) => i.keyword === 'USER');
    const chown = runtime.instructions.findIndex((i) => i.keyword === 'RUN' && i.args.includes(`chown ${user} ${runtimeEnv.VELLUM_DATA_DIR}`));
    expect(chown).toBeGreaterThanOrEqual(0);
    expect(chown).toBeLessThan(userAt);
  });

  it('has a HEALTHCHECK that asks GET /health, the liveness route apps/server registers', () => {
    const { flags, rest } = splitFlags(last(runtime, 'HEALTHCHECK'));
    expect(flags.interval).toMatch(/^\d+s$/);
    expect(rest.startsWith('CMD ')).toBe(true);
    const command = execForm(rest.slice('CMD '.length));
    expect(command?.[0]).toBe('node');
    const script = repoPathOf(command?.[1] as string);
    expect(existsSync(join(repo, script))).toBe(true);
    expect(context).toContain(script);
    // Without an argument the script asks /health (tools/container/src/container.e2e.test.ts runs it).
    expect(rest).toBe(`CMD ["node", "${command?.[1]}"]`);
    expect(read(script)).toMatch(/process\.argv\[2\] \?\? '\/health'/);
    expect(read('apps/server/src/app.ts')).toMatch(/\.get\('\/health'/);
  });

  it('pins its base image by digest, and both stages use it', () => {
    const args = dockerfile.args as Record<string, string | undefined>;
    expect(args.NODE_IMAGE).toMatch(/^node:24-bookworm-slim@sha256:[0-9a-f]{64}$/);
    expect((build as Stage).image).toBe('${NODE_IMAGE}');
    expect(runtime.image).toBe('${NODE_IMAGE}');
  });

  it('labels the image with OCI annotations: title, licence as package.json says, version, revision and base', () => {
    const labels = Object.assign({}, ...instructions(runtime, 'LABEL').map((i) => envPairs(i.args))) as Record<string, string>;
    expect(labels['org.opencontainers.image.title']).toBe('Vellum');
    expect(labels['org.opencontainers.image.licenses']).toBe(JSON.parse(read('package.json')).license);
    expect(labels['org.opencontainers.image.version']).toBe('${VERSION}');
    expect(labels['org.opencontainers.image.revision']).toBe('${REVISION}');
    expect(labels['org.opencontainers.image.base.name']).toBe('${NODE_IMAGE}');
    const declared = instructions(runtime, 'ARG').map((i) => i.args.split('=')[0]);
    for (const arg of ['NODE_IMAGE', 'VERSION', 'REVISION']) expect(declared, `ARG ${arg} in the runtime stage`).toContain(arg);
    for (const key of Object.keys(labels)) expect(key).toMatch(/^org\.opencontainers\.image\.[a-z.]+$/);
  });

  it("starts `vellum serve` from the sources, as apps/server's start script does", () => {
    const command = [...(execForm(last(runtime, 'ENTRYPOINT')) ?? []), ...(execForm(last(runtime, 'CMD')) ?? [])];
    expect(command).toEqual(['node', '/app/apps/server/src/main.ts', 'serve']);
    expect(existsSync(join(repo, repoPathOf(command[1] as string)))).toBe(true);
    expect(JSON.parse(read('apps/server/package.json')).scripts.start).toBe('node src/main.ts serve');
  });

  it('listens on every interface at the port it exposes, with VELLUM_DATA_DIR on a volume', () => {
    expect(runtimeEnv.VELLUM_HOST).toBe('0.0.0.0');
    expect(last(runtime, 'EXPOSE')).toBe(runtimeEnv.VELLUM_PORT);
    expect(execForm(last(runtime, 'VOLUME'))).toEqual([runtimeEnv.VELLUM_DATA_DIR]);
    // What the server makes of the image's settings alone.
    const config = loadConfig(runtimeEnv, '/app');
    expect(config).toMatchObject({ host: '0.0.0.0', port: 3000, dataDir: '/var/lib/vellum', databaseUrl: undefined });
  });

  it('sets no variable that config.ts does not read', () => {
    const unknown = Object.keys(runtimeEnv).filter((name) => name !== 'NODE_ENV' && !configVariables.has(name));
    expect(unknown).toEqual([]);
  });

  it('copies only sources that exist in the repository and get through .dockerignore', () => {
    const sources = dockerfile.stages.flatMap((s) =>
      instructions(s, 'COPY')
        .map((i) => copyPaths(i.args))
        .filter((c) => c.from === undefined)
        .flatMap((c) => c.sources),
    );
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(existsSync(join(repo, source)), source).toBe(true);
      const sent = statSync(join(repo, source)).isDirectory() ? context.some((f) => f.startsWith(`${source}/`)) : context.includes(source);
      expect(sent, `${source} reaches the builder`).toBe(true);
    }
  });
});

describe('.dockerignore', () => {
  it('keeps local installs, builds, data, .env files, tests and .git out of the build context', () => {
    for (const path of [
      'node_modules/fastify/package.json',
      'packages/storage-sql/node_modules/better-sqlite3/build/Release/better_sqlite3.node',
      'data/vellum.db',
      'data/master.key',
      '.env',
      'apps/server/.env.local',
      '.git/config',
      'packages/core/dist/index.js',
      'apps/server/src/config.test.ts',
      'apps/server/test/process.ts',
    ]) {
      expect(isIgnored(ignore, path), path).toBe(true);
    }
    expect(context.filter((f) => /(^|\/)(node_modules|dist|data|\.git)\/|\.test\.ts$/.test(f))).toEqual([]);
  });

  it('lets through every workspace project the lockfile knows and every source the server runs', () => {
    const lock = yaml.parse(read('pnpm-lock.yaml')) as { importers: Record<string, unknown> };
    for (const project of Object.keys(lock.importers)) {
      expect(context, project).toContain(project === '.' ? 'package.json' : `${project}/package.json`);
    }
    for (const file of [
      'pnpm-lock.yaml',
      'pnpm-workspace.yaml',
      'apps/server/src/main.ts',
      'packages/core/src/index.ts',
      'packages/storage-sql/src/migrations.ts',
      'packages/formats/src/linked-data/contexts/credentials-v1.json',
    ]) {
      expect(context, file).toContain(file);
    }
  });

  it("names each example's manifest without a wildcard, since buildah drops a folder whose only way in is a `*` pattern", () => {
    const lines = new Set(
      read('.dockerignore')
        .split('\n')
        .map((line) => line.trim()),
    );
    const lock = yaml.parse(read('pnpm-lock.yaml')) as { importers: Record<string, unknown> };
    const examples = Object.keys(lock.importers).filter((project) => project.startsWith('examples/'));
    expect(examples.length).toBeGreaterThan(0);
    for (const project of examples) expect(lines, project).toContain(`!${project}/package.json`);
  });
});

describe('compose.yaml', () => {
  const services = compose.services;
  const vellum = services.vellum as Record<string, unknown>;
  const postgres = services.postgres as Record<string, unknown>;
  const key = Buffer.alloc(32, 7).toString('base64');
  const password = 'a-password-of-our-own';
  /** A service's environment as Compose hands it over, with only the master key and the database password set on the host. */
  const environmentWithKey = (service: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(environmentOf(service)).map(([k, v]) => [k, interpolate(v, { VELLUM_MASTER_KEY: key, POSTGRES_PASSWORD: password })]));

  it('runs the server and PostgreSQL 16, and starts the server only once PostgreSQL is healthy', () => {
    expect(Object.keys(services).sort()).toEqual(['postgres', 'vellum']);
    expect(postgres.image).toMatch(/^postgres:16(?:[.-]|$)/);
    const healthcheck = postgres.healthcheck as { test: string[] };
    expect(healthcheck.test).toContain('pg_isready');
    expect(vellum.build).toBe('.');
    expect(vellum.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('gives the server only variables config.ts reads', () => {
    const names = Object.keys(environmentOf(vellum));
    expect(names).toContain('DATABASE_URL');
    expect(names).toContain('VELLUM_MASTER_KEY');
    expect(names.filter((n) => !configVariables.has(n))).toEqual([]);
  });

  it("points DATABASE_URL at the postgres service with its user, password and database, under the image's settings", () => {
    const db = environmentWithKey(postgres);
    const config = loadConfig({ ...runtimeEnv, ...environmentWithKey(vellum) }, '/app');
    const url = new URL(config.databaseUrl as string);
    expect(url.hostname).toBe('postgres');
    expect(url.port).toBe('5432');
    expect(decodeURIComponent(url.username)).toBe(db.POSTGRES_USER);
    expect(decodeURIComponent(url.password)).toBe(db.POSTGRES_PASSWORD);
    expect(db.POSTGRES_PASSWORD).toBe(password);
    expect(url.pathname).toBe(`/${db.POSTGRES_DB}`);
    expect(config.masterKey).toBe(key);
    expect(config.host).toBe('0.0.0.0');
  });

  it('takes the master key from .env or the environment and refuses to start without one, instead of shipping a key', () => {
    const masterKey = environmentOf(vellum).VELLUM_MASTER_KEY as string;
    expect(masterKey).toMatch(/^\$\{VELLUM_MASTER_KEY:\?[^}]+\}$/);
    expect(() => interpolate(masterKey, {})).toThrow(MissingVariable);
    expect(() => interpolate(masterKey, { VELLUM_MASTER_KEY: '' })).toThrow(MissingVariable);
    expect(interpolate(masterKey, { VELLUM_MASTER_KEY: key })).toBe(key);
  });

  it("mounts a named volume at the image's data directory and publishes the port the image exposes", () => {
    const mounts = (vellum.volumes as string[]).map((v) => v.split(':'));
    const data = mounts.find(([, target]) => target === runtimeEnv.VELLUM_DATA_DIR);
    expect(data).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain((data as string[])[0]);
    const ports = (vellum.ports as string[]).map((p) => interpolate(p, {}).split(':'));
    expect(ports.map((p) => p[p.length - 1])).toEqual([last(runtime, 'EXPOSE')]);
  });

  it("publishes on the host's loopback unless HOST_ADDRESS says otherwise", () => {
    const [port] = vellum.ports as string[];
    expect(interpolate(port as string, {})).toBe(`127.0.0.1:3000:${last(runtime, 'EXPOSE')}`);
    expect(interpolate(port as string, { HOST_ADDRESS: '0.0.0.0', HOST_PORT: '8080' })).toBe(`0.0.0.0:8080:${last(runtime, 'EXPOSE')}`);
  });

  it('refuses to start without a PostgreSQL password of your own, in both services, instead of a default one', () => {
    const required = [environmentOf(postgres).POSTGRES_PASSWORD as string, environmentOf(vellum).DATABASE_URL as string];
    for (const value of required) {
      expect(value).toMatch(/\$\{POSTGRES_PASSWORD:\?[^}]+\}/);
      expect(value).not.toMatch(/\$\{POSTGRES_PASSWORD:?-/);
      expect(() => interpolate(value, { VELLUM_MASTER_KEY: key })).toThrow(MissingVariable);
      expect(() => interpolate(value, { VELLUM_MASTER_KEY: key, POSTGRES_PASSWORD: '' })).toThrow(MissingVariable);
    }
    expect(read('compose.yaml')).not.toMatch(/POSTGRES_PASSWORD:-/);
  });

  it('reports the server healthy by its readiness route, /ready, which apps/server registers', () => {
    const healthcheck = vellum.healthcheck as { test: string[]; interval: string };
    expect(healthcheck.test.slice(0, 2)).toEqual(['CMD', 'node']);
    expect(existsSync(join(repo, repoPathOf(healthcheck.test[2] as string)))).toBe(true);
    expect(healthcheck.test[3]).toBe('/ready');
    expect(healthcheck.interval).toMatch(/^\d+s$/);
    expect(read('apps/server/src/app.ts')).toMatch(/\.get\('\/ready'/);
  });

  it('gives a stopping server its whole shutdown deadline and grace before Docker kills it', () => {
    const grace = /^(\d+)s$/.exec(String(vellum.stop_grace_period));
    expect(grace).not.toBeNull();
    // main.ts: requests get shutdownTimeoutMs, then the rest of the shutdown gets SHUTDOWN_GRACE_MS (5 s).
    const { shutdownTimeoutMs } = loadConfig({ ...runtimeEnv, ...environmentWithKey(vellum) }, '/app');
    expect(Number((grace as RegExpExecArray)[1]) * 1000).toBeGreaterThan(shutdownTimeoutMs + 5000);
  });
});
