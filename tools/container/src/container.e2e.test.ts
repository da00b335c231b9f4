import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type RunningServer, serverEnv, startServer, tempDir } from '../../../apps/server/test/process.ts';
import { envPairs, instructions, parseDockerfile, type Stage } from './dockerfile.ts';

// The pieces of the image that run as programs, run here without a container engine: the
// HEALTHCHECK script against a real `vellum serve` started with the image's settings, and
// check.sh on a machine where no engine answers.
const repo = new URL('../../../', import.meta.url).pathname;
const HEALTHCHECK = join(repo, 'tools/container/healthcheck.mjs');
const CHECK = join(repo, 'tools/container/check.sh');

const stages = parseDockerfile(readFileSync(join(repo, 'Dockerfile'), 'utf8')).stages;
const imageEnv = Object.assign({}, ...instructions(stages[stages.length - 1] as Stage, 'ENV').map((i) => envPairs(i.args))) as Record<string, string>;

const run = promisify(execFile);

/** Runs the script as Docker would, without blocking this process (which may be serving the request). */
async function healthcheck(env: Record<string, string>, args: string[] = []): Promise<{ status: number | null; stderr: string }> {
  try {
    const { stderr } = await run(process.execPath, [HEALTHCHECK, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 15_000 });
    return { status: 0, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stderr?: string };
    return { status: typeof failed.code === 'number' ? failed.code : null, stderr: failed.stderr ?? '' };
  }
}

function onPath(name: string): string {
  const found = (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, name))
    .find((file) => existsSync(file));
  if (!found) throw new Error(`${name} is not on PATH`);
  return found;
}

describe('the HEALTHCHECK script (tools/container/healthcheck.mjs)', () => {
  let server: RunningServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    // The image's ENV (all interfaces, its data directory) with a free port and a fresh directory.
    env = { ...imageEnv, VELLUM_PORT: String(await freePort()), VELLUM_DATA_DIR: tempDir() };
    server = await startServer(serverEnv(env));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("exits 0 while `vellum serve` answers GET /health with the image's settings", async () => {
    expect(imageEnv.VELLUM_HOST).toBe('0.0.0.0');
    const result = await healthcheck(env);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it("exits 0 with the argument /ready (compose.yaml's health check) while the server is ready", async () => {
    const result = await healthcheck(env, ['/ready']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('asks no route but /health and /ready: exits 2 for another', async () => {
    const result = await healthcheck(env, ['/admin']);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('health check: asks /health or /ready, not /admin\n');
  });

  it('exits 1 and says why once the server has stopped', async () => {
    await server.stop();
    const result = await healthcheck(env);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^health check failed: .*ECONNREFUSED/);
  });

  it('exits 1 on an answer other than 200 from /health or /ready', async () => {
    const asked: string[] = [];
    const unhealthy = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(503).end();
    });
    const port = await new Promise<number>((resolve) => unhealthy.listen(0, '127.0.0.1', () => resolve((unhealthy.address() as { port: number }).port)));
    try {
      for (const args of [[], ['/ready']]) {
        const result = await healthcheck({ VELLUM_PORT: String(port) }, args);
        expect(result.status).toBe(1);
        expect(result.stderr).toBe('health check failed: HTTP 503\n');
      }
      expect(asked).toEqual(['/health', '/ready']);
    } finally {
      unhealthy.close();
    }
  });
});

describe('tools/container/check.sh without a container engine', () => {
  /** A PATH of its own: `dirname`, `head`, `base64`, `tr`, and a `docker` stub that records its arguments and fails. */
  function stubPath(withDocker: boolean): { path: string; calls: string } {
    const dir = mkdtempSync(join(tmpdir(), 'vellum-container-'));
    for (const tool of ['dirname', 'head', 'base64', 'tr']) symlinkSync(onPath(tool), join(dir, tool));
    const calls = join(dir, 'docker-calls');
    writeFileSync(calls, '');
    if (withDocker) {
      writeFileSync(join(dir, 'docker'), `#!${onPath('bash')}\necho "$*" >> '${calls}'\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n`);
      chmodSync(join(dir, 'docker'), 0o755);
    }
    return { path: dir, calls };
  }

  for (const [situation, withDocker] of [
    ['a docker client whose `docker info` fails', true],
    ['no docker command at all', false],
  ] as const) {
    it(`says plainly that no image was built and succeeds, with ${situation}`, () => {
      const stub = stubPath(withDocker);
      const r = spawnSync(onPath('bash'), [CHECK], { env: { PATH: stub.path }, encoding: 'utf8', timeout: 15_000 });
      expect(r.stdout).toBe('no container runtime: image not built\n');
      expect(r.status).toBe(0);
      // It asked whether an engine runs, and did nothing more.
      expect(readFileSync(stub.calls, 'utf8')).toBe(withDocker ? 'info\n' : '');
    });
  }
});
