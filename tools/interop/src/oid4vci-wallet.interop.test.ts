// Issue 5 acceptance: the Pre-authorized Code flow end to end, played by a wallet library we did not
// write (@openid4vc/openid4vci with @openid4vc/oauth2) against the real server over real TLS on
// loopback. The wallet resolves the offer (by value and by reference), reads the metadata, redeems
// the code with the transaction code, fetches a nonce, proves possession of its key and receives an
// mDoc, which @auth0/mdl (another team's verifier) verifies against the IACA from the public list,
// with the wallet's key as device key and the offer's claims as element values. A second run sends
// the deprecated draft-13 request and checks the deprecated answer and its headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeIaca, type IssuerServer, startIssuerServer } from './issuer-server.ts';
import { keyProof, libraryWallet, preAuthorizedToken, requestCredential } from './library-wallet.ts';
import { ISSUED_AND_VALID, presentAndVerify } from './mdoc-verify.ts';

const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';

describe('OpenID4VCI Pre-authorized Code flow with a wallet library we did not write (issue 5)', () => {
  let issuer: IssuerServer;
  let origin: string;
  let call: IssuerServer['call'];
  let configurationId: string;
  let iacaPem: string;

  beforeAll(async () => {
    issuer = await startIssuerServer();
    ({ origin, call } = issuer);
    iacaPem = await activeIaca(issuer);

    const configuration = await call('POST', '/v2/credentials/mobile/configurations', {
      type: DOC_TYPE,
      name: 'Mobile driving licence',
      expiresIn: { days: 365 },
      claimMappings: {
        [NS]: {
          family_name: { mapFrom: 'claims.familyName', required: true },
          given_name: { mapFrom: 'claims.givenName', required: true },
          birth_date: { mapFrom: 'claims.birthDate', type: 'date', required: true },
          age_over_18: { mapFrom: 'claims.adult', type: 'boolean' },
          issuing_country: { defaultValue: 'US' },
          document_number: { mapFrom: 'claims.documentNumber' },
        },
      },
    });
    expect(configuration.status, configuration.text).toBe(201);
    configurationId = configuration.json().id;
  });

  afterAll(async () => {
    await issuer?.stop();
  });

  const wallet = () => libraryWallet(issuer.tlsFetch);

  async function offer(byReference: boolean) {
    const res = await call('POST', '/v1/openid/offers/pre-authorized', {
      credentials: [configurationId],
      claims: { familyName: 'Okafor', givenName: 'Ada', birthDate: '1991-07-14', adult: true, documentNumber: 'D1234567' },
      transactionCodeConfiguration: { inputMode: 'numeric', length: 6, description: 'Sent to you by SMS' },
      byReference,
    });
    expect(res.status, res.text).toBe(200);
    return res.json() as { uri: string; transactionCode: string; id: string };
  }

  async function verifyMdoc(credential: string, device: ReturnType<typeof wallet>) {
    const { document, deviceKey } = await presentAndVerify(credential, DOC_TYPE, device.privateKey, iacaPem, ISSUED_AND_VALID);
    expect(deviceKey).toMatchObject({ kty: 'EC', crv: 'P-256', x: device.publicJwk.x, y: device.publicJwk.y });
    const values = Object.fromEntries((document?.getIssuerNameSpace(NS) ? Object.entries(document.getIssuerNameSpace(NS)) : []) as [string, unknown][]);
    expect(values).toMatchObject({ family_name: 'Okafor', given_name: 'Ada', age_over_18: true, issuing_country: 'US', document_number: 'D1234567' });
    expect(new Date(values.birth_date as string).toISOString().slice(0, 10)).toBe('1991-07-14');
  }

  it.each([false, true])('issues an mDoc that @auth0/mdl verifies (offer by reference: %s)', async (byReference) => {
    const created = await offer(byReference);
    expect(created.uri).toContain(byReference ? 'credential_offer_uri=' : 'credential_offer=');
    const device = wallet();
    const { credentialOffer, issuerMetadata, accessTokenResponse } = await preAuthorizedToken(device.client, created.uri, {
      txCode: created.transactionCode,
    });
    expect(credentialOffer.credential_issuer).toBe(origin);
    expect(credentialOffer.credential_configuration_ids).toEqual([configurationId]);
    const body = await requestCredential(device.client, {
      issuerMetadata,
      credentialConfigurationId: configurationId,
      signer: device.signer,
      accessToken: accessTokenResponse.access_token,
    });
    expect(body.credentials).toHaveLength(1);
    expect(body.notification_id).toEqual(expect.any(String));
    await verifyMdoc(body.credentials?.[0]?.credential as string, device);

    // The offer is single use: the same code a second time is refused.
    await expect(
      device.client.retrievePreAuthorizedCodeAccessTokenFromOffer({ credentialOffer, issuerMetadata, txCode: created.transactionCode }),
    ).rejects.toThrow();
  });

  it('answers the deprecated draft-13 request with the deprecated response and its Deprecation and Sunset headers', async () => {
    const created = await offer(false);
    const device = wallet();
    const { issuerMetadata, accessTokenResponse } = await preAuthorizedToken(device.client, created.uri, { txCode: created.transactionCode });
    const jwt = await keyProof(device.client, issuerMetadata, configurationId, device.signer);
    const legacy = await call(
      'POST',
      '/v1/openid/credential',
      { format: 'mso_mdoc', doctype: DOC_TYPE, proof: { proof_type: 'jwt', jwt } },
      { authorization: `Bearer ${accessTokenResponse.access_token}` },
    );
    expect(legacy.status, legacy.text).toBe(200);
    expect(legacy.headers.get('deprecation')).toBe('@1777680000');
    expect(legacy.headers.get('sunset')).toBe('Sat, 02 May 2026 00:00:00 GMT');
    const body = legacy.json();
    expect(body.format).toBe('mso_mdoc');
    expect(body).not.toHaveProperty('credentials');
    await verifyMdoc(body.credential, device);
  });
});
