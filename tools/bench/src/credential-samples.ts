// One credential of each format, issued through the core use case (`vellum.credentialIssuance`)
// with the real engines and keys over a memory store, printed as a wallet receives it. The sample
// credentials in docs/formats/ come from this script:
//
//   node tools/bench/src/credential-samples.ts [--format ldp_vc]
import { generateKeyPairSync } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { CredentialConfiguration, PublicJwk } from '@vellum/core';
import { createMemoryStore } from '@vellum/storage-memory';
import { adminContext, inProcessVellum } from './in-process.ts';

const { values } = parseArgs({ options: { format: { type: 'string' } } });

const store = createMemoryStore();
const { vellum } = await inProcessVellum(store, { publicUrl: 'https://acme.eu01.vellum.example' });
const { tenant } = await vellum.tenants.createTenant({ subdomain: 'acme', region: 'eu01', name: 'Acme' });
const ctx = adminContext(tenant, 'https://acme.eu01.vellum.example', 'samples');
await vellum.dids.create(ctx, { method: 'key', options: { keyType: 'Ed25519' } });
await vellum.dids.create(ctx, { method: 'key', options: { keyType: 'P-256' } });
const iaca = await vellum.iacas.create(ctx, { country: 'US', commonName: 'Acme IACA' });
await vellum.iacas.update(ctx, iaca.id, { active: true });

const subject = { claims: { givenName: 'Ada', familyName: 'Okafor', birthDate: '1991-07-14', degree: 'BSc Computer Science' } };
const holderKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as PublicJwk;
const flat = {
  givenName: { mapFrom: 'claims.givenName', required: true },
  familyName: { mapFrom: 'claims.familyName', required: true },
  birthDate: { mapFrom: 'claims.birthDate' },
};

const inputs: Array<[CredentialConfiguration['format'], Record<string, unknown>]> = [
  [
    'mso_mdoc',
    {
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 365 },
      claimMappings: {
        'org.iso.18013.5.1': {
          given_name: { mapFrom: 'claims.givenName', required: true },
          family_name: { mapFrom: 'claims.familyName', required: true },
          birth_date: { mapFrom: 'claims.birthDate', type: 'date' },
        },
      },
    },
  ],
  [
    'ldp_vc',
    {
      type: 'UniversityDegreeCredential',
      name: 'University degree',
      description: 'A bachelor degree',
      issuer: { name: 'Acme University', logoUrl: 'https://acme.example/logo.png' },
      expiresIn: { years: 5 },
      claimMappings: { ...flat, degree: { mapFrom: 'claims.degree', required: true } },
      credentialBranding: { backgroundColor: '#12107c' },
    },
  ],
  ['cwt', { type: 'MembershipCard', expiresIn: { days: 365 }, claimMappings: flat }],
  ['cwt_vc', { type: 'MembershipCredential', expiresIn: { days: 365 }, claimMappings: flat }],
  [
    'dc+sd-jwt',
    {
      type: 'https://credentials.acme.example/identity',
      expiresIn: { days: 365 },
      claimMappings: flat,
      selectivelyDisclosable: ['givenName', 'familyName', 'birthDate'],
    },
  ],
];

for (const [format, input] of inputs) {
  if (values.format !== undefined && values.format !== format) continue;
  const created = await vellum.credentialConfigurations.create(ctx, format, input as never);
  const configuration = (await store.credentialConfigurations.get(tenant.id, created.id)) as CredentialConfiguration;
  for (const form of format === 'ldp_vc' ? (['current', 'legacy'] as const) : (['current'] as const)) {
    const issued = await vellum.credentialIssuance.issue({ tenant, configuration, subject, holderKey, credentialIssuer: ctx.origin, form });
    console.log(`# ${format}${format === 'ldp_vc' ? ` (${form} request)` : ''}: valid ${issued.validFrom} to ${issued.validUntil}`);
    console.log(typeof issued.credential === 'string' ? issued.credential : JSON.stringify(issued.credential, null, 2));
    console.log();
  }
}
