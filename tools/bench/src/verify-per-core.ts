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
import { createHash, generateKeyPairSync, type JsonWebKey, sign } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { createMdocVerifier, createSdJwtVcVerifier, type FormatVerifier, type IssuerAnchor, type VerifyOptions } from '@vellum/core';
import {
  cacheCertificatePaths,
  createCertificateChainValidator,
  createDigests,
  createDocumentSignerCertificate,
  createIacaCertificate,
  createJwtProofVerifier,
  createKeyManager,
  createSealer,
  managedSigningKey,
} from '@vellum/crypto';
import { createMdocReader, createSdJwtSigner, issueMdoc } from '@vellum/formats';
import { createMemoryStore } from '@vellum/storage-memory';
import { derToJose } from './flow-common.ts';
import { printMachine, thousands as f } from './throughput.ts';

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

const DAY = 86_400_000;
const now = Date.now();
const seconds = Math.floor(now / 1000);
const b64u = (text: string | Uint8Array) => Buffer.from(text).toString('base64url');

// One CA and one leaf, made by Vellum's certificate tooling, for both formats.
const store = createMemoryStore();
const ids = { uuid: () => crypto.randomUUID(), token: () => 'unused', bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) };
const keys = createKeyManager({ keys: store.keys, sealer: createSealer(new Uint8Array(32).fill(9)), ids, clock: { now: () => new Date() } });
const tenant = { id: 'bench-tenant' };
const caKey = managedSigningKey(keys, await keys.create(tenant.id, 'P-256'));
const common = { country: 'DE', issuerAlternativeName: 'https://issuer.example.com', crlDistributionPointUri: 'https://issuer.example.com/crl' };
const ca = await createIacaCertificate({ key: caKey, commonName: 'Bench CA', notBefore: new Date(now - DAY), notAfter: new Date(now + 365 * DAY), ...common });
const leafKey = await keys.create(tenant.id, 'P-256');
const leaf = await createDocumentSignerCertificate({
  iaca: { certificateDer: ca.der, key: caKey },
  subjectPublicJwk: leafKey.publicJwk,
  commonName: 'Bench Signer',
  notBefore: new Date(now - DAY),
  notAfter: new Date(now + 30 * DAY),
  subjectAltNames: ['https://issuer.example.com'],
  ...common,
});

// The holder: a P-256 key that signs the KB-JWT; the mDoc's device key.
const holder = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const { kty, crv, x, y } = holder.publicKey.export({ format: 'jwk' }) as JsonWebKey;
const holderJwk = { kty: 'EC', crv: 'P-256', x: x as string, y: y as string } as const;
const NONCE = 'bench-nonce';
const AUDIENCE = 'x509_hash:verifier.example';

const credential = await createSdJwtSigner({ keys }).issue({
  tenantId: tenant.id,
  keyId: leafKey.id,
  alg: 'ES256',
  x5c: [Buffer.from(leaf.der).toString('base64')],
  payload: {
    iss: 'https://issuer.example.com',
    iat: seconds,
    exp: seconds + 3600,
    vct: 'https://credentials.example/pid',
    cnf: { jwk: { kty, crv, x, y } },
    given_name: 'Erika',
    family_name: 'Mustermann',
    birthdate: '1964-08-12',
  },
  disclosable: ['given_name', 'family_name', 'birthdate'],
});
const presented = credential.endsWith('~') ? credential : `${credential}~`;
const kbInput = `${b64u(JSON.stringify({ typ: 'kb+jwt', alg: 'ES256' }))}.${b64u(JSON.stringify({ iat: seconds, aud: AUDIENCE, nonce: NONCE, sd_hash: createHash('sha256').update(presented).digest('base64url') }))}`;
const sdJwt = `${presented}${kbInput}.${derToJose(sign('sha256', Buffer.from(kbInput), holder.privateKey)).toString('base64url')}`;

const mdoc = (
  await issueMdoc({
    docType: 'org.iso.18013.5.1.mDL',
    namespaces: {
      'org.iso.18013.5.1': {
        family_name: 'Mustermann',
        given_name: 'Erika',
        birth_date: { type: 'date', value: '1964-08-12' },
        age_over_18: true,
        issuing_country: 'DE',
      },
    },
    deviceKey: holderJwk,
    validity: { signed: new Date(now - 60_000), validFrom: new Date(now - 60_000), validUntil: new Date(now + 30 * DAY) },
    signer: { sign: managedSigningKey(keys, leafKey).sign, x5chain: [leaf.der] },
  })
).credential;

const anchor = (formats: IssuerAnchor['formats']): IssuerAnchor => ({ kind: 'x509', trustedIssuerId: 'bench', certificatePem: ca.pem, formats });
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
