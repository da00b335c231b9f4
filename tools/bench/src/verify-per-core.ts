// Verifications per CPU-second of one core (issue 31): Vellum's SD-JWT VC and mDoc verifiers as the
// server composes them, with the real adapters, in process. The SD-JWT VC is signed by an issuer CA
// leaf in x5c and presented with a KB-JWT (two ES256 verifications and a chain check each); the
// mDoc is a bare IssuerSigned under a document signer of a trusted IACA (the issuer signature, the
// chain and every value digest). Credentials are made before the timing; only verification is timed.
//
//   node tools/bench/src/verify-per-core.ts [--count 2000] [--no-pin] [--no-chain-cache] [--format sd-jwt|mdoc]
//
// The mDoc verifier gets the chain validator as the server composes it, with its per-process cache
// of path verdicts (cacheCertificatePaths); --no-chain-cache measures it without, as before.
// The process pins itself to core 0 with `taskset` when it can, as formats-per-core.ts does; rates
// are per CPU-second of the process.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { createMdocVerifier, createSdJwtVcVerifier, type FormatVerifier, type IssuerAnchor, type VerifyOptions } from '@vellum/core';
import { cacheCertificatePaths, createCertificateChainValidator, createDigests, createJwtProofVerifier } from '@vellum/crypto';
import { createMdocReader } from '@vellum/formats';
import { printMachine, thousands as f } from './throughput.ts';
import { AUDIENCE, makeVerifySamples, NONCE } from './verify-samples.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '2000' },
    'no-pin': { type: 'boolean', default: false },
    'no-chain-cache': { type: 'boolean', default: false },
    format: { type: 'string' },
  },
});
const COUNT = Number(values.count);
if (!(Number.isInteger(COUNT) && COUNT > 0)) throw new Error('--count must be a positive integer');
if (!values['no-pin'] && availableParallelism() > 1) {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  } catch {
    console.log('taskset failed or is missing: not pinned (run under `taskset -c 0` yourself)');
  }
}
printMachine();

const { caPem, sdJwt, mdoc } = await makeVerifySamples();

const anchor = (formats: IssuerAnchor['formats']): IssuerAnchor => ({ kind: 'x509', trustedIssuerId: 'bench', certificatePem: caPem, formats });
const chains = values['no-chain-cache'] ? createCertificateChainValidator() : cacheCertificatePaths(createCertificateChainValidator());
const cases: Array<{ name: string; verify: FormatVerifier; input: string; options: VerifyOptions }> = [
  {
    name: 'dc+sd-jwt (x5c leaf, 3 disclosures, KB-JWT)',
    verify: createSdJwtVcVerifier({ jwtProofs: createJwtProofVerifier(), digests: createDigests(new Uint8Array(32)) }),
    input: sdJwt,
    options: { anchors: [anchor(['dc+sd-jwt'])], now: new Date(), nonce: NONCE, audience: AUDIENCE },
  },
  {
    name: `mso_mdoc (IssuerSigned, 5 elements${values['no-chain-cache'] ? ', no chain cache' : ''})`,
    verify: createMdocVerifier({ reader: createMdocReader(), chains }),
    input: mdoc,
    options: { anchors: [anchor(['mso_mdoc'])], now: new Date() },
  },
];

console.log('\n| format | verifications | per CPU-second | µs per verification (CPU) | per second (wall) |\n| --- | --- | --- | --- | --- |');
for (const c of cases.filter((c) => values.format === undefined || c.name.startsWith(values.format === 'mdoc' ? 'mso_mdoc' : 'dc+sd-jwt'))) {
  const first = await c.verify(c.input, c.options);
  if (!first.verified) throw new Error(`${c.name} did not verify: ${JSON.stringify(first.checks.filter((k) => !k.ok))}`);
  for (let i = 0; i < 50; i++) await c.verify(c.input, c.options);
  const cpu = process.cpuUsage();
  const wall = performance.now();
  for (let i = 0; i < COUNT; i++) await c.verify(c.input, c.options);
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  const wallSeconds = (performance.now() - wall) / 1000;
  console.log(`| ${c.name} | ${f(COUNT)} | ${f(COUNT / cpuSeconds)} | ${((cpuSeconds / COUNT) * 1e6).toFixed(1)} | ${f(COUNT / wallSeconds)} |`);
}
