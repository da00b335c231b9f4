// ldp_vc issuance throughput (issue 14): the core's ldp_vc handler (`handler.issue`) with the real
// Linked Data signer (JSON-LD to RDF, RDFC-1.0, SHA-256, Ed25519 through the KeyManager), for both
// proof suites and both response forms, on the memory store and on SQLite. Then where the time of
// one credential goes, measured part by part on the same document in the same run:
//
//   JSON-LD → RDF   jsonld-streaming-parser expanding the document and the proof options to quads
//   RDFC-1.0        canonical labelling and N-Quads of those quads (rdf-canonize)
//   SHA-256 etc.    the rest of the 64 bytes to sign (hashing, object copies)
//   signing         KeyManager.sign of those 64 bytes (Ed25519)
//   the rest        claims, validity, the signing DID from the store, the document, the proof
//
// Run it pinned to one core:
//
//   taskset -c 0 node tools/bench/src/ldp-vc-issuance.ts [--seconds 4]
import { canonizeQuads, linkedDataVerifyData, toQuads } from '@vellum/formats';
import { prepareLdpVc } from './format-issuers.ts';
import { eachStore } from './in-process.ts';
import { printMachine, type Rate, rate, secondsOption, thousands as f } from './throughput.ts';

const SECONDS = secondsOption(4);

printMachine();

const us = (r: Rate) => 1e6 / r.perCpuSecond;
const cases = [
  ['Ed25519Signature2018', 'current'],
  ['Ed25519Signature2020', 'current'],
  ['Ed25519Signature2018', 'legacy'],
  ['Ed25519Signature2020', 'legacy'],
] as const;

const rows: Array<{ store: string; proofType: string; form: string; rate: Rate }> = [];
let parts: Array<[string, number]> = [];
let totalUs = 0;
let sample = '';
await eachStore('ldp', ['memory', 'sqlite'], async (store, name) => {
  const { keys, tenant, keyId, issueWith } = await prepareLdpVc(store);
  for (const [proofType, form] of cases) {
    const issueOne = issueWith(proofType, form);
    await rate(1, issueOne);
    rows.push({ store: name, proofType, form, rate: await rate(SECONDS, issueOne) });
  }
  if (name !== 'memory') return;

  // The parts, on the document the handler signs (2020 suite, legacy form: the largest).
  const issueOne = issueWith('Ed25519Signature2020', 'legacy');
  const signed = (await issueOne(0)).credential as Record<string, unknown> & { proof: Record<string, unknown> };
  const { proof, ...document } = signed;
  const { proofValue: _signature, ...options } = proof;
  const optionsDocument = { '@context': document['@context'], ...options };
  const [documentQuads, optionsQuads] = [await toQuads(document), await toQuads(optionsDocument)];
  sample = `${JSON.stringify(signed).length} bytes of JSON; ${documentQuads.length} quads in the document, ${optionsQuads.length} in the proof options`;
  const message = new Uint8Array(64).fill(7);
  const measured = {
    issue: await rate(SECONDS, issueOne),
    verifyData: await rate(SECONDS / 2, () => linkedDataVerifyData(signed, proof)),
    parse: await rate(SECONDS / 2, () => Promise.all([toQuads(document), toQuads(optionsDocument)])),
    rdfc: await rate(SECONDS / 2, () => Promise.all([canonizeQuads(documentQuads), canonizeQuads(optionsQuads)])),
    sign: await rate(SECONDS / 2, () => keys.sign(tenant.id, keyId, message)),
  };
  totalUs = us(measured.issue);
  const parse = us(measured.parse);
  const rdfc = us(measured.rdfc);
  const verifyData = us(measured.verifyData);
  const sign = us(measured.sign);
  parts = [
    ['JSON-LD → RDF (document + proof options)', parse],
    ['RDFC-1.0 (document + proof options)', rdfc],
    ['SHA-256 and the rest of the bytes to sign', verifyData - parse - rdfc],
    ['Ed25519 signing (KeyManager.sign)', sign],
    ['the rest (claims, DID lookup, document, proof)', totalUs - verifyData - sign],
  ];
});

console.log(`\nsample credential (2020 suite, legacy form): ${sample}`);
console.log('\n| store | proof type | form | credentials/s (wall) | credentials/s (CPU) | µs per credential |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const r of rows)
  console.log(`| ${r.store} | ${r.proofType} | ${r.form} | ${f(r.rate.perSecond)} | ${f(r.rate.perCpuSecond)} | ${us(r.rate).toFixed(1)} |`);
console.log(`\nwhere the ${totalUs.toFixed(1)} µs of one credential go (memory store, Ed25519Signature2020, legacy form; each part timed alone):`);
console.log('| part | µs | share |');
console.log('| --- | --- | --- |');
for (const [part, time] of parts) console.log(`| ${part} | ${time.toFixed(1)} | ${((100 * time) / totalUs).toFixed(0)} % |`);
