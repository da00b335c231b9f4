// mDoc issuance throughput: the mso_mdoc engine (@vellum/formats issueMdoc) signing through a
// KeyManager-held document signer key, 10 claims per credential, against the raw ES256 signing
// rate of the same KeyManager measured in the same run (issue 4: at least 3,000 mDocs/s on one
// core). Run it pinned to one core:
//
//   taskset -c 0 node tools/bench/src/mdoc-issue.ts [--seconds 5]
import type { PublicJwk } from '@vellum/core';
import { issueMdoc } from '@vellum/formats';
import { createMemoryStore } from '@vellum/storage-memory';
import { benchTenant, MDL_CLAIMS, rawMdocSigner } from './in-process.ts';
import { alternate, holderKeys, printMachine, secondsOption } from './throughput.ts';

const SECONDS = secondsOption(5);
const DAY = 86_400_000;

// Each credential binds another holder key, as real issuance does.
const holders = holderKeys(256);

const { keys, tenant } = await benchTenant(createMemoryStore());
const { sign, x5chain } = await rawMdocSigner(keys, tenant.id);
const message = new Uint8Array(200).fill(0x5a);
const issueOne = (i: number) => {
  const now = new Date();
  return issueMdoc({
    docType: 'org.iso.18013.5.1.mDL',
    namespaces: { 'org.iso.18013.5.1': MDL_CLAIMS },
    deviceKey: holders[i % holders.length] as PublicJwk,
    validity: { signed: now, validFrom: now, validUntil: new Date(now.getTime() + 365 * DAY) },
    signer: { sign, x5chain },
  });
};

const sample = await issueOne(0);
console.log(`mDoc: ${sample.issuerSigned.length} bytes of IssuerSigned (${sample.credential.length} characters as credential)`);
printMachine();

// Warm both paths up before measuring, then alternate so drift hits both alike.
const rates = await alternate({ signs: () => sign(message), mdocs: (i) => issueOne(i) }, { mdocs: 1, signs: 1 }, SECONDS / 2);
const report = (key: 'perSecond' | 'perCpuSecond', label: string) => {
  const signs = rates.signs[key];
  const mdocs = rates.mdocs[key];
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
