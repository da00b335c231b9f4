import { describe, expect, it } from 'vitest';
import { MDL_DISPLAY } from '../../test/configurations.ts';
import { contextFor, withTenants } from '../../test/harness.ts';
import { refusal } from '../../test/refusal.ts';
import { EVENT_PREFIXES } from '../events/catalogue.ts';
import { CREDENTIAL_FORMATS, type CredentialConfigurationInput } from './model.ts';
import { configurationEventPrefix } from './service.ts';

const setup = () => withTenants();

const MDL = 'org.iso.18013.5.1.mDL';
const mdl = (over: Partial<CredentialConfigurationInput> = {}): CredentialConfigurationInput => ({
  type: MDL,
  name: 'Driver licence',
  expiresIn: { days: 365 },
  claimMappings: {
    'org.iso.18013.5.1': {
      family_name: { mapFrom: 'claims.familyName', required: true },
      birth_date: { mapFrom: 'claims.birthDate', type: 'date' },
      issuing_country: { defaultValue: 'NZ' },
    },
  },
  ...MDL_DISPLAY,
  ...over,
});
const flat = (type: string, over: Partial<CredentialConfigurationInput> = {}): CredentialConfigurationInput => ({
  type,
  expiresIn: { years: 1 },
  claimMappings: { name: { mapFrom: 'claims.name', required: true }, level: { defaultValue: 3 } },
  ...over,
});

/** A certificate in PEM form, as far as a configuration checks it (chains are checked with each key attestation). */
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBkTCB+wIJAKHHIG3+c1a2MA0GCSqGSIb3DQEBCwUAMBExDzANBgNVBAMMBnJv\n-----END CERTIFICATE-----\n';

describe('creating credential configurations (docs/decisions.md "Credential configurations")', () => {
  it('keeps a key attestation requirement: the levels accepted and the roots trusted', async () => {
    const { configurations, ctx } = await setup();
    const keyAttestationsRequired = { keyStorage: ['iso_18045_high'], userAuthentication: ['iso_18045_high', 'iso_18045_moderate'], rootCertificates: [PEM] };
    const created = await configurations.create(ctx, 'dc+sd-jwt', flat('Pid', { keyAttestationsRequired }));
    expect(created.keyAttestationsRequired).toEqual(keyAttestationsRequired);
    expect((await configurations.get(ctx, 'dc+sd-jwt', created.id)).keyAttestationsRequired).toEqual(keyAttestationsRequired);
    const rootsOnly = await configurations.create(ctx, 'mso_mdoc', mdl({ keyAttestationsRequired: { rootCertificates: [PEM] } }));
    expect(rootsOnly.keyAttestationsRequired).toEqual({ rootCertificates: [PEM] });
  });

  it('turns holder binding off with holderBinding: false (kept), not for mso_mdoc and not with key attestations; true is the default (issue 29)', async () => {
    const { configurations, ctx } = await setup();
    for (const format of ['dc+sd-jwt', 'cwt', 'cwt_vc'] as const) {
      const created = await configurations.create(ctx, format, flat(`Ticket${format.length}`, { holderBinding: false }));
      expect(created.holderBinding, format).toBe(false);
      expect((await configurations.get(ctx, format, created.id)).holderBinding, format).toBe(false);
      // Replaced without it, the configuration is bound again.
      expect(await configurations.update(ctx, format, created.id, flat(`Ticket${format.length}`))).not.toHaveProperty('holderBinding');
    }
    const ldp = await configurations.create(ctx, 'ldp_vc', flat('Coupon', { holderBinding: false, issuer: { name: 'Acme' } } as never));
    expect(ldp.holderBinding).toBe(false);
    expect(await configurations.create(ctx, 'dc+sd-jwt', flat('Bound', { holderBinding: true }))).not.toHaveProperty('holderBinding');
    const mdoc = await refusal(configurations.create(ctx, 'mso_mdoc', mdl({ holderBinding: false })));
    expect(mdoc.details).toEqual([
      expect.objectContaining({ param: 'holderBinding', value: false, msg: expect.stringContaining('An mDoc is always bound to a device key') }),
    ]);
    const attested = await refusal(
      configurations.create(ctx, 'dc+sd-jwt', flat('Attested', { holderBinding: false, keyAttestationsRequired: { rootCertificates: [PEM] } })),
    );
    expect(attested.details).toEqual([expect.objectContaining({ param: 'holderBinding', msg: expect.stringContaining('Key attestations') })]);
    const shape = await refusal(configurations.create(ctx, 'dc+sd-jwt', flat('Shape', { holderBinding: 'no' as never })));
    expect(shape.details).toEqual([expect.objectContaining({ param: 'holderBinding', msg: 'true or false' })]);
  });

  it('creates an mDoc configuration with a generated id and defaults, and reads it back', async () => {
    const { configurations, ctx } = await setup();
    const created = await configurations.create(ctx, 'mso_mdoc', mdl());
    expect(created).toEqual({
      ...mdl(),
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      includeStatus: false,
      createdAt: '2026-05-01T12:00:00.000Z',
      updatedAt: '2026-05-01T12:00:00.000Z',
    });
    expect(created).not.toHaveProperty('tenantId');
    expect(created).not.toHaveProperty('format');
    expect(await configurations.get(ctx, 'mso_mdoc', created.id)).toEqual(created);
  });

  it('fills each format’s defaults and keeps its own fields', async () => {
    const { configurations, ctx } = await setup();
    const ldp = await configurations.create(
      ctx,
      'ldp_vc',
      flat('UniversityDegree', {
        issuer: { name: 'University', logoUrl: 'https://u.example/l.png' },
        contexts: ['https://schema.example/degree/v1'],
        additionalTypes: ['EducationCredential'],
      }),
    );
    expect(ldp).toMatchObject({
      proofType: 'Ed25519Signature2018',
      revocable: false,
      issuer: { name: 'University' },
      contexts: ['https://schema.example/degree/v1'],
    });
    const ldp2020 = await configurations.create(
      ctx,
      'ldp_vc',
      flat('Badge', {
        issuer: { name: 'U' },
        proofType: 'Ed25519Signature2020',
        revocable: true,
        credentialBranding: { backgroundColor: '#000', watermarkImageUrl: 'https://u.example/w.png' },
      }),
    );
    expect(ldp2020).toMatchObject({ proofType: 'Ed25519Signature2020', revocable: true, credentialBranding: { backgroundColor: '#000' } });
    expect(await configurations.create(ctx, 'cwt', flat('Badge'))).toMatchObject({ type: 'Badge', revocable: false });
    expect(await configurations.create(ctx, 'cwt_vc', flat('Badge', { revocable: true, issuer: { name: 'Issuer' } }))).toMatchObject({
      revocable: true,
      issuer: { name: 'Issuer' },
    });
    const sd = await configurations.create(ctx, 'dc+sd-jwt', flat('https://credentials.example.com/pid'));
    expect(sd.type).toBe('https://credentials.example.com/pid');
    expect(sd).toMatchObject({ revocable: false });
    expect(await configurations.create(ctx, 'mso_mdoc', mdl({ type: 'org.example.card', includeStatus: true }))).toMatchObject({ includeStatus: true });
  });

  it('refuses a type the tenant already has in that format with 409 naming the holder; other formats and tenants may reuse it', async () => {
    const { configurations, ctx, other } = await setup();
    const first = await configurations.create(ctx, 'mso_mdoc', mdl());
    const error = await refusal(configurations.create(ctx, 'mso_mdoc', mdl({ name: 'Again' })));
    expect(error).toMatchObject({
      code: 'Conflict',
      details: [{ param: 'type', location: 'body', value: MDL, msg: `Already the type of configuration ${first.id}` }],
    });
    await expect(configurations.create(contextFor(other), 'mso_mdoc', mdl())).resolves.toMatchObject({ type: MDL });
    await configurations.create(ctx, 'cwt', flat('Shared'));
    await expect(configurations.create(ctx, 'cwt_vc', flat('Shared'))).resolves.toMatchObject({ type: 'Shared' });
  });

  it('refuses a mapping default that does not match its type with 400 naming the mapping', async () => {
    const { configurations, ctx } = await setup();
    const input = mdl({
      claimMappings: {
        'org.iso.18013.5.1': { birth_date: { defaultValue: '04/05/1990', type: 'date' }, age_over_18: { defaultValue: 'yes', type: 'boolean' } },
      },
    });
    const error = await refusal(configurations.create(ctx, 'mso_mdoc', { ...input, claimDisplay: undefined }));
    expect(error).toMatchObject({ code: 'BadRequest', message: 'Validation Error' });
    expect(error.details).toEqual([
      { param: 'claimMappings.org.iso.18013.5.1.birth_date.defaultValue', msg: 'Does not match the type date', value: '04/05/1990', location: 'body' },
      { param: 'claimMappings.org.iso.18013.5.1.age_over_18.defaultValue', msg: 'Does not match the type boolean', value: 'yes', location: 'body' },
    ]);
  });

  it.each([
    ['mso_mdoc', 'org.example.card', { days: 3621 }, 'At most 3620 days'],
    ['mso_mdoc', MDL, { days: 428 }, 'At most 427 days for mDL docTypes'],
    ['mso_mdoc', 'org.iso.18013.5.2.mDL', { years: 1, months: 3 }, 'At most 427 days for mDL docTypes'],
    ['cwt', 'Badge', { years: 10 }, 'At most 3620 days'],
  ] as const)('refuses an expiry past the limit: %s %s for %j', async (format, type, expiresIn, msg) => {
    const { configurations, ctx } = await setup();
    const input = format === 'mso_mdoc' ? mdl({ type, expiresIn }) : flat(type, { expiresIn });
    const error = await refusal(configurations.create(ctx, format, input));
    expect(error).toMatchObject({ code: 'BadRequest', details: [{ param: 'expiresIn', msg, value: expiresIn, location: 'body' }] });
  });

  it('takes an mDL up to 427 days, and another docType up to 3620', async () => {
    const { configurations, ctx } = await setup();
    await expect(configurations.create(ctx, 'mso_mdoc', mdl({ expiresIn: { days: 427 } }))).resolves.toBeDefined();
    await expect(configurations.create(ctx, 'mso_mdoc', mdl({ type: 'org.example.card', expiresIn: { days: 3620 } }))).resolves.toBeDefined();
  });

  it('reports every problem of a request at once', async () => {
    const { configurations, ctx } = await setup();
    const input = {
      type: 'has spaces',
      name: '',
      expiresIn: { days: 0 },
      claimMappings: { ns: { a: {}, b: { mapFrom: 'nowhere' } } },
      claimDisplay: { ns: { c: [{ name: 'C' }] } },
      display: [
        {
          name: 'One',
          locale: 'en',
          logo: { uri: 'http://insecure.example/l.png' },
          background_color: 'blue-ish',
          background_image: { uri: 'http://insecure.example/b.png' },
        },
        { name: 'Two', locale: 'en' },
      ],
      claimSourceId: 'source-1',
      revocable: true,
    } as unknown as CredentialConfigurationInput;
    const error = await refusal(configurations.create(ctx, 'mso_mdoc', input));
    expect((error.details as Array<{ param: string }>).map((d) => d.param)).toEqual([
      'type',
      'name',
      'claimMappings.ns.a',
      'claimMappings.ns.b.mapFrom',
      'expiresIn',
      'claimSourceId',
      'display.0.background_color',
      'display.0.logo.uri',
      'display.0.background_image.uri',
      'display.1.locale',
      'claimDisplay.ns.c',
      'revocable',
    ]);
  });

  it.each([
    ['ldp_vc', 'issuer', 'Required: { name, id?, logoUrl?, iconUrl? }', flat('Degree')],
    [
      'ldp_vc',
      'contexts.0',
      expect.stringContaining('A JSON-LD context bundled with Vellum'),
      flat('Degree', { issuer: { name: 'U' }, contexts: ['http://schema.example/v1'] }),
    ],
    [
      'ldp_vc',
      'additionalTypes.0',
      expect.stringContaining('other than VerifiableCredential'),
      flat('Degree', { issuer: { name: 'U' }, additionalTypes: ['VerifiableCredential'] }),
    ],
    ['ldp_vc', 'proofType', 'One of Ed25519Signature2018, Ed25519Signature2020', flat('Degree', { issuer: { name: 'U' }, proofType: 'RsaSignature2018' })],
    ['ldp_vc', 'issuer.id', 'A DID of this tenant: did:key:… or did:web:…', flat('Degree', { issuer: { name: 'U', id: 'https://issuer.example' } })],
    ['ldp_vc', 'issuer.logoUrl', 'An https URL', flat('Degree', { issuer: { name: 'U', logoUrl: 'ftp://u.example/l.png' } })],
    [
      'ldp_vc',
      'claimMappings.id',
      expect.stringContaining('Reserved'),
      { ...flat('Degree', { issuer: { name: 'U' } }), claimMappings: { id: { mapFrom: 'claims.id' } } },
    ],
    ['cwt', 'claimMappings.exp', expect.stringContaining('Reserved'), { ...flat('Badge'), claimMappings: { exp: { defaultValue: 1 } } }],
    [
      'cwt',
      'claimMappings.when.type',
      'Only mDoc mappings carry a type',
      { ...flat('Badge'), claimMappings: { when: { mapFrom: 'claims.when', type: 'date' } } },
    ],
    ['dc+sd-jwt', 'revocable', 'true or false', flat('Pid', { revocable: 'yes' as never })],
    ['dc+sd-jwt', 'claimMappings.vct', expect.stringContaining('Reserved'), { ...flat('Pid'), claimMappings: { vct: { defaultValue: 'x' } } }],
    ['mso_mdoc', 'issuer', 'Unknown field', mdl({ issuer: { name: 'U' } })],
    ['mso_mdoc', 'includeStatus', 'true or false', mdl({ includeStatus: 'yes' as never })],
    ['mso_mdoc', 'claimMappings', expect.stringContaining('At least one claim mapping'), mdl({ claimMappings: {}, claimDisplay: undefined })],
    ['mso_mdoc', 'display.0.locale', 'A language tag such as en or fr-CA', mdl({ display: [{ name: 'x', locale: 'not a locale' }] })],
    [
      'cwt',
      'keyAttestationsRequired.rootCertificates',
      '1 to 10 PEM certificates',
      flat('Badge', { keyAttestationsRequired: { keyStorage: ['iso_18045_high'], rootCertificates: [] } }),
    ],
    [
      'cwt',
      'keyAttestationsRequired.rootCertificates.0',
      expect.stringContaining('One certificate in PEM form'),
      flat('Badge', { keyAttestationsRequired: { rootCertificates: ['not a certificate'] } }),
    ],
    [
      'cwt',
      'keyAttestationsRequired.keyStorage',
      'A level is listed twice',
      flat('Badge', { keyAttestationsRequired: { keyStorage: ['a', 'a'], rootCertificates: [PEM] } }),
    ],
    [
      'cwt',
      'keyAttestationsRequired.userAuthentication',
      expect.stringContaining('level names'),
      flat('Badge', { keyAttestationsRequired: { userAuthentication: 'iso_18045_high' as never, rootCertificates: [PEM] } }),
    ],
    ['cwt', 'keyAttestationsRequired.levels', 'Unknown field', flat('Badge', { keyAttestationsRequired: { levels: [], rootCertificates: [PEM] } as never })],
    [
      'mso_mdoc',
      'claimDisplay.org.iso.18013.5.1.family_name.1.locale',
      'Another entry has this locale',
      mdl({
        claimDisplay: {
          'org.iso.18013.5.1': {
            family_name: [
              { name: 'A', locale: 'en' },
              { name: 'B', locale: 'EN' },
            ],
          },
        },
      }),
    ],
  ] as const)('refuses a %s configuration with a bad %s', async (format, param, msg, input) => {
    const { configurations, ctx } = await setup();
    const error = await refusal(configurations.create(ctx, format, input as CredentialConfigurationInput));
    expect(error).toMatchObject({ code: 'BadRequest', details: [expect.objectContaining({ param, msg, location: 'body' })] });
  });

  it('pins an issuer DID only when the tenant holds it with a key of the kind the format signs with', async () => {
    const { configurations, dids, ctx, other } = await setup();
    const ed = (await dids.create(ctx, { method: 'key' })).did;
    const p256 = (await dids.create(ctx, { method: 'key', options: { keyType: 'P-256' } })).did;
    const foreign = (await dids.create(contextFor(other), { method: 'key' })).did;
    await expect(configurations.create(ctx, 'ldp_vc', flat('Degree', { issuer: { name: 'U', id: ed } }))).resolves.toMatchObject({ issuer: { id: ed } });
    await expect(configurations.create(ctx, 'cwt', flat('Badge', { issuer: { id: p256 } }))).resolves.toMatchObject({ issuer: { id: p256 } });
    expect(await refusal(configurations.create(ctx, 'ldp_vc', flat('Other', { issuer: { name: 'U', id: p256 } })))).toMatchObject({
      details: [{ param: 'issuer.id', msg: 'This DID has no Ed25519 key, which ldp_vc credentials are signed with', value: p256 }],
    });
    expect(await refusal(configurations.create(ctx, 'cwt_vc', flat('Badge', { issuer: { id: ed } })))).toMatchObject({
      details: [{ param: 'issuer.id', msg: expect.stringContaining('no P-256 key') }],
    });
    expect(await refusal(configurations.create(ctx, 'dc+sd-jwt', flat('Pid', { issuer: { id: foreign } })))).toMatchObject({
      details: [{ param: 'issuer.id', msg: 'The tenant holds no such DID' }],
    });
  });
});

describe('reading, replacing and deleting credential configurations (docs/decisions.md "Credential configurations")', () => {
  it('lists one format in pages, filtered by type, never another format or tenant', async () => {
    const { configurations, ctx, other } = await setup();
    const made = [];
    for (const type of ['org.example.a', 'org.example.b', 'org.example.c']) made.push(await configurations.create(ctx, 'mso_mdoc', mdl({ type })));
    await configurations.create(ctx, 'cwt', flat('org.example.a'));
    await configurations.create(contextFor(other), 'mso_mdoc', mdl({ type: 'org.example.d' }));
    const first = await configurations.list(ctx, 'mso_mdoc', { limit: 2 });
    expect(first.data.map((c) => c.type)).toEqual(['org.example.a', 'org.example.b']);
    const second = await configurations.list(ctx, 'mso_mdoc', { limit: 2, cursor: first.nextCursor });
    expect(second).toEqual({ data: [made[2]] }); // not full: the last page, no nextCursor
    const upToB = await configurations.list(ctx, 'mso_mdoc', { limit: 1, cursor: first.nextCursor });
    expect(upToB.data).toEqual([made[2]]);
    expect(await configurations.list(ctx, 'mso_mdoc', { cursor: upToB.nextCursor })).toEqual({ data: [] });
    expect((await configurations.list(ctx, 'mso_mdoc', { type: 'org.example.b' })).data).toEqual([made[1]]);
    expect((await configurations.list(ctx, 'cwt', {})).data.map((c) => c.type)).toEqual(['org.example.a']);
    expect((await configurations.list(ctx, 'ldp_vc', {})).data).toEqual([]);
    await expect(configurations.list(ctx, 'mso_mdoc', { limit: 0 })).rejects.toMatchObject({ details: [{ param: 'limit', location: 'query' }] });
  });

  it('answers an unknown id, another format’s id or another tenant’s id with 404, and a malformed id with 400', async () => {
    const { configurations, ctx, other } = await setup();
    const created = await configurations.create(ctx, 'mso_mdoc', mdl());
    await expect(configurations.get(ctx, 'mso_mdoc', crypto.randomUUID())).rejects.toMatchObject({ code: 'NotFound' });
    await expect(configurations.get(ctx, 'ldp_vc', created.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(configurations.get(contextFor(other), 'mso_mdoc', created.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(configurations.delete(contextFor(other), 'mso_mdoc', created.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(configurations.update(contextFor(other), 'mso_mdoc', created.id, mdl())).rejects.toMatchObject({ code: 'NotFound' });
    await expect(configurations.get(ctx, 'mso_mdoc', 'not-a-uuid')).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'id', location: 'params', value: 'not-a-uuid' }],
    });
    expect(await configurations.get(ctx, 'mso_mdoc', created.id.toUpperCase())).toEqual(created);
  });

  it('replaces a configuration whole, keeping its id and creation time', async () => {
    const { configurations, ctx, clock } = await setup();
    const created = await configurations.create(ctx, 'mso_mdoc', mdl());
    clock.advance(60_000);
    const replaced = await configurations.update(ctx, 'mso_mdoc', created.id, {
      type: 'org.example.card',
      expiresIn: { days: 30 },
      claimMappings: { ns: { a: { defaultValue: 1, type: 'number' } } },
      includeStatus: true,
    });
    expect(replaced).toEqual({
      id: created.id,
      type: 'org.example.card',
      expiresIn: { days: 30 },
      claimMappings: { ns: { a: { defaultValue: 1, type: 'number' } } },
      includeStatus: true,
      createdAt: created.createdAt,
      updatedAt: '2026-05-01T12:01:00.000Z',
    });
    expect(await configurations.get(ctx, 'mso_mdoc', created.id)).toEqual(replaced);
    // Its old type is free again; taking another configuration's type is not allowed.
    const second = await configurations.create(ctx, 'mso_mdoc', mdl());
    expect(await refusal(configurations.update(ctx, 'mso_mdoc', second.id, mdl({ type: 'org.example.card' })))).toMatchObject({
      code: 'Conflict',
      details: [{ param: 'type', msg: `Already the type of configuration ${created.id}` }],
    });
    await expect(configurations.update(ctx, 'mso_mdoc', second.id, mdl({ name: 'Same type, new name' }))).resolves.toMatchObject({
      name: 'Same type, new name',
    });
    expect(await refusal(configurations.update(ctx, 'mso_mdoc', second.id, mdl({ expiresIn: { days: 500 } })))).toMatchObject({
      details: [{ param: 'expiresIn' }],
    });
  });

  it('deletes a configuration, which then is gone and frees its type', async () => {
    const { configurations, ctx } = await setup();
    const created = await configurations.create(ctx, 'ldp_vc', flat('Degree', { issuer: { name: 'U' } }));
    await expect(configurations.delete(ctx, 'mso_mdoc', created.id)).rejects.toMatchObject({ code: 'NotFound' });
    await configurations.delete(ctx, 'ldp_vc', created.id);
    await expect(configurations.get(ctx, 'ldp_vc', created.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(configurations.delete(ctx, 'ldp_vc', created.id)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(configurations.create(ctx, 'ldp_vc', flat('Degree', { issuer: { name: 'U' } }))).resolves.toBeDefined();
  });
});

describe('roles and events (docs/decisions.md "Tenancy and admin authentication", docs/decisions.md "Analytic events")', () => {
  it('lets a managed issuer read but not write, and refuses roles without the permission', async () => {
    const { configurations, ctx, tenant } = await setup();
    const created = await configurations.create(ctx, 'mso_mdoc', mdl());
    const managed = contextFor(tenant, 'managed-issuer');
    await expect(configurations.get(managed, 'mso_mdoc', created.id)).resolves.toEqual(created);
    await expect(configurations.list(managed, 'mso_mdoc', {})).resolves.toMatchObject({ data: [created] });
    await expect(configurations.create(managed, 'mso_mdoc', mdl({ type: 'org.example.x' }))).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(configurations.update(managed, 'mso_mdoc', created.id, mdl())).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(configurations.delete(managed, 'mso_mdoc', created.id)).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(configurations.create(contextFor(tenant, 'issuer'), 'cwt', flat('Badge'))).resolves.toBeDefined();
    for (const role of ['verifier', 'auditor', 'dts-provider', 'dts-consumer'] as const) {
      await expect(configurations.list(contextFor(tenant, role), 'mso_mdoc', {}), role).rejects.toMatchObject({ code: 'Forbidden' });
    }
    await expect(configurations.get(contextFor(tenant, null), 'mso_mdoc', created.id)).rejects.toMatchObject({ code: 'Unauthorized' });
  });

  it('has an event prefix in the catalogue for every format and operation', () => {
    for (const format of CREDENTIAL_FORMATS) {
      for (const op of ['CREATE', 'LIST', 'RETRIEVE', 'UPDATE', 'DELETE'] as const) {
        expect(EVENT_PREFIXES).toHaveProperty(configurationEventPrefix(format, op));
      }
    }
    expect(configurationEventPrefix('dc+sd-jwt', 'CREATE')).toBe('SD_JWT_CREDENTIAL_CONFIGURATION_CREATE');
  });

  it.each([
    ['mso_mdoc', 'MOBILE', 'mobile-credential'],
    ['ldp_vc', 'WEB_SEMANTIC', 'web-semantic-credential'],
    ['cwt', 'COMPACT', 'compact-credential'],
    ['cwt_vc', 'COMPACT_SEMANTIC', 'compact-semantic-credential'],
    ['dc+sd-jwt', 'SD_JWT', 'sd-jwt-credential'],
  ] as const)('records START then SUCCESS or FAIL for each %s operation as %s_CREDENTIAL_CONFIGURATION_* in %s', async (format, group, category) => {
    const { configurations, ctx, tenant, analytics, store } = await setup();
    await store.tenants.setLoggingLevel(tenant.id, 2);
    const level2 = contextFor({ ...tenant, loggingLevel: 2 });
    const input = format === 'mso_mdoc' ? mdl() : flat('Type', format === 'ldp_vc' ? { issuer: { name: 'U' } } : {});
    const created = await configurations.create(level2, format, input);
    await configurations.list(level2, format, {});
    await configurations.get(level2, format, created.id);
    await configurations.update(level2, format, created.id, input);
    await configurations.delete(level2, format, created.id);
    await expect(configurations.get(level2, format, created.id)).rejects.toBeDefined();
    const page = await analytics.listEvents(contextFor(tenant, 'auditor'), { categories: category });
    const prefix = `${group}_CREDENTIAL_CONFIGURATION`;
    // In the order of the calls: each operation's START, then its SUCCESS or (the last read) FAIL.
    const succeeded = ['CREATE', 'LIST', 'RETRIEVE', 'UPDATE', 'DELETE'].flatMap((op) => [`${prefix}_${op}_START`, `${prefix}_${op}_SUCCESS`]);
    expect(page.data.map((e) => e.type).reverse()).toEqual([...succeeded, `${prefix}_RETRIEVE_START`, `${prefix}_RETRIEVE_FAIL`]);
    expect(page.data[0]).toMatchObject({ category, clientId: 'client-admin', data: { errorCode: 'NotFound' } });
    expect(page.data.find((e) => e.type === `${prefix}_CREATE_SUCCESS`)?.data).toEqual({ id: created.id, format, type: created.type });
  });
});
