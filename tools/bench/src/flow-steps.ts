// Server CPU per step of the Pre-authorized flow (offer, token, nonce, credential), for Vellum or
// the peer kit's issuer, measured step by step: N offers are made, then their N codes are redeemed,
// then N nonces fetched, then N credentials requested, each phase with the same concurrency, and the
// server's own CPU counters (/proc, all its threads) are read around each phase. A CPU profile
// cannot split a flow this way (half its samples are HTTP parsing and resumed promises, which name
// no step); counting each step alone can. Run in phases, the steps batch their commits the same
// way as in whole flows (many requests in flight), so the sum is close to a flow's cost.
//
//   node tools/bench/src/flow-steps.ts --kit DIR [--system vellum|peer] [--vellum DIR] [--flows 3000] [--conc 48] [--rounds 2] [--env K=V,...]
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { cpuSeconds, family, type Started, startKitPeer, startKitVellum, stopGroup } from './kit-servers.ts';

const { values } = parseArgs({
  options: {
    kit: { type: 'string' },
    system: { type: 'string', default: 'vellum' },
    vellum: { type: 'string', default: resolve(import.meta.dirname, '../../..') },
    flows: { type: 'string', default: '3000' },
    conc: { type: 'string', default: '48' },
    rounds: { type: 'string', default: '2' },
    // Settings for Vellum's server, e.g. `--env VELLUM_LOG_LEVEL=warn` to see what its request log line costs.
    env: { type: 'string', default: '' },
  },
});
if (!values.kit) throw new Error('--kit DIR: the peer-bench kit, installed as its README.md says');
const system = values.system;
if (system !== 'vellum' && system !== 'peer') throw new Error(`--system must be vellum or peer, not ${system}`);
const flows = Number(values.flows);
const conc = Number(values.conc);

interface Answer {
  status: number;
  json: Record<string, unknown>;
}

const server: Started =
  system === 'vellum'
    ? await startKitVellum({
        vellumDir: resolve(values.vellum),
        port: 3980,
        workers: 1,
        env: Object.fromEntries(
          values.env
            .split(',')
            .filter(Boolean)
            .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
        ),
      })
    : await startKitPeer({ kit: resolve(values.kit), port: 8196 });
const pool = new Pool(server.base, { connections: conc, pipelining: 1 });
const call = async (method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> => {
  const url = new URL(path, server.base);
  const res = await pool.request({ method, path: url.pathname + url.search, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
};
const expect = (step: string, answer: Answer, status = 200) => {
  if (answer.status !== status && !(step === 'offer' && answer.status === 201))
    throw new Error(`${step}: ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`);
  return answer.json;
};

/** The pre-authorized code of an offer answer (inline, in a URI, or by reference). */
async function codeOf(answer: Record<string, unknown>): Promise<string> {
  let offer = answer.credential_offer as Record<string, unknown> | string | undefined;
  const uri = (answer.uri ?? answer.credential_offer_uri) as string | undefined;
  if (!offer && uri) {
    const query = new URL(uri.replace(/^[a-z0-9+.-]+:\/\/\??/i, 'x://x/?')).searchParams;
    offer = query.get('credential_offer') ?? undefined;
    const byReference = query.get('credential_offer_uri');
    if (!offer && byReference) offer = expect('offer fetch', await call('GET', byReference));
  }
  const parsed = (typeof offer === 'string' ? JSON.parse(offer) : offer) as { grants: Record<string, { 'pre-authorized_code': string }> };
  return parsed.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']!['pre-authorized_code'];
}

// Discovery, once, as the kit's driver does it.
const metadata = expect('metadata', await call('GET', '/.well-known/openid-credential-issuer')) as Record<string, string>;
const issuer = metadata.credential_issuer!;
const authorization = expect('as metadata', await call('GET', '/.well-known/oauth-authorization-server')) as Record<string, string>;
const tokenPath = server.paths?.token ?? authorization.token_endpoint!;
const credentialPath = server.paths?.credential ?? metadata.credential_endpoint!;
const noncePath = metadata.nonce_endpoint;
if (!noncePath) throw new Error('this driver needs a nonce endpoint');

const wallets = Array.from({ length: conc }, () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  return { key: privateKey, header: Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: { kty, crv, x, y } })).toString('base64url') };
});
const proof = (wallet: { key: KeyObject; header: string }, nonce: string) => {
  const payload = Buffer.from(JSON.stringify({ aud: issuer, iat: Math.floor(Date.now() / 1000), nonce })).toString('base64url');
  const signature = sign('sha256', Buffer.from(`${wallet.header}.${payload}`), { key: wallet.key, dsaEncoding: 'ieee-p1363' });
  return `${wallet.header}.${payload}.${signature.toString('base64url')}`;
};

/** Runs `work(i)` for i in [0, n) with `conc` in flight; the server's CPU and the wall time it took. */
async function phase<T>(n: number, work: (i: number) => Promise<T>): Promise<{ results: T[]; cpuMs: number; wallMs: number }> {
  const pids = family(server.child.pid!);
  const results: T[] = new Array(n);
  let next = 0;
  const cpu0 = cpuSeconds(pids);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (next < n) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return { results, cpuMs: (cpuSeconds(pids) - cpu0) * 1000, wallMs: performance.now() - t0 };
}

async function round(n: number, offset: number) {
  const offers = await phase(n, async (i) => {
    const { path, headers, body } = server.offer(offset + i);
    return codeOf(expect('offer', await call('POST', path, headers, body)));
  });
  const tokens = await phase(n, async (i) => {
    const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': offers.results[i]! });
    return expect('token', await call('POST', tokenPath, { 'content-type': 'application/x-www-form-urlencoded' }, form.toString())).access_token as string;
  });
  const nonces = await phase(n, async () => expect('nonce', await call('POST', noncePath!, { 'content-length': '0' })).c_nonce as string);
  const credentials = await phase(n, async (i) => {
    const body = JSON.stringify({ credential_configuration_id: server.configurationId, proofs: { jwt: [proof(wallets[i % conc]!, nonces.results[i]!)] } });
    const answer = expect(
      'credential',
      await call('POST', credentialPath, { 'content-type': 'application/json', authorization: `Bearer ${tokens.results[i]}` }, body),
    );
    if (!(answer.credentials ?? answer.credential)) throw new Error('credential: no credential in the answer');
  });
  return { offer: offers, token: tokens, nonce: nonces, credential: credentials };
}

try {
  await round(300, 0); // warm-up: JIT, caches, first rows
  const rounds = Number(values.rounds);
  const sums: Record<string, { cpuMs: number; wallMs: number }> = {};
  for (let r = 0; r < rounds; r++) {
    const steps = await round(flows, 1_000_000 * (r + 1));
    for (const [step, { cpuMs, wallMs }] of Object.entries(steps)) {
      sums[step] ??= { cpuMs: 0, wallMs: 0 };
      sums[step].cpuMs += cpuMs;
      sums[step].wallMs += wallMs;
    }
  }
  const total = rounds * flows;
  console.log(`${system}: ${rounds} rounds of ${flows} flows, ${conc} in flight, one server process`);
  console.log('| step | server CPU per request | requests/s in its phase |\n| --- | --- | --- |');
  let sum = 0;
  for (const [step, { cpuMs, wallMs }] of Object.entries(sums)) {
    sum += cpuMs;
    console.log(`| ${step} | ${((cpuMs * 1000) / total).toFixed(0)} µs | ${((total * 1000) / wallMs).toFixed(0)} |`);
  }
  console.log(`| whole flow | ${((sum * 1000) / total).toFixed(0)} µs | |`);
} finally {
  await pool.close();
  await stopGroup(server.child);
}
