// Credentials per CPU-second of one core through the whole credential endpoint, for batch requests
// (issue 30): each request carries N jwt proofs by N wallet keys over one c_nonce and gets N mDLs,
// verified, signed, recorded (N records, N events) and committed in one transaction, in process
// over the real adapters on one SQLite store (a temporary file, the server's default). Only the
// credential requests are timed: offers, tokens, nonces and proofs are made before, so the figure
// is what the endpoint spends per credential at each batch size.
//
//   node tools/bench/src/batch-per-core.ts [--batches 1,10] [--requests 60] [--no-pin]
//
// Like formats-per-core.ts, the process pins itself to core 0 with `taskset` when it can, and
// rates are per CPU-second of the process, which hold up under `nice`.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import type { RequestContext } from '@vellum/core';
import { b64u, derToJose } from './flow-common.ts';
import { eachStore, tenantWithIaca } from './in-process.ts';
import { printMachine, thousands as f } from './throughput.ts';

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '1,10' },
    requests: { type: 'string', default: '60' },
    'no-pin': { type: 'boolean', default: false },
  },
});
const batches = values.batches.split(',').map((s) => Number(s.trim()));
for (const n of batches) if (!Number.isInteger(n) || n < 1 || n > 100) throw new Error(`--batches: ${n} is not a batch size from 1 to 100`);
const REQUESTS = Number(values.requests);
if (!(Number.isInteger(REQUESTS) && REQUESTS > 0)) throw new Error('--requests must be a positive integer');

if (!values['no-pin'] && availableParallelism() > 1) {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  } catch {
    console.log('taskset failed or is missing: not pinned (run under `taskset -c 0` yourself)');
  }
}
printMachine();

/** A wallet key and its proof header (typ, alg, public JWK), as the flow benchmark's wallets make them. */
function walletKey(): { key: KeyObject; header: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { key: privateKey, header: b64u(JSON.stringify({ typ: 'openid4vci-proof+jwt', alg: 'ES256', jwk: publicKey.export({ format: 'jwk' }) })) };
}

function proof(k: { key: KeyObject; header: string }, audience: string, nonce: string): string {
  const input = `${k.header}.${b64u(JSON.stringify({ aud: audience, iat: Math.floor(Date.now() / 1000), nonce }))}`;
  return `${input}.${derToJose(sign('sha256', Buffer.from(input, 'latin1'), k.key)).toString('base64url')}`;
}

const rows: string[] = [];
await eachStore('batch', ['sqlite'], async (store) => {
  const { vellum, ctx } = await tenantWithIaca(store);
  await vellum.batchIssuance.update(ctx, { batchSize: Math.max(...batches) });
  const tenant = (await store.tenants.findById(ctx.tenant.id)) ?? ctx.tenant;
  const admin: RequestContext = { ...ctx, tenant };
  const { requestor: _admin, ...wallet }: RequestContext = admin;
  const configuration = await vellum.credentialConfigurations.create(admin, 'mso_mdoc', {
    type: 'org.iso.18013.5.1.mDL',
    expiresIn: { days: 365 },
    claimMappings: {
      'org.iso.18013.5.1': {
        family_name: { mapFrom: 'claims.familyName', required: true },
        given_name: { mapFrom: 'claims.givenName' },
        birth_date: { mapFrom: 'claims.birthDate', type: 'date' },
        document_number: { mapFrom: 'claims.documentNumber' },
        issuing_country: { defaultValue: 'US' },
      },
    },
  });
  const id = (configuration as { id: string }).id;
  const issuer = ctx.origin;
  const keys = Array.from({ length: Math.max(...batches) }, walletKey);

  /** Offers redeemed and nonces fetched for `count` requests of `n` proofs each: the bodies to send. */
  async function prepared(count: number, n: number) {
    const out: Array<{ authorization: string; body: string }> = [];
    for (let i = 0; i < count; i++) {
      const offer = await vellum.offers.createPreAuthorizedOffer(admin, {
        credentials: [id],
        claims: { familyName: 'Okafor', givenName: 'Ada', birthDate: '1991-07-14', documentNumber: `D${i}` },
      });
      const credentialOffer = JSON.parse(new URL(offer.uri).searchParams.get('credential_offer') as string);
      const code = credentialOffer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']['pre-authorized_code'] as string;
      const token = await vellum.tokenEndpoint.token(wallet, {
        grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
        'pre-authorized_code': code,
      });
      const { c_nonce } = await vellum.nonces.issue(wallet);
      const jwts = keys.slice(0, n).map((k) => proof(k, issuer, c_nonce));
      out.push({ authorization: `Bearer ${token.access_token}`, body: JSON.stringify({ credential_configuration_id: id, proofs: { jwt: jwts } }) });
    }
    return out;
  }

  /** Sends the requests one after another; credentials per CPU-second and per wall second. */
  async function timed(requests: Array<{ authorization: string; body: string }>, n: number) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (const r of requests) {
      const answer = await vellum.credentialEndpoint.issue(wallet, { authorization: r.authorization, contentType: 'application/json', body: r.body });
      const got = (JSON.parse(answer.body) as { credentials: unknown[] }).credentials.length;
      if (got !== n) throw new Error(`asked for ${n} credentials, got ${got}`);
    }
    const wall = (performance.now() - t0) / 1000;
    const used = process.cpuUsage(cpu0);
    const cpu = (used.user + used.system) / 1e6;
    return { perCpuSecond: (requests.length * n) / cpu, perSecond: (requests.length * n) / wall };
  }

  // Warm-up: a few requests of each size, untimed.
  for (const n of batches) await timed(await prepared(3, n), n);
  for (const n of batches) {
    // Fewer requests for bigger batches: about the same number of credentials per size.
    const count = Math.max(3, Math.round(REQUESTS / n));
    const rate = await timed(await prepared(count, n), n);
    rows.push(`| ${n} | ${count} | ${f(rate.perCpuSecond)} | ${(1e6 / rate.perCpuSecond).toFixed(1)} | ${f(rate.perSecond)} | ${f(rate.perCpuSecond / n)} |`);
  }
  await vellum.recorder.flush();
});

console.log('\nstore: SQLite, every read to the database; the credential endpoint in process, mDLs of 5 elements');
console.log('\n| batch size | requests | credentials per CPU-second | µs per credential (CPU) | credentials/s (wall) | requests per CPU-second |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
