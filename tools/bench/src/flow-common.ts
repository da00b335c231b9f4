// What the whole-flow benchmarks share (oid4vci-flow.ts, authorization-code-flow.ts): the virtual
// wallet's key and its proof JWTs, a machine-speed probe, where the machine's cores went during a
// run, and small checks of the answers.
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { clockTicksPerSecond } from './http-load.ts';
import type { WireAnswer } from './wire-client.ts';

export const b64u = (v: string | Buffer) => Buffer.from(v).toString('base64url');

export interface Wallet {
  key: KeyObject;
  /** base64url of the proof's JOSE header (typ, alg and the wallet's public JWK) and the dot after it. */
  proofHeader: string;
}

export function makeWallet(): Wallet {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  return { key: privateKey, proofHeader: `${b64u(JSON.stringify({ typ: 'openid4vci-proof+jwt', alg: 'ES256', jwk }))}.` };
}

/**
 * An ECDSA signature in DER (SEQUENCE { INTEGER r, INTEGER s }) as JWS wants it: r ‖ s, 32 bytes
 * each. node:crypto signs in DER in about half the time it takes with `dsaEncoding: 'ieee-p1363'`.
 * The server has its own conversion (@vellum/crypto ecdsa.ts); the wallet side keeps this one so
 * that the server's is checked against code it does not share.
 */
export function derToJose(der: Buffer): Buffer {
  const out = Buffer.alloc(64);
  let i = der[1] === 0x81 ? 3 : 2; // P-256 signatures are under 128 bytes, but a long form is legal
  for (const at of [0, 32]) {
    if (der[i] !== 0x02) throw new Error('ECDSA signature: INTEGER expected');
    const length = der[i + 1] as number;
    let start = i + 2;
    let n = length;
    while (n > 32 && der[start] === 0) {
      start++;
      n--;
    }
    if (n > 32) throw new Error('ECDSA signature: integer longer than 32 bytes');
    der.copy(out, at + 32 - n, start, start + n);
    i += 2 + length;
  }
  return out;
}

// `{"aud":…,"iat":` for the (one) credential issuer seen so far.
let payloadStart = { aud: '', text: '' };

/** A proof JWT (ES256, compact), freshly signed with the wallet's key over the nonce. */
export function proof(wallet: Wallet, audience: string, nonce: string): string {
  if (payloadStart.aud !== audience) payloadStart = { aud: audience, text: `{"aud":${JSON.stringify(audience)},"iat":` };
  const input = `${wallet.proofHeader}${b64u(`${payloadStart.text}${Math.floor(Date.now() / 1000)},"nonce":${JSON.stringify(nonce)}}`)}`;
  return `${input}.${derToJose(sign('sha256', Buffer.from(input, 'latin1'), wallet.key)).toString('base64url')}`;
}

/** ES256 signatures per ms on one core, right now: the same work on any day, to compare runs by. */
export function machineSpeed(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const data = Buffer.from('machine speed');
  for (let i = 0; i < 200; i++) sign('sha256', data, privateKey);
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < 300) {
    for (let i = 0; i < 50; i++) sign('sha256', data, privateKey);
    n += 50;
  }
  const perSignature = ((performance.now() - started) * 1000) / n;
  return `Machine speed now: ${perSignature.toFixed(1)} µs per ES256 signature (node:crypto, one core, nothing else running)`;
}

/** The whole machine's CPU time so far from /proc/stat, in clock ticks; undefined where there is none. */
export function machineTicks(): { busy: number; idle: number; iowait: number; steal: number } | undefined {
  let line: string | undefined;
  try {
    line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  } catch {
    return undefined;
  }
  // cpu  user nice system idle iowait irq softirq steal …
  const fields = (line ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 8 || fields.some(Number.isNaN)) return undefined;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields as [number, number, number, number, number, number, number, number];
  return { busy: user + nice + system + irq + softirq, idle, iowait, steal };
}

/**
 * Where the machine's cores went during a run, so that a run the VM starved can be told from a slow
 * server: the server's and the driver's share, any `others` measured (CPU seconds by name, e.g. an
 * identity provider in its own process), anything else that ran, idle time and time stolen by the
 * hypervisor, in cores.
 */
export function coresLine(
  before: ReturnType<typeof machineTicks>,
  after: ReturnType<typeof machineTicks>,
  seconds: number,
  serverCpu: number | undefined,
  driverCpu: number,
  others: Record<string, number> = {},
): string | undefined {
  if (!before || !after || serverCpu === undefined) return undefined;
  const cores = (ticks: number) => ticks / clockTicksPerSecond() / seconds;
  const busy = cores(after.busy - before.busy);
  const f = (v: number) => Math.max(0, v).toFixed(2);
  const measured = Object.values(others).reduce((sum, cpu) => sum + cpu, serverCpu + driverCpu);
  const named = Object.entries(others)
    .map(([name, cpu]) => `, ${name} ${f(cpu / seconds)}`)
    .join('');
  return `  cores of the machine (${availableParallelism()}) in this run: server ${f(serverCpu / seconds)}, driver ${f(driverCpu / seconds)}${named}, anything else ${f(busy - measured / seconds)}, idle ${f(cores(after.idle - before.idle))}, I/O wait ${f(cores(after.iowait - before.iowait))}, stolen ${f(cores(after.steal - before.steal))}`;
}

/** The answer's text, or throws when the status is not the expected one. */
export const checked = (step: string, r: WireAnswer, status: number) => {
  if (r.status !== status) throw new Error(`${step}: ${r.status} ${r.text.slice(0, 200)}`);
  return r.text;
};

/** `name`'s value in a URI's query, as URLSearchParams would decode it. */
export function queryParam(uri: string, name: string): string {
  const at = uri.indexOf(`${name}=`, uri.indexOf('?'));
  if (at < 0 || !(uri[at - 1] === '?' || uri[at - 1] === '&')) throw new Error(`no ${name} in ${uri.slice(0, 100)}`);
  const end = uri.indexOf('&', at);
  return decodeURIComponent(uri.slice(at + name.length + 1, end < 0 ? undefined : end).replaceAll('+', ' '));
}

export const cpuSecondsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
};
