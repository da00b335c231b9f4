// Complete OpenID4VCI Pre-authorized Code flows against the real server on SQLite:
// offer → token (with a transaction code) → nonce → credential (an mDoc with 6 claims), driven by
// virtual wallets on loopback. Two runs: as many flows as the server will take (flows/s, p50/p99
// per step), then a fixed 400 flows/s (p99 of the credential request). The server is pinned to core
// 0 and this driver to the rest when taskset and a second core exist, so the machine's two cores
// hold both sides, as the issue asks.
//
// `--client wire` (the default) drives the flows over raw keep-alive sockets (wire-client.ts), one
// per wallet, because every microsecond of driver CPU is taken from the server; `--client undici`
// keeps the undici Pool for comparison. Both sign the same proofs; setup calls always use undici.
//
// `--dpop` makes every token DPoP-bound (RFC 9449): each token and credential request carries a
// fresh DPoP proof (ES256, its own jti and iat; at the credential endpoint `ath`, the token's
// hash), the token must come back as token_type DPoP and is sent as `Authorization: DPoP`. The
// driver does not follow server nonces, so the server must not require them
// (VELLUM_DPOP_NONCE_REQUIRED unset). Without `--dpop` the flow is the plain one, with no extra work.
//
// `--batch N` (issue 30) sets the tenant's batch size to N and makes each credential request carry N
// jwt proofs by N keys of the wallet over its one c_nonce, for N mDocs; flows/s then counts requests,
// and the report adds credentials/s. The default, 1, is the single-credential flow, unchanged.
//
//   node tools/bench/src/oid4vci-flow.ts [--seconds 10] [--wallets 48] [--rate 400] [--log-level info] [--workers 1] [--client wire|undici] [--dpop] [--batch 10]
import { createHash, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { parseArgs } from 'node:util';
import { b64u, checked, coresLine, cpuSecondsSince, derToJose, machineSpeed, machineTicks, makeWallet, proof, queryParam, type Wallet } from './flow-common.ts';
import { HOST, percentile, startBenchServer, type BenchServer } from './http-load.ts';
import { openWireConnections, WireConnection } from './wire-client.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    wallets: { type: 'string', default: '48' },
    rate: { type: 'string', default: '400' },
    'log-level': { type: 'string', default: 'info' },
    workers: { type: 'string', default: '1' },
    client: { type: 'string', default: 'wire' },
    dpop: { type: 'boolean', default: false },
    batch: { type: 'string', default: '1' },
  },
});
const batch = Number(values.batch);
if (!Number.isInteger(batch) || batch < 1 || batch > 100) throw new Error('--batch must be an integer from 1 to 100');
const seconds = Number(values.seconds);
const walletCount = Number(values.wallets);
const rate = Number(values.rate);
const client = values.client as string;
if (client !== 'wire' && client !== 'undici') throw new Error(`--client must be wire or undici, not ${client}`);
const dpop = values.dpop === true;
const nonceRequired = process.env.VELLUM_DPOP_NONCE_REQUIRED;
if (dpop && nonceRequired !== undefined && nonceRequired !== '' && nonceRequired.toLowerCase() !== 'false' && nonceRequired !== '0') {
  throw new Error('--dpop does not follow DPoP-Nonce challenges: run it without VELLUM_DPOP_NONCE_REQUIRED');
}

const STEPS = ['offer', 'token', 'nonce', 'credential'] as const;
type Step = (typeof STEPS)[number];

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
  if (batch > 1) {
    const set = await server.call('PUT', '/v1/config/batch-issuance', { headers: admin, body: { batchSize: batch } });
    if (set.status !== 200) throw new Error(`batch size: ${set.status} ${set.text}`);
    // Each worker reads the tenant through its read cache (VELLUM_READ_CACHE_TTL_MS, 1 s by
    // default): the other workers see the new batch size once their cached row expires.
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }
  return { admin, configurationId: (JSON.parse(configuration.text) as { id: string }).id };
}

/**
 * A wallet's DPoP key and the base64url of its proofs' JOSE header (typ, alg, public JWK) with the
 * dot after it. One key per virtual wallet, made before the run, rather than one per flow: the
 * server does the same work for a proof whatever its key (it verifies the embedded JWK and takes
 * its thumbprint on every request, and remembers each (key, jti) pair), so a new key per flow would
 * only spend the driver's CPU, which on this machine is taken from the server being measured.
 * The proofs themselves are new for every request (jti, iat, ath), as RFC 9449 §11.1 requires.
 */
interface DpopKey {
  key: KeyObject;
  header: string;
}

function makeDpopKey(): DpopKey {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { key: privateKey, header: `${b64u(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicKey.export({ format: 'jwk' }) }))}.` };
}

/** `{"htm":"POST","htu":…,"iat":` by URL, for the (few) endpoint URLs seen. */
const dpopPayloadStarts = new Map<string, string>();

/** A DPoP proof (RFC 9449 §4.2) for a POST to `htu`, with `ath` when an access token is given. */
function dpopProof(k: DpopKey, htu: string, accessToken?: string): string {
  let start = dpopPayloadStarts.get(htu);
  if (start === undefined) dpopPayloadStarts.set(htu, (start = `{"htm":"POST","htu":${JSON.stringify(htu)},"iat":`));
  const ath = accessToken === undefined ? '' : `,"ath":"${createHash('sha256').update(accessToken).digest('base64url')}"`;
  const input = `${k.header}${b64u(`${start}${Math.floor(Date.now() / 1000)},"jti":"${randomUUID()}"${ath}}`)}`;
  return `${input}.${derToJose(sign('sha256', Buffer.from(input, 'latin1'), k.key)).toString('base64url')}`;
}

/** The token answer of a request with a DPoP proof, which must have bound the token (RFC 9449 §5). */
function boundToken(token: { access_token: string; token_type: string }): { access_token: string } {
  if (token.token_type !== 'DPoP') throw new Error(`token: token_type ${token.token_type}, not DPoP`);
  return token;
}

/** One proof per key, all over the request's one c_nonce (a batch shares it). */
const proofsOf = (keys: Wallet[], audience: string, nonce: string) => keys.map((k) => proof(k, audience, nonce));

interface Offer {
  credential_issuer: string;
  grants: { 'urn:ietf:params:oauth:grant-type:pre-authorized_code': { 'pre-authorized_code': string } };
}

const OFFER_CLAIMS = { familyName: 'Okafor', givenName: 'Ada', birthDate: '1991-07-14', adult: true, documentNumber: 'D1' };
const FORM_HEADERS = 'content-type: application/x-www-form-urlencoded\r\n';
const TOKEN_FORM = `grant_type=${encodeURIComponent('urn:ietf:params:oauth:grant-type:pre-authorized_code')}&pre-authorized_code=`;

/** The requests' constant parts, as wire-client header lines and body text. */
function wireRequests(admin: Record<string, string>, configurationId: string) {
  return {
    offerHeaders: `authorization: ${admin.authorization as string}\r\ncontent-type: application/json\r\n`,
    offerBody: JSON.stringify({ credentials: [configurationId], claims: OFFER_CLAIMS, transactionCodeConfiguration: { inputMode: 'numeric' } }),
    credentialStart: `{"credential_configuration_id":${JSON.stringify(configurationId)},"proofs":{"jwt":["`,
  };
}

/**
 * One whole flow on one connection; the duration of each step in ms, or throws on any non-success.
 * With `dpopKey`, the token is DPoP-bound and both token and credential requests carry a proof.
 */
async function wireFlow(c: WireConnection, r: ReturnType<typeof wireRequests>, keys: Wallet[], dpopKey: DpopKey | undefined): Promise<Record<Step, number>> {
  const t0 = performance.now();
  const offer = JSON.parse(checked('offer', await c.request('POST', '/v1/openid/offers/pre-authorized', r.offerHeaders, r.offerBody), 200)) as {
    uri: string;
    transactionCode: string;
  };
  const t1 = performance.now();
  const credentialOffer = JSON.parse(queryParam(offer.uri, 'credential_offer')) as Offer;
  const code = credentialOffer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']['pre-authorized_code'];
  const t2 = performance.now();
  const form = `${TOKEN_FORM}${encodeURIComponent(code)}&tx_code=${encodeURIComponent(offer.transactionCode)}`;
  // The proof is made inside the timed step, as a wallet makes it for each request.
  const token = dpopKey
    ? boundToken(
        JSON.parse(
          checked(
            'token',
            await c.request(
              'POST',
              '/v1/oauth/token',
              `${FORM_HEADERS}dpop: ${dpopProof(dpopKey, `${credentialOffer.credential_issuer}/v1/oauth/token`)}\r\n`,
              form,
            ),
            200,
          ),
        ),
      )
    : (JSON.parse(checked('token', await c.request('POST', '/v1/oauth/token', FORM_HEADERS, form), 200)) as { access_token: string });
  const t3 = performance.now();
  const nonce = JSON.parse(checked('nonce', await c.request('POST', '/v1/openid/nonce', ''), 200)) as { c_nonce: string };
  const t4 = performance.now();
  const body = `${r.credentialStart}${proofsOf(keys, credentialOffer.credential_issuer, nonce.c_nonce).join('","')}"]}}`;
  const credentialHeaders = dpopKey
    ? `authorization: DPoP ${token.access_token}\r\ndpop: ${dpopProof(dpopKey, `${credentialOffer.credential_issuer}/v1/openid/credential`, token.access_token)}\r\ncontent-type: application/json\r\n`
    : `authorization: Bearer ${token.access_token}\r\ncontent-type: application/json\r\n`;
  // Not parsed (a few kB of base64url): its status and its shape are the check.
  const answer = checked('credential', await c.request('POST', '/v1/openid/credential', credentialHeaders, body), 200);
  if (!answer.startsWith('{"credentials":[{"credential":"') || !answer.includes('"notification_id":"'))
    throw new Error(`credential: not a credential response: ${answer.slice(0, 200)}`);
  if (keys.length > 1 && answer.split('{"credential":"').length - 1 !== keys.length)
    throw new Error(`credential: asked for ${keys.length} credentials, got ${answer.split('{"credential":"').length - 1}`);
  return { offer: t1 - t0, token: t3 - t2, nonce: t4 - t3, credential: performance.now() - t4 };
}

/** One whole flow through the undici Pool; returns the duration of each step in ms, or throws on any non-success. */
async function undiciFlow(
  server: BenchServer,
  admin: Record<string, string>,
  configurationId: string,
  keys: Wallet[],
  dpopKey: DpopKey | undefined,
): Promise<Record<Step, number>> {
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
    expectStatus(
      'offer',
      await server.call('POST', '/v1/openid/offers/pre-authorized', {
        headers: admin,
        body: { credentials: [configurationId], claims: OFFER_CLAIMS, transactionCodeConfiguration: { inputMode: 'numeric' } },
      }),
      200,
    ),
  );
  const credentialOffer = JSON.parse(new URL(offer.uri as string).searchParams.get('credential_offer') as string);
  const code = credentialOffer.grants['urn:ietf:params:oauth:grant-type:pre-authorized_code']['pre-authorized_code'] as string;
  const issuer = credentialOffer.credential_issuer as string;
  const token = await timed('token', async () => {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (dpopKey) headers.dpop = dpopProof(dpopKey, `${issuer}/v1/oauth/token`);
    const answer = await server.call('POST', '/v1/oauth/token', {
      headers,
      raw: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
        'pre-authorized_code': code,
        tx_code: offer.transactionCode as string,
      }).toString(),
    });
    const body = expectStatus('token', answer, 200) as { access_token: string; token_type: string };
    return dpopKey ? boundToken(body) : body;
  });
  const nonce = await timed('nonce', async () => expectStatus('nonce', await server.call('POST', '/v1/openid/nonce'), 200));
  await timed('credential', async () =>
    expectStatus(
      'credential',
      await server.call('POST', '/v1/openid/credential', {
        headers: dpopKey
          ? { authorization: `DPoP ${token.access_token}`, dpop: dpopProof(dpopKey, `${issuer}/v1/openid/credential`, token.access_token) }
          : { authorization: `Bearer ${token.access_token}` },
        body: { credential_configuration_id: configurationId, proofs: { jwt: proofsOf(keys, issuer, nonce.c_nonce as string) } },
      }),
      200,
    ),
  );
  return times;
}

function report(label: string, samples: Record<Step, number>[], failures: number, elapsedMs: number, cpu: number | undefined, driverCpu: number) {
  const flowsPerSecond = samples.length / (elapsedMs / 1000);
  console.log(
    `\n${label}: ${samples.length} flows in ${(elapsedMs / 1000).toFixed(1)} s = ${flowsPerSecond.toFixed(0)} flows/s, ${failures} failed` +
      (batch > 1 ? ` (${(flowsPerSecond * batch).toFixed(0)} credentials/s, ${batch} per flow)` : '') +
      (cpu ? `, ${(samples.length / cpu).toFixed(0)} flows per server CPU-second, server CPU ${((cpu / samples.length) * 1000).toFixed(2)} ms per flow` : '') +
      `, driver ${((driverCpu / samples.length) * 1000).toFixed(2)} ms CPU per flow`,
  );
  for (const step of STEPS) {
    const sorted = samples.map((s) => s[step]).sort((a, b) => a - b);
    console.log(`  ${step.padEnd(10)} p50 ${percentile(sorted, 50).toFixed(2)} ms   p99 ${percentile(sorted, 99).toFixed(2)} ms`);
  }
  return flowsPerSecond;
}

const workers = Number(values.workers);
const server = await startBenchServer({ connections: walletCount * 2, logLevel: values['log-level'] as string, workers });
const connections: WireConnection[] = [];
try {
  const { admin, configurationId } = await setUp(server);
  const wallets = Array.from({ length: walletCount }, makeWallet);
  // With --batch N, each wallet proves N keys of its own: itself and N - 1 more, made before the run.
  const batchKeys = new Map<Wallet, Wallet[]>(wallets.map((w) => [w, [w, ...Array.from({ length: batch - 1 }, makeWallet)]]));
  // Each wallet's DPoP key, beside it (see DpopKey for why one per wallet); none without --dpop.
  const dpopKeys = new Map<Wallet, DpopKey>(dpop ? wallets.map((w) => [w, makeDpopKey()]) : []);
  const requests = wireRequests(admin, configurationId);
  /** One flow; `c` is the connection it may use (the wire client only). */
  const flow = (wallet: Wallet, c: WireConnection | undefined) => {
    const k = dpop ? dpopKeys.get(wallet) : undefined;
    const keys = batchKeys.get(wallet) as Wallet[];
    return c ? wireFlow(c, requests, keys, k) : undiciFlow(server, admin, configurationId, keys, k);
  };
  if (client === 'wire') connections.push(...(await openWireConnections(walletCount, server.port, HOST)));
  // This VM's speed varies from minute to minute; a fixed piece of work, timed just before the run,
  // says how fast it was at the time (compare runs with similar figures).
  console.log(machineSpeed());
  console.log(
    `Node ${process.version}; server ${workers > 1 ? `with ${workers} workers, sharing every core with the driver` : server.pinned ? 'pinned to core 0, driver on the other cores' : 'not pinned'}; SQLite; log level ${values['log-level']}; ${walletCount} wallets; client ${client === 'wire' ? 'wire (raw keep-alive sockets, one per wallet)' : 'undici Pool'}; ${dpop ? 'DPoP-bound tokens (a fresh ES256 proof at token and credential, one key per wallet)' : 'bearer tokens'}; ${batch > 1 ? `a batch of ${batch} mDocs per credential request` : 'one mDoc per credential request'}`,
  );

  let failures = 0;
  const failed = (error: unknown) => {
    failures += 1;
    if (failures <= 3) console.error(String(error));
  };

  // Warm up.
  await Promise.all(wallets.slice(0, 8).map((w, i) => flow(w, connections[i])));

  // 1. Saturation: every wallet runs flows back to back, each on its own connection.
  {
    const samples: Record<Step, number>[] = [];
    failures = 0;
    const cpu0 = server.cpuSeconds();
    const driver0 = process.cpuUsage();
    const ticks0 = machineTicks();
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(
      wallets.map(async (w, i) => {
        const c = connections[i];
        while (performance.now() < until) {
          try {
            samples.push(await flow(w, c));
          } catch (error) {
            failed(error);
          }
        }
      }),
    );
    const elapsed = performance.now() - started;
    const ticks1 = machineTicks();
    const driverCpu = cpuSecondsSince(driver0); // before reading /proc for the server's CPU, which costs the driver tens of ms
    const cpu1 = server.cpuSeconds();
    const serverCpu = cpu0 !== undefined && cpu1 !== undefined ? cpu1 - cpu0 : undefined;
    report('Saturation', samples, failures, elapsed, serverCpu, driverCpu);
    const cores = coresLine(ticks0, ticks1, elapsed / 1000, serverCpu, driverCpu);
    if (cores) console.log(cores);
  }

  // 2. A fixed arrival rate: a new flow every 1/rate s, whatever the answers take (--rate 0 skips it).
  // More flows than wallets can then be in flight: each takes a free connection, or opens one.
  if (rate > 0) {
    const samples: Record<Step, number>[] = [];
    failures = 0;
    const free = [...connections];
    const socketsBefore = connections.reduce((n, c) => n + c.opened, 0);
    const connectionsBefore = connections.length;
    const inFlight = new Set<Promise<void>>();
    const driver0 = process.cpuUsage();
    const started = performance.now();
    let launched = 0;
    while (performance.now() - started < seconds * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * rate);
      while (launched < due) {
        const w = wallets[launched % wallets.length] as Wallet;
        launched += 1;
        let c: WireConnection | undefined;
        if (client === 'wire') {
          c = free.pop();
          if (!c) connections.push((c = new WireConnection(server.port, HOST)));
        }
        const p: Promise<void> = flow(w, c)
          .then((t) => void samples.push(t), failed)
          .finally(() => {
            inFlight.delete(p);
            if (c) free.push(c);
          });
        inFlight.add(p);
      }
      // Sleep until the next flow is due rather than polling every millisecond: each wake-up costs the driver CPU.
      await new Promise((r) => setTimeout(r, Math.max(1, started + ((launched + 1) * 1000) / rate - performance.now())));
    }
    await Promise.all(inFlight);
    report(`Fixed rate ${rate} flows/s`, samples, failures, performance.now() - started, undefined, cpuSecondsSince(driver0));
    if (client === 'wire') {
      const sockets = connections.reduce((n, c) => n + c.opened, 0) - socketsBefore;
      console.log(
        `  connections: ${connectionsBefore} from the saturation run, ${connections.length - connectionsBefore} more opened for flows in flight at once (${sockets} sockets opened in this run)`,
      );
    }
  }
} finally {
  for (const c of connections) c.close();
  await server.stop();
}
