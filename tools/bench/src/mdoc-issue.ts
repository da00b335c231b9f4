// mDoc issuance throughput: the mso_mdoc engine (@vellum/formats issueMdoc) signing through a
// KeyManager-held document signer key, 10 claims per credential, against the raw ES256 signing
// rate of the same KeyManager measured in the same run (issue 4: at least 3,000 mDocs/s on one
// core). Run it pinned to one core:
//
//   taskset -c 0 node tools/bench/src/mdoc-issue.ts [--seconds 5]
import type { PublicJwk, Tenant } from '@vellum/core';
import { createDocumentSignerCertificate, createIacaCertificate, createKeyManager, createSealer, managedSigningKey } from '@vellum/crypto';
import { issueMdoc, type MdocValue } from '@vellum/formats';
import { createMemoryStore } from '@vellum/storage-memory';
import { holderKeys, printMachine, type Rate, rate } from './throughput.ts';

const secondsArg = process.argv.indexOf('--seconds');
const SECONDS = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 5;
const DAY = 86_400_000;

async function setup() {
  const store = createMemoryStore();
  const keys = createKeyManager({
    keys: store.keys,
    sealer: createSealer(new Uint8Array(32).fill(1)),
    ids: { uuid: () => crypto.randomUUID(), token: () => 'unused', bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) },
    clock: { now: () => new Date() },
  });
  // Not @vellum/testing's makeTenant: that package loads vitest, which refuses to run outside it.
  const tenant: Tenant = { id: crypto.randomUUID(), subdomain: 'bench', region: 'eu01', name: 'Bench', loggingLevel: 1, createdAt: new Date().toISOString() };
  await store.tenants.insert(tenant);
  const now = Date.now();
  const iacaKey = managedSigningKey(keys, await keys.create(tenant.id, 'P-256'));
  const iaca = await createIacaCertificate({
    key: iacaKey,
    commonName: 'Bench IACA',
    country: 'US',
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 3650 * DAY),
    issuerAlternativeName: 'https://issuer.example.com',
    crlDistributionPointUri: 'https://issuer.example.com/crl',
  });
  const signerKey = await keys.create(tenant.id, 'P-256');
  const ds = await createDocumentSignerCertificate({
    iaca: { certificateDer: iaca.der, key: iacaKey },
    subjectPublicJwk: signerKey.publicJwk,
    commonName: 'Bench Document Signer',
    country: 'US',
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 365 * DAY),
    crlDistributionPointUri: 'https://issuer.example.com/crl',
    issuerAlternativeName: 'https://issuer.example.com',
  });
  const sign = (data: Uint8Array) => keys.sign(tenant.id, signerKey.id, data);
  return { sign, x5chain: [ds.der] };
}

// Each credential binds another holder key, as real issuance does.
const holders = holderKeys(256);

const claims: Record<string, MdocValue> = {
  family_name: { type: 'string', value: 'Turner' },
  given_name: { type: 'string', value: 'Susan' },
  birth_date: { type: 'date', value: '1990-05-15' },
  issue_date: { type: 'date', value: '2026-01-10' },
  expiry_date: { type: 'date', value: '2031-01-10' },
  issuing_country: { type: 'string', value: 'US' },
  issuing_authority: { type: 'string', value: 'Bench DMV' },
  document_number: { type: 'string', value: 'DL-1234-5678' },
  age_over_18: { type: 'boolean', value: true },
  height: { type: 'number', value: 172 },
};

const mean = (a: Rate, b: Rate, key: 'perSecond' | 'perCpuSecond') => (a[key] + b[key]) / 2;

const { sign, x5chain } = await setup();
const message = new Uint8Array(200).fill(0x5a);
const issueOne = (i: number) => {
  const now = new Date();
  return issueMdoc({
    docType: 'org.iso.18013.5.1.mDL',
    namespaces: { 'org.iso.18013.5.1': claims },
    deviceKey: holders[i % holders.length] as PublicJwk,
    validity: { signed: now, validFrom: now, validUntil: new Date(now.getTime() + 365 * DAY) },
    signer: { sign, x5chain },
  });
};

const sample = await issueOne(0);
console.log(`mDoc: ${sample.issuerSigned.length} bytes of IssuerSigned (${sample.credential.length} characters as credential)`);
printMachine();

// Warm both paths up before measuring, then alternate so drift hits both alike.
await rate(1, (i) => issueOne(i));
await rate(1, () => sign(message));
const half = SECONDS / 2;
const signs1 = await rate(half, () => sign(message));
const mdocs1 = await rate(half, (i) => issueOne(i));
const signs2 = await rate(half, () => sign(message));
const mdocs2 = await rate(half, (i) => issueOne(i));
const report = (key: 'perSecond' | 'perCpuSecond', label: string) => {
  const signs = mean(signs1, signs2, key);
  const mdocs = mean(mdocs1, mdocs2, key);
  console.log(`${label}:`);
  console.log(`  raw ES256 (KeyManager.sign, 200-byte messages): ${Math.round(signs)} signatures/s`);
  console.log(`  mDoc issuance (issueMdoc, 10 claims, KeyManager-held document signer): ${Math.round(mdocs)} mDocs/s`);
  console.log(
    `  per mDoc ${(1e6 / mdocs).toFixed(1)} µs, of which one ES256 signature ≈ ${(1e6 / signs).toFixed(1)} µs; mDocs/s ÷ signatures/s = ${(mdocs / signs).toFixed(2)}`,
  );
  return mdocs;
};
report('perSecond', 'per second of wall-clock time');
const capacity = report('perCpuSecond', 'per second of CPU time (the core’s capacity)');
console.log(`target ≥ 3000 mDocs/s on one core: ${capacity >= 3000 ? 'met' : 'NOT met'}`);
