// mDoc issuance throughput THROUGH THE CORE USE CASE (issue 4): `vellum.mdocIssuance.issue` with
// a 10-claim mDL configuration, on SQLite (the server's default store) and in memory, under a
// managed IACA created and activated through the IACA use case, next to the raw ES256 signing rate
// of the same KeyManager on the same store, measured in the same run. Target: at least 3,000 mDocs/s
// on one core. Run it pinned to one core:
//
//   taskset -c 0 node tools/bench/src/mdoc-issuance.ts [--seconds 4]
//
// Each store runs twice: with the signing chain cached (the default, 1 s) and re-read from the
// store for every credential (cache 0), to show what the cache buys.
import type { MdocConfiguration, PublicJwk, Store } from '@vellum/core';
import { eachStore, tenantWithIaca } from './in-process.ts';
import { alternate, holderKeys, printMachine, type Rate, secondsOption, thousands as f } from './throughput.ts';

const SECONDS = secondsOption(4);

const NS = 'org.iso.18013.5.1';
const configurationOf = (tenantId: string): MdocConfiguration => ({
  id: 'bench-mdl',
  tenantId,
  format: 'mso_mdoc',
  type: 'org.iso.18013.5.1.mDL',
  expiresIn: { days: 365 },
  includeStatus: false,
  claimMappings: {
    [NS]: {
      family_name: { mapFrom: 'claims.familyName', required: true },
      given_name: { mapFrom: 'claims.givenName', required: true },
      birth_date: { mapFrom: 'claims.birthDate', type: 'date', required: true },
      issue_date: { mapFrom: 'claims.issuedOn', type: 'date' },
      expiry_date: { mapFrom: 'claims.expiresOn', type: 'date' },
      issuing_country: { defaultValue: 'US' },
      issuing_authority: { defaultValue: 'Bench DMV' },
      document_number: { mapFrom: 'claims.documentNumber' },
      age_over_18: { mapFrom: 'claims.adult', type: 'boolean' },
      height: { mapFrom: 'claims.height', type: 'number' },
    },
  },
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

const subject = {
  claims: {
    familyName: 'Turner',
    givenName: 'Susan',
    birthDate: '1990-05-15',
    issuedOn: '2026-01-10',
    expiresOn: '2031-01-10',
    documentNumber: 'DL-1234-5678',
    adult: true,
    height: 172,
  },
};

// Each credential binds another holder key, as real issuance does.
const holders = holderKeys(256);

/** A tenant with an active managed IACA, through the use cases, on `store`. */
async function prepare(store: Store, cacheMs: number) {
  const { vellum, keys, tenant } = await tenantWithIaca(store, { mdocSignerCacheMs: cacheMs });
  const configuration = configurationOf(tenant.id);
  const issueOne = (i: number) => vellum.mdocIssuance.issue({ tenant, configuration, subject, holderKey: holders[i % holders.length] as PublicJwk });
  const first = await issueOne(0);
  const signer = await store.documentSigners.get(tenant.id, first.documentSignerId);
  const message = new Uint8Array(200).fill(0x5a);
  const signOne = () => keys.sign(tenant.id, signer!.keyId, message);
  return { vellum, issueOne, signOne, first };
}

printMachine();

const rows: Array<{ store: string; cache: string; mdocs: Rate; signs: Rate }> = [];
await eachStore(
  'mdoc',
  ['sqlite', 'memory'],
  async (store, name, cacheMs) => {
    const { issueOne, signOne, first } = await prepare(store, cacheMs);
    if (rows.length === 0)
      console.log(`mDoc: ${first.credential.length} characters of base64url IssuerSigned, valid ${first.validFrom} to ${first.validUntil}`);
    // Warm both paths up, then alternate so drift hits both alike.
    const { signs, mdocs } = await alternate({ signs: signOne, mdocs: issueOne }, { mdocs: 1, signs: 0.5 }, SECONDS / 2);
    rows.push({ store: name, cache: cacheMs === 0 ? 're-read every credential' : `${cacheMs} ms`, mdocs, signs });
  },
  [1000, 0],
);

console.log('\n| store | signing chain cache | mDocs/s (wall) | mDocs/s (CPU) | raw ES256 KeyManager.sign/s (CPU) | µs per mDoc | mDocs ÷ signatures |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(
    `| ${r.store} | ${r.cache} | ${f(r.mdocs.perSecond)} | ${f(r.mdocs.perCpuSecond)} | ${f(r.signs.perCpuSecond)} | ${(1e6 / r.mdocs.perCpuSecond).toFixed(1)} | ${(r.mdocs.perCpuSecond / r.signs.perCpuSecond).toFixed(2)} |`,
  );
}
const headline = rows.find((r) => r.store === 'sqlite' && r.cache !== 're-read every credential');
if (headline)
  console.log(
    `\ntarget ≥ 3000 mDocs/s on one core (SQLite, default cache): ${headline.mdocs.perCpuSecond >= 3000 ? 'met' : 'NOT met'} (${f(headline.mdocs.perCpuSecond)}/s per CPU-second, ${f(headline.mdocs.perSecond)}/s wall-clock)`,
  );
