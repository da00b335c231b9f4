// dc+sd-jwt issuance throughput (issue 14): the core's format handler `issue` (claims, validity,
// signing DID, payload) with the real SD-JWT signer (built by @vellum/formats, SHA-256 disclosures, ES256
// through the KeyManager), a 7-claim PID-like configuration with every claim disclosable, on
// SQLite (the server's default store) and in memory. Beside it, in the same run: the signer alone
// (the same payload, no store lookups) and the raw ES256 KeyManager.sign rate, so the table shows
// where the time goes. Target: at least 3,000 credentials/s on one core. Run it pinned to one core:
//
//   taskset -c 0 node tools/bench/src/sd-jwt-issuance.ts [--seconds 4]
import { prepareSdJwt } from './format-issuers.ts';
import { eachStore } from './in-process.ts';
import { alternate, printMachine, type Rate, secondsOption, thousands as f } from './throughput.ts';

const SECONDS = secondsOption(4);

printMachine();

const rows: Array<{ store: string; issued: Rate; signer: Rate; signs: Rate; lookups: Rate }> = [];
await eachStore('sd-jwt', ['sqlite', 'memory'], async (store, name) => {
  const { issueOne, signOnly, rawSign, lookup, first } = await prepareSdJwt(store);
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
