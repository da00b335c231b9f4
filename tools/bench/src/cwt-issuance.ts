// cwt and cwt_vc issuance throughput (issue 14): the core's format handler (`createCwtFormat`)
// issuing with the real CwtSigner of @vellum/formats and the real KeyManager, on SQLite (the
// server's default store) and in memory, with an 8-claim configuration and a fresh holder key per
// credential. Beside it, in the same run: the signer alone (CBOR, COSE_Sign1 and the signature,
// without the claim mapping or the DID lookup) and the raw ES256 KeyManager.sign rate, so the
// table shows where the time goes. Target: at least 3,000 credentials/s on one core. Run it pinned:
//
//   taskset -c 0 node tools/bench/src/cwt-issuance.ts [--seconds 4]
import { createCwtFormat, type CwtConfiguration, type CwtSignInput, type PublicJwk, type Store } from '@vellum/core';
import { createCwtSigner } from '@vellum/formats';
import { eachStore, tenantWithDidKey } from './in-process.ts';
import { alternate, handlerIssue, holderKeys, printMachine, type Rate, secondsOption, thousands as f } from './throughput.ts';

const SECONDS = secondsOption(4);

const configurationOf = (tenantId: string, format: 'cwt' | 'cwt_vc'): CwtConfiguration => ({
  id: `bench-${format}`,
  tenantId,
  format,
  type: 'ProofOfEmployment',
  expiresIn: { days: 365 },
  revocable: false,
  claimMappings: {
    given_name: { mapFrom: 'claims.givenName', required: true },
    family_name: { mapFrom: 'claims.familyName', required: true },
    birth_date: { mapFrom: 'claims.birthDate' },
    employee_number: { mapFrom: 'claims.number', required: true },
    department: { mapFrom: 'claims.department' },
    employer: { defaultValue: 'Acme Research' },
    start_date: { mapFrom: 'claims.startDate' },
    full_time: { mapFrom: 'claims.fullTime' },
  },
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
});

const subject = {
  claims: { givenName: 'Susan', familyName: 'Turner', birthDate: '1990-05-15', number: 4711, department: 'Materials', startDate: '2019-09-01', fullTime: true },
};

// Each credential binds another holder key, as real issuance does.
const holders = holderKeys(256);

/** A tenant with one P-256 did:key on a KeyManager key, and the handlers of both formats, on `store`. */
async function prepare(store: Store) {
  const { keys, tenant, did, didKey } = await tenantWithDidKey(store, 'P-256');
  const signer = createCwtSigner({ keys });
  const issuerOf = (format: 'cwt' | 'cwt_vc') =>
    handlerIssue(
      createCwtFormat({ store, signer, format }),
      { tenant, configuration: configurationOf(tenant.id, format), subject, credentialIssuer: 'https://bench.eu01.vellum.bench', form: 'current' },
      holders,
    );
  const now = new Date();
  const signInput = (i: number): CwtSignInput => ({
    tenantId: tenant.id,
    keyId: didKey.kmsKeyId,
    kid: didKey.didDocumentKeyId,
    claims: {
      iss: did,
      sub: did,
      iat: now,
      nbf: now,
      exp: new Date(now.getTime() + 365 * 86_400_000),
      cnf: holders[i % holders.length] as PublicJwk,
      claims: { type: 'ProofOfEmployment', ...subject.claims },
    },
  });
  const message = new Uint8Array(300).fill(0x5a);
  return {
    cwt: issuerOf('cwt'),
    cwtVc: issuerOf('cwt_vc'),
    signOnly: (i: number) => signer.sign(signInput(i)),
    rawSign: () => keys.sign(tenant.id, didKey.kmsKeyId, message),
  };
}

printMachine();

const rows: Array<{ store: string; rates: Record<string, Rate> }> = [];
await eachStore('cwt', ['sqlite', 'memory'], async (store, name) => {
  const ops = await prepare(store);
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
