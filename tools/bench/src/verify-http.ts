// Presentations verified per second through HTTP (issue 31): the real server (`vellum serve` on
// SQLite, started as http-load.ts starts it), a tenant that trusts one CA for both formats, and N
// concurrent clients each posting the same presentation to `POST /v2/credentials/sd-jwt/verify`
// (an SD-JWT VC with a KB-JWT, nonce and audience checked) or `/v2/credentials/mobile/verify` (an
// mDoc IssuerSigned) as soon as the last answer came, for S seconds per format after a 2 s warm-up.
// Every answer must be a 200 with `"verified":true`. It prints verifications per second (wall) and
// the server's CPU per verification (its processes' /proc counters), the figure to compare by on a
// busy machine. The credentials are verify-samples.ts's, as in verify-per-core.ts.
//
//   node tools/bench/src/verify-http.ts [--seconds 10] [--clients 16] [--workers 1] [--format sd-jwt|mdoc] [--log-level warn]
//
// With one worker the server is pinned to core 0 and this driver to the others (http-load.ts).
// VELLUM_* variables of this shell reach the server.
import { parseArgs } from 'node:util';
import { coresLine, cpuSecondsSince, machineSpeed, machineTicks } from './flow-common.ts';
import { percentile, startBenchServer } from './http-load.ts';
import { thousands as f } from './throughput.ts';
import { AUDIENCE, makeVerifySamples, NONCE } from './verify-samples.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    clients: { type: 'string', default: '16' },
    workers: { type: 'string', default: '1' },
    format: { type: 'string' },
    'log-level': { type: 'string', default: 'warn' },
  },
});
const seconds = Number(values.seconds);
const clients = Number(values.clients);
const workers = Number(values.workers);
if (!(seconds > 0)) throw new Error('--seconds must be positive');
if (!(Number.isInteger(clients) && clients > 0)) throw new Error('--clients must be a positive integer');
if (values.format !== undefined && values.format !== 'sd-jwt' && values.format !== 'mdoc') throw new Error('--format must be sd-jwt or mdoc');

const samples = await makeVerifySamples();
const server = await startBenchServer({ connections: clients, logLevel: values['log-level'] as string, workers });
try {
  const admin = await server.auth();
  const trusted = await server.call('POST', '/v2/credentials/trusted-issuers', {
    headers: admin,
    body: { name: 'Bench CA', formats: ['dc+sd-jwt', 'mso_mdoc'], certificates: [samples.caPem] },
  });
  if (trusted.status !== 201) throw new Error(`trusted issuer: ${trusted.status} ${trusted.text}`);
  // Each worker reads the trusted issuers through its cache: wait until a fresh read would see the new one.
  if (workers > 1) await new Promise((resolve) => setTimeout(resolve, 1500));

  const cases = [
    {
      name: 'dc+sd-jwt (x5c leaf, 3 disclosures, KB-JWT)',
      key: 'sd-jwt',
      path: '/v2/credentials/sd-jwt/verify',
      body: { credential: samples.sdJwt, nonce: NONCE, audience: AUDIENCE },
    },
    { name: 'mso_mdoc (IssuerSigned, 5 elements)', key: 'mdoc', path: '/v2/credentials/mobile/verify', body: { credential: samples.mdoc } },
  ].filter((c) => values.format === undefined || c.key === values.format);

  console.log(machineSpeed());
  console.log(
    `${workers} worker(s), ${clients} concurrent clients, ${seconds} s per format${server.pinned ? ', server pinned to core 0' : ''}; every answer must be 200 with verified true`,
  );
  const rows: string[] = [];
  for (const c of cases) {
    const payload = JSON.stringify(c.body);
    const headers = { ...admin, 'content-type': 'application/json' };
    const once = async () => {
      const res = await server.call('POST', c.path, { headers, raw: payload });
      if (res.status !== 200 || !res.text.includes('"verified":true')) throw new Error(`${c.path}: ${res.status} ${res.text.slice(0, 400)}`);
    };
    await once();
    const run = async (ms: number) => {
      const latencies: number[] = [];
      const until = performance.now() + ms;
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (performance.now() < until) {
            const t0 = performance.now();
            await once();
            latencies.push(performance.now() - t0);
          }
        }),
      );
      return latencies;
    };
    await run(2000);
    const ticks0 = machineTicks();
    const cpu0 = server.cpuSeconds();
    const driver0 = process.cpuUsage();
    const started = performance.now();
    const latencies = await run(seconds * 1000);
    const elapsed = (performance.now() - started) / 1000;
    const cpu1 = server.cpuSeconds();
    const ticks1 = machineTicks();
    const driverSeconds = cpuSecondsSince(driver0);
    latencies.sort((a, b) => a - b);
    const count = latencies.length;
    const serverMs = cpu0 === undefined || cpu1 === undefined ? undefined : ((cpu1 - cpu0) * 1000) / count;
    const result = {
      format: c.name,
      verifications: count,
      perSecond: Math.round(count / elapsed),
      serverCpuMsPerVerification: serverMs === undefined ? null : Number(serverMs.toFixed(3)),
      p50ms: Number(percentile(latencies, 50).toFixed(2)),
      p99ms: Number(percentile(latencies, 99).toFixed(2)),
      driverCpuMsPerVerification: Number(((driverSeconds * 1000) / count).toFixed(3)),
    };
    console.log(JSON.stringify(result));
    const cores = coresLine(ticks0, ticks1, elapsed, cpu0 === undefined || cpu1 === undefined ? undefined : cpu1 - cpu0, driverSeconds);
    if (cores) console.log(cores);
    rows.push(
      `| ${c.name} | ${f(count)} | ${f(result.perSecond)} | ${serverMs === undefined ? 'n/a' : serverMs.toFixed(2)} | ${result.p50ms} / ${result.p99ms} |`,
    );
  }
  console.log('\n| format | verifications | per second (wall) | server CPU ms per verification | p50 / p99 ms |\n| --- | --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
} finally {
  await server.stop();
}
