// Complete OpenID4VCI Pre-authorized Code flows against the real server on SQLite:
// offer → token (with a transaction code) → nonce → credential (an mDoc with 6 claims), driven by
// virtual wallets on loopback. Two runs: as many flows as the server will take (flows/s, p50/p99
// per step), then a fixed 400 flows/s (p99 of the credential request). The server is pinned to core
// 0 and this driver to the rest when taskset and a second core exist, so the machine's two cores
// hold both sides, as the issue asks.
//
//   node tools/bench/src/oid4vci-flow.ts [--seconds 10] [--wallets 48] [--rate 400] [--log-level info] [--workers 1]
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { parseArgs } from 'node:util';
import { percentile, startBenchServer, type BenchServer } from './http-load.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    wallets: { type: 'string', default: '48' },
    rate: { type: 'string', default: '400' },
    'log-level': { type: 'string', default: 'info' },
    workers: { type: 'string', default: '1' },
  },
});
const seconds = Number(values.seconds);
const walletCount = Number(values.wallets);
const rate = Number(values.rate);

const STEPS = ['offer', 'token', 'nonce', 'credential'] as const;
type Step = (typeof STEPS)[number];
const b64u = (v: string | Buffer) => Buffer.from(v).toString('base64url');

interface Wallet {
  key: KeyObject;
  jwk: Record<string, unknown>;
}

function makeWallet(): Wallet {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { key: privateKey, jwk: publicKey.export({ format: 'jwk' }) as Record<string, unknown> };
}

function proof(wallet: Wallet, audience: string, nonce: string): string {
  const input = `${b64u(JSON.stringify({ typ: 'openid4vci-proof+jwt', alg: 'ES256', jwk: wallet.jwk }))}.${b64u(JSON.stringify({ aud: audience, iat: Math.floor(Date.now() / 1000), nonce }))}`;
  return `${input}.${b64u(sign('sha256', Buffer.from(input), { key: wallet.key, dsaEncoding: 'ieee-p1363' }))}`;
}

async function setUp(server: BenchServer) {
  const admin = await server.auth();
  const iaca = JSON.parse((await server.call('POST', '/v2/credentials/mobile/iacas', { headers: admin, body: { country: 'US' } })).text) as { id: string };
  await server.call('PUT', `/v2/credentials/mobile/iacas/${iaca.id}`, { headers: admin, body: { active: true } });
  const configuration = await server.call('POST', '/v2/credentials/mobile/configurations', {
    headers: admin,
    body: {
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 365 },
      claimMappings: {
        'org.iso.18013.5.1': {
          family_name: { mapFrom: 'claims.familyName', required: true },
          given_name: { mapFrom: 'claims.givenName' },
          birth_date: { mapFrom: 'claims.birthDate', type: 'date' },
          age_over_18: { mapFrom: 'claims.adult', type: 'boolean' },
          document_number: { mapFrom: 'claims.documentNumber' },
          issuing_country: { defaultValue: 'US' },
        },
      },
    },
  });
  if (configuration.status !== 201) throw new Error(`configuration: ${configuration.status} ${configuration.text}`);
  return { admin, configurationId: (JSON.parse(configuration.text) as { id: string }).id };
}

/** One whole flow; returns the duration of each step in ms, or throws on any non-success. */
async function flow(server: BenchServer, admin: Record<string, string>, configurationId: string, wallet: Wallet): Promise<Record<Step, number>> {
  const times = {} as Record<Step, number>;
  const timed = async <T>(step: Step, work: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const out = await work();
    times[step] = performance.now() - t0;
    return out;
  };
  const expectStatus = (step: string, r: { status: number; text: string }, status: number) => {
    if (r.status !== status) throw new Error(`${step}: ${r.status} ${r.text.slice(0, 200)}`);
    return JSON.parse(r.text) as Record<string, any>;
  };
  const offer = await timed('offer', async () =>
    expectStatus('offer', await server.call('POST', '/v1/openid/offers/pre-authorized', {
      headers: admin,
      body: { credentials: [configurationId], claims: { familyName: 'Okafor', givenName: 'Ada', birthDate: '1991-07-14', adult: true, documentNumber: 'D1' }, transactionCodeConfiguration: { inputMode: 'numeric' } },
    }), 200),
  );
  const credentialOffer = JSON.parse(new URL(offer.uri as string).searchParams.get('credential_offer') as string);
  const code = credentialOffer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']['pre-authorized_code'] as string;
  const token = await timed('token', async () =>
    expectStatus('token', await server.call('POST', '/v1/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      raw: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': code, tx_code: offer.transactionCode as string }).toString(),
    }), 200),
  );
  const nonce = await timed('nonce', async () => expectStatus('nonce', await server.call('POST', '/v1/openid/nonce'), 200));
  await timed('credential', async () =>
    expectStatus('credential', await server.call('POST', '/v1/openid/credential', {
      headers: { authorization: `Bearer ${token.access_token as string}` },
      body: { credential_configuration_id: configurationId, proofs: { jwt: [proof(wallet, credentialOffer.credential_issuer as string, nonce.c_nonce as string)] } },
    }), 200),
  );
  return times;
}

const cpuSecondsSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
};

function report(label: string, samples: Record<Step, number>[], failures: number, elapsedMs: number, cpu: number | undefined, driverCpu: number) {
  const flowsPerSecond = samples.length / (elapsedMs / 1000);
  console.log(`\n${label}: ${samples.length} flows in ${(elapsedMs / 1000).toFixed(1)} s = ${flowsPerSecond.toFixed(0)} flows/s, ${failures} failed` + (cpu ? `, ${(samples.length / cpu).toFixed(0)} flows per server CPU-second` : '') + `, driver ${((driverCpu / samples.length) * 1000).toFixed(2)} ms CPU per flow`);
  for (const step of STEPS) {
    const sorted = samples.map((s) => s[step]).sort((a, b) => a - b);
    console.log(`  ${step.padEnd(10)} p50 ${percentile(sorted, 50).toFixed(2)} ms   p99 ${percentile(sorted, 99).toFixed(2)} ms`);
  }
  return flowsPerSecond;
}

const workers = Number(values.workers);
const server = await startBenchServer({ connections: walletCount * 2, logLevel: values['log-level'] as string, workers });
try {
  const { admin, configurationId } = await setUp(server);
  const wallets = Array.from({ length: walletCount }, makeWallet);
  console.log(`Node ${process.version}; server ${workers > 1 ? `with ${workers} workers, sharing every core with the driver` : server.pinned ? 'pinned to core 0, driver on the other cores' : 'not pinned'}; SQLite; log level ${values['log-level']}; ${walletCount} wallets`);

  // Warm up.
  await Promise.all(wallets.slice(0, 8).map((w) => flow(server, admin, configurationId, w)));

  // 1. Saturation: every wallet runs flows back to back.
  {
    const samples: Record<Step, number>[] = [];
    let failures = 0;
    const cpu0 = server.cpuSeconds();
    const driver0 = process.cpuUsage();
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(
      wallets.map(async (w) => {
        while (performance.now() < until) {
          try {
            samples.push(await flow(server, admin, configurationId, w));
          } catch (error) {
            failures += 1;
            if (failures <= 3) console.error(String(error));
          }
        }
      }),
    );
    const cpu1 = server.cpuSeconds();
    report('Saturation', samples, failures, performance.now() - started, cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined, cpuSecondsSince(driver0));
  }

  // 2. A fixed arrival rate: a new flow every 1/rate s, whatever the answers take (--rate 0 skips it).
  if (rate > 0) {
    const samples: Record<Step, number>[] = [];
    let failures = 0;
    const inFlight = new Set<Promise<void>>();
    const driver0 = process.cpuUsage();
    const started = performance.now();
    let launched = 0;
    while (performance.now() - started < seconds * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * rate);
      while (launched < due) {
        const w = wallets[launched % wallets.length] as Wallet;
        launched += 1;
        const p: Promise<void> = flow(server, admin, configurationId, w).then(
          (t) => void samples.push(t),
          () => void (failures += 1),
        ).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(inFlight);
    report(`Fixed rate ${rate} flows/s`, samples, failures, performance.now() - started, undefined, cpuSecondsSince(driver0));
  }
} finally {
  await server.stop();
}
