// Issue 31 point 4, status: the verify API reads the Token Status List a credential names, over
// HTTP on the real server, through its outbound guard. Credentials issued by this server to
// @openid4vc/openid4vci (a wallet library we did not write), mDLs naming a CWT list, read valid, and
// the one the issuer revoked reads revoked. A second issuer built here with @sd-jwt/sd-jwt-vc
// publishes its JWT list with @sd-jwt/jwt-status-list on a loopback https server of its own. (The
// JWT lists of this server's own SD-JWT VCs are read by the same code; their issuance needs the
// Authorization Code flow, so the verifier's unit tests stand in for them here.) On SQLite, and on PostgreSQL when VELLUM_TEST_DATABASE_URL names a server.
import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createHeaderAndPayload, StatusList } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../../apps/server/test/backends.ts';
import { makeWalletProviderCa } from './attestation-ca.ts';
import { activeIaca, type IssuerServer, issuerDatabases, prepareIssuerServer } from './issuer-server.ts';
import { libraryWallet, preAuthorizedToken, requestCredential } from './library-wallet.ts';
import { es256, hasher, type VerifyResult } from './sd-jwt-helpers.ts';

const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const VCT = 'https://credentials.example/pid';

const b64json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

type Result = VerifyResult;
const statusCheck = (result: Result) => result.checks.find((c) => c.check === 'status');

describe.each(issuerDatabases('vellum_verify_status'))('Status while verifying, over HTTP on the real server, on %s (issue 31)', (_name, makeBackend, skip) => {
  let backend: Backend;
  let server: IssuerServer;

  const verify = async (profile: 'mobile' | 'sd-jwt', credential: string): Promise<Result> => {
    const res = await server.call('POST', `/v2/credentials/${profile}/verify`, { credential });
    expect(res.status, res.text).toBe(200);
    return res.json();
  };

  /** Issues one credential of `configurationId` to the wallet library; the credential and its record id. */
  async function issue(configurationId: string, claims: Record<string, unknown>) {
    const offer = await server.call('POST', '/v1/openid/offers/pre-authorized', { credentials: [configurationId], claims });
    expect(offer.status, offer.text).toBe(200);
    const { client, signer } = libraryWallet(server.tlsFetch);
    const { issuerMetadata, accessTokenResponse } = await preAuthorizedToken(client, offer.json().uri);
    const answer = await requestCredential(client, {
      issuerMetadata,
      credentialConfigurationId: configurationId,
      signer,
      accessToken: accessTokenResponse.access_token,
    });
    const credential = answer.credentials?.[0]?.credential as string;
    expect(typeof credential).toBe('string');
    const records = (await server.call('GET', `/v2/credentials?credentialConfigurationId=${configurationId}`)).json().data as Array<{ id: string }>;
    return { credential, id: records.at(-1)?.id as string };
  }

  beforeAll(async () => {
    if (skip) return;
    backend = makeBackend();
    server = await prepareIssuerServer({ database: await backend.env(), outboundToLoopback: true });
    await server.start();
  });

  afterAll(async () => {
    if (skip) return;
    await server?.stop();
    await backend?.cleanup();
  });

  it.skipIf(skip)('reads an mDL’s CWT status list: the revoked one reads revoked (verified false), the other valid', async () => {
    const iacaPem = await activeIaca(server);
    const mdl = await server.call('POST', '/v2/credentials/mobile/configurations', {
      type: DOC_TYPE,
      name: 'Mobile driving licence',
      expiresIn: { days: 365 },
      includeStatus: true,
      claimMappings: { [NS]: { family_name: { mapFrom: 'claims.familyName', required: true } } },
    });
    expect(mdl.status, mdl.text).toBe(201);
    const kept = await issue(mdl.json().id, { familyName: 'Okafor' });
    const revoked = await issue(mdl.json().id, { familyName: 'Turner' });
    expect((await server.call('POST', '/v2/credentials/trusted-issuers', { name: 'Acme DMV', formats: ['mso_mdoc'], certificates: [iacaPem] })).status).toBe(
      201,
    );
    expect((await server.call('POST', `/v2/credentials/mobile/${revoked.id}/status`, { status: 'invalid' })).status).toBe(200);

    const valid = await verify('mobile', kept.credential);
    expect(valid).toMatchObject({ verified: true, status: 'valid' });
    expect(statusCheck(valid)).toEqual({ check: 'status', ok: true });
    const refused = await verify('mobile', revoked.credential);
    expect(refused).toMatchObject({ verified: false, status: 'revoked' });
    expect(statusCheck(refused)).toEqual({ check: 'status', ok: false, reason: 'The issuer has revoked the credential' });
  });

  it.skipIf(skip)(
    'reads a second issuer’s list, made with @sd-jwt/jwt-status-list and served on its own https server; a list signed outside its chain fails',
    async () => {
      const ca = makeWalletProviderCa('Second Issuer');
      const stranger = makeWalletProviderCa('Stranger');
      let listSigner = ca;
      const list = new StatusList([0, 0, 0, 1, 0, 0, 0, 0], 1);
      let uri = '';
      const https: Server = createServer({ cert: server.cert.certPem, key: (await import('node:fs')).readFileSync(server.cert.keyFile) }, (_req, res) => {
        const { header, payload } = createHeaderAndPayload(list, { iss: 'https://second.example', sub: uri, iat: Math.floor(Date.now() / 1000), ttl: 60 }, {
          alg: 'ES256',
          typ: 'statuslist+jwt',
          x5c: listSigner.x5c,
        } as never);
        const input = `${b64json(header)}.${b64json(payload)}`;
        res.writeHead(200, { 'content-type': 'application/statuslist+jwt' });
        res.end(`${input}.${es256(listSigner.signingKey)(input)}`);
      });
      await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
      try {
        const base = `https://localhost:${(https.address() as AddressInfo).port}`;
        const issuer = new SDJwtVcInstance({
          hasher,
          hashAlg: 'sha-256',
          saltGenerator: () => crypto.randomUUID(),
          signer: es256(ca.signingKey),
          signAlg: 'ES256',
        });
        const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as JsonWebKey;
        const now = Math.floor(Date.now() / 1000);
        const credentialAt = (idx: number, path: string) =>
          issuer.issue(
            {
              iss: 'https://second.example',
              iat: now,
              exp: now + 3600,
              vct: VCT,
              cnf: { jwk: { kty, crv, x, y } },
              status: { status_list: { idx, uri: `${base}${path}` } },
              given_name: 'Erika',
            } as never,
            { _sd: ['given_name'] } as never,
            { header: { typ: 'dc+sd-jwt', x5c: ca.x5c } },
          );
        expect(
          (await server.call('POST', '/v2/credentials/trusted-issuers', { name: 'Second issuer', formats: ['dc+sd-jwt'], certificates: [ca.rootPem] })).status,
        ).toBe(201);

        uri = `${base}/lists/1`;
        expect(await verify('sd-jwt', await credentialAt(2, '/lists/1'))).toMatchObject({ verified: true, status: 'valid' });
        expect(await verify('sd-jwt', await credentialAt(3, '/lists/1'))).toMatchObject({ verified: false, status: 'revoked' });

        // Another list URI (no cache): signed by a CA the tenant does not trust for this issuer.
        listSigner = stranger;
        uri = `${base}/lists/2`;
        const outside = await verify('sd-jwt', await credentialAt(2, '/lists/2'));
        expect(outside).toMatchObject({ verified: false, status: 'not-checked' });
        expect(statusCheck(outside)?.reason).toMatch(/^The status list is not signed by the credential’s issuer/);
      } finally {
        await new Promise<void>((resolve) => https.close(() => resolve()));
      }
    },
  );
});
