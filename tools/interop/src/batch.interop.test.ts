// Issue 30 acceptance: batch issuance (OpenID4VCI 1.0 §8.2, §12.2.4) and the attestation proof type
// (App. F.3), against the real server over TLS. The wallet is @openid4vc/openid4vci, a library we did
// not write: it resolves the offer, reads batch_credential_issuance from the metadata, redeems the
// Pre-authorized Code, fetches the c_nonce, makes ten jwt proofs with ten keys of its own and sends
// them in one request; each mDoc is verified by @auth0/mdl (another team's verifier) through a device
// signature made with its own key, and read with cborg to show that no two share a salt, a digest or
// a status list entry. The library refuses to send more proofs than batch_size itself, so the
// request with 11 proofs is the library's request body sent by hand, with the library's token and
// nonce. A wallet provider (its certificate authority made with openssl, no Vellum code) attests ten
// keys in one key attestation the library makes, sent as an `attestation` proof by the library. On
// SQLite, and on PostgreSQL when VELLUM_TEST_DATABASE_URL names a server.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { clientAuthenticationAnonymous, type HashAlgorithm, type Jwk, type JwtSignerJwk } from '@openid4vc/oauth2';
import { createKeyAttestationJwt, type IssuerMetadataResult, Openid4vciClient, Openid4vciRetrieveCredentialsError } from '@openid4vc/openid4vci';
import * as cborg from 'cborg';
import { importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWalletProviderCa, type WalletProviderCa } from './attestation-ca.ts';
import type { Backend } from '../../../apps/server/test/backends.ts';
import { activeIaca, type IssuerServer, issuerDatabases, prepareIssuerServer } from './issuer-server.ts';
import { preAuthorizedToken } from './library-wallet.ts';
import { ISSUED_AND_VALID, presentAndVerify } from './mdoc-verify.ts';

const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const ATTESTED_DOC_TYPE = 'com.example.attested-pid.1';
const BATCH = 10;

interface HeldKey {
  publicJwk: Jwk;
  privateKey: KeyObject;
  signer: JwtSignerJwk;
}

/** A P-256 key the wallet holds (an mDoc device key). */
function heldKey(): HeldKey {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicJwk = publicKey.export({ format: 'jwk' }) as Jwk;
  return { publicJwk, privateKey, signer: { method: 'jwk', publicJwk, alg: 'ES256' } };
}

/** ES256 with jose over a node:crypto private key, under the given header (alg set to ES256). */
async function es256(privateKey: KeyObject, header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string> {
  const key = await importJWK(privateKey.export({ format: 'jwk' }), 'ES256');
  return new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256' }).sign(key);
}

/** What one mDoc's MSO and items hold that must differ between credentials: salts, digests, the status entry. */
function readMdoc(credential: string) {
  // Tag 24 (embedded CBOR) kept as its bytes and decoded where needed; dates left as they are.
  const tags: Array<(inner: unknown) => unknown> = [];
  tags[24] = (inner) => inner;
  tags[0] = (inner) => inner;
  tags[1004] = (inner) => inner;
  const read = (bytes: Uint8Array) => cborg.decode(bytes, { tags, useMaps: true }) as unknown;
  const issuerSigned = read(new Uint8Array(Buffer.from(credential, 'base64url'))) as Map<string, unknown>;
  const items = (issuerSigned.get('nameSpaces') as Map<string, Uint8Array[]>).get(NS) ?? [];
  const salts = items.map((bytes) => Buffer.from((read(bytes) as Map<string, Uint8Array>).get('random') as Uint8Array).toString('hex'));
  const issuerAuth = issuerSigned.get('issuerAuth') as [Uint8Array, unknown, Uint8Array, Uint8Array];
  const mso = read(read(issuerAuth[2]) as Uint8Array) as Map<string, unknown>;
  const digests = [...((mso.get('valueDigests') as Map<string, Map<number, Uint8Array>>).get(NS)?.values() ?? [])].map((d) => Buffer.from(d).toString('hex'));
  const list = (mso.get('status') as Map<string, Map<string, unknown>> | undefined)?.get('status_list');
  return { salts, digests, status: list ? `${list.get('uri')} ${list.get('idx')}` : undefined };
}

describe.each(issuerDatabases('vellum_batch'))(
  'Batch issuance and the attestation proof type, with a wallet library we did not write, on %s (issue 30)',
  (_name, makeBackend, skip) => {
    let backend: Backend;
    let server: IssuerServer;
    let iacaPem: string;
    let mdlId: string;
    let attestedId: string;
    let provider: WalletProviderCa;

    beforeAll(async () => {
      if (skip) return;
      provider = makeWalletProviderCa('Acme Wallet');
      backend = makeBackend();
      server = await prepareIssuerServer({ database: await backend.env() });
      await server.start();
      iacaPem = await activeIaca(server);
      const batch = await server.call('PUT', '/v1/config/batch-issuance', { batchSize: BATCH });
      expect(batch.status, batch.text).toBe(200);
      const mdl = await server.call('POST', '/v2/credentials/mobile/configurations', {
        type: DOC_TYPE,
        name: 'Mobile driving licence',
        expiresIn: { days: 365 },
        includeStatus: true,
        claimMappings: {
          [NS]: {
            family_name: { mapFrom: 'claims.familyName', required: true },
            given_name: { mapFrom: 'claims.givenName', required: true },
            document_number: { mapFrom: 'claims.documentNumber' },
            issuing_country: { defaultValue: 'US' },
          },
        },
      });
      expect(mdl.status, mdl.text).toBe(201);
      mdlId = mdl.json().id;
      const attested = await server.call('POST', '/v2/credentials/mobile/configurations', {
        type: ATTESTED_DOC_TYPE,
        name: 'Attested PID',
        expiresIn: { days: 30 },
        claimMappings: { [ATTESTED_DOC_TYPE]: { given_name: { mapFrom: 'claims.givenName', required: true } } },
        keyAttestationsRequired: { keyStorage: ['iso_18045_high'], rootCertificates: [provider.rootPem] },
      });
      expect(attested.status, attested.text).toBe(201);
      attestedId = attested.json().id;
    });

    afterAll(async () => {
      if (skip) return;
      await server?.stop();
      await backend?.cleanup();
    });

    /** The library's client, signing each proof with the private key of the key it is asked to sign with. */
    function wallet(keys: HeldKey[]) {
      const byX = new Map(keys.map((k) => [k.publicJwk.x, k]));
      return new Openid4vciClient({
        callbacks: {
          fetch: server.tlsFetch,
          hash: (data: Uint8Array, alg: HashAlgorithm) => new Uint8Array(createHash(alg.replace('-', '')).update(data).digest()),
          generateRandom: (n: number) => new Uint8Array(randomBytes(n)),
          clientAuthentication: clientAuthenticationAnonymous(),
          signJwt: async (signer, { header, payload }) => {
            const key = signer.method === 'jwk' ? byX.get(signer.publicJwk.x) : undefined;
            if (!key) throw new Error('The wallet holds no such key');
            return { jwt: await es256(key.privateKey, header, payload), signerJwk: key.publicJwk };
          },
        },
      });
    }

    /** A Pre-authorized offer for `configurationId`, redeemed by the library, and a c_nonce from the nonce endpoint. */
    async function session(client: ReturnType<typeof wallet>, configurationId: string, claims: Record<string, unknown>) {
      const offer = await server.call('POST', '/v1/openid/offers/pre-authorized', { credentials: [configurationId], claims });
      expect(offer.status, offer.text).toBe(200);
      const { issuerMetadata, accessTokenResponse } = await preAuthorizedToken(client, offer.json().uri);
      const { c_nonce } = await client.requestNonce({ issuerMetadata });
      return { issuerMetadata, accessToken: accessTokenResponse.access_token, cNonce: c_nonce };
    }

    /** The library's jwt proofs, one per key, all over the request's one c_nonce. */
    async function proofs(client: ReturnType<typeof wallet>, issuerMetadata: IssuerMetadataResult, keys: HeldKey[], nonce: string) {
      return Promise.all(
        keys.map(
          async (k) => (await client.createCredentialRequestJwtProof({ issuerMetadata, credentialConfigurationId: mdlId, signer: k.signer, nonce })).jwt,
        ),
      );
    }

    it.skipIf(skip)(
      'issues a batch of 10 mDoc credentials for 10 proofs by 10 keys: each verified with its own device key, no two sharing a salt, a digest or a status entry',
      async () => {
        const keys = Array.from({ length: BATCH }, heldKey);
        const client = wallet(keys);
        const s = await session(client, mdlId, { familyName: 'Okafor', givenName: 'Ada', documentNumber: 'D-77' });
        expect(s.issuerMetadata.credentialIssuer.batch_credential_issuance).toEqual({ batch_size: BATCH });
        const response = await client.retrieveCredentials({
          issuerMetadata: s.issuerMetadata,
          accessToken: s.accessToken,
          credentialConfigurationId: mdlId,
          proofs: { jwt: await proofs(client, s.issuerMetadata, keys, s.cNonce) },
        });
        const body = response.credentialResponse as { credentials: Array<{ credential: string }>; notification_id: string };
        expect(body.credentials).toHaveLength(BATCH);
        expect(body.notification_id).toEqual(expect.any(String));

        const read = [];
        for (const [i, { credential }] of body.credentials.entries()) {
          const key = keys[i] as HeldKey;
          const { document, deviceKey } = await presentAndVerify(credential, DOC_TYPE, key.privateKey, iacaPem, ISSUED_AND_VALID);
          expect(deviceKey).toMatchObject({ kty: 'EC', crv: 'P-256', x: key.publicJwk.x, y: key.publicJwk.y });
          expect(document?.getIssuerNameSpace(NS)).toMatchObject({ family_name: 'Okafor', given_name: 'Ada', document_number: 'D-77' });
          read.push(readMdoc(credential));
        }
        const salts = read.flatMap((r) => r.salts);
        const digests = read.flatMap((r) => r.digests);
        const statuses = read.map((r) => r.status);
        expect(salts).toHaveLength(BATCH * 4);
        expect(new Set(salts).size).toBe(salts.length);
        expect(new Set(digests).size).toBe(digests.length);
        expect(statuses.every((x) => x !== undefined)).toBe(true);
        expect(new Set(statuses).size).toBe(BATCH);

        // One notification id for the response: the library's notification lands on every credential.
        await client.sendNotification({
          issuerMetadata: s.issuerMetadata,
          accessToken: s.accessToken,
          notification: { notificationId: body.notification_id, event: 'credential_accepted' },
        });
        const records = (await server.call('GET', `/v2/credentials?credentialConfigurationId=${mdlId}`)).json().data as Array<{
          notification?: { event: string };
        }>;
        expect(records).toHaveLength(BATCH);
        expect(records.map((r) => r.notification?.event)).toEqual(Array(BATCH).fill('credential_accepted'));
      },
    );

    it.skipIf(skip)(
      'refuses 11 proofs with invalid_proof (the library will not send them, so its request body goes by hand), issuing nothing and leaving the nonce usable',
      async () => {
        const keys = Array.from({ length: BATCH + 1 }, heldKey);
        const client = wallet(keys);
        const s = await session(client, mdlId, { familyName: 'Turner', givenName: 'Sam' });
        const jwts = await proofs(client, s.issuerMetadata, keys, s.cNonce);
        // The library checks batch_size before it sends anything.
        await expect(
          client.retrieveCredentials({ issuerMetadata: s.issuerMetadata, accessToken: s.accessToken, credentialConfigurationId: mdlId, proofs: { jwt: jwts } }),
        ).rejects.toThrow(/batch size/);
        const before = (await server.call('GET', `/v2/credentials?credentialConfigurationId=${mdlId}`)).json().data.length;
        const refused = await server.call(
          'POST',
          '/v1/openid/credential',
          { credential_configuration_id: mdlId, proofs: { jwt: jwts } },
          { authorization: `Bearer ${s.accessToken}` },
        );
        expect(refused.status, refused.text).toBe(400);
        expect(refused.json()).toMatchObject({ error: 'invalid_proof', error_description: expect.stringMatching(/at most 10/) });
        expect((await server.call('GET', `/v2/credentials?credentialConfigurationId=${mdlId}`)).json().data).toHaveLength(before);
        // Nothing was used up: the first ten proofs, same nonce, same token, are issued.
        const response = await client.retrieveCredentials({
          issuerMetadata: s.issuerMetadata,
          accessToken: s.accessToken,
          credentialConfigurationId: mdlId,
          proofs: { jwt: jwts.slice(0, BATCH) },
        });
        expect((response.credentialResponse as { credentials: unknown[] }).credentials).toHaveLength(BATCH);
      },
    );

    it.skipIf(skip)('issues one mDoc per jwt proof when all the proofs carry one key attestation naming every key (HAIP §4.5.1)', async () => {
      const keys = Array.from({ length: 3 }, heldKey);
      const client = wallet(keys);
      const s = await session(client, attestedId, { givenName: 'Ada' });
      const keyAttestationJwt = await createKeyAttestationJwt({
        use: 'proof_type.jwt',
        nonce: s.cNonce,
        expiresAt: new Date(Date.now() + 60 * 60 * 1000),
        attestedKeys: keys.map((k) => k.publicJwk),
        keyStorage: ['iso_18045_high'],
        signer: { method: 'x5c', alg: 'ES256', x5c: provider.x5c },
        callbacks: {
          signJwt: async (_signer, { header, payload }) => ({ jwt: await es256(provider.signingKey, header, payload), signerJwk: keys[0]?.publicJwk as Jwk }),
        },
      });
      const jwts = await Promise.all(
        keys.map(
          async (k) =>
            (
              await client.createCredentialRequestJwtProof({
                issuerMetadata: s.issuerMetadata,
                credentialConfigurationId: attestedId,
                signer: k.signer,
                nonce: s.cNonce,
                keyAttestationJwt,
              })
            ).jwt,
        ),
      );
      const response = await client.retrieveCredentials({
        issuerMetadata: s.issuerMetadata,
        accessToken: s.accessToken,
        credentialConfigurationId: attestedId,
        proofs: { jwt: jwts },
      });
      const body = response.credentialResponse as { credentials: Array<{ credential: string }> };
      expect(body.credentials).toHaveLength(3);
      for (const [i, { credential }] of body.credentials.entries()) {
        const key = keys[i] as HeldKey;
        const { deviceKey } = await presentAndVerify(credential, ATTESTED_DOC_TYPE, key.privateKey, iacaPem);
        expect(deviceKey).toMatchObject({ x: key.publicJwk.x, y: key.publicJwk.y });
      }
    });

    it.skipIf(skip)(
      'issues one mDoc per attested key for an attestation proof the library sends, and refuses the same attestation again (its nonce is used)',
      async () => {
        const keys = Array.from({ length: BATCH }, heldKey);
        const client = wallet(keys);
        const s = await session(client, attestedId, { givenName: 'Ada' });
        const attestation = s.issuerMetadata.credentialIssuer.credential_configurations_supported[attestedId]?.proof_types_supported?.attestation;
        expect(attestation).toEqual({ proof_signing_alg_values_supported: ['ES256', 'EdDSA'], key_attestations_required: { key_storage: ['iso_18045_high'] } });
        const jwt = await createKeyAttestationJwt({
          use: 'proof_type.attestation',
          nonce: s.cNonce,
          attestedKeys: keys.map((k) => k.publicJwk),
          keyStorage: ['iso_18045_high'],
          userAuthentication: ['iso_18045_high'],
          signer: { method: 'x5c', alg: 'ES256', x5c: provider.x5c },
          callbacks: {
            signJwt: async (_signer, { header, payload }) => ({ jwt: await es256(provider.signingKey, header, payload), signerJwk: keys[0]?.publicJwk as Jwk }),
          },
        });
        const send = (accessToken: string) =>
          client.retrieveCredentials({ issuerMetadata: s.issuerMetadata, accessToken, credentialConfigurationId: attestedId, proofs: { attestation: [jwt] } });
        const body = (await send(s.accessToken)).credentialResponse as { credentials: Array<{ credential: string }> };
        expect(body.credentials).toHaveLength(BATCH);
        for (const [i, { credential }] of body.credentials.entries()) {
          const key = keys[i] as HeldKey;
          const { deviceKey } = await presentAndVerify(credential, ATTESTED_DOC_TYPE, key.privateKey, iacaPem);
          expect(deviceKey).toMatchObject({ x: key.publicJwk.x, y: key.publicJwk.y });
        }
        // Another offer's token, the same attestation: its nonce is spent.
        const again = await session(client, attestedId, { givenName: 'Ada' });
        const refused = await send(again.accessToken).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(Openid4vciRetrieveCredentialsError);
        expect((refused as Openid4vciRetrieveCredentialsError).response.credentialErrorResponseResult?.data).toMatchObject({ error: 'invalid_nonce' });
      },
    );
  },
);
