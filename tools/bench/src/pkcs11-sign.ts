// Signatures per second through the KeyManager (issue 32, point 5): software keys (sealed in the
// store, signed with node:crypto on the event loop) beside keys a SoftHSM 2 token holds (signed by
// the token through pkcs11js on libuv's thread pool), P-256 and Ed25519, one at a time and with
// several in flight. The store is SQLite behind the server's read cache, as `vellum serve` runs it.
//
//   node tools/bench/src/pkcs11-sign.ts [--seconds 2] [--in-flight 8] [--sessions 4] [--thread-pool false]
//
// Needs Debian's softhsm2 (the token is made in a temporary directory). Rates are per second of
// wall-clock time and per CPU-second of this process (every thread: the token's work is in it too).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type KeyAlgorithm, type KeyManager, routeKeysByCustody } from '@vellum/core';
import { createKeyManager, createSealer } from '@vellum/crypto';
import { createNodeIds, systemClock } from '@vellum/node';
import { createPkcs11KeyManager, openPkcs11Token } from '@vellum/pkcs11';
import { openSqlStore } from '@vellum/storage-sql';
import { cacheReads } from '@vellum/store-cache';
import { initSoftHsmToken, softHsmInstalled } from '@vellum/testing/fakes';
import { printMachine, thousands as f } from './throughput.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '2' },
    'in-flight': { type: 'string', default: '8' },
    sessions: { type: 'string', default: '4' },
    // `false`: the token signs on the event loop (C_Sign) instead of libuv's thread pool.
    'thread-pool': { type: 'string', default: 'true' },
  },
});
const SECONDS = Number(values.seconds);
const IN_FLIGHT = Number(values['in-flight']);
if (!softHsmInstalled) throw new Error('Needs SoftHSM 2: apt-get install softhsm2');

printMachine();
const hsm = initSoftHsmToken({ label: 'vellum-bench' });
const store = cacheReads(await openSqlStore({ kind: 'sqlite', filename: join(mkdtempSync(join(tmpdir(), 'vellum-pkcs11-bench-')), 'store.db') }), {
  ttlMs: 1000,
});
const ids = createNodeIds();
const threadPool = values['thread-pool'] !== 'false';
const token = openPkcs11Token({ module: hsm.module, tokenLabel: hsm.label, pin: hsm.pin, sessions: Number(values.sessions), threadPool });
const software = createKeyManager({ keys: store.keys, sealer: createSealer(new Uint8Array(32).fill(7)), ids, clock: systemClock });
const pkcs11 = createPkcs11KeyManager({ token, keys: store.keys, ids, clock: systemClock });
// As the server composes them when a token is configured: every signature goes through the router.
const routed = (custody: 'software' | 'pkcs11') => routeKeysByCustody({ keys: store.keys, managers: { software, pkcs11 }, custodyFor: () => custody });
const tenant = { id: ids.uuid(), subdomain: 'bench', region: 'eu01' as const, name: 'Bench', loggingLevel: 1 as const, createdAt: new Date().toISOString() };
await store.tenants.insert(tenant);
const message = new Uint8Array(400).fill(0x5a);

interface Measured {
  perSecond: number;
  perCpuSecond: number;
}

/** Signs for `seconds` with `inFlight` signatures outstanding at any time. */
async function measure(keys: KeyManager, keyId: string, inFlight: number, seconds: number): Promise<Measured> {
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const until = start + seconds * 1000;
  let count = 0;
  const lane = async () => {
    while (performance.now() < until) {
      await keys.sign(tenant.id, keyId, message);
      count++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  const wall = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu0);
  return { perSecond: count / wall, perCpuSecond: count / ((used.user + used.system) / 1e6) };
}

const rows: Array<{ custody: string; algorithm: KeyAlgorithm; inFlight: number; runs: Measured[] }> = [];
for (const algorithm of ['P-256', 'Ed25519'] as const) {
  const keys = { software: routed('software'), pkcs11: routed('pkcs11') };
  const made = { software: await keys.software.create(tenant.id, algorithm), pkcs11: await keys.pkcs11.create(tenant.id, algorithm) };
  for (const inFlight of [1, IN_FLIGHT]) {
    const runs: Record<'software' | 'pkcs11', Measured[]> = { software: [], pkcs11: [] };
    // Warm up, then alternate the two custodies so that drift hits both alike.
    for (const custody of ['software', 'pkcs11'] as const) await measure(keys[custody], made[custody].id, inFlight, 0.5);
    for (let turn = 0; turn < 2; turn++) {
      for (const custody of ['software', 'pkcs11'] as const) runs[custody].push(await measure(keys[custody], made[custody].id, inFlight, SECONDS / 2));
    }
    for (const custody of ['software', 'pkcs11'] as const) rows.push({ custody, algorithm, inFlight, runs: runs[custody] });
  }
}

console.log(
  `\nKeyManager.sign of ${message.length} bytes, SQLite behind the 1 s read cache, ${values.sessions} token sessions, token signing ${threadPool ? 'on the thread pool' : 'on the event loop'}\n`,
);
console.log('| key | custody | in flight | signatures/s (wall) | signatures per CPU-second | µs of CPU each |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  const wall = r.runs.map((m) => f(m.perSecond)).join(' / ');
  const cpu = r.runs.map((m) => f(m.perCpuSecond)).join(' / ');
  const each = r.runs.map((m) => (1e6 / m.perCpuSecond).toFixed(0)).join(' / ');
  console.log(`| ${r.algorithm} | ${r.custody} | ${r.inFlight} | ${wall} | ${cpu} | ${each} |`);
}
await token.close();
await store.close();
