// Issue 30 point 1: what a tenant asks of wallets per configuration and per offer, against the real
// server over TLS on loopback, with the wallet played by libraries we did not write
// (@openid4vc/openid4vci and @openid4vc/oauth2): DPoP required by an offer, key attestation levels
// an offer adds to its configuration's, and a wallet attestation from a wallet provider the tenant
// trusts accepted on a Pre-authorized offer that requires it, without a registered client.
// The provider is registered and removed over the admin API (`/v1/openid/wallet-providers`).
import { randomBytes } from 'node:crypto';
import {
  clientAuthenticationClientAttestationJwt,
  createClientAttestationJwt,
  type Jwk,
  type JwtSignerJwk,
  Oauth2ClientErrorResponseError,
  type SignJwtCallback,
} from '@openid4vc/oauth2';
import { type IssuerMetadataResult, Openid4vciRetrieveCredentialsError, Openid4vciWalletProvider } from '@openid4vc/openid4vci';
import { decodeJwt, importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWalletProviderCa, type WalletProviderCa } from './attestation-ca.ts';
import { activeIaca, type IssuerServer, startIssuerServer } from './issuer-server.ts';
import { libraryWallet, preAuthorizedToken } from './library-wallet.ts';
import { presentAndVerify } from './mdoc-verify.ts';

const DOC_TYPE = 'com.example.required-membership.1';
const KEYS_DOC_TYPE = 'com.example.attested-keys-membership.1';

type Refusal = { status: number; error?: string; description?: string };

/** The refusal a library call ended with, as the library read it; a success fails the test. */
async function refusalOf(promise: Promise<unknown>): Promise<Refusal> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error instanceof Oauth2ClientErrorResponseError) {
    const body = error.errorResponse as { error?: string; error_description?: string };
    return { status: error.response.status, error: body.error, description: body.error_description };
  }
  if (error instanceof Openid4vciRetrieveCredentialsError) {
    const body = error.response.credentialErrorResponseResult?.data as { error?: string; error_description?: string } | undefined;
    return { status: error.response.response.status, error: body?.error, description: body?.error_description };
  }
  throw new Error(`Expected an error response, got ${error === undefined ? 'success' : String(error)}`);
}

describe('Wallet requirements per configuration and offer, with wallet libraries we did not write (issue 30)', () => {
  let server: IssuerServer;
  let iacaPem: string;
  let configurationId: string;
  let keysConfigurationId: string;
  /** A wallet provider whose root the tenant trusts (for key attestations: the configuration's root), and one it does not. */
  let trusted: WalletProviderCa;
  let stranger: WalletProviderCa;

  beforeAll(async () => {
    trusted = makeWalletProviderCa('Trusted Wallet Provider');
    stranger = makeWalletProviderCa('Unknown Wallet Provider');
    server = await startIssuerServer();
    iacaPem = await activeIaca(server);
    const claimMappings = (docType: string) => ({ [docType]: { family_name: { mapFrom: 'claims.familyName', required: true } } });
    const plain = await server.call('POST', '/v2/credentials/mobile/configurations', {
      type: DOC_TYPE,
      expiresIn: { days: 30 },
      claimMappings: claimMappings(DOC_TYPE),
    });
    expect(plain.status, plain.text).toBe(201);
    configurationId = plain.json().id;
    const keys = await server.call('POST', '/v2/credentials/mobile/configurations', {
      type: KEYS_DOC_TYPE,
      expiresIn: { days: 30 },
      claimMappings: claimMappings(KEYS_DOC_TYPE),
      keyAttestationsRequired: { keyStorage: ['iso_18045_high'], rootCertificates: [trusted.rootPem] },
    });
    expect(keys.status, keys.text).toBe(201);
    keysConfigurationId = keys.json().id;
  });

  afterAll(async () => {
    await server?.stop();
  });

  /** A Pre-authorized offer of one configuration, with what it asks of the wallet. */
  async function offer(configuration: string, requirements: Record<string, unknown> = {}) {
    const res = await server.call('POST', '/v1/openid/offers/pre-authorized', {
      credentials: [configuration],
      claims: { familyName: 'Okafor' },
      ...requirements,
    });
    expect(res.status, res.text).toBe(200);
    return res.json().uri as string;
  }

  /** The credential, by the library: a nonce, a proof of the wallet's key (carrying a key attestation when given), DPoP when given. */
  async function credential(
    device: ReturnType<typeof libraryWallet>,
    s: { issuerMetadata: IssuerMetadataResult; accessToken: string; configuration: string },
    options: { keyAttestationJwt?: string; dpop?: JwtSignerJwk } = {},
  ) {
    const { c_nonce } = await device.client.requestNonce({ issuerMetadata: s.issuerMetadata });
    const { jwt } = await device.client.createCredentialRequestJwtProof({
      issuerMetadata: s.issuerMetadata,
      credentialConfigurationId: s.configuration,
      signer: device.signer,
      nonce: c_nonce,
      ...(options.keyAttestationJwt ? { keyAttestationJwt: options.keyAttestationJwt } : {}),
    });
    const response = await device.client.retrieveCredentials({
      issuerMetadata: s.issuerMetadata,
      accessToken: s.accessToken,
      credentialConfigurationId: s.configuration,
      proofs: { jwt: [jwt] },
      ...(options.dpop ? { dpop: { signer: options.dpop } } : {}),
    });
    const credentials = (response.credentialResponse as { credentials?: Array<{ credential: string }> }).credentials;
    expect(credentials).toHaveLength(1);
    return credentials?.[0]?.credential as string;
  }

  /** The mDoc verifies with @auth0/mdl against the IACA, presented with the wallet's key (so it is bound to it). */
  async function verified(issued: string, device: ReturnType<typeof libraryWallet>, docType: string) {
    const { document } = await presentAndVerify(issued, docType, device.privateKey, iacaPem);
    expect(document?.getIssuerNameSpace(docType)).toMatchObject({ family_name: 'Okafor' });
  }

  describe('DPoP required by an offer (RFC 9449)', () => {
    it('refuses the library’s Bearer token request with invalid_dpop_proof, and issues to its DPoP-bound one', async () => {
      const uri = await offer(configurationId, { walletRequirements: { dpop: true } });
      const bearer = libraryWallet(server.tlsFetch);
      expect(await refusalOf(preAuthorizedToken(bearer.client, uri))).toMatchObject({ status: 400, error: 'invalid_dpop_proof' });
      // The refusal left the code usable: the same offer is redeemed with DPoP.
      const device = libraryWallet(server.tlsFetch);
      const { issuerMetadata, accessTokenResponse } = await preAuthorizedToken(device.client, uri, { dpop: { signer: device.signer } });
      expect(accessTokenResponse.token_type).toBe('DPoP');
      const issued = await credential(
        device,
        { issuerMetadata, accessToken: accessTokenResponse.access_token, configuration: configurationId },
        { dpop: device.signer },
      );
      await verified(issued, device, DOC_TYPE);
    });
  });

  describe('key attestation levels an offer adds to its configuration’s (OpenID4VCI 1.0 App. D)', () => {
    /** The trusted provider's key attestation of the wallet's key, made by the library, at these levels. */
    const keyAttestation = (device: ReturnType<typeof libraryWallet>, userAuthentication: string[]) =>
      new Openid4vciWalletProvider({
        callbacks: {
          signJwt: async (_signer, { header, payload }) => {
            const key = await importJWK(trusted.signingKey.export({ format: 'jwk' }), 'ES256');
            return { jwt: await new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256' }).sign(key), signerJwk: device.publicJwk };
          },
        },
      }).createKeyAttestationJwt({
        signer: { method: 'x5c', alg: 'ES256', x5c: trusted.x5c },
        use: 'proof_type.jwt',
        attestedKeys: [device.publicJwk],
        keyStorage: ['iso_18045_high'],
        userAuthentication,
        expiresAt: new Date(Date.now() + 3600_000),
      });

    it('refuses a key attestation below the offer’s user_authentication level with invalid_proof, and issues to one that meets both', async () => {
      const requirements = { keyAttestationsRequired: { userAuthentication: ['iso_18045_high'] } };
      const device = libraryWallet(server.tlsFetch);
      const low = await preAuthorizedToken(device.client, await offer(keysConfigurationId, requirements));
      const lowSession = { issuerMetadata: low.issuerMetadata, accessToken: low.accessTokenResponse.access_token, configuration: keysConfigurationId };
      const refused = await refusalOf(credential(device, lowSession, { keyAttestationJwt: await keyAttestation(device, ['iso_18045_basic']) }));
      expect(refused).toMatchObject({ status: 400, error: 'invalid_proof' });
      expect(refused.description).toMatch(/user_authentication/);
      const high = await preAuthorizedToken(device.client, await offer(keysConfigurationId, requirements));
      const issued = await credential(
        device,
        { issuerMetadata: high.issuerMetadata, accessToken: high.accessTokenResponse.access_token, configuration: keysConfigurationId },
        { keyAttestationJwt: await keyAttestation(device, ['iso_18045_high']) },
      );
      await verified(issued, device, KEYS_DOC_TYPE);
    });
  });

  // TO CHECK AT MERGE: the route and body of the tenant's trusted wallet providers (see the top comment).
  describe('a wallet attestation from a wallet provider the tenant trusts, without a registered client', () => {
    let providerId: string;
    const generateRandom = (n: number) => new Uint8Array(randomBytes(n));

    beforeAll(async () => {
      const res = await server.call('POST', '/v1/openid/wallet-providers', { name: 'Trusted Wallet Provider', x509: [trusted.rootPem] });
      expect(res.status, res.text).toBe(201);
      providerId = res.json().id;
    });

    /** A wallet whose provider `ca` attested its instance key, sending the attestation in Standard Mode through the library. */
    async function attestedWallet(ca: WalletProviderCa, clientInstanceId: string) {
      const instance = libraryWallet(server.tlsFetch);
      const signJwt: SignJwtCallback = async (signer, { header, payload }) => {
        const privateKey = signer.method === 'x5c' ? ca.signingKey : instance.privateKey;
        const key = await importJWK(privateKey.export({ format: 'jwk' }), 'ES256');
        return { jwt: await new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256' }).sign(key), signerJwk: instance.publicJwk as Jwk };
      };
      const clientAttestationJwt = await createClientAttestationJwt({
        issuer: 'https://wallet-provider.example',
        clientId: 'eudi-wallet',
        expiresAt: new Date(Date.now() + 3600_000),
        confirmation: { jwk: instance.publicJwk as Jwk },
        additionalPayload: { client_instance_id: clientInstanceId },
        callbacks: { signJwt },
        signer: { method: 'x5c', x5c: ca.x5c, alg: 'ES256' },
      });
      return libraryWallet(server.tlsFetch, clientAuthenticationClientAttestationJwt({ clientAttestationJwt, callbacks: { signJwt, generateRandom } }));
    }

    it('accepts it on a Pre-authorized offer that requires it, and names the attested instance on the token and the issued credential', async () => {
      const device = await attestedWallet(trusted, 'instance-42');
      const { issuerMetadata, accessTokenResponse } = await preAuthorizedToken(
        device.client,
        await offer(configurationId, { walletRequirements: { walletAttestation: true } }),
      );
      expect(decodeJwt(accessTokenResponse.access_token)).toMatchObject({ client_instance_id: 'instance-42' });
      const issued = await credential(device, { issuerMetadata, accessToken: accessTokenResponse.access_token, configuration: configurationId });
      await verified(issued, device, DOC_TYPE);
      const records = await server.call('GET', '/v2/credentials?limit=100');
      expect(records.json().data).toEqual(expect.arrayContaining([expect.objectContaining({ clientInstanceId: 'instance-42' })]));
    });

    it('refuses an attestation from a provider it does not trust (400 invalid_client_attestation), and a wallet without one (401 invalid_client)', async () => {
      const uri = await offer(configurationId, { walletRequirements: { walletAttestation: true } });
      const untrusted = await attestedWallet(stranger, 'instance-x');
      expect(await refusalOf(preAuthorizedToken(untrusted.client, uri))).toMatchObject({ status: 400, error: 'invalid_client_attestation' });
      expect(await refusalOf(preAuthorizedToken(libraryWallet(server.tlsFetch).client, uri))).toMatchObject({ status: 401, error: 'invalid_client' });
    });

    it('refuses an attestation whose provider the tenant removed', async () => {
      expect((await server.call('DELETE', `/v1/openid/wallet-providers/${providerId}`)).status).toBe(204);
      const device = await attestedWallet(trusted, 'instance-43');
      const refused = await refusalOf(preAuthorizedToken(device.client, await offer(configurationId, { walletRequirements: { walletAttestation: true } })));
      expect(refused.status).toBe(401);
      expect(refused.error).toBe('invalid_client');
    });
  });
});
