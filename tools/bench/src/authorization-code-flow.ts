// Complete OAuth Authorization Code flows against the real server on SQLite, the user signing in at
// a real OpenID Connect provider: authorize (or PAR, then authorize by request_uri) → sign-in at the
// provider → authentication callback → token (PKCE) → nonce → credential (an mDoc with 6 claims,
// five of them from the provider's ID token), driven by virtual wallets on loopback
// (docs/authorization-code.md). Saturation only: every wallet runs flows back to back; flows/s and
// p50/p99 per step are printed, the provider's steps apart.
//
// The provider (oidc-provider from @vellum/testing, over HTTPS on 127.0.0.1 with a fresh localhost
// certificate) runs in a process of its own (oidc-provider-process.ts), with the scripted browser
// that plays the user, so that its CPU time and its latency are its own. The server reaches it with
// VELLUM_OUTBOUND_ALLOW_PRIVATE=true and the certificate in VELLUM_OUTBOUND_CA_FILE. As in
// oid4vci-flow.ts, the server is pinned to core 0 (one process) and the driver and the provider to
// the other cores; with --workers > 1 nothing is pinned.
//
//   node tools/bench/src/authorization-code-flow.ts [--seconds 10] [--wallets 48] [--workers 1] [--log-level info] [--par]
import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { localhostCertificate } from '../../../packages/testing/src/webhook-receiver.ts';
import { checked, coresLine, cpuSecondsSince, machineSpeed, machineTicks, makeWallet, proof, queryParam, type Wallet } from './flow-common.ts';
import { HOST, percentile, startBenchServer, type BenchServer } from './http-load.ts';
import { startProviderProcess, type ProviderProcess, type ProviderRequestStats } from './oidc-provider-process.ts';
import { openWireConnections, type WireAnswer, type WireConnection } from './wire-client.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    wallets: { type: 'string', default: '48' },
    'log-level': { type: 'string', default: 'info' },
    workers: { type: 'string', default: '1' },
    par: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const walletCount = Number(values.wallets);
const workers = Number(values.workers);
const par = values.par as boolean;

const STEPS = ['par', 'authorize', 'sign-in', 'callback', 'token', 'nonce', 'credential', 'flow'] as const;
type Step = (typeof STEPS)[number];
/** Steps spent at the identity provider (the callback's token request to it is counted from the provider's side). */
const PROVIDER_STEPS: ReadonlySet<Step> = new Set(['sign-in']);

const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const SCOPE = `mso_mdoc:${DOC_TYPE}`;
const REDIRECT = 'https://wallet.example/cb';
const PROVIDER_CLIENT = { clientId: 'vellum', clientSecret: randomBytes(24).toString('base64url') };
/** Claims of the ID token the server keeps on the user, and from which the mDoc is made. */
const PERSISTED = ['family_name', 'given_name', 'birthdate', 'age_over_18', 'document_number'];
const account = (i: number) => `holder-${i}`;

/**
 * The tenant's setup through the admin API: an active IACA, the mDL configuration mapping the
 * persisted ID token claims, a public wallet client, the identity provider (started here, knowing
 * the server as its client) and the tenant's authentication provider pointing at it.
 */
async function setUp(server: BenchServer, cert: { certPem: string; keyPem: string }) {
  const admin = await server.auth();
  const json = (step: string, r: WireAnswer, status: number) => JSON.parse(checked(step, r, status)) as Record<string, any>;
  const metadata = json('issuer metadata', await server.call('GET', '/.well-known/openid-credential-issuer'), 200);
  const issuer = metadata.credential_issuer as string;
  const callback = `${issuer}/v1/oauth/authentication/callback`;

  const accounts = Object.fromEntries(
    Array.from({ length: walletCount }, (_, i) => [
      account(i),
      { family_name: 'Okafor', given_name: 'Ada', birthdate: '1991-07-14', age_over_18: true, document_number: `D${i}` },
    ]),
  );
  const provider = await startProviderProcess({
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    clients: [{ ...PROVIDER_CLIENT, redirectUris: [callback] }],
    accounts,
    // The two mDL claims that no standard scope names; `profile` releases the others.
    scopes: { mdl: ['age_over_18', 'document_number'] },
  });
  try {
    const iaca = json('IACA', await server.call('POST', '/v2/credentials/mobile/iacas', { headers: admin, body: { country: 'US' } }), 201);
    json('IACA activation', await server.call('PUT', `/v2/credentials/mobile/iacas/${iaca.id as string}`, { headers: admin, body: { active: true } }), 200);
    const configuration = json(
      'configuration',
      await server.call('POST', '/v2/credentials/mobile/configurations', {
        headers: admin,
        body: {
          type: DOC_TYPE,
          expiresIn: { days: 365 },
          claimMappings: {
            'org.iso.18013.5.1': {
              family_name: { mapFrom: 'claims.family_name', required: true },
              given_name: { mapFrom: 'claims.given_name', required: true },
              birth_date: { mapFrom: 'claims.birthdate', type: 'date', required: true },
              age_over_18: { mapFrom: 'claims.age_over_18', type: 'boolean', required: true },
              document_number: { mapFrom: 'claims.document_number', required: true },
              issuing_country: { defaultValue: 'US' },
            },
          },
        },
      }),
      201,
    );
    const client = json(
      'wallet client',
      await server.call('POST', '/v1/openid/clients', {
        headers: admin,
        body: { clientName: 'Bench wallet', redirectUris: [REDIRECT], tokenEndpointAuthMethod: 'none' },
      }),
      201,
    );
    const authentication = json(
      'authentication provider',
      await server.call('POST', '/v1/users/authentication-providers', {
        headers: admin,
        body: { url: provider.issuer, ...PROVIDER_CLIENT, scope: 'openid profile mdl', claimsToPersist: PERSISTED },
      }),
      201,
    );
    if (authentication.redirectUrl !== callback)
      throw new Error(`the provider's redirect URL is ${authentication.redirectUrl}, not ${callback} as registered at the provider`);
    return { admin, provider, issuer, configurationId: configuration.id as string, clientId: client.clientId as string };
  } catch (error) {
    await provider.stop();
    throw error;
  }
}

type Setup = Awaited<ReturnType<typeof setUp>>;

const FORM_HEADERS = 'content-type: application/x-www-form-urlencoded\r\n';

/** The requests' constant parts. */
function constants(s: Setup) {
  const client = encodeURIComponent(s.clientId);
  return {
    // Everything but state and code_challenge, which each flow makes afresh.
    request: `response_type=code&client_id=${client}&redirect_uri=${encodeURIComponent(REDIRECT)}&scope=${encodeURIComponent(SCOPE)}&code_challenge_method=S256`,
    client,
    tokenStart: `grant_type=authorization_code&client_id=${client}&redirect_uri=${encodeURIComponent(REDIRECT)}&code=`,
    issuer: s.issuer,
    callbackPrefix: `${s.issuer}/v1/oauth/authentication/callback?`,
    credentialStart: `{"credential_configuration_id":${JSON.stringify(s.configurationId)},"proofs":{"jwt":["`,
  };
}

/** A redirect's location, or throws when the answer is not a 303 to somewhere under `prefix`. */
function redirectedTo(step: string, r: WireAnswer, prefix: string): string {
  checked(step, r, 303);
  if (!r.location?.startsWith(prefix)) throw new Error(`${step}: redirected to ${r.location?.slice(0, 200)}, not under ${prefix}`);
  return r.location;
}

/** One whole flow on one connection; the duration of each step in ms, or throws on any non-success. */
async function flow(
  c: WireConnection,
  k: ReturnType<typeof constants>,
  provider: ProviderProcess,
  wallet: Wallet,
  accountId: string,
): Promise<Record<Step, number>> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(12).toString('base64url');
  const request = `${k.request}&state=${state}&code_challenge=${challenge}`;

  const t0 = performance.now();
  let tPar = t0;
  let atProvider: string;
  if (par) {
    const pushed = JSON.parse(checked('par', await c.request('POST', '/v1/oauth/par', FORM_HEADERS, request), 201)) as { request_uri: string };
    tPar = performance.now();
    atProvider = redirectedTo(
      'authorize',
      await c.request('GET', `/v1/oauth/authorize?client_id=${k.client}&request_uri=${encodeURIComponent(pushed.request_uri)}`, ''),
      `${provider.issuer}/`,
    );
  } else {
    atProvider = redirectedTo('authorize', await c.request('GET', `/v1/oauth/authorize?${request}`, ''), `${provider.issuer}/`);
  }
  const t1 = performance.now();
  const { location: back } = await provider.signIn(atProvider, accountId);
  if (!back.startsWith(k.callbackPrefix)) throw new Error(`sign-in: the provider sent the browser to ${back.slice(0, 200)}`);
  const t2 = performance.now();
  const atWallet = redirectedTo('callback', await c.request('GET', back.slice(back.indexOf('/v1/oauth/')), ''), `${REDIRECT}?`);
  if (queryParam(atWallet, 'state') !== state) throw new Error(`callback: the wallet got another state: ${atWallet.slice(0, 200)}`);
  if (atWallet.includes('?error=') || atWallet.includes('&error=')) {
    const refusal = new URL(atWallet).searchParams;
    throw new Error(`callback: the wallet got ${refusal.get('error')}: ${refusal.get('error_description')}`);
  }
  const code = queryParam(atWallet, 'code');
  const t3 = performance.now();
  const token = JSON.parse(
    checked('token', await c.request('POST', '/v1/oauth/token', FORM_HEADERS, `${k.tokenStart}${encodeURIComponent(code)}&code_verifier=${verifier}`), 200),
  ) as { access_token: string };
  const t4 = performance.now();
  const nonce = JSON.parse(checked('nonce', await c.request('POST', '/v1/openid/nonce', ''), 200)) as { c_nonce: string };
  const t5 = performance.now();
  const body = `${k.credentialStart}${proof(wallet, k.issuer, nonce.c_nonce)}"]}}`;
  const answer = checked(
    'credential',
    await c.request('POST', '/v1/openid/credential', `authorization: Bearer ${token.access_token}\r\ncontent-type: application/json\r\n`, body),
    200,
  );
  if (!answer.startsWith('{"credentials":[{"credential":"') || !answer.includes('"notification_id":"'))
    throw new Error(`credential: not a credential response: ${answer.slice(0, 200)}`);
  const t6 = performance.now();
  return { par: tPar - t0, authorize: t1 - tPar, 'sign-in': t2 - t1, callback: t3 - t2, token: t4 - t3, nonce: t5 - t4, credential: t6 - t5, flow: t6 - t0 };
}

const ms = (v: number) => `${v.toFixed(2)} ms`;

function report(
  samples: Record<Step, number>[],
  failures: number,
  elapsedMs: number,
  cpu: { server?: number; driver: number; provider: number },
  providerRequests: ProviderRequestStats,
) {
  const n = samples.length;
  const perFlow = (s: number) => `${((s / n) * 1000).toFixed(2)} ms`;
  console.log(
    `\nSaturation: ${n} flows in ${(elapsedMs / 1000).toFixed(1)} s = ${(n / (elapsedMs / 1000)).toFixed(0)} flows/s, ${failures} failed` +
      (cpu.server ? `, ${(n / cpu.server).toFixed(0)} flows per server CPU-second` : '') +
      `; CPU per flow: server ${cpu.server === undefined ? '?' : perFlow(cpu.server)}, provider and its browser ${perFlow(cpu.provider)}, driver ${perFlow(cpu.driver)}`,
  );
  const tokenAtProvider = providerRequests['POST /token'];
  for (const step of STEPS) {
    if (step === 'par' && !par) continue;
    const sorted = samples.map((s) => s[step]).sort((a, b) => a - b);
    const note = PROVIDER_STEPS.has(step)
      ? '   (at the provider: its pages and the scripted browser)'
      : step === 'callback' && tokenAtProvider
        ? `   (of which the provider's token endpoint, as it measured it: p50 ${ms(tokenAtProvider.p50)}, p99 ${ms(tokenAtProvider.p99)})`
        : '';
    console.log(`  ${step.padEnd(10)} p50 ${ms(percentile(sorted, 50)).padStart(10)}   p99 ${ms(percentile(sorted, 99)).padStart(10)}${note}`);
  }
  const total = samples.reduce((sum, s) => sum + s.flow, 0);
  const signIn = samples.reduce((sum, s) => sum + s['sign-in'], 0);
  const tokenMs = tokenAtProvider?.totalMs ?? 0;
  console.log(
    `  time at the provider: ${((100 * (signIn + tokenMs)) / total).toFixed(0)}% of the flows' time (sign-in ${((100 * signIn) / total).toFixed(0)}%, its token endpoint during the callback ${((100 * tokenMs) / total).toFixed(0)}%)`,
  );
  console.log('  the provider’s requests, timed inside it (from the request head to the answer’s end):');
  for (const [label, s] of Object.entries(providerRequests).sort((a, b) => b[1].count - a[1].count)) {
    console.log(
      `    ${label.padEnd(24)} ${String(s.count).padStart(6)} × p50 ${ms(s.p50).padStart(9)}   p99 ${ms(s.p99).padStart(9)}   on ${s.connections} new connections`,
    );
  }
}

const cert = localhostCertificate();
// The server reaches the provider on loopback over TLS with this certificate (startBenchServer
// passes the VELLUM_* variables of this process to it).
process.env.VELLUM_OUTBOUND_ALLOW_PRIVATE = 'true';
process.env.VELLUM_OUTBOUND_CA_FILE = cert.certFile;
let server: BenchServer | undefined;
let provider: ProviderProcess | undefined;
const connections: WireConnection[] = [];
try {
  server = await startBenchServer({ connections: 4, logLevel: values['log-level'] as string, workers });
  const s = await setUp(server, cert);
  provider = s.provider;
  const k = constants(s);
  const wallets = Array.from({ length: walletCount }, makeWallet);
  connections.push(...(await openWireConnections(walletCount, server.port, HOST)));
  console.log(machineSpeed());
  console.log(
    `Node ${process.version}; server ${workers > 1 ? `with ${workers} workers, sharing every core with the driver and the provider` : server.pinned ? 'pinned to core 0, driver and provider on the other cores' : 'not pinned'}; SQLite; log level ${values['log-level']}; ${walletCount} wallets, each its own user at the provider; ${par ? 'PAR, then authorize by request_uri' : 'plain authorize requests'}`,
  );

  let failures = 0;
  const failed = (error: unknown) => {
    failures += 1;
    if (failures <= 3) console.error(String(error));
  };
  // Warm-up: every wallet once, so every user exists (the measured flows are returning users) and
  // the server has discovered the provider and fetched its keys.
  await Promise.all(wallets.map((w, i) => flow(connections[i] as WireConnection, k, s.provider, w, account(i))));
  const users = JSON.parse(
    checked('users', await server.call('POST', '/v1/users/search', { headers: s.admin, body: { authenticationProvider: { subjectId: account(0) } } }), 200),
  ) as { data: Array<{ claims: Record<string, unknown> }> };
  const kept = Object.keys(users.data[0]?.claims ?? {});
  if (PERSISTED.some((name) => !kept.includes(name))) throw new Error(`the user holds the claims ${kept.join(', ')}, not ${PERSISTED.join(', ')}`);

  await s.provider.stats(true);
  const provider0 = (await s.provider.stats(true)).cpuSeconds;
  const samples: Record<Step, number>[] = [];
  const cpu0 = server.cpuSeconds();
  const driver0 = process.cpuUsage();
  const ticks0 = machineTicks();
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    wallets.map(async (w, i) => {
      const c = connections[i] as WireConnection;
      while (performance.now() < until) {
        try {
          samples.push(await flow(c, k, s.provider, w, account(i)));
        } catch (error) {
          failed(error);
        }
      }
    }),
  );
  const elapsed = performance.now() - started;
  const ticks1 = machineTicks();
  const driverCpu = cpuSecondsSince(driver0);
  const cpu1 = server.cpuSeconds();
  const stats = await s.provider.stats(true);
  const serverCpu = cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined;
  const providerCpu = stats.cpuSeconds - provider0;
  report(samples, failures, elapsed, { ...(serverCpu === undefined ? {} : { server: serverCpu }), driver: driverCpu, provider: providerCpu }, stats.requests);
  const cores = coresLine(ticks0, ticks1, elapsed / 1000, serverCpu, driverCpu, { provider: providerCpu });
  if (cores) console.log(cores);
} finally {
  for (const c of connections) c.close();
  await provider?.stop();
  await server?.stop();
  cert.dispose();
}
