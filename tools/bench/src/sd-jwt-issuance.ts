// dc+sd-jwt issuance throughput (issue 14): the core's format handler `issue` (claims, validity,
// signing DID, payload) with the real SD-JWT signer (@sd-jwt/core, SHA-256 disclosures, ES256
// through the KeyManager), a 7-claim PID-like configuration with every claim disclosable, on
// SQLite (the server's default store) and in memory. Beside it, in the same run: the signer alone
// (the same payload, no store lookups) and the raw ES256 KeyManager.sign rate, so the table shows
// where the time goes. Target: at least 3,000 credentials/s on one core. Run it pinned to one core:
//
//   taskset -c 0 node tools/bench/src/sd-jwt-issuance.ts [--seconds 4]
import { createSdJwtFormat, signingDidOf, type SdJwtConfiguration, type SdJwtSignInput, type Store } from '@vellum/core';
import { createSdJwtSigner } from '@vellum/formats';
import { SD_JWT_SUBJECT } from '../../../packages/core/test/credentials.ts';
import { eachStore, tenantWithDidKey } from './in-process.ts';
import { alternate, handlerIssue, holderKeys, printMachine, type Rate, secondsOption, thousands as f } from './throughput.ts';

const SECONDS = secondsOption(4);

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

// The person the core's and the formats' SD-JWT tests issue to (a test fixture shared by path).
const subject = SD_JWT_SUBJECT;

// Each credential binds another holder key, as real issuance does.
const holders = holderKeys(256);

/** A tenant with a did:key over a KeyManager P-256 key (as the DID service makes it), on `store`. */
async function prepare(store: Store) {
  const { keys, tenant, didKey } = await tenantWithDidKey(store, 'P-256');
  const signer = createSdJwtSigner({ keys });
  const handler = createSdJwtFormat({ store, signer });
  const configuration = configurationOf(tenant.id);
  const request = { tenant, configuration, subject, credentialIssuer: 'https://bench.eu01.vellum.bench', form: 'current' } as const;
  const issueOne = handlerIssue(handler, request, holders);
  const first = await issueOne(0);
  // The signer alone, on the payload the handler built: what the handler adds is the difference.
  let recorded: SdJwtSignInput | undefined;
  await handlerIssue(createSdJwtFormat({ store, signer: { issue: async (input) => ((recorded = input), '') } }), request, holders)(0);
  const input = recorded as SdJwtSignInput;
  const signOnly = () => signer.issue(input);
  const message = new Uint8Array(400).fill(0x5a);
  const rawSign = () => keys.sign(tenant.id, didKey.kmsKeyId, message);
  // What the handler asks the store for on every credential: the signing DID and its key.
  const lookup = () => signingDidOf(store, tenant.id, undefined, 'P-256');
  return { issueOne, signOnly, rawSign, lookup, first };
}

printMachine();

const rows: Array<{ store: string; issued: Rate; signer: Rate; signs: Rate; lookups: Rate }> = [];
await eachStore('sd-jwt', ['sqlite', 'memory'], async (store, name) => {
  const { issueOne, signOnly, rawSign, lookup, first } = await prepare(store);
  if (rows.length === 0)
    console.log(
      `SD-JWT VC: ${(first.credential as string).length} characters, ${(first.credential as string).split('~').length - 2} disclosures, valid ${first.validFrom} to ${first.validUntil}`,
    );
  // Warm every path up, then alternate so drift hits them alike.
  const rates = await alternate(
    { lookups: lookup, signs: rawSign, signer: signOnly, issued: issueOne },
    { issued: 1, signer: 0.5, signs: 0.5, lookups: 0.5 },
    SECONDS / 8,
  );
  rows.push({ store: name, ...rates });
});

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
