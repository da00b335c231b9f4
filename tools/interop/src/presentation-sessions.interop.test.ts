// Issue 31 point 3: a presentation session on the real server (loopback TLS), answered by
// @openid4vc/openid4vp 0.4.6 as the wallet (a library Vellum did not write): it resolves the
// request by reference (request_uri_method=post), and answers direct_post.jwt, encrypting to the
// session's key with its own JWE callback (jose). The SD-JWT VC comes from a second issuer built
// here with @sd-jwt/sd-jwt-vc, presented with a KB-JWT over the session's nonce and client_id.
// The application uses the x509_hash prefix HAIP requires: its CSR is certified here by a CA made
// with the openssl command line, and the wallet checks the request object's signature with the x5c
// leaf (jose) and the client_id against the leaf's hash (the library). mDocs are not shown here yet
// (docs/verification.md "Presentation sessions", "Not built yet").
import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, generateKeyPairSync, type JsonWebKey, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Openid4vpClient } from '@openid4vc/openid4vp';
import { DeviceResponse, Document, MDoc } from '@auth0/mdl';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { CompactEncrypt, decodeProtectedHeader, importJWK, importX509, jwtVerify } from 'jose';
import { type CborValue, cborEncode, deviceResponse, embeddedCbor, openId4VpHandoverTranscript } from './mdoc-device.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWalletProviderCa } from './attestation-ca.ts';
import { activeIaca, type IssuerServer, prepareIssuerServer } from './issuer-server.ts';
import { libraryWallet, preAuthorizedToken, requestCredential } from './library-wallet.ts';
import { es256, hasher } from './sd-jwt-helpers.ts';

const VCT = 'https://credentials.example/pid';
/** An IACA and a document signer made with the openssl command line: the IACA's PEM, the signer's PEM and private key. */
function mdocPkiWithOpenssl() {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-second-iaca-'));
  const file = (f: string) => join(dir, f);
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  writeFileSync(
    file('ext.cnf'),
    '[ca]\nbasicConstraints = critical, CA:TRUE, pathlen:0\nkeyUsage = critical, keyCertSign, cRLSign\nsubjectKeyIdentifier = hash\n[ds]\nbasicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature\nextendedKeyUsage = 1.0.18013.5.1.2\nauthorityKeyIdentifier = keyid\nsubjectKeyIdentifier = hash\n',
  );
  openssl([
    'req',
    '-x509',
    ...key,
    '-keyout',
    file('iaca.key'),
    '-out',
    file('iaca.crt'),
    '-days',
    '30',
    '-subj',
    '/C=DE/CN=Second IACA',
    '-config',
    file('ext.cnf'),
    '-extensions',
    'ca',
  ]);
  openssl(['req', '-new', ...key, '-keyout', file('ds.key'), '-out', file('ds.csr'), '-subj', '/C=DE/CN=Second DS']);
  openssl([
    'x509',
    '-req',
    '-in',
    file('ds.csr'),
    '-CA',
    file('iaca.crt'),
    '-CAkey',
    file('iaca.key'),
    '-set_serial',
    '0x2001',
    '-days',
    '20',
    '-extfile',
    file('ext.cnf'),
    '-extensions',
    'ds',
    '-out',
    file('ds.crt'),
  ]);
  return { iacaPem: readFileSync(file('iaca.crt'), 'utf8'), dsPem: readFileSync(file('ds.crt'), 'utf8'), dsKeyPem: readFileSync(file('ds.key'), 'utf8') };
}

/** A CA made with the openssl command line certifies `csrPem` for two days: the leaf's PEM, then the CA's. */
function certifyWithOpenssl(csrPem: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'vellum-verifier-ca-'));
  const file = (f: string) => join(dir, f);
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  writeFileSync(
    file('ext.cnf'),
    '[ca]\nbasicConstraints = critical, CA:TRUE\nkeyUsage = critical, keyCertSign\n[leaf]\nbasicConstraints = critical, CA:FALSE\nkeyUsage = critical, digitalSignature\n',
  );
  writeFileSync(file('leaf.csr'), csrPem);
  openssl([
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.crt'),
    '-days',
    '2',
    '-subj',
    '/CN=Verifier CA',
    '-config',
    file('ext.cnf'),
    '-extensions',
    'ca',
  ]);
  openssl([
    'x509',
    '-req',
    '-in',
    file('leaf.csr'),
    '-CA',
    file('ca.crt'),
    '-CAkey',
    file('ca.key'),
    '-set_serial',
    '0x1001',
    '-days',
    '2',
    '-extfile',
    file('ext.cnf'),
    '-extensions',
    'leaf',
    '-out',
    file('leaf.crt'),
  ]);
  return [readFileSync(file('leaf.crt'), 'utf8'), readFileSync(file('ca.crt'), 'utf8')];
}

describe('Presentation sessions answered by @openid4vc/openid4vp over TLS (issue 31)', () => {
  let server: IssuerServer;
  let appId: string;
  const ca = makeWalletProviderCa('Second Issuer');
  const holderKeys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const holderJwk = () => {
    const { kty, crv, x, y } = holderKeys.publicKey.export({ format: 'jwk' }) as JsonWebKey;
    return { kty, crv, x, y };
  };

  const wallet = (fetch: typeof globalThis.fetch = server.tlsFetch) =>
    new Openid4vpClient({
      callbacks: {
        fetch,
        hash: (data, alg) => new Uint8Array(createHash(alg.replace('-', '')).update(data).digest()),
        signJwt: async () => {
          throw new Error('the wallet signs nothing here');
        },
        // The request object's signature, with the key of its x5c leaf (the library checks the leaf's hash is the client_id).
        verifyJwt: async (signer, jwt) => {
          if (signer.method !== 'x5c') return { verified: false };
          const leaf = `-----BEGIN CERTIFICATE-----\n${signer.x5c[0]}\n-----END CERTIFICATE-----`;
          try {
            await jwtVerify(jwt.compact, await importX509(leaf, decodeProtectedHeader(jwt.compact).alg as string), { typ: 'oauth-authz-req+jwt' });
            const { kty, crv, x, y } = new X509Certificate(Buffer.from(signer.x5c[0] as string, 'base64')).publicKey.export({ format: 'jwk' }) as JsonWebKey;
            return { verified: true, signerJwk: { kty, crv, x, y } as never };
          } catch {
            return { verified: false };
          }
        },
        decryptJwe: async () => ({ decrypted: false }),
        // Asked for before any x509 prefix is checked; x509_hash compares the leaf's hash only, so no SAN is read.
        getX509CertificateMetadata: () => ({ sanDnsNames: [], sanUriNames: [] }),
        encryptJwe: async (encryptor, data) => {
          const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
            .setProtectedHeader({ alg: encryptor.alg, enc: encryptor.enc, ...(encryptor.publicJwk.kid ? { kid: encryptor.publicJwk.kid } : {}) })
            .encrypt(await importJWK(encryptor.publicJwk as never, encryptor.alg));
          return { jwe, encryptionJwk: encryptor.publicJwk };
        },
      },
    });

  /** An SD-JWT VC of the second issuer for the holder key, presented with a KB-JWT. */
  async function presentation(kb: { nonce: string; aud: string }, issuerCa = ca) {
    const issuer = new SDJwtVcInstance({
      signer: es256(issuerCa.signingKey),
      signAlg: 'ES256',
      hasher,
      hashAlg: 'sha-256',
      saltGenerator: () => randomBytes(16).toString('base64url'),
    });
    const now = Math.floor(Date.now() / 1000);
    const credential = await issuer.issue(
      {
        iss: 'https://second-issuer.example',
        vct: VCT,
        iat: now,
        exp: now + 3600,
        cnf: { jwk: holderJwk() },
        given_name: 'Ada',
        family_name: 'Lovelace',
      } as never,
      { _sd: ['given_name', 'family_name'] } as never,
      { header: { typ: 'dc+sd-jwt', x5c: issuerCa.x5c } },
    );
    const holder = new SDJwtVcInstance({ hasher, saltGenerator: () => crypto.randomUUID(), kbSigner: es256(holderKeys.privateKey), kbSignAlg: 'ES256' });
    return holder.present(credential, { given_name: true } as never, { kb: { payload: { iat: now, aud: kb.aud, nonce: kb.nonce } } });
  }

  const newSession = async () => {
    const created = await server.call('POST', '/v2/presentations/sessions', {
      applicationId: appId,
      dcqlQuery: { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [VCT] }, claims: [{ path: ['given_name'] }] }] },
      redirectUri: 'https://shop.example/done',
    });
    expect(created.status, created.text).toBe(201);
    return created.json();
  };

  /** The wallet's whole run: resolve the openid4vp:// request, answer with `vpToken(request)`, submit. */
  async function answer(uri: string, vpToken: (request: { nonce: string; client_id: string }) => Promise<Record<string, string[]>>) {
    const client = wallet();
    const params = Object.fromEntries(new URL(uri).searchParams);
    const resolved = await client.resolveOpenId4vpAuthorizationRequest({ authorizationRequestPayload: params as never });
    const request = resolved.authorizationRequestPayload as { nonce: string; client_id: string; response_uri: string };
    const response = await client.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: resolved.authorizationRequestPayload,
      authorizationResponsePayload: { vp_token: (await vpToken(request)) as never },
      jarm: {
        encryption: { nonce: request.nonce },
        serverMetadata: {
          authorization_signing_alg_values_supported: ['ES256'],
          authorization_encryption_alg_values_supported: ['ECDH-ES'],
          authorization_encryption_enc_values_supported: ['A128GCM', 'A256GCM'],
        } as never,
      },
    });
    const submitted = await client.submitOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: resolved.authorizationRequestPayload as never,
      authorizationResponsePayload: response.authorizationResponsePayload,
      ...(response.jarm ? { jarm: { responseJwt: response.jarm.responseJwt } } : {}),
    } as never);
    return { resolved, request, submitted, response };
  }

  /** What the mDoc tests read of the request object to device-sign over its handover. */
  type MdocRequest = { nonce: string; client_id: string; response_uri: string; jwk: Record<string, unknown> };

  /**
   * A session asking for an mDL's family_name, answered by the wallet with the DeviceResponse that
   * `deviceResponseFor` makes for the request; the session as the admin API reads it afterwards.
   */
  async function presentMdl(deviceResponseFor: (request: MdocRequest) => Promise<Uint8Array>) {
    const created = await server.call('POST', '/v2/presentations/sessions', {
      applicationId: appId,
      dcqlQuery: {
        credentials: [
          { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: 'org.iso.18013.5.1.mDL' }, claims: [{ path: ['org.iso.18013.5.1', 'family_name'] }] },
        ],
      },
    });
    expect(created.status, created.text).toBe(201);
    const s = created.json();
    const { submitted } = await answer(s.authorizationRequestUri, async (r) => {
      const request = r as unknown as Omit<MdocRequest, 'jwk'> & { client_metadata: { jwks: { keys: Record<string, unknown>[] } } };
      const jwk = request.client_metadata.jwks.keys[0] as Record<string, unknown>;
      const bytes = await deviceResponseFor({ nonce: request.nonce, client_id: request.client_id, response_uri: request.response_uri, jwk });
      return { mdl: [Buffer.from(bytes).toString('base64url')] };
    });
    expect(submitted.response.status).toBe(200);
    return (await server.call('GET', `/v2/presentations/sessions/${s.id}`)).json();
  }

  /** The OpenID4VP 1.0 handover transcript of a request (or of another client_id), as the bytes a DeviceResponse signs over. */
  const handover = async (r: MdocRequest, clientId = r.client_id) =>
    openId4VpHandoverTranscript({ clientId, nonce: r.nonce, responseUri: r.response_uri, jwk: r.jwk });

  beforeAll(async () => {
    // Loopback outbound: the status lists of this server's own mDLs are read over its https origin.
    server = await prepareIssuerServer({ outboundToLoopback: true });
    await server.start();
    const app = await server.call('POST', '/v2/presentations/applications', {
      name: 'Shop',
      clientIdPrefix: 'x509_hash',
      responseModes: ['direct_post.jwt'],
      redirectUris: ['https://shop.example/done'],
      display: { name: 'Shop' },
      country: 'DE',
    });
    expect(app.status, app.text).toBe(201);
    appId = app.json().id;
    const chain = await server.call('PUT', `/v2/presentations/applications/${appId}/certificate`, { certificates: certifyWithOpenssl(app.json().csr) });
    expect(chain.status, chain.text).toBe(200);
    const trusted = await server.call('POST', '/v2/credentials/trusted-issuers', { name: 'Second issuer', formats: ['dc+sd-jwt'], certificates: [ca.rootPem] });
    expect(trusted.status, trusted.text).toBe(201);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('the library resolves the request, answers direct_post.jwt, and the session is verified with the disclosed claim; a replay is refused', async () => {
    const s = await newSession();
    const { resolved, submitted, response } = await answer(s.authorizationRequestUri, async (r) => ({
      pid: [await presentation({ nonce: r.nonce, aud: r.client_id })],
    }));
    expect(resolved.dcql?.query).toMatchObject({ credentials: [{ id: 'pid' }] });
    expect(submitted.response.status).toBe(200);
    const body = (await submitted.response.json()) as { redirect_uri: string };
    expect(body.redirect_uri).toMatch(/^https:\/\/shop\.example\/done#response_code=/);
    const read = await server.call('GET', `/v2/presentations/sessions/${s.id}`);
    expect(read.json(), read.text).toMatchObject({
      state: 'verified',
      result: {
        verified: true,
        credentials: { pid: { satisfied: true, claims: [{ given_name: 'Ada' }], presentations: [{ issuer: { trusted: true }, failedChecks: [] }] } },
      },
    });
    // The same response posted again: refused, and the result stays.
    const again = await server.tlsFetch(new URL((resolved.authorizationRequestPayload as { response_uri: string }).response_uri), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ response: response.jarm?.responseJwt ?? '' }).toString(),
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_request' });
    expect((await server.call('GET', `/v2/presentations/sessions/${s.id}`)).json().state).toBe('verified');
  });

  it('a KB-JWT with another nonce or audience, and a credential of an untrusted issuer, end the session failed with the reasons', async () => {
    const cases: Array<[string, (r: { nonce: string; client_id: string }) => Promise<string>, string]> = [
      ['nonce', (r) => presentation({ nonce: 'another-nonce', aud: r.client_id }), 'nonce'],
      ['audience', (r) => presentation({ nonce: r.nonce, aud: 'x509_hash:another-verifier' }), 'audience'],
      ['untrusted', (r) => presentation({ nonce: r.nonce, aud: r.client_id }, makeWalletProviderCa('Untrusted Issuer')), 'trusted-issuer'],
    ];
    for (const [name, make, check] of cases) {
      const s = await newSession();
      const { submitted } = await answer(s.authorizationRequestUri, async (r) => ({ pid: [await make(r)] }));
      expect(submitted.response.status, name).toBe(200);
      const read = (await server.call('GET', `/v2/presentations/sessions/${s.id}`)).json();
      expect(read.state, name).toBe('failed');
      expect(
        read.result.credentials.pid.presentations[0].failedChecks.map((c: { check: string }) => c.check),
        name,
      ).toContain(check);
    }
  });

  it('a disclosure changed after issuance fails the disclosures check', async () => {
    const s = await newSession();
    const { submitted } = await answer(s.authorizationRequestUri, async (r) => {
      const [jwt, disclosure, ...rest] = (await presentation({ nonce: r.nonce, aud: r.client_id })).split('~');
      const [salt, name] = JSON.parse(Buffer.from(disclosure as string, 'base64url').toString()) as [string, string, unknown];
      const forged = Buffer.from(JSON.stringify([salt, name, 'Mallory'])).toString('base64url');
      return { pid: [[jwt, forged, ...rest].join('~')] };
    });
    expect(submitted.response.status).toBe(200);
    const read = (await server.call('GET', `/v2/presentations/sessions/${s.id}`)).json();
    expect(read.state).toBe('failed');
    expect(read.result.credentials.pid.presentations[0].failedChecks.map((c: { check: string }) => c.check)).toContain('disclosures');
  });

  it('the wallet library refuses a request object whose signature was tampered with', async () => {
    const s = await newSession();
    // The request object as the server signed it, with one character of its signature changed in transit.
    const tampering: typeof globalThis.fetch = async (input, init) => {
      const res = await server.tlsFetch(input, init);
      if (!String(input instanceof Request ? input.url : input).endsWith('/request')) return res;
      const [h, p, sig] = (await res.text()).split('.');
      const flipped = `${(sig as string).slice(0, 10)}${(sig as string)[10] === 'A' ? 'B' : 'A'}${(sig as string).slice(11)}`;
      return new Response([h, p, flipped].join('.'), { status: res.status, headers: res.headers });
    };
    const params = Object.fromEntries(new URL(s.authorizationRequestUri).searchParams);
    await expect(wallet(tampering).resolveOpenId4vpAuthorizationRequest({ authorizationRequestPayload: params as never })).rejects.toThrow();
    // Untampered, the same session resolves.
    await expect(wallet().resolveOpenId4vpAuthorizationRequest({ authorizationRequestPayload: params as never })).resolves.toBeDefined();
  });

  it('a response to a session that expired meanwhile is refused with invalid_request, and the session reads expired', { timeout: 60_000 }, async () => {
    const created = await server.call('POST', '/v2/presentations/sessions', {
      applicationId: appId,
      dcqlQuery: { credentials: [{ id: 'pid', format: 'dc+sd-jwt', meta: { vct_values: [VCT] } }] },
      expiresIn: 30,
    });
    expect(created.status, created.text).toBe(201);
    const s = created.json();
    const client = wallet();
    const resolved = await client.resolveOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: Object.fromEntries(new URL(s.authorizationRequestUri).searchParams) as never,
    });
    const request = resolved.authorizationRequestPayload as { nonce: string; client_id: string };
    const response = await client.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: resolved.authorizationRequestPayload,
      authorizationResponsePayload: { vp_token: { pid: [await presentation({ nonce: request.nonce, aud: request.client_id })] } as never },
      jarm: {
        encryption: { nonce: request.nonce },
        serverMetadata: {
          authorization_signing_alg_values_supported: ['ES256'],
          authorization_encryption_alg_values_supported: ['ECDH-ES'],
          authorization_encryption_enc_values_supported: ['A128GCM'],
        } as never,
      },
    });
    await new Promise((resolve) => setTimeout(resolve, Date.parse(s.expiresAt) - Date.now() + 500));
    const submitted = await client.submitOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: resolved.authorizationRequestPayload as never,
      authorizationResponsePayload: response.authorizationResponsePayload,
      jarm: { responseJwt: response.jarm?.responseJwt ?? '' },
    } as never);
    expect(submitted.response.status).toBe(400);
    expect(await submitted.response.json()).toMatchObject({ error: 'invalid_request', error_description: 'The presentation session has expired' });
    expect((await server.call('GET', `/v2/presentations/sessions/${s.id}`)).json().state).toBe('expired');
  });

  it('an mDoc DeviceResponse made by @auth0/mdl, device-signed over the OpenID4VP 1.0 handover, is verified; one signed over another transcript is not', async () => {
    const DOC_TYPE = 'org.iso.18013.5.1.mDL';
    const NS = 'org.iso.18013.5.1';
    const pki = mdocPkiWithOpenssl();
    const trusted = await server.call('POST', '/v2/credentials/trusted-issuers', { name: 'Second IACA', formats: ['mso_mdoc'], certificates: [pki.iacaPem] });
    expect(trusted.status, trusted.text).toBe(201);
    const device = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { kty, crv, x, y } = device.publicKey.export({ format: 'jwk' }) as JsonWebKey;
    const now = new Date();
    const signed = await new Document(DOC_TYPE)
      .addIssuerNameSpace(NS, { family_name: 'Jones', given_name: 'Ava' })
      .useDigestAlgorithm('SHA-256')
      .addValidityInfo({ signed: now, validFrom: now, validUntil: new Date(now.getTime() + 86_400_000) })
      .addDeviceKeyInfo({ deviceKey: { kty, crv, x, y } as never })
      .sign({ issuerPrivateKey: createPrivateKey(pki.dsKeyPem).export({ format: 'jwk' }) as never, issuerCertificate: pki.dsPem, alg: 'ES256' });
    // @auth0/mdl makes the DeviceResponse, device-signed over the transcript it is given.
    const present = (transcriptFor: (r: MdocRequest) => Promise<CborValue>) =>
      presentMdl(async (r) => {
        const response = await DeviceResponse.from(new MDoc([signed]))
          .usingPresentationDefinition({
            id: 'pd',
            input_descriptors: [
              {
                id: DOC_TYPE,
                format: { mso_mdoc: { alg: ['ES256'] } },
                constraints: { limit_disclosure: 'required', fields: [{ path: [`$['${NS}']['family_name']`], intent_to_retain: false }] },
              },
            ],
          })
          .usingSessionTranscriptBytes(Buffer.from(cborEncode(embeddedCbor(await transcriptFor(r)))))
          .authenticateWithSignature(device.privateKey.export({ format: 'jwk' }) as never, 'ES256')
          .sign();
        return response.encode();
      });
    const good = await present((r) => handover(r));
    expect(good, JSON.stringify(good.result)).toMatchObject({
      state: 'verified',
      result: { credentials: { mdl: { satisfied: true, claims: [{ [NS]: { family_name: 'Jones' } }] } } },
    });
    const other = await present((r) => handover(r, 'x509_hash:another-verifier'));
    expect(other.state).toBe('failed');
    expect(other.result.credentials.mdl.presentations[0].failedChecks.map((c: { check: string }) => c.check)).toEqual(['device-auth']);
  });

  it('mDLs this server issued to @openid4vc/openid4vci, presented in sessions: the kept one verifies, the one the issuer revoked fails on its status', async () => {
    const DOC_TYPE = 'org.iso.18013.5.1.mDL';
    const NS = 'org.iso.18013.5.1';
    const iacaPem = await activeIaca(server);
    expect((await server.call('POST', '/v2/credentials/trusted-issuers', { name: 'Our DMV', formats: ['mso_mdoc'], certificates: [iacaPem] })).status).toBe(
      201,
    );
    const config = await server.call('POST', '/v2/credentials/mobile/configurations', {
      type: DOC_TYPE,
      name: 'Driver licence',
      expiresIn: { days: 30 },
      includeStatus: true,
      claimMappings: { [NS]: { family_name: { mapFrom: 'claims.familyName', required: true } } },
    });
    expect(config.status, config.text).toBe(201);
    const issue = async (familyName: string) => {
      const offer = await server.call('POST', '/v1/openid/offers/pre-authorized', { credentials: [config.json().id], claims: { familyName } });
      expect(offer.status, offer.text).toBe(200);
      const { client, signer, privateKey } = libraryWallet(server.tlsFetch);
      const { issuerMetadata, accessTokenResponse } = await preAuthorizedToken(client, offer.json().uri);
      const answer = await requestCredential(client, {
        issuerMetadata,
        credentialConfigurationId: config.json().id,
        signer,
        accessToken: accessTokenResponse.access_token,
      });
      const records = (await server.call('GET', `/v2/credentials?credentialConfigurationId=${config.json().id}`)).json().data as Array<{ id: string }>;
      return { issuerSigned: Buffer.from(answer.credentials?.[0]?.credential as string, 'base64url'), privateKey, id: records.at(-1)?.id as string };
    };
    const kept = await issue('Okafor');
    const revoked = await issue('Turner');
    expect((await server.call('POST', `/v2/credentials/mobile/${revoked.id}/status`, { status: 'invalid' })).status).toBe(200);

    // The test's own DeviceResponse writer (mdoc-device.ts), device-signed over the handover.
    const present = (mdl: Awaited<ReturnType<typeof issue>>) =>
      presentMdl(
        async (r) =>
          deviceResponse({ docType: DOC_TYPE, issuerSigned: mdl.issuerSigned, sessionTranscript: await handover(r), devicePrivateKey: mdl.privateKey })
            .deviceResponse,
      );
    const good = await present(kept);
    expect(good, JSON.stringify(good.result)).toMatchObject({
      state: 'verified',
      result: { credentials: { mdl: { satisfied: true, claims: [{ [NS]: { family_name: 'Okafor' } }] } } },
    });
    const bad = await present(revoked);
    expect(bad.state, JSON.stringify(bad.result)).toBe('failed');
    expect(bad.result.credentials.mdl.presentations[0].failedChecks).toEqual([{ check: 'status', ok: false, reason: 'The issuer has revoked the credential' }]);
  });
});
