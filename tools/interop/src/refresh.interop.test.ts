// Issue 30 point 5: refresh tokens (RFC 6749 §6, RFC 9700 §4.14; docs/refresh-tokens.md) played by
// wallet libraries we did not write against the real server over TLS on loopback, on SQLite and on
// PostgreSQL. @openid4vc/openid4vci redeems a pre-authorized offer for an mDoc configuration that
// allows refresh; the token response carries a refresh token; @openid4vc/oauth2 spends it at the
// token endpoint (its refresh token grant); the refreshed access token gets a fresh mDoc with the
// same claims bound to another key, and @auth0/mdl (another team's verifier) verifies both mDocs
// against the public IACA. The rotated refresh token, sent again by the library, is refused with
// invalid_grant and revokes its family: the current one is refused after it too.
import { createHash, type KeyObject, randomBytes } from 'node:crypto';
import { clientAuthenticationAnonymous, type HashAlgorithm, Oauth2Client, Oauth2ClientErrorResponseError } from '@openid4vc/oauth2';
import type { Openid4vciClient } from '@openid4vc/openid4vci';
import { importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../../apps/server/test/backends.ts';
import { activeIaca, type IssuerServer, issuerDatabases, startIssuerServer } from './issuer-server.ts';
import { libraryWallet, preAuthorizedToken, requestCredential } from './library-wallet.ts';
import type { RequestDpopOptions } from '@openid4vc/oauth2';
import { presentAndVerify } from './mdoc-verify.ts';

const DOC_TYPE = 'com.example.refreshable-membership.1';
const PLAIN_DOC_TYPE = 'com.example.plain-membership.2';

const backends = issuerDatabases('vellum_refresh');

describe.each(backends)('refresh tokens with wallet libraries we did not write, on %s (issue 30)', (_name, makeBackend, skip) => {
  let backend: Backend;
  let server: IssuerServer;
  let iacaPem: string;
  let refreshableId: string;
  let plainId: string;

  beforeAll(async () => {
    if (skip) return;
    backend = makeBackend();
    server = await startIssuerServer({ database: await backend.env() });
    iacaPem = await activeIaca(server);
    const members = { given_name: { mapFrom: 'claims.givenName', required: true }, member_number: { mapFrom: 'claims.memberNumber' } };
    const refreshable = await server.call('POST', '/v2/credentials/mobile/configurations', {
      type: DOC_TYPE,
      name: 'Refreshable membership',
      expiresIn: { days: 30 },
      claimMappings: { [DOC_TYPE]: members },
      refresh: { allowed: true, maxAge: { days: 90 } },
    });
    expect(refreshable.status, refreshable.text).toBe(201);
    refreshableId = refreshable.json().id;
    const plain = await server.call('POST', '/v2/credentials/mobile/configurations', {
      type: PLAIN_DOC_TYPE,
      name: 'Plain membership',
      expiresIn: { days: 30 },
      claimMappings: { [PLAIN_DOC_TYPE]: members },
    });
    expect(plain.status, plain.text).toBe(201);
    plainId = plain.json().id;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await backend?.cleanup();
  });

  /** A pre-authorized offer of one configuration, redeemed by the library. */
  async function redeem(client: Openid4vciClient, configurationId: string, dpop?: RequestDpopOptions) {
    const created = await server.call('POST', '/v1/openid/offers/pre-authorized', {
      credentials: [configurationId],
      claims: { givenName: 'Ada', memberNumber: 'M-1042' },
    });
    expect(created.status, created.text).toBe(200);
    return preAuthorizedToken(client, created.json().uri, dpop ? { dpop } : {});
  }

  /** The library's OAuth 2.0 client over the same callbacks as the wallet's; its DPoP proofs are signed with `privateKey`. */
  const oauth2 = (privateKey?: KeyObject) =>
    new Oauth2Client({
      callbacks: {
        fetch: server.tlsFetch,
        hash: (data: Uint8Array, alg: HashAlgorithm) => new Uint8Array(createHash(alg.replace('-', '')).update(data).digest()),
        generateRandom: (n: number) => new Uint8Array(randomBytes(n)),
        clientAuthentication: clientAuthenticationAnonymous(),
        signJwt: async (signer, { header, payload }) => {
          if (!privateKey || signer.method !== 'jwk') throw new Error('No key to sign with here');
          const key = await importJWK(privateKey.export({ format: 'jwk' }), 'ES256');
          const jwt = await new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256' }).sign(key);
          return { jwt, signerJwk: signer.publicJwk };
        },
      },
    });

  /** The error body of a refusal the library ended with. */
  async function refusal(call: Promise<unknown>) {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof Oauth2ClientErrorResponseError)) throw new Error(`Expected an OAuth error response, got ${String(error)}`);
    return { status: error.response.status, body: error.errorResponse };
  }

  it.skipIf(skip)(
    'refreshes an mDoc: same claims, a new key, both verified by @auth0/mdl; a replayed refresh token is refused and revokes the family',
    async () => {
      const device = libraryWallet(server.tlsFetch);
      const { issuerMetadata, accessTokenResponse } = await redeem(device.client, refreshableId);
      const refreshToken = accessTokenResponse.refresh_token;
      expect(refreshToken).toEqual(expect.any(String));
      const authorizationServerMetadata = issuerMetadata.authorizationServers[0]!;
      expect(authorizationServerMetadata.grant_types_supported).toContain('refresh_token');

      const first = await requestCredential(device.client, {
        issuerMetadata,
        credentialConfigurationId: refreshableId,
        signer: device.signer,
        accessToken: accessTokenResponse.access_token,
      });
      const original = await presentAndVerify(first.credentials![0]!.credential, DOC_TYPE, device.privateKey, iacaPem);

      // The library's refresh token grant (RFC 6749 §6).
      const refreshed = await oauth2().retrieveRefreshTokenAccessToken({ authorizationServerMetadata, refreshToken: refreshToken! });
      const rotated = refreshed.accessTokenResponse.refresh_token;
      expect(rotated).toEqual(expect.any(String));
      expect(rotated).not.toBe(refreshToken);

      // The same wallet with a new key: the fresh mDoc is bound to it, with the same claims.
      const newKey = libraryWallet(server.tlsFetch);
      const second = await requestCredential(newKey.client, {
        issuerMetadata,
        credentialConfigurationId: refreshableId,
        signer: newKey.signer,
        accessToken: refreshed.accessTokenResponse.access_token,
      });
      const fresh = await presentAndVerify(second.credentials![0]!.credential, DOC_TYPE, newKey.privateKey, iacaPem);
      expect(fresh.deviceKey).toMatchObject({ x: newKey.publicJwk.x, y: newKey.publicJwk.y });
      expect(fresh.deviceKey).not.toMatchObject({ x: device.publicJwk.x });
      const values = (verified: typeof original) => verified.document?.getIssuerNameSpace(DOC_TYPE);
      expect(values(fresh)).toEqual(values(original));
      expect(values(fresh)).toEqual({ given_name: 'Ada', member_number: 'M-1042' });

      // RFC 9700 §4.14.2: the rotated token presented again is refused, and its family revoked.
      const replay = await refusal(oauth2().retrieveRefreshTokenAccessToken({ authorizationServerMetadata, refreshToken: refreshToken! }));
      expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      const afterReplay = await refusal(oauth2().retrieveRefreshTokenAccessToken({ authorizationServerMetadata, refreshToken: rotated! }));
      expect(afterReplay).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: 'The refresh token has been revoked' } });
    },
  );

  it.skipIf(skip)(
    'binds the refresh token to the DPoP key of the first token: the library refreshes with that key, and a proof by another key is invalid_grant',
    async () => {
      const device = libraryWallet(server.tlsFetch);
      const { issuerMetadata, accessTokenResponse } = await redeem(device.client, refreshableId, { signer: device.signer });
      expect(accessTokenResponse.token_type).toBe('DPoP');
      const authorizationServerMetadata = issuerMetadata.authorizationServers[0]!;
      const refreshToken = accessTokenResponse.refresh_token!;

      const thief = libraryWallet(server.tlsFetch);
      const stolen = await refusal(
        oauth2(thief.privateKey).retrieveRefreshTokenAccessToken({ authorizationServerMetadata, refreshToken, dpop: { signer: thief.signer } }),
      );
      expect(stolen).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      // Without a proof at all, too; neither used the token up.
      expect(await refusal(oauth2().retrieveRefreshTokenAccessToken({ authorizationServerMetadata, refreshToken }))).toMatchObject({
        status: 400,
        body: { error: 'invalid_grant' },
      });

      const refreshed = await oauth2(device.privateKey).retrieveRefreshTokenAccessToken({
        authorizationServerMetadata,
        refreshToken,
        dpop: { signer: device.signer },
      });
      expect(refreshed.accessTokenResponse).toMatchObject({ token_type: 'DPoP', refresh_token: expect.any(String) });
      const answer = await requestCredential(device.client, {
        issuerMetadata,
        credentialConfigurationId: refreshableId,
        signer: device.signer,
        accessToken: refreshed.accessTokenResponse.access_token,
        dpop: { signer: device.signer },
      });
      const verified = await presentAndVerify(answer.credentials![0]!.credential, DOC_TYPE, device.privateKey, iacaPem);
      expect(verified.document?.getIssuerNameSpace(DOC_TYPE)).toEqual({ given_name: 'Ada', member_number: 'M-1042' });
    },
  );

  it.skipIf(skip)('gives no refresh token for a configuration that does not allow refresh', async () => {
    const device = libraryWallet(server.tlsFetch);
    const { accessTokenResponse } = await redeem(device.client, plainId);
    expect(accessTokenResponse.refresh_token).toBeUndefined();
  });
});
