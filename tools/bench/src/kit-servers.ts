// Vellum started the way the peer kit's compare.mjs starts it (../shared/peer-bench): `vellum serve`
// on a fresh SQLite data directory, the default tenant `bench`, log level info to a stdout this
// process keeps reading (as a log collector would), and an mDL mDoc configuration made over the
// admin API. Used by flow-profile.ts and flow-cost.ts so that their numbers are those of the kit.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clockTicksPerSecond } from './http-load.ts';

export interface Started {
  readonly child: ChildProcess;
  readonly base: string;
  /** The kit driver's arguments that point it at this server's offer endpoint and configuration. */
  readonly driverArgs: readonly string[];
  /** The issuer's offer call, as the driver makes it: flow `n`'s request. */
  readonly offer: (n: number) => { path: string; headers: Record<string, string>; body: string };
  /** The configuration the wallet asks for. */
  readonly configurationId: string;
  /** Endpoints the kit's driver is told rather than discovers (`ours` preset). */
  readonly paths?: { token: string; credential: string };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitForAnswer(url: string, ms = 30_000): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`no answer from ${url}`);
}

/**
 * Runs the kit's driver (`flow-load.mjs`) against `server` for `seconds` at `concurrency` wallets,
 * its JSON result written to `out`; settles when the driver exits (rejects unless it exits 0).
 */
export function runKitDriver(
  kit: string,
  server: Started,
  options: { concurrency: string; seconds: number; warmupFlows: number; out: string; serverPid?: number },
): Promise<void> {
  const args = [
    join(kit, 'flow-load.mjs'),
    '--base',
    server.base,
    ...server.driverArgs,
    '--concurrency',
    options.concurrency,
    '--max-seconds',
    String(options.seconds),
    '--max-flows',
    '200000',
    '--warmup-flows',
    String(options.warmupFlows),
    ...(options.serverPid === undefined ? [] : ['--server-pid', String(options.serverPid)]),
    '--out',
    options.out,
  ];
  return new Promise((done, fail) => {
    const driver = spawn(process.execPath, args, { cwd: kit, stdio: ['ignore', 'ignore', 'inherit'] });
    driver.once('exit', (code) => (code === 0 ? done() : fail(new Error(`the driver exited with ${code}`))));
  });
}

/** SIGTERM to the process group, then SIGKILL after 5 s. */
export async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid, 'SIGTERM');
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }, 5_000);
  await exited;
  clearTimeout(timer);
}

/** The kit's peer (the Sphereon issuer server, state in memory), as compare.mjs starts it. */
export async function startKitPeer(options: { kit: string; port: number; nodeArgs?: readonly string[] }): Promise<Started> {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), join(options.kit, 'peer-sphereon/server.mjs'), '--port', String(options.port), '--quiet'],
    {
      cwd: options.kit,
      detached: true,
      stdio: 'ignore',
    },
  );
  const base = `http://127.0.0.1:${options.port}`;
  await waitForAnswer(`${base}/.well-known/openid-credential-issuer`);
  const configurationId = 'UniversityDegree_jwt_vc_json';
  return {
    child,
    base,
    driverArgs: ['--preset', 'sphereon'],
    configurationId,
    // The body of the kit's `sphereon` preset, with a fresh code per flow.
    offer: (n) => ({
      path: '/webapp/credential-offers',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        credential_configuration_ids: [configurationId],
        grants: { 'urn:ietf:params:oauth:grant-type:pre-authorized_code': { 'pre-authorized_code': randomBytes(16).toString('base64url') } },
        credentialDataSupplierInput: { given_name: 'Erika', family_name: 'Mustermann', document_number: String(n) },
      }),
    }),
  };
}

export async function startKitVellum(options: {
  vellumDir: string;
  port: number;
  workers: number;
  nodeArgs?: readonly string[];
  env?: Record<string, string>;
}): Promise<Started> {
  const { vellumDir, port } = options;
  const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-'));
  const env = {
    ...process.env,
    VELLUM_DATA_DIR: dir,
    VELLUM_PORT: String(port),
    VELLUM_HOST: '127.0.0.1',
    VELLUM_PUBLIC_URL: `http://127.0.0.1:${port}`,
    VELLUM_DEFAULT_TENANT: 'bench',
    VELLUM_WORKERS: String(options.workers),
    VELLUM_LOG_LEVEL: 'info',
    ...options.env,
  };
  let out = '';
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), join(vellumDir, 'apps/server/src/main.ts'), 'serve'], {
    cwd: vellumDir,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  child.stdout!.on('data', (d: Buffer) => {
    if (out.length < 20_000) out += d;
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForAnswer(`${base}/ready`);
  const printed = /\{[^{}]*"clientSecret"[^{}]*\}/s.exec(out);
  if (!printed) throw new Error(`no tenant credentials printed: ${out.slice(0, 500)}`);
  const creds = JSON.parse(printed[0]) as { clientId: string; clientSecret: string; audience: string };
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST') => {
    const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    // A set-up step that fails stops the benchmark here, not as every flow failing later.
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, string>;
  };
  const token = (
    await post('/oauth/token', { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: creds.clientSecret, audience: creds.audience })
  ).access_token!;
  const admin = { authorization: `Bearer ${token}` };
  const iaca = await post('/v2/credentials/mobile/iacas', { country: 'US' }, admin);
  await post(`/v2/credentials/mobile/iacas/${iaca.id}`, { active: true }, admin, 'PUT');
  const configuration = await post(
    '/v2/credentials/mobile/configurations',
    {
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 365 },
      claimMappings: {
        'org.iso.18013.5.1': {
          family_name: { mapFrom: 'claims.family_name', required: true },
          given_name: { mapFrom: 'claims.given_name' },
          birth_date: { mapFrom: 'claims.birth_date', type: 'date' },
          document_number: { mapFrom: 'claims.document_number' },
          issuing_country: { defaultValue: 'US' },
        },
      },
    },
    admin,
  );
  if (!configuration.id) throw new Error(`configuration: ${JSON.stringify(configuration)}`);
  // The kit's offer body, as compare.mjs gives it to the driver: `{{config}}` and `{{n}}` are the driver's placeholders.
  const offerTemplate =
    '{"credentials":["{{config}}"],"claims":{"family_name":"Okafor","given_name":"Ada","birth_date":"1991-07-14","document_number":"{{n}}"}}';
  const offerBody = (n: number) => offerTemplate.replace('{{config}}', configuration.id!).replace('{{n}}', String(n));
  return {
    child,
    base,
    configurationId: configuration.id!,
    paths: { token: '/v1/oauth/token', credential: '/v1/openid/credential' },
    offer: (n) => ({ path: '/v1/openid/offers/pre-authorized', headers: { 'content-type': 'application/json', ...admin }, body: offerBody(n) }),
    driverArgs: ['--preset', 'ours', '--config-id', configuration.id, '--offer-header', `authorization: Bearer ${token}`, '--offer-body', offerTemplate],
  };
}

/** The process and its descendants (the cluster's workers), by /proc's parent links. */
export function family(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, parent] of parents) if (parent === out[i]) out.push(pid);
  return out;
}

/** CPU seconds (user + system) of the processes, all threads. */
export function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks / clockTicksPerSecond();
}
