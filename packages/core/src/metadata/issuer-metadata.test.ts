import { describe, expect, it } from 'vitest';
import { MDL_DISPLAY, mdlIssuerMetadata } from '../../test/configurations.ts';
import { formatsForMetadata } from '../../test/formats.ts';
import type { CredentialConfiguration, CwtConfiguration, LdpVcConfiguration, MdocConfiguration } from '../configurations/model.ts';
import { buildIssuerMetadata, configurationMetadata, PRE_AUTHORIZED_GRANT } from './issuer-metadata.ts';

const formats = formatsForMetadata();

const times = { createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
const mdl: MdocConfiguration = {
  id: 'cfg-mdl',
  tenantId: 't',
  format: 'mso_mdoc',
  type: 'org.iso.18013.5.1.mDL',
  name: 'Driver licence',
  expiresIn: { days: 365 },
  includeStatus: false,
  claimMappings: {
    'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true }, birth_date: { mapFrom: 'claims.birthDate', type: 'date' } },
  },
  ...MDL_DISPLAY,
  ...times,
};
const degree: LdpVcConfiguration = {
  id: 'cfg-degree',
  tenantId: 't',
  format: 'ldp_vc',
  type: 'UniversityDegree',
  expiresIn: { years: 5 },
  issuer: { name: 'University' },
  proofType: 'Ed25519Signature2018',
  revocable: false,
  contexts: ['https://schema.example/degree/v1'],
  claimMappings: { degree: { mapFrom: 'claims.degree', required: true } },
  ...times,
};
const badge = (id: string, format: CwtConfiguration['format']): CwtConfiguration => ({
  id,
  tenantId: 't',
  format,
  type: 'Badge',
  expiresIn: { days: 1 },
  revocable: false,
  claimMappings: { name: { mapFrom: 'claims.name' } },
  ...times,
});
const configs: CredentialConfiguration[] = [
  mdl,
  degree,
  badge('cfg-cwt', 'cwt'),
  badge('cfg-cwtvc', 'cwt_vc'),
  {
    id: 'cfg-sd',
    tenantId: 't',
    format: 'dc+sd-jwt',
    type: 'https://vct.example/pid',
    expiresIn: { days: 1 },
    claimMappings: { name: { mapFrom: 'claims.name' } },
    ...times,
  },
];

describe('issuer metadata (OpenID4VCI 1.0 §12.2)', () => {
  const origin = 'https://acme.eu01.vellum.test';
  const live = { preAuthorizedCode: true, authorizationCode: false, credentialEndpoint: true, jwks: true, iacaList: true };

  it('names the issuer and its endpoints under the requesting origin', () => {
    const m = buildIssuerMetadata(origin, configs, live, formats);
    expect(m).toMatchObject({
      issuer: origin,
      credential_issuer: origin,
      token_endpoint: `${origin}/v1/oauth/token`,
      credential_endpoint: `${origin}/v1/openid/credential`,
      nonce_endpoint: `${origin}/v1/openid/nonce`,
      jwks_uri: `${origin}/.well-known/jwks.json`,
      mdoc_iacas_uri: `${origin}/v2/credentials/mobile/iacas`,
      grant_types_supported: [PRE_AUTHORIZED_GRANT],
      scopes_supported: ['mso_mdoc:org.iso.18013.5.1.mDL', 'ldp_vc:UniversityDegree', 'cwt:Badge', 'cwt_vc:Badge', 'dc+sd-jwt:https://vct.example/pid'],
    });
    expect(Object.keys(m.credential_configurations_supported as object)).toEqual(configs.map((c) => c.id));
    const custom = buildIssuerMetadata('https://issuer.example.org', configs, live, formats);
    expect(custom.credential_issuer).toBe('https://issuer.example.org');
    expect(custom.token_endpoint).toBe('https://issuer.example.org/v1/oauth/token');
  });

  it('advertises nothing that is not live', () => {
    const m = buildIssuerMetadata(
      origin,
      configs,
      { preAuthorizedCode: false, authorizationCode: false, credentialEndpoint: false, jwks: false, iacaList: false },
      formats,
    );
    for (const key of [
      'authorization_endpoint',
      'token_endpoint',
      'credential_endpoint',
      'nonce_endpoint',
      'jwks_uri',
      'mdoc_iacas_uri',
      'response_types_supported',
      'code_challenge_methods_supported',
      'credential_response_encryption',
    ]) {
      expect(m).not.toHaveProperty(key);
    }
    expect(m.grant_types_supported).toEqual([]);
    const withCode = buildIssuerMetadata(origin, [], { ...live, authorizationCode: true }, formats);
    expect(withCode).toMatchObject({
      authorization_endpoint: `${origin}/v1/oauth/authorize`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', PRE_AUTHORIZED_GRANT],
    });
  });

  it('describes an mDoc configuration with doctype, COSE algorithm and localised claim labels', () => {
    expect(configurationMetadata(mdl, formats)).toEqual(
      mdlIssuerMetadata('cfg-mdl', [
        { path: ['org.iso.18013.5.1', 'family_name'], mandatory: true, display: MDL_DISPLAY.claimDisplay['org.iso.18013.5.1'].family_name },
        { path: ['org.iso.18013.5.1', 'birth_date'], mandatory: false },
      ]),
    );
  });

  it('uses each format’s claim path and type fields', () => {
    const byId = buildIssuerMetadata(origin, configs, live, formats).credential_configurations_supported as Record<string, Record<string, unknown>>;
    expect(byId['cfg-degree']).toMatchObject({
      credential_definition: {
        '@context': ['https://www.w3.org/2018/credentials/v1', 'https://schema.example/degree/v1'],
        type: ['VerifiableCredential', 'UniversityDegree'],
      },
      credential_signing_alg_values_supported: ['Ed25519Signature2018'],
      cryptographic_binding_methods_supported: ['did:key'],
      credential_metadata: { claims: [{ path: ['credentialSubject', 'degree'], mandatory: true }] },
    });
    // OpenID4VCI 1.0 §12.2.4: display, when present, is a non-empty array; a configuration without
    // a name or display has none.
    expect(byId['cfg-degree']?.credential_metadata).not.toHaveProperty('display');
    for (const entry of Object.values(byId)) {
      const display = (entry.credential_metadata as { display?: unknown[] }).display;
      if (display !== undefined) expect(display.length, String(entry.id)).toBeGreaterThan(0);
    }
    expect(byId['cfg-cwtvc']).toMatchObject({
      types: ['VerifiableCredential', 'Badge'],
      credential_signing_alg_values_supported: [-7],
      credential_metadata: { claims: [{ path: ['vc', 'credentialSubject', 'name'] }] },
    });
    expect(byId['cfg-cwt']).toMatchObject({
      type: 'Badge',
      credential_signing_alg_values_supported: [-7],
      credential_metadata: { claims: [{ path: ['name'] }] },
    });
    expect(byId['cfg-sd']).toMatchObject({ vct: 'https://vct.example/pid', cryptographic_binding_methods_supported: ['jwk'] });
  });

  it('keeps the deprecated credentials_supported list (OpenID4VCI draft 13)', () => {
    const legacy = buildIssuerMetadata(origin, configs, live, formats).credentials_supported as Record<string, unknown>[];
    expect(legacy[0]).toEqual({
      format: 'mso_mdoc',
      id: 'cfg-mdl',
      scope: 'mso_mdoc:org.iso.18013.5.1.mDL',
      doctype: 'org.iso.18013.5.1.mDL',
      cryptographic_binding_methods_supported: ['mso'],
      cryptographic_suites_supported: ['ES256'],
    });
    expect(legacy[1]).toMatchObject({
      format: 'ldp_vc',
      '@context': expect.any(Array),
      type: ['VerifiableCredential', 'UniversityDegree'],
      credentialSubject: { degree: {} },
    });
  });
});
