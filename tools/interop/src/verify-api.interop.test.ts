// Issue 31 point 5: the verify API over HTTP on the real server, with Vellum's own verifiers as the
// server composes them. An mDoc issued by this server to @openid4vc/openid4vci (a wallet library we
// did not write), and an SD-JWT VC from a second issuer built here with @sd-jwt/sd-jwt-vc and
// presented with a KB-JWT by the same library: each is reported untrusted until the tenant adds its
// issuer (the IACA, or the second issuer's root) at /v2/credentials/trusted-issuers, then verified,
// and a tampered one is not. On SQLite, and on PostgreSQL when VELLUM_TEST_DATABASE_URL names a server.
import { generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../../apps/server/test/backends.ts';
import { makeWalletProviderCa } from './attestation-ca.ts';
import { activeIaca, type IssuerServer, issuerDatabases, prepareIssuerServer } from './issuer-server.ts';
import { opensslAuthorityKeyId } from './openssl-key-ids.ts';
import { libraryWallet, preAuthorizedToken, requestCredential } from './library-wallet.ts';
import { es256, hasher, type VerifyResult } from './sd-jwt-helpers.ts';

const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const VCT = 'https://credentials.example/pid';
const NONCE = 'verify-api-nonce-1';
const AUDIENCE = 'x509_hash:verifier.example';

type Result = VerifyResult;
const failed = (result: Result) => result.checks.filter((c) => !c.ok).map((c) => c.check);

/** One character of the middle of a base64url text changed, still base64url. */
const tamper = (text: string, at = Math.floor(text.length / 2)) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);

describe.each(issuerDatabases('vellum_verify_api'))('The verify API over HTTP, with Vellum’s own verifiers, on %s (issue 31)', (_name, makeBackend, skip) => {
  let backend: Backend;
  let server: IssuerServer;
  let iacaPem: string;
  let mdoc: string;

  const verify = async (profile: 'mobile' | 'sd-jwt', body: Record<string, unknown>): Promise<Result> => {
    const res = await server.call('POST', `/v2/credentials/${profile}/verify`, body);
    expect(res.status, res.text).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    if (skip) return;
    backend = makeBackend();
    server = await prepareIssuerServer({ database: await backend.env() });
    await server.start();
    iacaPem = await activeIaca(server);
    const mdl = await server.call('POST', '/v2/credentials/mobile/configurations', {
      type: DOC_TYPE,
      name: 'Mobile driving licence',
      expiresIn: { days: 365 },
      claimMappings: { [NS]: { family_name: { mapFrom: 'claims.familyName', required: true }, issuing_country: { defaultValue: 'US' } } },
    });
    expect(mdl.status, mdl.text).toBe(201);
    const offer = await server.call('POST', '/v1/openid/offers/pre-authorized', { credentials: [mdl.json().id], claims: { familyName: 'Lovelace' } });
    expect(offer.status, offer.text).toBe(200);
    const { client, signer } = libraryWallet(server.tlsFetch);
    const { issuerMetadata, accessTokenResponse } = await preAuthorizedToken(client, offer.json().uri);
    const answer = await requestCredential(client, {
      issuerMetadata,
      credentialConfigurationId: mdl.json().id,
      signer,
      accessToken: accessTokenResponse.access_token,
    });
    mdoc = answer.credentials?.[0]?.credential as string;
    expect(typeof mdoc).toBe('string');
  });

  afterAll(async () => {
    if (skip) return;
    await server?.stop();
    await backend?.cleanup();
  });

  it.skipIf(skip)('reports this server’s mDoc as untrusted until its IACA is a trusted issuer, then verifies it; a tampered one fails', async () => {
    const before = await verify('mobile', { credential: mdoc });
    expect(before).toMatchObject({ verified: false, issuer: { trusted: false } });
    expect(failed(before)).toEqual(['trusted-issuer']);

    const trusted = await server.call('POST', '/v2/credentials/trusted-issuers', { name: 'Acme DMV', formats: ['mso_mdoc'], certificates: [iacaPem] });
    expect(trusted.status, trusted.text).toBe(201);
    const after = await verify('mobile', { credential: mdoc });
    expect(after).toMatchObject({ verified: true, format: 'mso_mdoc', credentialType: DOC_TYPE, issuer: { trusted: true } });
    expect(after.claims[NS]).toMatchObject({ family_name: 'Lovelace', issuing_country: 'US' });
    expect(failed(after)).toEqual([]);

    const tampered = await verify('mobile', { credential: tamper(mdoc, 120) });
    expect(tampered.verified).toBe(false);
    expect(failed(tampered).length).toBeGreaterThan(0);
    expect((await server.call('DELETE', `/v2/credentials/trusted-issuers/${trusted.json().id}`)).status).toBe(204);
  });

  it.skipIf(skip)('verifies a second issuer’s SD-JWT VC presented with a KB-JWT once its root is trusted, checking nonce and audience', async () => {
    const ca = makeWalletProviderCa('Second Issuer');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as JsonWebKey;
    const issuer = new SDJwtVcInstance({
      hasher,
      hashAlg: 'sha-256',
      saltGenerator: () => crypto.randomUUID(),
      signer: es256(ca.signingKey),
      signAlg: 'ES256',
    });
    const now = Math.floor(Date.now() / 1000);
    const credential = await issuer.issue(
      {
        iss: 'https://second.example',
        iat: now,
        exp: now + 3600,
        vct: VCT,
        cnf: { jwk: { kty, crv, x, y } },
        given_name: 'Erika',
        family_name: 'Mustermann',
      } as never,
      { _sd: ['given_name', 'family_name'] } as never,
      { header: { typ: 'dc+sd-jwt', x5c: ca.x5c } },
    );
    const holder = new SDJwtVcInstance({ hasher, saltGenerator: () => crypto.randomUUID(), kbSigner: es256(privateKey), kbSignAlg: 'ES256' });
    const presentation = await holder.present(credential, { given_name: true } as never, { kb: { payload: { iat: now, aud: AUDIENCE, nonce: NONCE } } });

    const untrusted = await verify('sd-jwt', { credential: presentation, nonce: NONCE, audience: AUDIENCE });
    expect(untrusted).toMatchObject({ verified: false, issuer: { trusted: false } });
    const trusted = await server.call('POST', '/v2/credentials/trusted-issuers', { name: 'Second issuer', formats: ['dc+sd-jwt'], certificates: [ca.rootPem] });
    expect(trusted.status, trusted.text).toBe(201);
    const verified = await verify('sd-jwt', { credential: presentation, nonce: NONCE, audience: AUDIENCE });
    expect(verified).toMatchObject({ verified: true, format: 'dc+sd-jwt', credentialType: VCT, issuer: { trusted: true } });
    expect(verified.claims).toMatchObject({ given_name: 'Erika' });
    expect(verified.claims.family_name).toBeUndefined();
    // What a DCQL query matches (issue 31): the chain's AuthorityKeyIdentifiers, as openssl reads them, and holder binding.
    expect(verified).toMatchObject({
      holderBound: true,
      issuer: { authorityKeyIds: ca.x5c.map((entry) => opensslAuthorityKeyId(Buffer.from(entry, 'base64'))) },
    });
    const wrongNonce = await verify('sd-jwt', { credential: presentation, nonce: 'another-nonce', audience: AUDIENCE });
    expect(wrongNonce.verified).toBe(false);
    expect(failed(wrongNonce)).toContain('nonce');
    expect(wrongNonce).toMatchObject({ holderBound: false });
  });
});
