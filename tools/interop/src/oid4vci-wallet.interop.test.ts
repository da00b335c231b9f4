// Issue 5 acceptance: the Pre-authorized Code flow end to end, played by a wallet library we did not
// write (@openid4vc/openid4vci with @openid4vc/oauth2) against the real server over real TLS on
// loopback. The wallet resolves the offer (by value and by reference), reads the metadata, redeems
// the code with the transaction code, fetches a nonce, proves possession of its key and receives an
// mDoc, which @auth0/mdl (another team's verifier) verifies against the IACA from the public list,
// with the wallet's key as device key and the offer's claims as element values. A second run sends
// the deprecated draft-13 request and checks the deprecated answer and its headers.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { clientAuthenticationAnonymous, type HashAlgorithm, type Jwk } from '@openid4vc/oauth2';
import { Openid4vciClient } from '@openid4vc/openid4vci';
import { writeLocalhostCertificate } from '@vellum/testing';
import { importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type RunningServer, serverEnv, startServer, tempDir } from '../../../apps/server/test/process.ts';
import { fetchTrusting } from './tls.ts';
import { ISSUED_AND_VALID, presentAndVerify } from './mdoc-verify.ts';

const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';

describe('OpenID4VCI Pre-authorized Code flow with a wallet library we did not write (issue 5)', () => {
  let dir: string;
  let server: RunningServer;
  let origin: string;
  let tlsFetch: typeof fetch;
  let admin: Record<string, string>;
  let configurationId: string;
  let iacaPem: string;

  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = admin) {
    const res = await tlsFetch(`${origin}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: () => JSON.parse(text), text };
  }

  beforeAll(async () => {
    dir = tempDir();
    const cert = writeLocalhostCertificate(dir);
    const port = await freePort();
    origin = `https://localhost:${port}`;
    tlsFetch = fetchTrusting(cert.certPem);
    server = await startServer(
      serverEnv({
        VELLUM_DATA_DIR: dir,
        VELLUM_PORT: String(port),
        VELLUM_PUBLIC_URL: origin,
        VELLUM_TLS_CERT_FILE: cert.certFile,
        VELLUM_TLS_KEY_FILE: cert.keyFile,
      }),
    );
    const printed = server.output();
    const start = printed.indexOf('{', printed.indexOf('shown only this once'));
    const demo = JSON.parse(printed.slice(start, printed.indexOf('\n}', start) + 2));
    const token = await call(
      'POST',
      '/oauth/token',
      { grant_type: 'client_credentials', client_id: demo.clientId, client_secret: demo.clientSecret, audience: origin },
      {},
    );
    expect(token.status, token.text).toBe(200);
    admin = { authorization: `Bearer ${token.json().access_token}` };

    const iaca = await call('POST', '/v2/credentials/mobile/iacas', { country: 'US', commonName: 'Acme IACA' });
    expect(iaca.status, iaca.text).toBe(201);
    expect((await call('PUT', `/v2/credentials/mobile/iacas/${iaca.json().id}`, { active: true })).status).toBe(200);
    const publicList = await call('GET', '/v2/credentials/mobile/iacas', undefined, {});
    iacaPem = publicList.json().data[0].certificatePem;

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
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A wallet: its own P-256 key, and the library's client with callbacks over node:crypto and jose. */
  function wallet() {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicJwk = publicKey.export({ format: 'jwk' }) as Jwk;
    const client = new Openid4vciClient({
      callbacks: {
        fetch: tlsFetch,
        hash: (data: Uint8Array, alg: HashAlgorithm) => new Uint8Array(createHash(alg.replace('-', '')).update(data).digest()),
        generateRandom: (n: number) => new Uint8Array(randomBytes(n)),
        clientAuthentication: clientAuthenticationAnonymous(),
        signJwt: async (_signer, { header, payload }) => {
          const key = await importJWK(privateKey.export({ format: 'jwk' }), 'ES256');
          const jwt = await new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256' }).sign(key);
          return { jwt, signerJwk: publicJwk };
        },
      },
    });
    return { client, publicJwk, privateKey };
  }

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
    const credentialOffer = await device.client.resolveCredentialOffer(created.uri);
    expect(credentialOffer.credential_issuer).toBe(origin);
    expect(credentialOffer.credential_configuration_ids).toEqual([configurationId]);
    const issuerMetadata = await device.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    const { accessTokenResponse } = await device.client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      txCode: created.transactionCode,
    });
    const { c_nonce } = await device.client.requestNonce({ issuerMetadata });
    const { jwt } = await device.client.createCredentialRequestJwtProof({
      issuerMetadata,
      credentialConfigurationId: configurationId,
      signer: { method: 'jwk', publicJwk: device.publicJwk, alg: 'ES256' },
      nonce: c_nonce,
    });
    const response = await device.client.retrieveCredentials({
      issuerMetadata,
      accessToken: accessTokenResponse.access_token,
      credentialConfigurationId: configurationId,
      proofs: { jwt: [jwt] },
    });
    const body = response.credentialResponse as { credentials?: Array<{ credential: string }>; notification_id?: string };
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
    const credentialOffer = await device.client.resolveCredentialOffer(created.uri);
    const issuerMetadata = await device.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    const { accessTokenResponse } = await device.client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      txCode: created.transactionCode,
    });
    const { c_nonce } = await device.client.requestNonce({ issuerMetadata });
    const { jwt } = await device.client.createCredentialRequestJwtProof({
      issuerMetadata,
      credentialConfigurationId: configurationId,
      signer: { method: 'jwk', publicJwk: device.publicJwk, alg: 'ES256' },
      nonce: c_nonce,
    });
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
