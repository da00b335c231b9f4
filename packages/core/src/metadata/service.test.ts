import { describe, expect, it } from 'vitest';
import { formatsForMetadata } from '../../test/formats.ts';
import { contextFor, withTenants } from '../../test/harness.ts';
import { buildAuthorizationServerMetadata } from './authorization-server.ts';
import { LIVE_ISSUANCE_FEATURES, PRE_AUTHORIZED_GRANT } from './issuer-metadata.ts';
import { createIssuerMetadataService } from './service.ts';

const setup = () => withTenants();

const mapping = { mapFrom: 'claims.name' };

/** What DPoP-bound tokens and client attestation add to either document (issue 16). */
const DPOP_AND_ATTESTATION = {
  dpop_signing_alg_values_supported: ['ES256', 'EdDSA'],
  client_attestation_signing_alg_values_supported: ['ES256', 'EdDSA'],
  client_attestation_pop_signing_alg_values_supported: ['ES256', 'EdDSA'],
};

/** What the Authorization Code flow adds to either document under `origin` (issue 13). */
const authorizationCodeFlow = (origin: string) => ({
  authorization_endpoint: `${origin}/v1/oauth/authorize`,
  pushed_authorization_request_endpoint: `${origin}/v1/oauth/par`,
  require_pushed_authorization_requests: false,
  response_modes_supported: ['query'],
  code_challenge_methods_supported: ['S256'],
  authorization_response_iss_parameter_supported: true,
  token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'attest_jwt_client_auth'],
  response_types_supported: ['code'],
  ...DPOP_AND_ATTESTATION,
});

describe('issuer metadata of a tenant (OpenID4VCI 1.0 §12.2, §12.2.2)', () => {
  it('publishes the tenant’s configurations of every format, in creation order, for the origin asked', async () => {
    const { configurations, metadata, ctx, tenant, other } = await setup();
    const mdl = await configurations.create(ctx, 'mso_mdoc', {
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 30 },
      claimMappings: { 'org.iso.18013.5.1': { family_name: mapping } },
    });
    const badge = await configurations.create(ctx, 'cwt', { type: 'Badge', expiresIn: { days: 30 }, claimMappings: { name: mapping } });
    await configurations.create(contextFor(other), 'cwt', { type: 'Elsewhere', expiresIn: { days: 30 }, claimMappings: { name: mapping } });
    const anonymous = { ...contextFor(tenant, null), origin: 'https://issuer.example.org' };
    const m = await metadata.issuerMetadata(anonymous);
    expect(m.credential_issuer).toBe('https://issuer.example.org');
    expect(m.scopes_supported).toEqual(['mso_mdoc:org.iso.18013.5.1.mDL', 'cwt:Badge']);
    expect(Object.keys(m.credential_configurations_supported as object)).toEqual([mdl.id, badge.id]);
    expect((m.credentials_supported as unknown[]).length).toBe(2);
    await configurations.delete(ctx, 'cwt', badge.id);
    expect(Object.keys((await metadata.issuerMetadata(anonymous)).credential_configurations_supported as object)).toEqual([mdl.id]);
  });

  it('publishes the key attestation levels a configuration requires in proof_types_supported, never its roots', async () => {
    const { configurations, metadata, ctx, tenant } = await setup();
    const rootCertificates = ['-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'];
    const pid = await configurations.create(ctx, 'dc+sd-jwt', {
      type: 'Pid',
      expiresIn: { days: 30 },
      claimMappings: { name: mapping },
      keyAttestationsRequired: { keyStorage: ['iso_18045_high'], rootCertificates },
    });
    const any = await configurations.create(ctx, 'cwt', {
      type: 'Badge',
      expiresIn: { days: 30 },
      claimMappings: { name: mapping },
      keyAttestationsRequired: { rootCertificates },
    });
    const plain = await configurations.create(ctx, 'mso_mdoc', {
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 30 },
      claimMappings: { 'org.iso.18013.5.1': { family_name: mapping } },
    });
    const m = await metadata.issuerMetadata(contextFor(tenant, null));
    const jwtProof = (id: string) =>
      (m.credential_configurations_supported as Record<string, { proof_types_supported: { jwt: Record<string, unknown> } }>)[id]?.proof_types_supported.jwt;
    expect(jwtProof(pid.id)).toEqual({ proof_signing_alg_values_supported: expect.any(Array), key_attestations_required: { key_storage: ['iso_18045_high'] } });
    expect(jwtProof(any.id)?.key_attestations_required).toEqual({});
    expect(jwtProof(plain.id)).not.toHaveProperty('key_attestations_required');
    expect(JSON.stringify(m)).not.toContain('BEGIN CERTIFICATE');
    // The attestation proof type (OpenID4VCI 1.0 App. F.3, issue 30): only where key attestations are required.
    const proofTypes = (id: string) =>
      (m.credential_configurations_supported as Record<string, { proof_types_supported: Record<string, unknown> }>)[id]?.proof_types_supported;
    expect(proofTypes(pid.id)?.attestation).toEqual({
      proof_signing_alg_values_supported: ['ES256', 'EdDSA'],
      key_attestations_required: { key_storage: ['iso_18045_high'] },
    });
    expect(proofTypes(any.id)?.attestation).toEqual({ proof_signing_alg_values_supported: ['ES256', 'EdDSA'], key_attestations_required: {} });
    expect(Object.keys(proofTypes(plain.id) ?? {})).toEqual(['jwt']);
  });

  it('publishes batch_credential_issuance with the tenant’s batch size only above 1 (OpenID4VCI 1.0 §12.2.4; issue 30)', async () => {
    const { metadata, tenant } = await setup();
    expect(await metadata.issuerMetadata(contextFor(tenant, null))).not.toHaveProperty('batch_credential_issuance');
    expect(await metadata.issuerMetadata(contextFor({ ...tenant, batchSize: 1 }, null))).not.toHaveProperty('batch_credential_issuance');
    expect((await metadata.issuerMetadata(contextFor({ ...tenant, batchSize: 10 }, null))).batch_credential_issuance).toEqual({ batch_size: 10 });
  });

  it('publishes every display field of a configuration per locale: logo with alt_text, description, colours and background image (OpenID4VCI 1.0 §12.2.4)', async () => {
    const { configurations, metadata, ctx, tenant } = await setup();
    const display = [
      {
        name: 'Staff badge',
        locale: 'en',
        logo: { uri: 'https://issuer.example/logo.png', alt_text: 'The Acme logo' },
        description: 'Shows that you work at Acme',
        background_color: '#12107c',
        background_image: { uri: 'https://issuer.example/card.png' },
        text_color: '#ffffff',
      },
      { name: 'Badge du personnel', locale: 'fr', description: 'Atteste que vous travaillez chez Acme' },
    ];
    const created = await configurations.create(ctx, 'cwt', { type: 'Badge', expiresIn: { days: 30 }, claimMappings: { name: mapping }, display });
    const m = await metadata.issuerMetadata(contextFor(tenant, null));
    const published = (m.credential_configurations_supported as Record<string, { credential_metadata: { display: unknown } }>)[created.id];
    expect(published?.credential_metadata.display).toEqual(display);
  });

  it('leaves cryptographic_binding_methods_supported and proof_types_supported out of an unbound configuration, in both lists (OpenID4VCI 1.0 §12.2.4, issue 29)', async () => {
    const { configurations, metadata, ctx, tenant } = await setup();
    const bound = await configurations.create(ctx, 'dc+sd-jwt', { type: 'Pid', expiresIn: { days: 30 }, claimMappings: { name: mapping } });
    const ticket = await configurations.create(ctx, 'dc+sd-jwt', {
      type: 'Ticket',
      expiresIn: { days: 30 },
      claimMappings: { name: mapping },
      holderBinding: false,
    });
    const m = await metadata.issuerMetadata(contextFor(tenant, null));
    const entries = m.credential_configurations_supported as Record<string, Record<string, unknown>>;
    expect(entries[bound.id]).toMatchObject({ cryptographic_binding_methods_supported: ['jwk'], proof_types_supported: { jwt: expect.any(Object) } });
    expect(entries[ticket.id]).toEqual({
      format: 'dc+sd-jwt',
      id: ticket.id,
      scope: 'dc+sd-jwt:Ticket',
      vct: 'Ticket',
      credential_signing_alg_values_supported: ['ES256'],
      credential_metadata: { claims: [{ path: ['name'], mandatory: false }] },
    });
    const legacy = (m.credentials_supported as Array<Record<string, unknown>>).find((e) => e.id === ticket.id);
    expect(legacy).toEqual({ format: 'dc+sd-jwt', id: ticket.id, scope: 'dc+sd-jwt:Ticket', type: 'Ticket', cryptographic_suites_supported: ['ES256'] });
  });

  it('answers the same frozen document while nothing changes, and a new one after any write, per origin', async () => {
    const { configurations, metadata, store, ctx, tenant } = await setup();
    const created = await configurations.create(ctx, 'cwt', { type: 'Badge', expiresIn: { days: 30 }, claimMappings: { name: mapping } });
    const anonymous = contextFor(tenant, null);
    const first = await metadata.issuerMetadata(anonymous);
    expect(await metadata.issuerMetadata(anonymous)).toBe(first);
    expect(Object.isFrozen(first.credential_configurations_supported)).toBe(true);
    const custom = await metadata.issuerMetadata({ ...anonymous, origin: 'https://issuer.example.org' });
    expect(custom).not.toBe(first);
    expect(custom.credential_issuer).toBe('https://issuer.example.org');
    // A write straight to the store, as another server sharing the database would make it.
    const stored = await store.credentialConfigurations.get(tenant.id, created.id);
    await store.credentialConfigurations.update({ ...(stored as NonNullable<typeof stored>), name: 'Renamed' });
    const after = await metadata.issuerMetadata(anonymous);
    expect(after).not.toBe(first);
    expect(
      (after.credential_configurations_supported as Record<string, { credential_metadata: { display: unknown } }>)[created.id]?.credential_metadata.display,
    ).toEqual([{ name: 'Renamed' }]);
  });

  it('advertises what is live in this release: the credential, nonce and notification endpoints with encryption, and the IACA list', async () => {
    const { metadata, tenant } = await setup();
    expect(LIVE_ISSUANCE_FEATURES).toMatchObject({ preAuthorizedCode: true, authorizationCode: true, credentialEndpoint: true, jwks: true, iacaList: true });
    const origin = 'https://acme.eu01.vellum.test';
    const m = await metadata.issuerMetadata(contextFor(tenant, null));
    expect(m).toMatchObject({
      issuer: origin,
      credential_issuer: origin,
      // The Pre-authorized Code grant at the token endpoint, and the access tokens' keys (issue 5).
      token_endpoint: `${origin}/v1/oauth/token`,
      jwks_uri: `${origin}/.well-known/jwks.json`,
      ...authorizationCodeFlow(origin),
      grant_types_supported: ['authorization_code', PRE_AUTHORIZED_GRANT],
      credential_endpoint: `${origin}/v1/openid/credential`,
      nonce_endpoint: `${origin}/v1/openid/nonce`,
      notification_endpoint: `${origin}/v1/openid/notification`,
      mdoc_iacas_uri: `${origin}/v2/credentials/mobile/iacas`,
      scopes_supported: [],
      credentials_supported: [],
      credential_configurations_supported: {},
      // docs/decisions.md "The credential endpoint": ECDH-ES with A128GCM or A256GCM both ways, never required.
      credential_response_encryption: { alg_values_supported: ['ECDH-ES'], enc_values_supported: ['A128GCM', 'A256GCM'], encryption_required: false },
      credential_request_encryption: {
        jwks: { keys: [{ kty: 'EC', crv: 'P-256', kid: `enc-${tenant.id}`, use: 'enc', alg: 'ECDH-ES', x: expect.any(String), y: expect.any(String) }] },
        enc_values_supported: ['A128GCM', 'A256GCM'],
        encryption_required: false,
      },
    });
    expect(await metadata.authorizationServerMetadata(contextFor(tenant, null))).toEqual({
      issuer: origin,
      token_endpoint: `${origin}/v1/oauth/token`,
      jwks_uri: `${origin}/.well-known/jwks.json`,
      ...authorizationCodeFlow(origin),
      // RFC 9396 §10: the authorization and PAR endpoints take openid_credential authorization_details.
      authorization_details_types_supported: ['openid_credential'],
      grant_types_supported: ['authorization_code', PRE_AUTHORIZED_GRANT],
      'pre-authorized_grant_anonymous_access_supported': true,
    });
  });

  it('publishes each tenant’s own request encryption key', async () => {
    const { metadata, tenant, other } = await setup();
    const kids = async (t: typeof tenant) =>
      ((await metadata.issuerMetadata(contextFor(t, null))).credential_request_encryption as { jwks: { keys: Array<{ kid: string }> } }).jwks.keys.map(
        (k) => k.kid,
      );
    expect(await kids(tenant)).toEqual([`enc-${tenant.id}`]);
    expect(await kids(other)).toEqual([`enc-${other.id}`]);
  });

  it('puts the mount path into the issuer identifier and every URL', async () => {
    const { store, tenant } = await setup();
    const service = createIssuerMetadataService({
      store,
      formats: formatsForMetadata(),
      features: { ...LIVE_ISSUANCE_FEATURES, preAuthorizedCode: true, iacaList: true },
    });
    const m = await service.issuerMetadata(contextFor(tenant, null), '/issuance/');
    expect(m).toMatchObject({
      credential_issuer: 'https://acme.eu01.vellum.test/issuance',
      token_endpoint: 'https://acme.eu01.vellum.test/issuance/v1/oauth/token',
      mdoc_iacas_uri: 'https://acme.eu01.vellum.test/issuance/v2/credentials/mobile/iacas',
    });
    expect(await service.authorizationServerMetadata(contextFor(tenant, null), '/issuance')).toMatchObject({
      issuer: 'https://acme.eu01.vellum.test/issuance',
    });
  });
});

describe('authorization server metadata (RFC 8414 §2, OpenID4VCI 1.0 §12.3)', () => {
  const issuer = 'https://acme.eu01.vellum.test';

  it('names the endpoints and grants of the live flows only', () => {
    expect(buildAuthorizationServerMetadata(issuer, { ...LIVE_ISSUANCE_FEATURES, preAuthorizedCode: true, jwks: true, authorizationCode: false })).toEqual({
      issuer,
      token_endpoint: `${issuer}/v1/oauth/token`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      response_types_supported: [],
      ...DPOP_AND_ATTESTATION,
      grant_types_supported: [PRE_AUTHORIZED_GRANT],
      'pre-authorized_grant_anonymous_access_supported': true,
    });
    expect(buildAuthorizationServerMetadata(issuer, { ...LIVE_ISSUANCE_FEATURES, preAuthorizedCode: false, jwks: false, authorizationCode: true })).toEqual({
      issuer,
      token_endpoint: `${issuer}/v1/oauth/token`,
      ...authorizationCodeFlow(issuer),
      authorization_details_types_supported: ['openid_credential'],
      grant_types_supported: ['authorization_code'],
    });
  });
});
