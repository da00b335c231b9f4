// CBOR decoding of an issued mDoc with cbor-x, with or without cbor-x's native string extractor
// (the optional cbor-extract addon, issue 17). Vellum's issuer only ENCODES CBOR (the mso_mdoc
// engine, CWT and Token Status List signers), and cbor-extract plays no part in encoding; decoding
// is what a wallet or verifier does with what we issue, and what our own tests do. This measures
// that decoding: the whole IssuerSigned as a verifier reads it (the outer structure, every
// IssuerSignedItem inside its tag 24, and the Mobile Security Object inside the COSE_Sign1 payload).
//
//   taskset -c 0 node tools/bench/src/cbor-decode.ts [--seconds 4]
//   CBOR_NATIVE_ACCELERATION_DISABLED=true taskset -c 0 node tools/bench/src/cbor-decode.ts
//
// The line "native string extractor" says which path ran: cbor-x loads the extractor only when
// cbor-extract's install script has built it and CBOR_NATIVE_ACCELERATION_DISABLED is not "true".
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { PublicJwk } from '@vellum/core';
import { issueMdoc } from '@vellum/formats';
import { createMemoryStore } from '@vellum/storage-memory';
import { benchTenant, MDL_CLAIMS, rawMdocSigner } from './in-process.ts';
import { holderKeys, printMachine, secondsOption } from './throughput.ts';

const SECONDS = secondsOption(4);
const DAY = 86_400_000;

/** The part of cbor-x used here. */
interface CborX {
  Decoder: new (options: { mapsAsObjects: boolean; useRecords: boolean }) => { decode(bytes: Uint8Array): unknown };
  encode(value: unknown): Uint8Array;
  isNativeAccelerationEnabled: boolean;
}
interface Tagged {
  tag: number;
  value: unknown;
}
// The very cbor-x (and so the very cbor-extract) that @vellum/formats loads, resolved from there:
// this benchmark package does not depend on cbor-x itself.
const cborX = createRequire(import.meta.resolve('@vellum/formats'))('cbor-x') as CborX;
// A verifier's decoder: plain maps and arrays, as ISO/IEC 18013-5 structures are read.
const decoder = new cborX.Decoder({ mapsAsObjects: false, useRecords: false });

async function issueSample(): Promise<Uint8Array> {
  const store = createMemoryStore();
  const { keys, tenant } = await benchTenant(store);
  const signed = new Date();
  const { issuerSigned } = await issueMdoc({
    docType: 'org.iso.18013.5.1.mDL',
    // The ten claims of mdoc-issue.ts, so that the two benchmarks speak of the same credential.
    namespaces: { 'org.iso.18013.5.1': MDL_CLAIMS },
    deviceKey: holderKeys(1)[0] as PublicJwk,
    validity: { signed, validFrom: signed, validUntil: new Date(signed.getTime() + 365 * DAY) },
    signer: await rawMdocSigner(keys, tenant.id),
  });
  return issuerSigned;
}

/** Decodes everything a verifier reads in an IssuerSigned; returns the element count and docType. */
function readIssuerSigned(bytes: Uint8Array): { elements: number; docType: unknown } {
  const issuerSigned = decoder.decode(bytes) as Map<string, unknown>;
  let elements = 0;
  for (const items of (issuerSigned.get('nameSpaces') as Map<string, Tagged[]>).values()) {
    for (const item of items) {
      decoder.decode(item.value as Uint8Array);
      elements++;
    }
  }
  const issuerAuth = issuerSigned.get('issuerAuth') as unknown[];
  const payload = decoder.decode(issuerAuth[2] as Uint8Array) as Tagged;
  const mso = decoder.decode(payload.value as Uint8Array) as Map<string, unknown>;
  return { elements, docType: mso.get('docType') };
}

const sample = await issueSample();
// Refuse to measure anything but a complete read of the credential.
const check = readIssuerSigned(sample);
if (check.elements !== 10 || check.docType !== 'org.iso.18013.5.1.mDL') throw new Error(`unexpected decode: ${JSON.stringify(check)}`);

console.log(`mDoc: ${sample.length} bytes of IssuerSigned, 10 elements`);
console.log(`native string extractor (cbor-extract): ${cborX.isNativeAccelerationEnabled ? 'on' : 'off'}`);
printMachine();

/** Runs `read` back to back for `seconds`; decoding is synchronous, so no promise per read. */
function measure(seconds: number, read: () => unknown) {
  const start = performance.now();
  const cpu = process.cpuUsage();
  let count = 0;
  while (performance.now() - start < seconds * 1000) {
    for (let i = 0; i < 1000; i++) read();
    count += 1000;
  }
  const used = process.cpuUsage(cpu);
  return { perSecond: count / ((performance.now() - start) / 1000), perCpuSecond: count / ((used.user + used.system) / 1e6) };
}
const report = (label: string, r: { perSecond: number; perCpuSecond: number }) =>
  console.log(
    `${label}: ${Math.round(r.perSecond)}/s of wall-clock time, ${Math.round(r.perCpuSecond)}/s of CPU time (${(1e6 / r.perCpuSecond).toFixed(2)} µs each)`,
  );

// A control that is nothing like an mDoc: one buffer of 200 ASCII strings of 32 characters, the
// shape cbor-extract is made for. It shows whether the extractor, when on, is doing anything.
const strings = cborX.encode(Array.from({ length: 200 }, (_, i) => `claim-value-${String(i).padStart(20, '0')}`));

measure(1, () => readIssuerSigned(sample)); // warm-up
measure(1, () => decoder.decode(strings));
report(
  'full IssuerSigned reads',
  measure(SECONDS, () => readIssuerSigned(sample)),
);
report(
  `control, ${strings.length} bytes of 200 strings`,
  measure(SECONDS / 2, () => decoder.decode(strings)),
);
