// What a revocation costs on a full mDoc status list (issue 15; docs/status-lists.md, docs/limits.md): one list of
// 500,000 entries (the most a list holds), on SQLite (the server's default store) and in memory,
// through the core use cases over real adapters (in-process.ts). Measured, each REPEAT times:
//
//   - revoke: `vellum.statusLists.setStatus(ctx, id, { status: 'invalid' })`, the use case behind
//     `POST /v2/credentials/mobile/{id}/status` (a transaction: the entry, the issued-credential
//     record, the list's revision and the webhook outbox);
//   - re-sign: the next `vellum.statusLists.token(ctx, listId)`, which finds its kept token stale
//     (the revision changed) and builds a new one: reads the entries that are not valid, packs the
//     500,000 bits (62,500 bytes), compresses them (DEFLATE in ZLIB, level 9: IETF Token Status
//     List draft 14 §4.1) and signs the CWT (ES256 COSE_Sign1, RFC 9052 §4.2);
//   - kept: a token request with nothing changed, answered with the kept token;
//
// and, apart, each step of a re-sign on its own, to show where the time goes. Both with only the
// bench's own revocations in the list, and with 1% of it (5,000 entries) revoked, as a list in use
// for a while might be: the revoked entries are what a re-sign reads, and what keeps the compressed
// list from being nearly empty.
//
//   node tools/bench/src/status-list-revocation.ts [--entries 500000] [--repeat 20] [--revoked 5000]
//
// Filling the list is not the figure, so it goes the fast way: positions taken through the store
// (the step `allocate` takes), entries written in batches inside transactions on SQLite. Only the
// credentials the bench revokes through the use case get an issued-credential record (the use case
// reads and updates that one record by id); the memory store's insert checks every record for a
// duplicate notification id, which would make 500,000 of them quadratic.
import { X509Certificate } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { constants as zlib, deflateSync } from 'node:zlib';
import { type CredentialStatus, packStatuses, type Repositories, shuffledIndex, shuffleKeyWords, STATUS_BITS, type Store } from '@vellum/core';
import { createStatusListTokenSigner } from '@vellum/formats';
import { eachStore, tenantWithIaca } from './in-process.ts';
import { printMachine } from './throughput.ts';

const { values: args } = parseArgs({
  options: { entries: { type: 'string', default: '500000' }, repeat: { type: 'string', default: '20' }, revoked: { type: 'string', default: '5000' } },
});
const ENTRIES = Number(args.entries);
const REPEAT = Number(args.repeat);
const BULK_REVOKED = Number(args.revoked);
const WARMUP = 2;
const BATCH = 10_000;
const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const FORMAT = 'draft-14' as const;

const ms = (start: number) => performance.now() - start;

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}
const fmt = (values: readonly number[]) => `${quantile(values, 0.5).toFixed(2)} | ${quantile(values, 0.9).toFixed(2)}`;

interface Scenario {
  store: string;
  revokedBefore: number;
  revoke: number[];
  resign: number[];
  total: number[];
  kept: number[];
  resignedBytes: number;
  keptBytes: number;
  read: number[];
  pack: number[];
  compress: number[];
  signer: number[];
  es256: number[];
  compressedBytes: number;
}

/** A tenant with an active managed IACA and one full list, made through the use cases where it counts. */
async function prepare(store: Store, name: string) {
  const { vellum, keys, tenant, ctx, iacaId } = await tenantWithIaca(store);

  const filling = performance.now();
  // The first entry through the use case: it opens the list, with its random shuffle key.
  const first = await vellum.statusLists.allocate(tenant, DOC_TYPE, ctx.origin);
  const list = (await store.statusLists.get(tenant.id, first.listId))!;
  const words = shuffleKeyWords(Buffer.from(list.shuffleKey, 'base64url'));
  const credentialIds: string[] = new Array(ENTRIES);
  const at = new Date().toISOString();
  const entry = (credentialId: string, idx: number) => ({ tenantId: tenant.id, listId: list.id, idx, credentialId, status: 'valid' as const, updatedAt: at });
  credentialIds[0] = crypto.randomUUID();
  await store.statusLists.insertEntry(entry(credentialIds[0], first.idx));
  // The rest as `allocate` takes them (a position of the list, shuffled), in batches: a transaction
  // each on SQLite; straight calls in memory, whose transactions copy the whole store.
  const fillBatch = async (repos: Pick<Repositories, 'statusLists'>, from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const taken = await repos.statusLists.takePosition(tenant.id, list.kind);
      if (!taken || taken.list.id !== list.id) throw new Error(`position ${i} did not come from the bench's list`);
      const id = crypto.randomUUID();
      credentialIds[i] = id;
      await repos.statusLists.insertEntry(entry(id, shuffledIndex(taken.position, list.size, words)));
    }
  };
  for (let from = 1; from < ENTRIES; from += BATCH) {
    const to = Math.min(ENTRIES, from + BATCH);
    if (name === 'memory') await fillBatch(store, from, to);
    else await store.transaction((tx) => fillBatch(tx, from, to));
  }
  const fillMs = ms(filling);
  if ((await store.statusLists.get(tenant.id, list.id))?.taken !== ENTRIES) throw new Error('the list is not full');

  // The credentials the use case revokes: fresh ones, not yet revoked, each with its issued-credential record.
  let nextCandidate = 0;
  const toRevoke = async () => {
    let id: string;
    // Spread over the list (7919 is prime to the default size); past any the bulk step revoked.
    do id = credentialIds[(nextCandidate++ * 7919) % ENTRIES] as string;
    while ((await store.statusLists.entryOf(tenant.id, id))?.status !== 'valid');
    await store.issuedCredentials.insert({
      id,
      tenantId: tenant.id,
      format: 'mso_mdoc',
      credentialConfigurationId: 'bench-mdl',
      userId: crypto.randomUUID(),
      issuedAt: at,
      validFrom: at,
      validUntil: new Date(Date.now() + 365 * 86_400_000).toISOString(),
      status: 'valid',
      notificationId: crypto.randomUUID(),
    });
    return id;
  };
  return { vellum, keys, store, tenant, ctx, iacaId, list, credentialIds, toRevoke, fillMs };
}

type Prepared = Awaited<ReturnType<typeof prepare>>;

/** Revokes `count` more entries straight in the store, as earlier revocations would have left them. */
async function bulkRevoke(p: Prepared, name: string, count: number): Promise<void> {
  const at = new Date().toISOString();
  // Every 97th credential from the end: distinct, as 97 is prime to the default size.
  const ids = Array.from({ length: count }, (_, i) => p.credentialIds[ENTRIES - 1 - ((i * 97) % ENTRIES)] as string);
  for (let from = 0; from < count; from += BATCH) {
    const work = async (repos: Pick<Repositories, 'statusLists'>) => {
      for (const id of ids.slice(from, from + BATCH)) await repos.statusLists.setStatus(p.tenant.id, id, 'valid', 'invalid', at);
    };
    if (name === 'memory') await work(p.store);
    else await p.store.transaction(work);
  }
}

async function measure(p: Prepared, name: string, revokedBefore: number): Promise<Scenario> {
  const { vellum, ctx, list, tenant, store, keys } = p;
  const s: Scenario = {
    store: name,
    revokedBefore,
    revoke: [],
    resign: [],
    total: [],
    kept: [],
    resignedBytes: 0,
    keptBytes: 0,
    read: [],
    pack: [],
    compress: [],
    signer: [],
    es256: [],
    compressedBytes: 0,
  };
  for (let i = 0; i < WARMUP + REPEAT; i++) {
    const id = await p.toRevoke();
    const t0 = performance.now();
    await vellum.statusLists.setStatus(ctx, id, { status: 'invalid' });
    const t1 = performance.now();
    const resigned = await vellum.statusLists.token(ctx, list.id);
    const t2 = performance.now();
    const kept = await vellum.statusLists.token(ctx, list.id);
    const t3 = performance.now();
    // The second answer is the kept token: the same bytes, not a second signature.
    if (Buffer.compare(kept.body, resigned.body) !== 0) throw new Error('an unchanged list was signed again');
    if (i < WARMUP) continue;
    s.revoke.push(t1 - t0);
    s.resign.push(t2 - t1);
    s.total.push(t2 - t0);
    s.kept.push(t3 - t2);
    s.resignedBytes = resigned.body.length;
    s.keptBytes = kept.body.length;
  }

  // Each step of a re-sign on its own, on the list as it now is, with the signer the use case uses.
  const signer = (await store.documentSigners.listByIaca(tenant.id, p.iacaId)).find((d) => d.active && d.certificatePem);
  if (!signer?.certificatePem) throw new Error('no document signer after a token was signed');
  const x5chain = [new Uint8Array(new X509Certificate(signer.certificatePem).raw)];
  const tokens = createStatusListTokenSigner({ keys });
  const bits = STATUS_BITS[FORMAT];
  for (let i = 0; i < WARMUP + REPEAT; i++) {
    let t = performance.now();
    const entries: Array<{ idx: number; status: CredentialStatus }> = await store.statusLists.nonValidEntries(tenant.id, list.id);
    const read = ms(t);
    t = performance.now();
    const statuses = packStatuses(list.size, bits, entries);
    const pack = ms(t);
    // What the token signer does to the bits (packages/formats/src/status-list/common.ts, compressStatuses).
    t = performance.now();
    const lst = deflateSync(statuses, { level: zlib.Z_BEST_COMPRESSION });
    const compress = ms(t);
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    t = performance.now();
    await tokens.sign({
      tenantId: tenant.id,
      format: FORMAT,
      uri: `${ctx.origin}/bench`,
      issuedAt: now,
      expiresAt: new Date(now.getTime() + 86_400_000),
      ttlSeconds: 3600,
      bits,
      statuses,
      signer: { keyId: signer.keyId, x5chain },
    });
    const signing = ms(t);
    t = performance.now();
    await keys.sign(tenant.id, signer.keyId, lst);
    const es256 = ms(t);
    if (i < WARMUP) continue;
    s.read.push(read);
    s.pack.push(pack);
    s.compress.push(compress);
    s.signer.push(signing);
    s.es256.push(es256);
    s.compressedBytes = lst.length;
  }
  return s;
}

printMachine();
console.log(`one ${FORMAT} mDoc status list of ${ENTRIES.toLocaleString('en-US')} entries; ${REPEAT} measured rounds after ${WARMUP} warm-up rounds\n`);

const scenarios: Scenario[] = [];
const fills: string[] = [];
await eachStore('status', ['sqlite', 'memory'], async (store, name) => {
  const p = await prepare(store, name);
  fills.push(
    `${name}: filled ${ENTRIES.toLocaleString('en-US')} entries in ${(p.fillMs / 1000).toFixed(1)} s (${Math.round(ENTRIES / (p.fillMs / 1000)).toLocaleString('en-US')}/s)`,
  );
  console.log(fills.at(-1));
  scenarios.push(await measure(p, name, 0));
  await bulkRevoke(p, name, BULK_REVOKED);
  scenarios.push(await measure(p, name, BULK_REVOKED));
});

const revokedLabel = (s: Scenario) =>
  s.revokedBefore === 0 ? `≤ ${WARMUP + REPEAT} (the bench's own)` : `${s.revokedBefore.toLocaleString('en-US')} + the bench's`;

console.log('\nRevoking one credential and serving the next token (ms):\n');
console.log(
  '| store | revoked entries in the list | revoke (setStatus) median | p90 | re-signed token median | p90 | revoke + token median | p90 | kept token median | p90 | token bytes |',
);
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const s of scenarios) {
  console.log(
    `| ${s.store} | ${revokedLabel(s)} | ${fmt(s.revoke)} | ${fmt(s.resign)} | ${fmt(s.total)} | ${fmt(s.kept)} | ${s.resignedBytes.toLocaleString('en-US')} |`,
  );
}

console.log('\nWhere a re-sign goes, each step on its own (ms):\n');
console.log(
  `| store | revoked entries in the list | read non-valid entries median | p90 | pack ${ENTRIES.toLocaleString('en-US')} bits median | p90 | compress (zlib level 9) median | p90 | whole token signer (compress + CBOR + ES256) median | p90 | ES256 alone median | p90 | lst bytes |`,
);
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const s of scenarios) {
  console.log(
    `| ${s.store} | ${revokedLabel(s)} | ${fmt(s.read)} | ${fmt(s.pack)} | ${fmt(s.compress)} | ${fmt(s.signer)} | ${fmt(s.es256)} | ${s.compressedBytes.toLocaleString('en-US')} |`,
  );
}
console.log(`\n${fills.join('\n')}`);
