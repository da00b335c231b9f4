// `vellum serve` with VELLUM_WORKERS=2 on SQLite and on PostgreSQL: a primary and two worker
// processes sharing the listening socket. Which process answered is read from the OS (the primary's children in /proc)
// and from the `pid` every log line carries; the server exposes nothing new for it.
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../test/backends.ts';
import { freePort, http, type RunningServer, serverEnv, startServer } from '../test/process.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** Live (not zombie) child processes of `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    // "pid (command) state ppid …": the command may hold spaces and parentheses.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(ppid) === pid && state !== 'Z') children.push(Number(entry));
  }
  return children.sort((a, b) => a - b);
}

/** Whether `pid` is a running (not zombie) process. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

interface LogLine {
  pid: number;
  msg?: string;
  workerPid?: number;
  req?: { url?: string };
}

/** The JSON log lines of the primary and its workers (stdout and stderr), skipping other output. */
function logLines(output: string): LogLine[] {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{"level"')) return [];
    try {
      return [JSON.parse(line) as LogLine];
    } catch {
      return [];
    }
  });
}

/** The processes that logged a request for `url` (its one `request completed` line) in `output`. */
const servedBy = (output: string, url: string) =>
  new Set(
    logLines(output)
      .filter((l) => l.msg === 'request completed' && l.req?.url === url)
      .map((l) => l.pid),
  );

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 40_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// Linux only: the test reads /proc. Cluster scheduling is round-robin there, as on every platform but Windows.
const notLinux = process.platform !== 'linux';
const backends: Array<[string, () => Backend, boolean]> = [
  ['SQLite', () => sqliteBackend(), notLinux],
  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  ['PostgreSQL', () => postgresBackend('vellum_cluster'), notLinux || !pgAdminUrl],
];

describe.each(backends)('vellum serve with VELLUM_WORKERS=2 on %s', (name, makeBackend, skip) => {
  let backend: Backend;
  let server: RunningServer;
  let primary: number;
  let host: string;
  let auth: { authorization: string };
  // A new connection per request: the primary hands connections to the workers in turn.
  const fresh = { connection: 'close' };

  /**
   * The processes that logged a request for `url` after `mark` (an output length). Log
   * lines may reach us after the answer: waits up to 5 s for `expected` before returning what it saw.
   */
  async function servedSince(mark: number, url: string, expected: Set<number>): Promise<Set<number>> {
    const seen = () => servedBy(server.output().slice(mark), url);
    const same = () => seen().size === expected.size && [...expected].every((pid) => seen().has(pid));
    await until('the request log lines', same, 5000).catch(() => undefined);
    return seen();
  }

  const listening = () =>
    logLines(server.output())
      .filter((l) => l.msg === 'worker listening')
      .map((l) => l.workerPid as number);

  beforeAll(async () => {
    if (skip) return;
    backend = makeBackend();
    const port = await freePort();
    // Single-tenant mode: the primary creates the demo tenant before it forks.
    server = await startServer(serverEnv({ ...(await backend.env()), VELLUM_PORT: String(port), VELLUM_WORKERS: '2' }));
    primary = server.proc.pid as number;
    await until('both workers to listen', () => listening().length >= 2);
    host = `localhost:${port}`;
    const printed = server.output();
    const start = printed.indexOf('{', printed.indexOf('shown only this once'));
    const demo = JSON.parse(printed.slice(start, printed.indexOf('\n}', start) + 2)) as { clientId: string; clientSecret: string; audience: string };
    const token = await http(port, 'POST', '/oauth/token', {
      host,
      body: { grant_type: 'client_credentials', client_id: demo.clientId, client_secret: demo.clientSecret, audience: demo.audience },
    });
    expect(token.status, token.text).toBe(200);
    auth = { authorization: `Bearer ${token.json().access_token}` };
  });

  afterAll(async () => {
    if (skip) return;
    if (server && server.proc.exitCode === null) {
      // Only when a test failed before the SIGTERM test: end the workers this test started too.
      const workers = childrenOf(primary);
      await server.stop('SIGKILL');
      for (const pid of workers) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    await backend?.cleanup();
  });

  it.skipIf(skip)('the primary migrates and creates the demo tenant once, then runs two workers as its child processes', async () => {
    expect(server.output().split('shown only this once')).toHaveLength(2);
    // On SQLite without VELLUM_MASTER_KEY, the development-key warning comes once, from the primary, not once per worker (issue 28).
    expect(server.output().match(/VELLUM_MASTER_KEY is not set/g) ?? []).toHaveLength(name === 'SQLite' ? 1 : 0);
    const workers = childrenOf(primary);
    expect(workers).toHaveLength(2);
    expect(new Set(listening())).toEqual(new Set(workers));
    expect(workers).not.toContain(primary);
  });

  it.skipIf(skip)('serves requests from both workers', async () => {
    const mark = server.output().length;
    for (let i = 0; i < 6; i++) {
      const res = await http(server.port, 'GET', '/ready', { headers: fresh });
      expect(res.status, res.text).toBe(200);
      expect(res.json()).toEqual({ status: 'ready' });
    }
    const workers = new Set(childrenOf(primary));
    expect(await servedSince(mark, '/ready', workers)).toEqual(workers);
  });

  it.skipIf(skip)(
    'redeems a pre-authorized code exactly once when racing token requests are spread over both workers (OpenID4VCI 1.0 §6, docs/decisions.md "Users, offers, the token and nonce endpoints")',
    async () => {
      const configuration = await http(server.port, 'POST', '/v2/credentials/mobile/configurations', {
        host,
        headers: auth,
        body: {
          type: 'org.iso.18013.5.1.mDL',
          expiresIn: { days: 30 },
          claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName' } } },
        },
      });
      expect(configuration.status, configuration.text).toBe(201);
      const mark = server.output().length;
      for (let round = 0; round < 4; round++) {
        const offer = await http(server.port, 'POST', '/v1/openid/offers/pre-authorized', {
          host,
          headers: auth,
          body: { credentials: [configuration.json().id], claims: { familyName: 'Lovelace' } },
        });
        expect(offer.status, offer.text).toBe(200);
        const code = JSON.parse(new URL(offer.json().uri).searchParams.get('credential_offer') as string).grants[GRANT]['pre-authorized_code'] as string;
        const form = new URLSearchParams({ grant_type: GRANT, 'pre-authorized_code': code }).toString();
        const answers = await Promise.all(
          Array.from({ length: 10 }, () =>
            http(server.port, 'POST', '/v1/oauth/token', { host, headers: { ...fresh, 'content-type': 'application/x-www-form-urlencoded' }, raw: form }),
          ),
        );
        expect(
          answers.filter((a) => a.status === 200),
          `round ${round}`,
        ).toHaveLength(1);
        for (const a of answers.filter((x) => x.status !== 200)) {
          expect(a.status, a.text).toBe(400);
          expect(a.json()).toMatchObject({ error: 'invalid_grant' });
        }
      }
      const workers = new Set(childrenOf(primary));
      expect(await servedSince(mark, '/v1/oauth/token', workers)).toEqual(workers);
    },
  );

  it.skipIf(skip)('replaces a worker killed with SIGKILL, and keeps answering meanwhile', async () => {
    const [victim, survivor] = childrenOf(primary) as [number, number];
    process.kill(victim, 'SIGKILL');
    await until('the primary to see the worker die', () =>
      logLines(server.output()).some((l) => l.msg === 'worker exited unexpectedly: starting another' && l.workerPid === victim),
    );
    for (let i = 0; i < 3; i++) expect((await http(server.port, 'GET', '/health', { headers: fresh })).status).toBe(200);
    const replacement = await until('a new worker to listen', () => listening().find((pid) => pid !== victim && pid !== survivor));
    expect(childrenOf(primary)).toEqual([survivor, replacement].sort((a, b) => a - b));
    const mark = server.output().length;
    for (let i = 0; i < 4; i++) expect((await http(server.port, 'GET', '/ready', { headers: fresh })).status).toBe(200);
    expect(await servedSince(mark, '/ready', new Set([survivor, replacement]))).toEqual(new Set([survivor, replacement]));
  });

  it.skipIf(skip)('stops every process on SIGTERM to the primary, with exit code 0', async () => {
    const workers = childrenOf(primary);
    expect(workers).toHaveLength(2);
    expect(await server.stop('SIGTERM')).toBe(0);
    for (const pid of workers) expect(alive(pid), `worker ${pid}`).toBe(false);
    const stopped = logLines(server.output())
      .filter((l) => l.msg === 'worker stopped')
      .map((l) => l.workerPid);
    expect(new Set(stopped)).toEqual(new Set(workers));
  });
});
