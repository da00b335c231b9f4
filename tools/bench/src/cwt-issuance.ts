// cwt and cwt_vc issuance throughput (issue 14): the core's format handler (`createCwtFormat`)
// issuing with the real CwtSigner of @vellum/formats and the real KeyManager, on SQLite (the
// server's default store) and in memory, with an 8-claim configuration and a fresh holder key per
// credential. Beside it, in the same run: the signer alone (CBOR, COSE_Sign1 and the signature,
// without the claim mapping or the DID lookup) and the raw ES256 KeyManager.sign rate, so the
// table shows where the time goes. Target: at least 3,000 credentials/s on one core. Run it pinned:
//
//   taskset -c 0 node tools/bench/src/cwt-issuance.ts [--seconds 4]
import { prepareCwt } from './format-issuers.ts';
import { eachStore } from './in-process.ts';
import { alternate, printMachine, type Rate, secondsOption, thousands as f } from './throughput.ts';

const SECONDS = secondsOption(4);

printMachine();

const rows: Array<{ store: string; rates: Record<string, Rate> }> = [];
await eachStore('cwt', ['sqlite', 'memory'], async (store, name) => {
  const ops = await prepareCwt(store);
  if (rows.length === 0) {
    const [a, b] = [await ops.cwt(0), await ops.cwtVc(0)];
    console.log(
      `cwt: ${(a.credential as string).length} characters of base64url, cwt_vc: ${(b.credential as string).length}; valid ${a.validFrom} to ${a.validUntil}`,
    );
  }
  // Two half-length runs of each operation, interleaved so drift hits all alike.
  rows.push({ store: name, rates: await alternate(ops, { cwt: 0.5, cwtVc: 0.5, signOnly: 0.5, rawSign: 0.5 }, SECONDS / 2) });
});

const cpu = (r: Record<string, Rate>, k: string) => (r[k] as Rate).perCpuSecond;
console.log(
  '\n| store | cwt/s (wall) | cwt/s (CPU) | cwt_vc/s (wall) | cwt_vc/s (CPU) | CwtSigner.sign alone/s (CPU) | raw ES256 KeyManager.sign/s (CPU) | µs per cwt | µs per cwt_vc | µs per raw signature |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const { store, rates } of rows) {
  console.log(
    `| ${store} | ${f((rates.cwt as Rate).perSecond)} | ${f(cpu(rates, 'cwt'))} | ${f((rates.cwtVc as Rate).perSecond)} | ${f(cpu(rates, 'cwtVc'))} | ${f(cpu(rates, 'signOnly'))} | ${f(cpu(rates, 'rawSign'))} | ${(1e6 / cpu(rates, 'cwt')).toFixed(1)} | ${(1e6 / cpu(rates, 'cwtVc')).toFixed(1)} | ${(1e6 / cpu(rates, 'rawSign')).toFixed(1)} |`,
  );
}
const headline = rows.find((r) => r.store === 'sqlite');
if (headline) {
  const worst = Math.min(cpu(headline.rates, 'cwt'), cpu(headline.rates, 'cwtVc'));
  console.log(
    `\ntarget ≥ 3000 credentials/s on one core (SQLite, the slower of cwt and cwt_vc): ${worst >= 3000 ? 'met' : 'NOT met'} (${f(worst)}/s per CPU-second)`,
  );
}
