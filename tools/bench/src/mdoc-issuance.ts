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
import { prepareMdoc } from './format-issuers.ts';
import { eachStore } from './in-process.ts';
import { alternate, printMachine, type Rate, secondsOption, thousands as f } from './throughput.ts';

const SECONDS = secondsOption(4);

printMachine();

const rows: Array<{ store: string; cache: string; mdocs: Rate; signs: Rate }> = [];
await eachStore(
  'mdoc',
  ['sqlite', 'memory'],
  async (store, name, cacheMs) => {
    const { issueOne, signOne, first } = await prepareMdoc(store, cacheMs);
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
