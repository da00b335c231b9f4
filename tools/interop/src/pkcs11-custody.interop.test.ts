// Issue 32, points 1 and 2: the real server with a SoftHSM 2 token, over TLS on loopback, on SQLite
// (the platform makes every key in the token, VELLUM_KEY_CUSTODY=pkcs11) and on PostgreSQL (the
// tenant chooses the token itself). Every key the tenant makes (the IACA and its document signer,
// the status list signer, the wallet access-token key, the webhook signing key) is made inside the
// token. The mDL is issued to @openid4vc/openid4vci (a wallet library we did not write) and verified
// by @auth0/mdl; a revocable mDL's status list is read revoked by a verifier's own code; the
// webhook's RFC 9421 signature is checked by http-message-signatures. Nothing of a private key is in
// the database, the server's log or any response: the key rows hold nothing sealed. The DID-signed
// formats (ldp_vc, cwt, cwt_vc, dc+sd-jwt) are issued in process below, each verified by
// @digitalbazaar/vc, @ldclabs/cose-ts or @sd-jwt/sd-jwt-vc, and so are their status lists (the
// Token Status List JWT and CWT, read by jose, @sd-jwt/jwt-status-list, cose-ts and pako; the
// RevocationList2020 credential, verified by @digitalbazaar/vc).
// Issue 32, point 3: a third run on SQLite keeps software keys, sealed under data keys that an AES
// key in the token wraps (VELLUM_KEY_WRAPPING=pkcs11, docs/key-custody.md "Envelope encryption"):
// the same flows, and the master key alone opens none of the data keys.
import { createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type CredentialFormatHandler,
  createCwtFormat,
  createLdpVcFormat,
  createSdJwtFormat,
  type KeyAlgorithm,
  type KeyManager,
  type PublicJwk,
  type Store,
  type Tenant,
} from '@vellum/core';
import { createCwtSigner, createLinkedDataSigner, createRevocationListSigner, createSdJwtSigner, createTokenStatusListSigner } from '@vellum/formats';
import { verifyWithDigitalBazaar } from '../../../packages/formats/src/linked-data/independent-verifier.ts';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { importJWK, jwtVerify } from 'jose';
import pako from 'pako';
import { loadCoseTs } from '../../../packages/formats/src/cwt/independent-cose.ts';
import { createNodeIds, systemClock } from '@vellum/node';
import { createMasterKeyWrapper, createSealer } from '@vellum/crypto';
import { createPkcs11KeyManager, openPkcs11Token, type Pkcs11Token } from '@vellum/pkcs11';
import { openSqlStore } from '@vellum/storage-sql';
import { type SoftHsmToken, initSoftHsmToken, makeTenant, softHsmInstalled, startWebhookReceiver, type WebhookReceiver } from '@vellum/testing';
import { addDidKey } from '@vellum/testing/fakes';
import { createVerifier, httpbis } from 'http-message-signatures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, storedRows, storedText } from '../../../apps/server/test/backends.ts';
import { type DidSignedFormat, verifyDidSigned } from './did-signed-verify.ts';
import { activeIaca, type IssuerServer, issuerDatabases, prepareIssuerServer } from './issuer-server.ts';
import { libraryWallet, preAuthorizedToken, requestCredential } from './library-wallet.ts';
import { ISSUED_AND_VALID, presentAndVerify } from './mdoc-verify.ts';
import { mdocStatusAt, statusEntryOf } from './mdoc-status.ts';

const DOC_TYPE = 'org.iso.18013.5.1.mDL';

// Skipped only where Debian's softhsm2 is not installed (.ci/run installs it): there is no token.
// On SQLite the platform makes every tenant's keys in the token (VELLUM_KEY_CUSTODY=pkcs11); on
// PostgreSQL the platform's default stays software and the tenant chooses the token itself
// (PUT /v1/config/key-custody) before it makes any key.
type Mode = 'platform' | 'tenant' | 'wrapped';
const databases = issuerDatabases('vellum_pkcs11').flatMap(
  ([name, backend, skip]): Array<[string, () => Backend, boolean, Mode]> =>
    name === 'SQLite'
      ? [
          [name, backend, skip || !softHsmInstalled, 'platform'],
          [`${name}, software keys under data keys the token wraps`, backend, skip || !softHsmInstalled, 'wrapped'],
        ]
      : [[name, backend, skip || !softHsmInstalled, 'tenant']],
);

describe.each(databases)(
  'PKCS#11 key custody on a SoftHSM token: every format issued and verified by others, on %s (issue 32)',
  (_name, makeBackend, skip, chooser) => {
    let backend: Backend;
    let hsm: SoftHsmToken;
    let server: IssuerServer;
    let receiver: WebhookReceiver;
    let iacaPem: string;
    // Every response body the test read, to look for private key material at the end.
    const bodies: string[] = [];
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await server.call(method, path, body);
      bodies.push(res.text);
      return res;
    };

    beforeAll(async () => {
      if (skip) return;
      hsm = initSoftHsmToken({ label: 'vellum-issuer', pin: '246810' });
      backend = makeBackend();
      server = await prepareIssuerServer({
        database: await backend.env(),
        outboundToLoopback: true,
        env: {
          ...hsm.env,
          ...(chooser === 'platform' ? { VELLUM_KEY_CUSTODY: 'pkcs11' } : {}),
          ...(chooser === 'wrapped' ? { VELLUM_KEY_WRAPPING: 'pkcs11' } : {}),
          VELLUM_PKCS11_MODULE: hsm.module,
          VELLUM_PKCS11_TOKEN_LABEL: hsm.label,
          VELLUM_PKCS11_PIN_FILE: pinFile(hsm),
        },
      });
      receiver = await startWebhookReceiver(server.cert);
      await server.start();
      const custody = await call('GET', '/v1/config/key-custody');
      expect(custody.json()).toEqual({ custody: chooser === 'platform' ? 'pkcs11' : 'software', chosenBy: 'platform', available: ['software', 'pkcs11'] });
      if (chooser === 'tenant') {
        const chosen = await call('PUT', '/v1/config/key-custody', { custody: 'pkcs11' });
        expect(chosen.json()).toEqual({ custody: 'pkcs11', chosenBy: 'tenant', available: ['software', 'pkcs11'] });
      }
      iacaPem = await activeIaca(server);
    });

    afterAll(async () => {
      await server?.stop();
      await receiver?.close();
      await backend?.cleanup();
    });

    /** A Pre-authorized flow played by the wallet library; the credential and the wallet's key. */
    async function issue(configurationId: string, claims: Record<string, unknown>) {
      const wallet = libraryWallet(server.tlsFetch);
      const offer = await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [configurationId], claims });
      expect(offer.status, offer.text).toBe(200);
      const { issuerMetadata, accessTokenResponse } = await preAuthorizedToken(wallet.client, offer.json().uri);
      const response = await requestCredential(wallet.client, {
        issuerMetadata,
        credentialConfigurationId: configurationId,
        signer: wallet.signer,
        accessToken: accessTokenResponse.access_token,
      });
      return { credential: response.credentials?.[0]?.credential as unknown, wallet };
    }

    // Where the keys are: in the token, or (the third run) sealed under a data key the token wraps.
    const held = chooser === 'wrapped' ? 'sealed under a data key the token wraps' : 'the token holds';

    it.skipIf(skip)(`issues an mDL under an IACA and document signer ${held}, verified by @auth0/mdl`, async () => {
      const iaca = new X509Certificate(iacaPem);
      expect(iaca.verify(iaca.publicKey)).toBe(true);
      const mdl = await call('POST', '/v2/credentials/mobile/configurations', {
        type: DOC_TYPE,
        expiresIn: { days: 30 },
        claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
      });
      expect(mdl.status, mdl.text).toBe(201);
      const { credential, wallet } = await issue(mdl.json().id, { familyName: 'Okafor' });
      const { document } = await presentAndVerify(credential as string, DOC_TYPE, wallet.privateKey, iacaPem, ISSUED_AND_VALID);
      expect(document?.getIssuerNameSpace('org.iso.18013.5.1')).toMatchObject({ family_name: 'Okafor' });
    });

    it.skipIf(skip)(`signs the status list of a revocable mDL with a key ${held}: a verifier reads it revoked (cose-ts, node:crypto, pako)`, async () => {
      const revocable = await call('POST', '/v2/credentials/mobile/configurations', {
        type: 'com.example.revocable.1',
        expiresIn: { days: 30 },
        includeStatus: true,
        claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
      });
      expect(revocable.status, revocable.text).toBe(201);
      const { credential } = await issue(revocable.json().id, { familyName: 'Okafor' });
      const { entry } = statusEntryOf(credential as string);
      expect((await mdocStatusAt(server.tlsFetch, entry, iacaPem)).value).toBe(0);
      const records = (await call('GET', `/v2/credentials?format=mso_mdoc&credentialConfigurationId=${revocable.json().id}`)).json().data as Array<{
        id: string;
      }>;
      const revoked = await call('POST', `/v2/credentials/mobile/${records[0]?.id}/status`, { status: 'invalid' });
      expect(revoked.status, revoked.text).toBe(200);
      expect((await mdocStatusAt(server.tlsFetch, entry, iacaPem)).value).toBe(1);
    });

    it.skipIf(skip)(`signs webhook deliveries with an Ed25519 key ${held}, verified by http-message-signatures`, async () => {
      const hook = await call('POST', '/v1/webhooks', { events: ['OpenIdCredentialIssued'], url: receiver.url('/issued') });
      expect(hook.status, hook.text).toBe(201);
      const mdl = (await call('GET', '/v2/credentials/mobile/configurations')).json().data[0] as { id: string };
      const before = receiver.requests.length;
      await issue(mdl.id, { familyName: 'Okafor' });
      const [request] = (await receiver.waitFor(before + 1)).slice(before);
      const jwksRes = await server.tlsFetch(`${server.origin}/v1/webhooks/jwks`);
      const jwks = (await jwksRes.json()) as { keys: Array<Record<string, string>> };
      const keyLookup = async (params: { keyid?: string }) => {
        const jwk = jwks.keys.find((k) => k.kid === params.keyid);
        return jwk ? { id: jwk.kid, algs: ['ed25519'], verify: createVerifier(createPublicKey({ key: jwk, format: 'jwk' }), 'ed25519') } : null;
      };
      const headers = request?.headers as Record<string, string | string[]>;
      const message = { method: request?.method as string, url: receiver.url('/issued'), headers };
      const config = {
        keyLookup,
        requiredFields: ['@method', '@target-uri', 'content-type', 'content-digest', 'webhook-id'],
        requiredParams: ['created', 'keyid', 'alg'],
      };
      expect(await httpbis.verifyMessage(config, message)).toBe(true);
      expect(await httpbis.verifyMessage(config, { ...message, headers: { ...headers, 'content-digest': 'sha-256=:AAAA:' } })).toBe(false);
    });

    it.skipIf(skip)(
      'keeps no private key material anywhere: every key row is in pkcs11 custody with nothing sealed (or under a data key the token wraps), and no log line or response holds a private key',
      async () => {
        const rows = (await storedRows(server.env, 'select tenant_id, custody, sealed from keys')) as Array<{
          tenant_id: string;
          custody: string;
          sealed: string;
        }>;
        // The IACA, its document signer, the wallet access-token key, the webhook key, and whatever
        // signs the status lists: every one in the token, or sealed under a data key it wraps.
        expect(rows.length).toBeGreaterThanOrEqual(4);
        if (chooser === 'wrapped') {
          expect(rows.every((row) => row.custody === 'software' && row.sealed.startsWith('v2.'))).toBe(true);
          const dataKeys = (await storedRows(server.env, 'select tenant_id, id, wrapped, wrapping_key_id from data_keys')) as Array<Record<string, string>>;
          expect(dataKeys.map((k) => k.wrapping_key_id)).toEqual(['pkcs11:vellum-wrapping-key']);
          const [dataKey] = dataKeys as [Record<string, string>];
          expect(rows.every((row) => row.tenant_id === dataKey.tenant_id && row.sealed.split('.')[1] === dataKey.id)).toBe(true);
          // The master key, which the server also has, does not open it: only the token does.
          const master = createMasterKeyWrapper(Buffer.from(server.env.VELLUM_MASTER_KEY as string, 'base64'));
          await expect(master.unwrap(dataKey.wrapped as string, `vellum-data-key:${dataKey.tenant_id}:${dataKey.id}`)).rejects.toThrow();
        } else {
          expect(rows.every((row) => row.custody === 'pkcs11' && row.sealed === '')).toBe(true);
        }
        // With the platform's custody the token (SQLite), the admin-token key that signed every admin
        // token of this test is the token's too: its record names it, and holds nothing private.
        const [platform] = (await storedRows(server.env, "select sealed from platform_keys where name = 'admin-token-signing'")) as Array<{ sealed: string }>;
        const stored = Buffer.from(
          createSealer(Buffer.from(server.env.VELLUM_MASTER_KEY ?? '', 'base64')).open(platform?.sealed as string, 'admin-token-signing'),
        ).toString('utf8');
        if (chooser === 'platform') expect(JSON.parse(stored).current).toMatchObject({ held: expect.any(String), holder: `pkcs11:${hsm.label}` });
        else expect(JSON.parse(stored).current).toHaveProperty('d');
        const everything = [server.server.output(), ...bodies, (await storedText(server.env)).text].join('\n');
        expect(everything).not.toMatch(/PRIVATE KEY/);
        // No JWK anywhere carries a private member.
        expect(everything).not.toMatch(/"d"\s*:\s*"/);
        expect(everything).not.toContain(hsm.pin);
      },
    );
  },
);

// The DID-signed formats take offers through the Authorization Code flow only (pre-authorized
// offers are mDocs), so their signing through the token is shown in process: each format's handler,
// the one the credential endpoint calls, with its real signer on the PKCS#11 KeyManager and a SQLite
// store, each credential checked by a library Vellum does not sign with.
describe.skipIf(!softHsmInstalled)(
  'PKCS#11 key custody in process: ldp_vc, cwt, cwt_vc and dc+sd-jwt and their status lists signed in the token (issue 32)',
  () => {
    let hsm: SoftHsmToken;
    let store: Store;
    let token: Pkcs11Token;
    let keys: KeyManager;
    let tenant: Tenant;
    const dids: Partial<Record<KeyAlgorithm, string>> = {};

    beforeAll(async () => {
      hsm = initSoftHsmToken({ label: 'vellum-in-process' });
      store = await openSqlStore({ kind: 'sqlite', filename: join(hsm.dir, 'store.db') });
      token = openPkcs11Token({ module: hsm.module, tokenLabel: hsm.label, pin: hsm.pin });
      keys = createPkcs11KeyManager({ token, keys: store.keys, ids: createNodeIds(), clock: systemClock });
      tenant = makeTenant();
      await store.tenants.insert(tenant);
      for (const algorithm of ['Ed25519', 'P-256'] as const) dids[algorithm] = (await addDidKey(store, keys, tenant.id, algorithm)).did;
    });
    afterAll(async () => {
      await token?.close();
      await store?.close();
    });

    const claimMappings = { family_name: { mapFrom: 'claims.familyName', required: true }, given_name: { mapFrom: 'claims.givenName' } };
    const subject = { claims: { familyName: 'Okafor', givenName: 'Ada' } };
    const base = { expiresIn: { days: 30 }, revocable: false, claimMappings, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };

    it('issues each format with a key the token holds, verified by @digitalbazaar/vc, @ldclabs/cose-ts and @sd-jwt/sd-jwt-vc', async () => {
      const signers = { ldp: createLinkedDataSigner({ keys }), cwt: createCwtSigner({ keys }), sdJwt: createSdJwtSigner({ keys }) };
      const formats: Array<{ format: DidSignedFormat; handler: CredentialFormatHandler<any>; configuration: Record<string, unknown> }> = [
        {
          format: 'ldp_vc',
          handler: createLdpVcFormat({ store, ids: createNodeIds(), signer: signers.ldp }),
          configuration: { format: 'ldp_vc', type: 'MembershipCredential', issuer: { name: 'Acme' }, proofType: 'Ed25519Signature2020' },
        },
        { format: 'cwt', handler: createCwtFormat({ store, signer: signers.cwt, format: 'cwt' }), configuration: { format: 'cwt', type: 'MembershipCard' } },
        {
          format: 'cwt_vc',
          handler: createCwtFormat({ store, signer: signers.cwt, format: 'cwt_vc' }),
          configuration: { format: 'cwt_vc', type: 'MembershipCredential' },
        },
        {
          format: 'dc+sd-jwt',
          handler: createSdJwtFormat({ store, signer: signers.sdJwt }),
          configuration: { format: 'dc+sd-jwt', type: 'https://credentials.example/membership', keyResolution: 'did' },
        },
      ];
      for (const { format, handler, configuration } of formats) {
        const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const holderKey = publicKey.export({ format: 'jwk' }) as PublicJwk;
        const issued = await handler.issue({
          tenant,
          configuration: { id: `pkcs11-${format}`, tenantId: tenant.id, ...base, ...configuration },
          subject,
          holderKey,
          credentialIssuer: 'https://issuer.example',
          now: new Date(),
          form: 'current',
        });
        const credential = (issued as { credential: unknown }).credential;
        const claims = await verifyDidSigned(format, credential, (format === 'ldp_vc' ? dids.Ed25519 : dids['P-256']) as string, {
          x: holderKey.x,
          y: holderKey.y as string,
        });
        expect({ family_name: claims.family_name, given_name: claims.given_name }, format).toEqual({ family_name: 'Okafor', given_name: 'Ada' });
      }
      // Every key is the token's: nothing sealed in the store.
      for (const did of Object.values(dids)) {
        const record = await store.dids.get(tenant.id, did as string);
        const row = await store.keys.get(tenant.id, record?.keys[0]?.kmsKeyId as string);
        expect(row).toMatchObject({ custody: 'pkcs11', sealed: '' });
      }
    });

    it('signs the Token Status Lists of dc+sd-jwt (JWT) and cwt (CWT) in the token: @sd-jwt/jwt-status-list, jose, cose-ts and pako read them', async () => {
      const record = await store.dids.get(tenant.id, dids['P-256'] as string);
      const key = record?.keys[0] as { kmsKeyId: string; didDocumentKeyId: string; publicJwk: PublicJwk };
      const signer = createTokenStatusListSigner({ keys });
      const statuses = new Uint8Array(4);
      statuses[1] = 0b0000_0100; // entry 10 invalid
      const now = new Date();
      const common = {
        tenantId: tenant.id,
        keyId: key.kmsKeyId,
        kid: key.didDocumentKeyId,
        issuer: dids['P-256'] as string,
        uri: 'https://issuer.example/status/1',
        issuedAt: now,
        expiresAt: new Date(now.getTime() + 3600_000),
        ttlSeconds: 600,
        statuses,
      };
      // JWT: jose checks the ES256 signature and type; @sd-jwt/jwt-status-list reads the list.
      const jwt = (await signer.sign({ ...common, form: 'jwt' })) as string;
      const { payload, protectedHeader } = await jwtVerify(jwt, await importJWK({ ...key.publicJwk }, 'ES256'), { typ: 'statuslist+jwt' });
      expect(protectedHeader.kid).toBe(key.didDocumentKeyId);
      expect(payload.sub).toBe(common.uri);
      const fromJwt = getListFromStatusListJWT(jwt);
      expect([fromJwt.getStatus(10), fromJwt.getStatus(9)]).toEqual([1, 0]);
      // CWT: cose-ts verifies the COSE_Sign1; pako inflates the list.
      const cose = await loadCoseTs();
      const cwt = (await signer.sign({ ...common, form: 'cwt' })) as Uint8Array;
      const point = Buffer.concat([Uint8Array.of(4), Buffer.from(key.publicJwk.x, 'base64url'), Buffer.from(key.publicJwk.y as string, 'base64url')]);
      const message = cose.Sign1Message.fromBytes(cose.ECDSAKey.fromPublic(point), cwt);
      const claims = cose.decodeCBOR(message.payload) as Map<number, unknown>;
      const list = pako.inflate((claims.get(65533) as Map<string, unknown>).get('lst') as Uint8Array);
      expect([((list[1] as number) >> 2) & 1, ((list[1] as number) >> 1) & 1]).toEqual([1, 0]);
      const flipped = Uint8Array.from(cwt);
      flipped[flipped.length - 5] = (flipped[flipped.length - 5] as number) ^ 1;
      expect(() => cose.Sign1Message.fromBytes(cose.ECDSAKey.fromPublic(point), flipped)).toThrow();
    });

    it('signs the RevocationList2020 credential of ldp_vc with an Ed25519 key the token holds: @digitalbazaar/vc verifies it', async () => {
      const record = await store.dids.get(tenant.id, dids.Ed25519 as string);
      const key = record?.keys[0] as { kmsKeyId: string; didDocumentKeyId: string; publicJwk: PublicJwk };
      const statuses = new Uint8Array(2048);
      statuses[0] = 0b0000_0001;
      const list = await createRevocationListSigner({ keys }).sign({
        tenantId: tenant.id,
        keyId: key.kmsKeyId,
        verificationMethod: key.didDocumentKeyId,
        issuer: dids.Ed25519 as string,
        proofType: 'Ed25519Signature2020',
        url: 'https://issuer.example/revocation-lists/1',
        issuedAt: new Date(),
        statuses,
        size: 16_384,
      });
      expect(await verifyWithDigitalBazaar(list, key.publicJwk, new Date())).toEqual({ verified: true });
      const tampered = { ...list, issuanceDate: '2020-01-01T00:00:00Z' };
      expect((await verifyWithDigitalBazaar(tampered, key.publicJwk, new Date())).verified).toBe(false);
    });
  },
);

function pinFile(hsm: SoftHsmToken): string {
  const file = join(hsm.dir, 'pin');
  writeFileSync(file, `${hsm.pin}\n`, { mode: 0o600 });
  return file;
}
