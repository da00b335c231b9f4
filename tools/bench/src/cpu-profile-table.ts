// Reads a V8 CPU profile (the inspector's Profiler.stop, or a .cpuprofile from --cpu-prof) and
// splits its busy time by area (from the script a sample's innermost JavaScript frame belongs to)
// and by step of the Pre-authorized flow (from the frames on the sample's stack).
//
//   node tools/bench/src/cpu-profile-table.ts FILE.cpuprofile [--flows N]

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Area by the script's URL, first match wins. */
const AREAS: readonly (readonly [string, RegExp])[] = [
  ['SQLite statements (better-sqlite3)', /better-sqlite3/],
  ['store code (Kysely, storage-sql, caches)', /kysely|storage-sql|store-cache|storage-memory/],
  ['logging (pino)', /pino|sonic-boom|thread-stream|fast-redact|logger\.ts/],
  ['analytic events', /core\/src\/events/],
  ['webhooks outbox', /core\/src\/webhooks|webhook-worker/],
  ['status lists', /status-lists/],
  ['metrics', /metrics|prom-client/],
  ['crypto (jose, node:crypto, our signers)', /jose|internal\/crypto|@noble|packages\/crypto|core\/src\/keys|webcrypto/],
  ['credential formats (CBOR, mDoc, JWT VC)', /cbor-x|packages\/formats|mdoc-issuance|credential-formats|@sphereon\/ssi-types|did-jwt|@sd-jwt/],
  ['validation and JSON schemas', /typebox|ajv|fast-json-stringify|fast-uri|fastify\/src\/validation|schemas/],
  [
    'HTTP, parsing and the event loop',
    /fastify|find-my-way|avvio|light-my-request|node:_http|node:http|node:net|node:stream|internal\/streams|internal\/http|internal\/timers|internal\/async_hooks|task_queues|express|body-parser|router|finalhandler|on-finished|raw-body|iconv-lite|cookie|proxy-addr|content-type|qs\/|http-errors|cors|node:events|internal\/url|querystring|formbody/,
  ],
  ['Vellum core (the use cases)', /packages\/core/],
  ['the peer library (Sphereon)', /@sphereon/],
  ['other Node internals', /^node:/],
];

const STEPS: readonly (readonly [string, RegExp])[] = [
  ['offer', /core\/src\/offers\/|routes\/offers\.ts|createCredentialOffer|CredentialOfferEndpoint|createCredentialOfferURI/i],
  [
    'token',
    /core\/src\/oauth\/token\.ts|core\/src\/oauth\/single-use|accessTokenEndpoint|handleTokenRequest|createAccessTokenResponse|assertValidAccessTokenRequest/i,
  ],
  ['nonce', /core\/src\/oauth\/nonces\.ts/],
  ['credential', /core\/src\/issuance\/|mdoc-issuance|credential-formats|routes\/credential\.ts|getCredentialEndpoint|issueCredential/i],
];

export interface ProfileBreakdown {
  /** Microseconds sampled, idle included. */
  totalUs: number;
  idleUs: number;
  byArea: Map<string, number>;
  byStep: Map<string, number>;
  /** The heaviest functions by self time, as `name (script:line)`. */
  topFunctions: [string, number][];
}

export function analyseProfile(profile: CpuProfile): ProfileBreakdown {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const areaOf = new Map<number, string>();
  const stepOf = new Map<number, string>();
  const classify = (id: number) => {
    const leaf = byId.get(id)!;
    const name = leaf.callFrame.functionName;
    if (name === '(idle)') return ['idle', 'idle'] as const;
    if (name === '(garbage collector)') return ['garbage collection', 'not within a step'] as const;
    if (name === '(program)') return ['V8 and native, not attributed', 'not within a step'] as const;
    let area: string | undefined;
    let step: string | undefined;
    const native = leaf.callFrame.url === '';
    if (native && (name === 'parse' || name === 'stringify')) area = 'JSON parse and stringify';
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { url, functionName } = byId.get(at)!.callFrame;
      // better-sqlite3's statements are native functions called straight from Kysely's driver.
      if (area === undefined && native && /dialect\/sqlite\/sqlite-driver|sqlite-database\.ts/.test(url)) area = AREAS[0]![0];
      if (area === undefined && url !== '') area = AREAS.find(([, re]) => re.test(url))?.[0] ?? 'other';
      if (step === undefined) step = STEPS.find(([, re]) => re.test(url) || re.test(functionName))?.[0];
    }
    return [area ?? 'V8 and native, not attributed', step ?? 'not within a step'] as const;
  };
  const self = new Map<number, number>();
  let totalUs = 0;
  let idleUs = 0;
  const byArea = new Map<string, number>();
  const byStep = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    const us = profile.timeDeltas[i + 1] ?? 0;
    totalUs += us;
    if (!areaOf.has(id)) {
      const [area, step] = classify(id);
      areaOf.set(id, area);
      stepOf.set(id, step);
    }
    const area = areaOf.get(id)!;
    if (area === 'idle') {
      idleUs += us;
      continue;
    }
    byArea.set(area, (byArea.get(area) ?? 0) + us);
    byStep.set(stepOf.get(id)!, (byStep.get(stepOf.get(id)!) ?? 0) + us);
    self.set(id, (self.get(id) ?? 0) + us);
  }
  const byFunction = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const key = `${functionName || '(anonymous)'} (${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(packages|apps)\//, '$1/')}:${lineNumber + 1})`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  const topFunctions = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25);
  return { totalUs, idleUs, byArea, byStep, topFunctions };
}

/** Prints the breakdown as Markdown tables: share of busy time and µs per flow when `flows` is given. */
export function printProfileTables(b: ProfileBreakdown, flows?: number): void {
  const busy = b.totalUs - b.idleUs;
  const perFlow = (us: number) => (flows ? ` | ${Math.round(us / flows)}` : '');
  const head = flows ? ' | µs per flow' : '';
  console.log(
    `\nbusy ${(busy / 1e6).toFixed(2)} s of ${(b.totalUs / 1e6).toFixed(2)} s sampled${flows ? `, ${Math.round(flows)} flows, ${Math.round(busy / flows)} µs busy per flow` : ''}`,
  );
  for (const [title, map] of [
    ['area', b.byArea],
    ['step', b.byStep],
  ] as const) {
    console.log(`\n| ${title} | share of busy${head} |\n| --- | ---${flows ? ' | ---' : ''} |`);
    for (const [k, us] of [...map].sort((x, y) => y[1] - x[1])) console.log(`| ${k} | ${((100 * us) / busy).toFixed(1)}%${perFlow(us)} |`);
  }
  console.log('\n| function (self time) | share of busy |\n| --- | --- |');
  for (const [k, us] of b.topFunctions) console.log(`| ${k} | ${((100 * us) / busy).toFixed(1)}% |`);
}

if (import.meta.main) {
  const { readFileSync } = await import('node:fs');
  const file = process.argv[2];
  if (!file) throw new Error('usage: cpu-profile-table.ts FILE.cpuprofile [--flows N]');
  const at = process.argv.indexOf('--flows');
  printProfileTables(analyseProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile), at > 0 ? Number(process.argv[at + 1]) : undefined);
}
