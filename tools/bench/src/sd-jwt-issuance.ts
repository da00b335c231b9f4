// dc+sd-jwt issuance throughput (issue 14): the core's format handler `issue` (claims, validity,
// signing DID, payload) with the real SD-JWT signer (@sd-jwt/core, SHA-256 disclosures, ES256
// through the KeyManager), a 7-claim PID-like configuration with every claim disclosable, on
// SQLite (the server's default store) and in memory. Beside it, in the same run: the signer alone
// (the same payload, no store lookups) and the raw ES256 KeyManager.sign rate, so the table shows
// where the time goes. Target: at least 3,000 credentials/s on one core. Run it pinned to one core:
//
//   taskset -c 0 node tools/bench/src/sd-jwt-issuance.ts [--seconds 4]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createSdJwtFormat, type DidKey, signingDidOf, type PublicJwk, type SdJwtConfiguration, type SdJwtSignInput, type Store } from '@vellum/core';
import { addDidKey } from '@vellum/testing/fakes';
import { createKeyManager, createSealer } from '@vellum/crypto';
import { createSdJwtSigner } from '@vellum/formats';
import { createNodeIds, systemClock } from '@vellum/node';
import { createMemoryStore } from '@vellum/storage-memory';
import { openSqlStore } from '@vellum/storage-sql';
import { holderKeys, printMachine, type Rate, rate } from './throughput.ts';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '4' } } });
const SECONDS = Number(args.seconds);

const configurationOf = (tenantId: string): SdJwtConfiguration => ({
  id: 'bench-pid',
  tenantId,
  format: 'dc+sd-jwt',
  type: 'https://credentials.example.com/pid',
  expiresIn: { days: 365 },
  claimMappings: {
    given_name: { mapFrom: 'claims.givenName', required: true },
    family_name: { mapFrom: 'claims.familyName', required: true },
    birthdate: { mapFrom: 'claims.birthDate', required: true },
    nationalities: { mapFrom: 'claims.nationalities' },
    address: { mapFrom: 'claims.address' },
    age_over_18: { mapFrom: 'claims.adult' },
    issuing_country: { defaultValue: 'DE' },
  },
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

const subject = {
  claims: {
    givenName: 'Erika',
    familyName: 'Mustermann',
    birthDate: '1964-08-12',
    nationalities: ['DE'],
    address: { street_address: 'Heidestraße 17', locality: 'Köln', postal_code: '51147' },
    adult: true,
  },
};

// Each credential binds another holder key, as real issuance does.
const holders = holderKeys(256);

/** A tenant with a did:key over a KeyManager P-256 key (as the DID service makes it), on `store`. */
async function prepare(store: Store) {
  const keys = createKeyManager({ keys: store.keys, sealer: createSealer(new Uint8Array(32).fill(1)), ids: createNodeIds(), clock: systemClock });
  const tenant = {
    id: crypto.randomUUID(),
    subdomain: `bench${Math.random().toString(36).slice(2, 8)}`,
    region: 'eu01' as const,
    name: 'Bench',
    loggingLevel: 1 as const,
    createdAt: new Date().toISOString(),
  };
  await store.tenants.insert(tenant);
  const record = await addDidKey(store, keys, tenant.id, 'P-256');
  const { did } = record;
  const key = { id: (record.keys[0] as DidKey).kmsKeyId, publicJwk: (record.keys[0] as DidKey).publicJwk };
  const signer = createSdJwtSigner({ keys });
  const handler = createSdJwtFormat({ store, signer });
  const configuration = configurationOf(tenant.id);
  const issueOne = (i: number) =>
    handler.issue({
      tenant,
      configuration,
      subject,
      holderKey: holders[i % holders.length] as PublicJwk,
      credentialIssuer: 'https://bench.eu01.vellum.bench',
      now: new Date(),
      form: 'current',
    });
  const first = await issueOne(0);
  // The signer alone, on the payload the handler built: what the handler adds is the difference.
  let recorded: SdJwtSignInput | undefined;
  await createSdJwtFormat({ store, signer: { issue: async (input) => ((recorded = input), '') } }).issue({
    tenant,
    configuration,
    subject,
    holderKey: holders[0] as PublicJwk,
    credentialIssuer: 'https://bench.eu01.vellum.bench',
    now: new Date(),
    form: 'current',
  });
  const input = recorded as SdJwtSignInput;
  const signOnly = () => signer.issue(input);
  const message = new Uint8Array(400).fill(0x5a);
  const rawSign = () => keys.sign(tenant.id, key.id, message);
  // What the handler asks the store for on every credential: the signing DID and its key.
  const lookup = () => signingDidOf(store, tenant.id, undefined, 'P-256');
  return { issueOne, signOnly, rawSign, lookup, first };
}

printMachine();

const dir = mkdtempSync(join(tmpdir(), 'vellum-bench-sd-jwt-'));
const rows: Array<{ store: string; issued: Rate; signer: Rate; signs: Rate; lookups: Rate }> = [];
try {
  for (const [name, open] of [
    ['sqlite', () => openSqlStore({ kind: 'sqlite', filename: join(dir, `bench-${Date.now()}.db`) })],
    ['memory', async () => createMemoryStore()],
  ] as const) {
    const store = await open();
    try {
      const { issueOne, signOnly, rawSign, lookup, first } = await prepare(store);
      if (rows.length === 0)
        console.log(
          `SD-JWT VC: ${(first.credential as string).length} characters, ${(first.credential as string).split('~').length - 2} disclosures, valid ${first.validFrom} to ${first.validUntil}`,
        );
      // Warm every path up, then alternate so drift hits them alike.
      await rate(1, issueOne);
      await rate(0.5, signOnly);
      await rate(0.5, rawSign);
      await rate(0.5, lookup);
      const slice = SECONDS / 8;
      const l1 = await rate(slice, lookup);
      const r1 = await rate(slice, rawSign);
      const s1 = await rate(slice, signOnly);
      const i1 = await rate(slice, issueOne);
      const l2 = await rate(slice, lookup);
      const r2 = await rate(slice, rawSign);
      const s2 = await rate(slice, signOnly);
      const i2 = await rate(slice, issueOne);
      const mean = (a: Rate, b: Rate): Rate => ({
        count: a.count + b.count,
        perSecond: (a.perSecond + b.perSecond) / 2,
        perCpuSecond: (a.perCpuSecond + b.perCpuSecond) / 2,
      });
      rows.push({ store: name, issued: mean(i1, i2), signer: mean(s1, s2), signs: mean(r1, r2), lookups: mean(l1, l2) });
    } finally {
      await store.close();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const f = (n: number) => Math.round(n).toLocaleString('en-US');
const us = (r: Rate) => (1e6 / r.perCpuSecond).toFixed(1);
console.log(
  '\n| store | handler.issue/s (wall) | handler.issue/s (CPU) | µs per credential | µs in the signer (alone) | µs of which ES256 KeyManager.sign | µs signing DID lookup |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(
    `| ${r.store} | ${f(r.issued.perSecond)} | ${f(r.issued.perCpuSecond)} | ${us(r.issued)} | ${us(r.signer)} | ${us(r.signs)} | ${us(r.lookups)} |`,
  );
}
const headline = rows.find((r) => r.store === 'sqlite');
if (headline)
  console.log(
    `\ntarget ≥ 3000 SD-JWT VCs/s on one core (SQLite): ${headline.issued.perCpuSecond >= 3000 ? 'met' : 'NOT met'} (${f(headline.issued.perCpuSecond)}/s per CPU-second, ${f(headline.issued.perSecond)}/s wall-clock)`,
  );
