import { PRE_AUTHORIZED_CODE_GRANT } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

// docs/decisions.md "Wallet requirements per configuration and offer (issue 30)": the new fields of
// configurations and offers over HTTP, and the token endpoint's OAuth error bodies when they are not met.

const mdlBody = {
  type: 'org.iso.18013.5.1.mDL',
  expiresIn: { days: 365 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
};
const FORM = 'application/x-www-form-urlencoded';
/** The pre-authorized code of an offer URI (by value). */
const codeIn = (uri: string) => {
  const offer = JSON.parse(new URL(uri).searchParams.get('credential_offer') as string) as { grants: Record<string, { 'pre-authorized_code': string }> };
  return offer.grants[PRE_AUTHORIZED_CODE_GRANT]?.['pre-authorized_code'] as string;
};

describe('wallet requirements over HTTP', () => {
  const t = useTestApp('standalone');
  const tenant = freshTenants(t, 'w');

  async function issuer() {
    const created = await tenant();
    const token = (code: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/oauth/token',
        headers: { host: created.host, 'content-type': FORM },
        payload: new URLSearchParams({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': code }).toString(),
      });
    return { ...created, token };
  }

  it('keeps a configuration’s walletRequirements (true members only) and key attestation levels without roots', async () => {
    const { call, host } = await issuer();
    const res = await call('POST', '/v2/credentials/mobile/configurations', {
      ...mdlBody,
      walletRequirements: { walletAttestation: true, dpop: false },
      keyAttestationsRequired: { keyStorage: ['iso_18045_high'] },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ walletRequirements: { walletAttestation: true }, keyAttestationsRequired: { keyStorage: ['iso_18045_high'] } });
    expect(res.json().walletRequirements).not.toHaveProperty('dpop');
    const read = await call('GET', `/v2/credentials/mobile/configurations/${res.json().id}`);
    expect(read.json()).toMatchObject({ walletRequirements: { walletAttestation: true } });
    // The metadata publishes the levels, as for a configuration with roots (OpenID4VCI 1.0 §12.2.4).
    const metadata = await t.app.inject({ method: 'GET', url: '/.well-known/openid-credential-issuer', headers: { host } });
    const entry = metadata.json().credential_configurations_supported[res.json().id];
    expect(entry.proof_types_supported.jwt.key_attestations_required).toEqual({ key_storage: ['iso_18045_high'] });
  });

  it('refuses a bad walletRequirements or key attestation levels on a configuration (400, each by name)', async () => {
    const { call } = await issuer();
    const res = await call('POST', '/v2/credentials/mobile/configurations', {
      ...mdlBody,
      walletRequirements: { dpop: 'yes', pin: true },
      keyAttestationsRequired: { rootCertificates: [] },
    });
    expect(res.statusCode).toBe(400);
    const params = (res.json().details as { param: string }[]).map((d) => d.param);
    expect(params).toEqual(expect.arrayContaining(['walletRequirements.dpop', 'walletRequirements.pin', 'keyAttestationsRequired.rootCertificates']));
    const repeated = await call('POST', '/v2/credentials/mobile/configurations', { ...mdlBody, keyAttestationsRequired: { keyStorage: ['a', 'a'] } });
    expect(repeated.json()).toMatchObject({ details: [{ param: 'keyAttestationsRequired.keyStorage', msg: 'A level is listed twice' }] });
  });

  it('takes walletRequirements and key attestation levels on both kinds of offer, and refuses roots, unknown members and repeated levels', async () => {
    const { call } = await issuer();
    const mdoc = (await call('POST', '/v2/credentials/mobile/configurations', mdlBody)).json() as { id: string };
    const requirements = { walletRequirements: { walletAttestation: true, dpop: true }, keyAttestationsRequired: { userAuthentication: ['iso_18045_high'] } };
    expect((await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id], ...requirements })).statusCode).toBe(200);
    expect((await call('POST', '/v1/openid/offers', { credentials: [mdoc.id], ...requirements })).statusCode).toBe(200);
    const bad = await call('POST', '/v1/openid/offers/pre-authorized', {
      credentials: [mdoc.id],
      walletRequirements: { walletAttestation: 1 },
      keyAttestationsRequired: { keyStorage: ['a', 'a'], rootCertificates: ['-----BEGIN CERTIFICATE-----'] },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ param: 'walletRequirements.walletAttestation' }),
        expect.objectContaining({ param: 'keyAttestationsRequired.rootCertificates', msg: 'Unknown field' }),
      ]),
    );
    const repeated = await call('POST', '/v1/openid/offers', { credentials: [mdoc.id], keyAttestationsRequired: { keyStorage: ['a', 'a'] } });
    expect(repeated.json()).toMatchObject({ details: [{ param: 'keyAttestationsRequired.keyStorage', msg: 'A level is listed twice' }] });
  });

  it('refuses key attestation levels on an Authorization Code offer of an unbound configuration', async () => {
    const { call } = await issuer();
    const unbound = (
      await call('POST', '/v2/credentials/sd-jwt/configurations', { type: 'Badge', claimMappings: { name: { mapFrom: 'claims.name' } }, holderBinding: false })
    ).json() as { id: string };
    const res = await call('POST', '/v1/openid/offers', { credentials: [unbound.id], keyAttestationsRequired: { keyStorage: ['iso_18045_high'] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ details: [{ param: 'keyAttestationsRequired', msg: expect.stringContaining('binds none') }] });
  });

  it('answers a token request that does not meet the offer with the OAuth error body: invalid_dpop_proof (400), invalid_client (401)', async () => {
    const { call, token } = await issuer();
    const mdoc = (await call('POST', '/v2/credentials/mobile/configurations', mdlBody)).json() as { id: string };
    const offer = async (walletRequirements: Record<string, boolean>) =>
      codeIn((await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdoc.id], claims: { familyName: 'L' }, walletRequirements })).json().uri);
    const dpop = await token(await offer({ dpop: true }));
    expect(dpop.statusCode).toBe(400);
    expect(dpop.json()).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining('DPoP') });
    const attested = await token(await offer({ walletAttestation: true }));
    expect(attested.statusCode).toBe(401);
    expect(attested.json()).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('wallet attestation') });
  });
});
