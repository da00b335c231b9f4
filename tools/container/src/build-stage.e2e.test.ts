// The image, as near as a machine without a container engine can come to building it: the
// Dockerfile's build stage replayed step by step in a temporary directory standing for /app (its
// COPY lines fed from the build context that .dockerignore lets through, its RUN lines run by bash),
// then the runtime stage's command started from that directory with the runtime stage's ENV, as
// its USER when this test runs as root. What this proves that the recipe checks of container.test.ts
// cannot: the production-only install holds every package the server loads, the context holds
// every file it reads, and the server runs without writing outside its data directory.
//
// What stands in for the base image: this machine's Node (the image's is node:24) and, for
// `corepack enable`, the pnpm that package.json pins, installed in the workspace. pnpm's store is
// the build's cache mount, read `--offline`: the test never downloads.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend } from '../../../apps/server/test/backends.ts';
import { freePort, http, type RunningServer, startServer } from '../../../apps/server/test/process.ts';
import { contextFiles, copyPaths, envPairs, execForm, instructions, parseDockerfile, parseDockerignore, type Stage, splitFlags } from './dockerfile.ts';

const repo = new URL('../../../', import.meta.url).pathname;
const dockerfile = parseDockerfile(readFileSync(join(repo, 'Dockerfile'), 'utf8'));
const build = dockerfile.stages.find((s) => s.name === 'build') as Stage;
const runtime = dockerfile.stages[dockerfile.stages.length - 1] as Stage;
const context = contextFiles(repo, parseDockerignore(readFileSync(join(repo, '.dockerignore'), 'utf8')));
const pinnedPnpm = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { packageManager: string }).packageManager.replace(/^pnpm@/, '');
const asRoot = process.getuid?.() === 0;

const last = (stage: Stage, keyword: string) => instructions(stage, keyword).at(-1)?.args ?? '';
const envOf = (stage: Stage) => Object.assign({}, ...instructions(stage, 'ENV').map((i) => envPairs(i.args))) as Record<string, string>;

/** pnpm's store, where the workspace's own install put every package the lockfile names. */
function storeDir(): string {
  const r = spawnSync(join(repo, 'node_modules/.bin/pnpm'), ['store', 'path'], { cwd: repo, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pnpm store path failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** A COPY without --from: each source's files in the build context, under the destination. */
function copyFromContext(args: string, workdir: string): void {
  const { sources, destination } = copyPaths(args);
  for (const source of sources) {
    const files = context.filter((f) => f === source || f.startsWith(`${source}/`));
    if (files.length === 0) throw new Error(`COPY ${source}: nothing in the build context`);
    for (const file of files) {
      const target =
        destination.endsWith('/') || sources.length > 1
          ? join(workdir, destination, file.slice(source.lastIndexOf('/') + 1))
          : join(workdir, destination, file.slice(source.length));
      mkdirSync(dirname(target), { recursive: true });
      copyFileSync(join(repo, file), target);
    }
  }
}

interface Replayed {
  app: string;
  steps: string[];
}

/**
 * Runs the build stage in a directory standing for its WORKDIR. A RUN's cache mount becomes pnpm's
 * store; `pnpm install` is told `--offline`; `corepack enable` is not run (the pinned pnpm is already
 * on PATH), nor the `apt-get` step (this machine's Python and make stand in; tools/container/build.sh
 * runs it in a real build), and npm_config_nodedir names this Node's own headers.
 */
function replayBuild(root: string): Replayed {
  const workdirOf = last(build, 'WORKDIR');
  const app = join(root, workdirOf);
  const bin = join(root, 'bin');
  mkdirSync(app, { recursive: true });
  mkdirSync(bin);
  writeFileSync(join(bin, 'pnpm'), `#!/bin/sh\nexec '${join(repo, 'node_modules/.bin/pnpm')}' "$@"\n`);
  chmodSync(join(bin, 'pnpm'), 0o755);
  const env = {
    PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: process.env.HOME ?? root,
    ...envOf(build),
    npm_config_nodedir: dirname(dirname(process.execPath)),
  };
  const store = storeDir();
  const steps: string[] = [];
  for (const step of build.instructions) {
    if (step.keyword === 'COPY') copyFromContext(step.args, app);
    if (step.keyword !== 'RUN') continue;
    const { flags, rest } = splitFlags(step.args);
    if (/^corepack enable$/.test(rest) || /^apt-get update\b/.test(rest)) continue;
    const cache = /(?:^|,)target=([^,]+)/.exec(flags.mount ?? '')?.[1];
    let command = cache ? rest.split(cache).join(store) : rest;
    command = command.replace(/\bpnpm install\b/, 'pnpm install --offline');
    const r = spawnSync('bash', ['-c', command], { cwd: app, env, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`RUN ${rest} (line ${step.line}) failed:\n${r.stdout}\n${r.stderr}`);
    steps.push(`${command}\n${r.stdout}`);
  }
  return { app, steps };
}

/** The paths of a pnpm `node_modules/.pnpm` folder: one per installed package version. */
const installedPackages = (app: string) => readdirSync(join(app, 'node_modules/.pnpm')).filter((n) => n !== 'node_modules' && !n.startsWith('lock'));

/** The runtime stage over a replayed build: its RUN lines done, a Node its USER may run, its command. */
interface Runtime {
  dataDir: string;
  node: string;
  main: string;
  args: string[];
  env: Record<string, string>;
  user: { uid: number; gid: number } | undefined;
  healthcheck: string;
}

function prepareRuntime(root: string): Runtime {
  const [uid, gid] = last(runtime, 'USER').split(':').map(Number) as [number, number];
  const image = envOf(runtime);
  const dataDir = join(root, image.VELLUM_DATA_DIR as string);
  // The runtime stage's RUN lines make the data directory and give it to USER. As root they run as
  // written, on the directory standing for the image's root; otherwise this (already unprivileged)
  // user makes it.
  if (asRoot) {
    for (const step of instructions(runtime, 'RUN')) {
      const r = spawnSync('bash', ['-c', step.args.split(image.VELLUM_DATA_DIR as string).join(dataDir)], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`RUN ${step.args} (line ${step.line}) failed:\n${r.stderr}`);
    }
  } else mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // Node stands where that user can run it (the image's is /usr/local/bin/node); a hard link costs nothing.
  const node = join(root, 'node');
  try {
    linkSync(process.execPath, node);
  } catch {
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
  }
  const command = [...(execForm(last(runtime, 'ENTRYPOINT')) ?? []), ...(execForm(last(runtime, 'CMD')) ?? [])];
  if (command[0] !== 'node') throw new Error(`the image's command does not start with node: ${command.join(' ')}`);
  const [, healthcheck] = execForm(splitFlags(last(runtime, 'HEALTHCHECK')).rest.replace(/^CMD\s+/, '')) ?? [];
  return {
    dataDir,
    node,
    main: join(root, command[1] as string),
    args: command.slice(2),
    env: { PATH: `${root}:/usr/bin:/bin`, ...image, VELLUM_DATA_DIR: dataDir },
    user: asRoot ? { uid, gid } : undefined,
    healthcheck: join(root, healthcheck as string),
  };
}

describe("the Dockerfile's build stage, replayed without an engine", () => {
  let root: string;
  let replayed: Replayed;
  let image: Runtime;
  const servers: RunningServer[] = [];
  let database: Backend | undefined;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'vellum-image-'));
    // The stand-in for the image's root: others may enter it, as they may enter /.
    chmodSync(root, 0o755);
    replayed = replayBuild(root);
    image = prepareRuntime(root);
  }, 180_000);

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await database?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  /** The image's command with its ENV and `extra`, as its USER; the HEALTHCHECK must then pass. */
  async function startImage(extra: Record<string, string>): Promise<{ port: number; env: Record<string, string> }> {
    const port = await freePort();
    const env = { ...image.env, VELLUM_PORT: String(port), VELLUM_PUBLIC_URL: `http://127.0.0.1:${port}`, ...extra };
    servers.push(await startServer(env, { main: image.main, args: image.args, execPath: image.node, ...image.user }));
    const health = spawnSync(image.node, [image.healthcheck], { env, encoding: 'utf8', timeout: 15_000 });
    expect(health.stderr).toBe('');
    expect(health.status).toBe(0);
    return { port, env };
  }

  it("runs the build stage's RUN lines (corepack enable and apt-get aside) with the pnpm that package.json pins", () => {
    expect(replayed.steps.find((s) => s.startsWith('pnpm --version'))).toContain(pinnedPnpm);
    expect(replayed.steps.some((s) => /^pnpm install --offline .*--prod/.test(s))).toBe(true);
    expect(existsSync(join(replayed.app, 'node_modules/.modules.yaml'))).toBe(true);
  });

  it('installs production dependencies only: no test runner, linter, browser driver or test helpers', () => {
    const installed = installedPackages(replayed.app);
    expect(installed.some((p) => p.startsWith('fastify@'))).toBe(true);
    expect(installed.some((p) => p.startsWith('better-sqlite3@'))).toBe(true);
    for (const dev of ['vitest@', '@biomejs+biome@', 'playwright-core@', '@auth0+mdl@', 'fast-check@', 'tsup@']) {
      expect(installed.filter((p) => p.startsWith(dev))).toEqual([]);
    }
    expect(existsSync(join(replayed.app, 'apps/server/node_modules/@vellum/testing'))).toBe(false);
    expect(existsSync(join(replayed.app, 'apps/server/node_modules/@vellum/core'))).toBe(true);
  });

  it("starts the runtime stage's command as its USER on SQLite: HEALTHCHECK, issuer metadata, data on the volume", async () => {
    // The runtime stage copies the build stage's /app whole and installs nothing itself (container.test.ts).
    expect(instructions(runtime, 'COPY').map((i) => copyPaths(i.args))).toEqual([{ from: 'build', sources: ['/app'], destination: '/app' }]);
    const { port } = await startImage({});
    const metadata = await http(port, 'GET', '/.well-known/openid-credential-issuer');
    expect(metadata.status).toBe(200);
    expect(JSON.parse(metadata.text).credential_issuer).toBe(`http://127.0.0.1:${port}`);
    // It wrote its database and development key where the volume is, as that user.
    expect(readdirSync(image.dataDir)).toEqual(expect.arrayContaining(['master.key', 'vellum.db']));
    if (image.user) expect(statSync(join(image.dataDir, 'vellum.db')).uid).toBe(image.user.uid);
  }, 60_000);

  // compose.yaml's way: DATABASE_URL and a master key. Runs where VELLUM_TEST_DATABASE_URL names a
  // PostgreSQL server (CI always sets it); without one there is no database to point the image at.
  it.skipIf(!pgAdminUrl)(
    'starts it on PostgreSQL, as compose.yaml does: ready, with the issuer metadata read from the database',
    async () => {
      database = postgresBackend('vellum_image');
      const { DATABASE_URL, VELLUM_MASTER_KEY } = await database.env();
      const { port } = await startImage({ DATABASE_URL: DATABASE_URL as string, VELLUM_MASTER_KEY: VELLUM_MASTER_KEY as string });
      expect((await http(port, 'GET', '/ready')).status).toBe(200);
      const metadata = await http(port, 'GET', '/.well-known/openid-credential-issuer');
      expect(metadata.status).toBe(200);
      expect(JSON.parse(metadata.text).credential_issuer).toBe(`http://127.0.0.1:${port}`);
    },
    60_000,
  );
});
