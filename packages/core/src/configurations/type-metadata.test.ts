import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SD_JWT_SUBJECT, sdJwtConfiguration } from '../../test/credentials.ts';
import { contextFor, harness, PLATFORM } from '../../test/harness.ts';
import { createMemoryStore, makeDid, makeTenant } from '../../test/kit.ts';
import { badBodyField, refusal } from '../../test/refusal.ts';
import type { SdJwtSignInput } from '../credential-formats/port.ts';
import { createSdJwtFormat } from '../credential-formats/sd-jwt.ts';
import type { CredentialConfigurationInput, SdJwtConfiguration, TypeMetadata } from './model.ts';

// docs/decisions.md "SD-JWT VC type metadata (issue 29)": a dc+sd-jwt configuration's typeMetadata
// and disclosureRules, their checks, the served document and the `vct#integrity` that hashes it.

const ISSUER = `https://acme.eu01.${PLATFORM}`;
const VCT = `${ISSUER}/types/pid`;

const typeMetadata: TypeMetadata = {
  name: 'Person identification',
  extends: 'urn:eudi:pid:1',
  display: [
    {
      locale: 'en',
      name: 'Identity',
      rendering: { simple: { background_color: '#12107c', text_color: '#ffffff', logo: { uri: 'https://cdn.example/logo.png', alt_text: 'Logo' } } },
    },
    { locale: 'de', name: 'Ausweis', description: 'Personalausweis' },
  ],
  claims: [
    { path: ['given_name'], display: [{ locale: 'en', label: 'Given name' }], sd: 'always' },
    { path: ['address', 'street_address'], sd: 'always' },
    { path: ['nationalities', null], sd: 'always' },
    { path: ['age_over_18'], sd: 'never' },
  ],
};

const pid = (over: Record<string, unknown> = {}): CredentialConfigurationInput =>
  ({
    type: VCT,
    expiresIn: { days: 30 },
    claimMappings: {
      given_name: { mapFrom: 'claims.givenName', required: true },
      address: { mapFrom: 'claims.address' },
      nationalities: { mapFrom: 'claims.nationalities' },
      age_over_18: { mapFrom: 'claims.adult' },
    },
    selectivelyDisclosable: ['given_name', 'address'],
    disclosureRules: [
      { path: ['address', 'street_address'], decoys: 2 },
      { path: ['nationalities', null], decoys: 1 },
    ],
    typeMetadata,
    ...over,
  }) as CredentialConfigurationInput;

async function setup() {
  const h = harness();
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  return { ...h, tenant, ctx: contextFor(tenant) };
}

const sri = (body: string) => `sha256-${createHash('sha256').update(body).digest('base64')}`;

describe('dc+sd-jwt typeMetadata and disclosureRules', () => {
  it('are kept as given, and the issuer serves the metadata at the vct with the draft’s member names and the vct', async () => {
    const { configurations, metadata, ctx } = await setup();
    const created = (await configurations.create(ctx, 'dc+sd-jwt', pid())) as unknown as SdJwtConfiguration;
    expect(created.typeMetadata).toEqual(typeMetadata);
    expect(created.disclosureRules).toEqual(pid().disclosureRules);

    const served = await metadata.typeMetadata(ctx, undefined, 'pid');
    expect(JSON.parse(served.body)).toEqual({ vct: VCT, ...typeMetadata });
    expect(Object.keys(JSON.parse(served.body))[0]).toBe('vct');
    expect(served.integrity).toBe(sri(served.body));
    // The same bytes every time.
    expect((await metadata.typeMetadata(ctx, undefined, 'pid')).body).toBe(served.body);

    // Another name, another mount path, or another tenant's origin: nothing there.
    expect((await refusal(metadata.typeMetadata(ctx, undefined, 'other'))).code).toBe('NotFound');
    expect((await refusal(metadata.typeMetadata(ctx, '/api', 'pid'))).code).toBe('NotFound');
  });

  it('a configuration without typeMetadata publishes none, even with a vct under /types/', async () => {
    const { configurations, metadata, ctx } = await setup();
    await configurations.create(ctx, 'dc+sd-jwt', pid({ typeMetadata: undefined }));
    expect((await refusal(metadata.typeMetadata(ctx, undefined, 'pid'))).code).toBe('NotFound');
  });

  it('refuses a vct Vellum cannot serve the metadata at', async () => {
    const { configurations, ctx } = await setup();
    for (const type of [
      'https://credentials.example.com/pid',
      'urn:eudi:pid:1',
      `${ISSUER}/types/`,
      `${ISSUER}/types/pid?x=1`,
      `http://acme.eu01.${PLATFORM}/types/pid`,
    ])
      expect(await refusal(configurations.create(ctx, 'dc+sd-jwt', pid({ type })))).toMatchObject(badBodyField('type'));
  });

  it('refuses rules that start outside the mapped claims, or name a path twice', async () => {
    const { configurations, ctx } = await setup();
    const refused = async (disclosureRules: unknown, param: string) =>
      expect(await refusal(configurations.create(ctx, 'dc+sd-jwt', pid({ typeMetadata: undefined, disclosureRules })))).toMatchObject(badBodyField(param));
    await refused([{ path: ['unmapped', 'x'] }], 'disclosureRules.0.path.0');
    await refused([{ path: [null] }], 'disclosureRules.0.path.0');
    await refused([{ path: ['address', 'x'] }, { path: ['address', 'x'], decoys: 1 }], 'disclosureRules.1.path');
    await refused([{ path: ['address'], decoys: 21 }], 'disclosureRules.0.decoys');
    await refused([{ path: [] }], 'disclosureRules.0.path');
  });

  it('refuses type metadata whose sd says otherwise than the configuration, or extends#integrity without extends', async () => {
    const { configurations, ctx } = await setup();
    const withClaims = (claims: TypeMetadata['claims']) => pid({ typeMetadata: { claims } });
    // age_over_18 is not in selectivelyDisclosable; given_name is.
    expect(await refusal(configurations.create(ctx, 'dc+sd-jwt', withClaims([{ path: ['age_over_18'], sd: 'always' }])))).toMatchObject(
      badBodyField('typeMetadata.claims.0.sd'),
    );
    expect(await refusal(configurations.create(ctx, 'dc+sd-jwt', withClaims([{ path: ['given_name'], sd: 'never' }])))).toMatchObject(
      badBodyField('typeMetadata.claims.0.sd'),
    );
    expect(await refusal(configurations.create(ctx, 'dc+sd-jwt', withClaims([{ path: ['address', 'locality'], sd: 'always' }])))).toMatchObject(
      badBodyField('typeMetadata.claims.0.sd'),
    );
    await configurations.create(ctx, 'dc+sd-jwt', pid({ type: `${ISSUER}/types/child`, typeMetadata: { extends: VCT, 'extends#integrity': 'sha256-abc' } }));
    expect(await refusal(configurations.create(ctx, 'dc+sd-jwt', pid({ typeMetadata: { 'extends#integrity': 'sha256-abc' } })))).toMatchObject(
      badBodyField('typeMetadata.extends#integrity'),
    );
    // allowed, and a path with an array index, are not cross-checked.
    await configurations.create(
      ctx,
      'dc+sd-jwt',
      withClaims([
        { path: ['age_over_18'], sd: 'allowed' },
        { path: ['nationalities', 0], sd: 'never' },
      ]),
    );
  });
});

describe('dc+sd-jwt issuance with typeMetadata and disclosureRules', () => {
  async function issue(configuration: SdJwtConfiguration) {
    const store = createMemoryStore();
    const tenant = makeTenant();
    await store.tenants.insert(tenant);
    await store.dids.insert(makeDid(tenant.id));
    const inputs: SdJwtSignInput[] = [];
    const handler = createSdJwtFormat({
      store,
      digests: harness().digests,
      signer: {
        async issue(input) {
          inputs.push(structuredClone(input));
          return 'eyJ.x.sig~';
        },
      },
    });
    await handler.issue({
      tenant,
      configuration,
      subject: SD_JWT_SUBJECT,
      holderKey: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' },
      credentialIssuer: ISSUER,
      now: new Date('2026-05-01T12:00:00Z'),
      form: 'current',
    });
    return inputs[0] as SdJwtSignInput;
  }

  it('signs vct#integrity, the SRI of the served bytes, and hands the signer the rules', async () => {
    const rules = [{ path: ['address', 'street_address'], decoys: 2 }];
    const { metadata, configurations, ctx } = await setup();
    const created = (await configurations.create(ctx, 'dc+sd-jwt', pid())) as unknown as SdJwtConfiguration;
    const input = await issue(sdJwtConfiguration('t', { type: VCT, typeMetadata: created.typeMetadata, disclosureRules: rules }));
    const served = await metadata.typeMetadata(ctx, undefined, 'pid');
    expect(input.payload['vct#integrity']).toBe(sri(served.body));
    expect(Object.keys(input.payload).slice(0, 6)).toEqual(['iss', 'iat', 'nbf', 'exp', 'vct', 'vct#integrity']);
    expect(input.rules).toEqual(rules);
    expect(input.disclosable).not.toContain('vct#integrity');
  });

  it('a configuration without the new fields signs as before: no vct#integrity, no rules', async () => {
    const input = await issue(sdJwtConfiguration('t'));
    expect(input.payload).not.toHaveProperty('vct#integrity');
    expect(input).not.toHaveProperty('rules');
  });
});
