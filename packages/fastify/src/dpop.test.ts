// DPoP (RFC 9449) over HTTP: DPoP-bound tokens from the token endpoint, proofs at the credential and
// notification endpoints, the refusals each kind of endpoint answers with, server nonces, and
// garbage in the DPoP and client attestation headers. The proofs are made with jose, a library the
// product does not use to make them, so that both sides of RFC 9449 are not the same code.
import { createHash, randomUUID } from 'node:crypto';
import { PRE_AUTHORIZED_GRANT, type PublicJwk } from '@vellum/core';
import { proofJwt, walletKey } from '@vellum/testing';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import fc from 'fast-check';
import { base64url, calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../test/app.ts';
import { foreignAuthority } from '../test/authority.ts';

const FORM = 'application/x-www-form-urlencoded';
const MDL = {
  type: 'org.iso.18013.5.1.mDL',
  expiresIn: { days: 365 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
};
/** RFC 9449 §7.1: the challenge of a refused proof names the algorithms the resource takes. */
const PROOF_CHALLENGE = /^DPoP error="invalid_dpop_proof", error_description="[^"]*", algs="ES256 EdDSA"$/;

/** A wallet's DPoP key pair, made by jose. */
interface DpopKey {
  alg: 'ES256' | 'EdDSA';
  privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  jwk: JWK;
  jkt: string;
}

async function dpopKey(alg: 'ES256' | 'EdDSA' = 'ES256'): Promise<DpopKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { alg, privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

interface ProofOptions {
  htm?: string;
  accessToken?: string;
  nonce?: string;
  iat?: number;
  jti?: string;
  /** Replaces the protected header's members. */
  header?: Record<string, unknown>;
  /** Replaces (or, set to undefined, removes) payload claims. */
  claims?: Record<string, unknown>;
}

/** RFC 9449 §4.2: a DPoP proof JWT for `htu`, signed by `key` with its public key in the header. */
async function proofFor(key: DpopKey, htu: string, options: ProofOptions = {}): Promise<string> {
  const claims: Record<string, unknown> = {
    htm: options.htm ?? 'POST',
    htu,
    iat: options.iat ?? Math.floor(Date.now() / 1000),
    jti: options.jti ?? randomUUID(),
    ...(options.accessToken !== undefined ? { ath: base64url.encode(createHash('sha256').update(options.accessToken).digest()) } : {}),
    ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
    ...options.claims,
  };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, typ: 'dpop+jwt', jwk: key.jwk, ...options.header } as never).sign(key.privateKey);
}

/**
 * A wallet provider (docs/dpop-and-attestation.md): a root CA the issuer's clients register, and a signing key
 * certified by it that signs client attestations with its certificate in x5c. The certificates are
 * made with @vellum/crypto's X.509 writer, as fixtures; the JWTs with jose.
 */
async function walletProvider() {
  const root = await foreignAuthority({ commonName: 'Wallet Provider Root', url: 'https://wallet-provider.example', days: 365 });
  const signer = await dpopKey();
  const leaf = await root.certify(signer.jwk as PublicJwk, 'Wallet Provider Attestations', 30);
  const x5c = [Buffer.from(leaf.der).toString('base64')];
  return {
    rootPem: root.certificate.pem,
    /** A client attestation for `clientId`, attesting `instance`'s key (cnf.jwk). */
    attest: (clientId: string, instance: DpopKey, instanceId?: string) =>
      new SignJWT({ sub: clientId, cnf: { jwk: instance.jwk }, ...(instanceId === undefined ? {} : { client_instance_id: instanceId }) })
        .setProtectedHeader({ alg: 'ES256', typ: 'oauth-client-attestation+jwt', x5c })
        .setIssuer('https://wallet-provider.example')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(signer.privateKey),
  };
}

/** Standard Mode's proof of possession of the attested key (typ oauth-client-attestation-pop+jwt), for `audience`. */
function attestationPop(instance: DpopKey, clientId: string, audience: string, jti: string = randomUUID()): Promise<string> {
  return new SignJWT({ jti })
    .setProtectedHeader({ alg: instance.alg, typ: 'oauth-client-attestation-pop+jwt' })
    .setIssuer(clientId)
    .setAudience(audience)
    .setIssuedAt()
    .sign(instance.privateKey);
}

/** The error body of a wallet-facing endpoint (docs/errors.md): the Vellum fields and the OAuth ones. */
function expectOAuthError(res: LightMyRequestResponse, status: number, error: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.json()).toEqual({ code: expect.any(String), message: expect.any(String), error, error_description: expect.any(String) });
}

/** One tenant issuing an mDL, and a wallet's requests to it. */
async function walletSide(app: FastifyInstance, prefix: string, host: string, admin: string) {
  const call = (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) =>
    app.inject({
      method,
      url: `${prefix}${path}`,
      headers: { host, authorization: `Bearer ${admin}` },
      ...(body === undefined ? {} : { payload: body as object }),
    });
  const iaca = (await call('POST', '/v2/credentials/mobile/iacas', { country: 'US' })).json() as { id: string; certificatePem: string };
  expect((await call('PUT', `/v2/credentials/mobile/iacas/${iaca.id}`, { active: true })).statusCode).toBe(200);
  const configuration = (await call('POST', '/v2/credentials/mobile/configurations', MDL)).json() as { id: string };
  const metadata = (await app.inject({ method: 'GET', url: `${prefix}/.well-known/openid-credential-issuer`, headers: { host } })).json() as Record<
    string,
    string
  >;
  const authorizationServer = (
    await app.inject({ method: 'GET', url: `${prefix}/.well-known/oauth-authorization-server`, headers: { host } })
  ).json() as Record<string, unknown>;
  // The URLs a wallet puts in htu: the ones the metadata publishes.
  const urls = {
    issuer: metadata.credential_issuer as string,
    token: authorizationServer.token_endpoint as string,
    par: authorizationServer.pushed_authorization_request_endpoint as string,
    credential: metadata.credential_endpoint as string,
    nonce: metadata.nonce_endpoint as string,
    notification: metadata.notification_endpoint as string,
  };

  const post = (path: string, options: { headers?: Record<string, string | string[]>; body?: string; contentType?: string } = {}) =>
    app.inject({
      method: 'POST',
      url: `${prefix}${path}`,
      headers: { host, ...(options.contentType === undefined ? {} : { 'content-type': options.contentType }), ...options.headers },
      ...(options.body === undefined ? {} : { payload: options.body }),
    });

  /** A fresh pre-authorized code for the mDL. */
  async function code(): Promise<string> {
    const offer = (await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [configuration.id], claims: { familyName: 'Turner' } })).json() as {
      uri: string;
    };
    const json = JSON.parse(new URL(offer.uri).searchParams.get('credential_offer') as string) as { grants: Record<string, Record<string, string>> };
    return json.grants[PRE_AUTHORIZED_GRANT]?.['pre-authorized_code'] as string;
  }

  /** The token request of a pre-authorized code, with `headers` (DPoP and the like) and extra form fields. */
  const token = (preAuthorizedCode: string, headers: Record<string, string | string[]> = {}, form: Record<string, string> = {}) =>
    post('/v1/oauth/token', {
      contentType: FORM,
      headers,
      body: new URLSearchParams({ grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': preAuthorizedCode, ...form }).toString(),
    });

  /** A c_nonce and the answer that carried it. */
  async function cNonce() {
    const res = await post('/v1/openid/nonce');
    expect(res.statusCode, res.body).toBe(200);
    return { value: (res.json() as { c_nonce: string }).c_nonce, res };
  }

  /** A credential request body with a fresh key proof. */
  async function credentialBody(): Promise<string> {
    return JSON.stringify({
      credential_configuration_id: configuration.id,
      proofs: { jwt: [proofJwt(walletKey(), { audience: urls.issuer, nonce: (await cNonce()).value })] },
    });
  }

  const credential = async (headers: Record<string, string | string[]>, body?: string) =>
    post('/v1/openid/credential', { contentType: 'application/json', headers, body: body ?? (await credentialBody()) });

  return { call, iaca, configuration, urls, post, code, token, cNonce, credentialBody, credential, authorizationServer };
}

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('DPoP at the token, credential and notification endpoints over HTTP (RFC 9449) (%s)', (mount) => {
  const t = useTestApp(mount);
  let tenants = 0;

  async function issuer() {
    const subdomain = `dpop${(tenants += 1)}`;
    const { host } = await t.createTenant(subdomain);
    return walletSide(t.app, t.prefix, host, await t.token(subdomain));
  }

  /** A token bound to `key`, from a pre-authorized code. */
  async function boundToken(s: Awaited<ReturnType<typeof issuer>>, key: DpopKey): Promise<string> {
    const res = await s.token(await s.code(), { dpop: await proofFor(key, s.urls.token) });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { access_token: string }).access_token;
  }

  it('publishes dpop_signing_alg_values_supported ES256 and EdDSA (RFC 9449 §5.1) and sends no DPoP-Nonce when nonces are not required', async () => {
    const s = await issuer();
    expect(s.authorizationServer.dpop_signing_alg_values_supported).toEqual(['ES256', 'EdDSA']);
    const { res } = await s.cNonce();
    expect(res.headers['dpop-nonce']).toBeUndefined();
  });

  it('binds the token to the proof’s key: token_type DPoP and cnf.jkt the RFC 7638 thumbprint (RFC 9449 §5, §6.1)', async () => {
    const s = await issuer();
    for (const alg of ['ES256', 'EdDSA'] as const) {
      const key = await dpopKey(alg);
      const res = await s.token(await s.code(), { dpop: await proofFor(key, s.urls.token) });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['dpop-nonce']).toBeUndefined();
      const body = res.json() as { access_token: string; token_type: string };
      expect(body.token_type).toBe('DPoP');
      expect(decodeJwt(body.access_token).cnf).toEqual({ jkt: key.jkt });
    }
    // Without a proof the token stays a bearer token.
    const plain = await s.token(await s.code());
    expect(plain.json()).toMatchObject({ token_type: 'Bearer' });
    expect(decodeJwt((plain.json() as { access_token: string }).access_token).cnf).toBeUndefined();
  });

  it('issues at the credential endpoint to Authorization: DPoP with a proof by the bound key naming the token (ath), then takes the notification the same way (RFC 9449 §7)', async () => {
    const s = await issuer();
    for (const alg of ['ES256', 'EdDSA'] as const) {
      const key = await dpopKey(alg);
      const token = await boundToken(s, key);
      const res = await s.credential({ authorization: `DPoP ${token}`, dpop: await proofFor(key, s.urls.credential, { accessToken: token }) });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ credentials: [{ credential: expect.any(String) }] });
      const { notification_id } = res.json() as { notification_id: string };
      // RFC 9449 §4.3 step 9: htu is compared without its query and fragment.
      const notified = await s.post('/v1/openid/notification', {
        contentType: 'application/json',
        headers: { authorization: `DPoP ${token}`, dpop: await proofFor(key, `${s.urls.notification}?wallet=1#f`, { accessToken: token }) },
        body: JSON.stringify({ notification_id, event: 'credential_accepted' }),
      });
      expect(notified.statusCode, notified.body).toBe(204);
    }
  });

  it('refuses a bad proof at the credential endpoint with 401, the DPoP challenge (algs="ES256 EdDSA") and invalid_dpop_proof, and spends nothing (RFC 9449 §4.3, §7.1)', async () => {
    const s = await issuer();
    const key = await dpopKey();
    const token = await boundToken(s, key);
    const otherToken = await boundToken(s, key);
    const other = await dpopKey();
    const now = Math.floor(Date.now() / 1000);
    const htu = s.urls.credential;
    const good = () => proofFor(key, htu, { accessToken: token });
    const cases: Array<[string, string | string[] | undefined]> = [
      ['no DPoP header', undefined],
      ['a proof by another key', await proofFor(other, htu, { accessToken: token })],
      ['no ath', await proofFor(key, htu)],
      ['the ath of another token', await proofFor(key, htu, { accessToken: otherToken })],
      ['the token endpoint as htu', await proofFor(key, s.urls.token, { accessToken: token })],
      ['htm GET', await proofFor(key, htu, { accessToken: token, htm: 'GET' })],
      ['typ JWT', await proofFor(key, htu, { accessToken: token, header: { typ: 'JWT' } })],
      ['an iat ten minutes old', await proofFor(key, htu, { accessToken: token, iat: now - 600 })],
      ['an iat five minutes ahead', await proofFor(key, htu, { accessToken: token, iat: now + 300 })],
      ['no jti', await proofFor(key, htu, { accessToken: token, claims: { jti: undefined } })],
      ['a bad signature', (await good()).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))],
      ['two DPoP headers', [await good(), await good()]],
      ['not a JWT', 'not-a-jwt'],
    ];
    for (const [label, dpop] of cases) {
      const res = await s.credential({ authorization: `DPoP ${token}`, ...(dpop === undefined ? {} : { dpop }) });
      expectOAuthError(res, 401, 'invalid_dpop_proof');
      expect(res.headers['www-authenticate'], label).toMatch(PROOF_CHALLENGE);
      // Node joins a repeated header with ", "; the route reads the values apart (proof-headers.ts).
      if (label === 'two DPoP headers') expect(res.json().error_description).toBe('Send one DPoP header');
    }
    // RFC 9449 §11.1: a proof is good once.
    const once = await good();
    expect((await s.credential({ authorization: `DPoP ${token}`, dpop: once })).statusCode).toBe(200);
    const replayed = await s.credential({ authorization: `DPoP ${token}`, dpop: once });
    expectOAuthError(replayed, 401, 'invalid_dpop_proof');
    expect(replayed.headers['www-authenticate']).toMatch(PROOF_CHALLENGE);
  });

  it('refuses the wrong scheme with 401 invalid_token and a DPoP challenge: a bound token as Bearer, a bearer token as DPoP (RFC 9449 §7.1, §7.2)', async () => {
    const s = await issuer();
    const key = await dpopKey();
    const bound = await boundToken(s, key);
    const asBearer = await s.credential({ authorization: `Bearer ${bound}`, dpop: await proofFor(key, s.urls.credential, { accessToken: bound }) });
    expectOAuthError(asBearer, 401, 'invalid_token');
    expect(asBearer.headers['www-authenticate']).toMatch(/^DPoP error="invalid_token", algs="ES256 EdDSA"$/);
    const bearer = ((await s.token(await s.code())).json() as { access_token: string }).access_token;
    const asDpop = await s.credential({ authorization: `DPoP ${bearer}`, dpop: await proofFor(key, s.urls.credential, { accessToken: bearer }) });
    expectOAuthError(asDpop, 401, 'invalid_token');
    expect(asDpop.headers['www-authenticate']).toMatch(/^DPoP error="invalid_token", algs="ES256 EdDSA"$/);
  });

  it('refuses a bad proof at the token endpoint with 400 invalid_dpop_proof and no challenge, leaving the code to redeem (RFC 9449 §5)', async () => {
    const s = await issuer();
    const key = await dpopKey();
    const now = Math.floor(Date.now() / 1000);
    const code = await s.code();
    const cases: Array<[string, string | string[]]> = [
      ['the credential endpoint as htu', await proofFor(key, s.urls.credential)],
      ['htm PUT', await proofFor(key, s.urls.token, { htm: 'PUT' })],
      ['typ jwt', await proofFor(key, s.urls.token, { header: { typ: 'jwt' } })],
      ['an iat ten minutes old', await proofFor(key, s.urls.token, { iat: now - 600 })],
      ['no iat', await proofFor(key, s.urls.token, { claims: { iat: undefined } })],
      ['a private key in jwk', await proofFor(key, s.urls.token, { header: { jwk: (await exportJWK(key.privateKey)) as JWK } })],
      [
        'alg none',
        `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: key.jwk }))}.${base64url.encode(JSON.stringify({ htm: 'POST', htu: s.urls.token, iat: now, jti: 'x' }))}.`,
      ],
      ['empty', ''],
      ['two DPoP headers', [await proofFor(key, s.urls.token), await proofFor(key, s.urls.token)]],
    ];
    for (const [label, dpop] of cases) {
      const res = await s.token(code, { dpop });
      expectOAuthError(res, 400, 'invalid_dpop_proof');
      expect(res.headers['www-authenticate'], label).toBeUndefined();
      if (label === 'two DPoP headers') expect(res.json().error_description).toBe('Send one DPoP header');
    }
    const used = await proofFor(key, s.urls.token);
    const redeemed = await s.token(code, { dpop: used });
    expect(redeemed.statusCode, redeemed.body).toBe(200);
    expect(redeemed.json()).toMatchObject({ token_type: 'DPoP' });
    // The same proof for another code is a replay.
    expectOAuthError(await s.token(await s.code(), { dpop: used }), 400, 'invalid_dpop_proof');
  });

  it('holds a client that registered dpop.required to DPoP at the token endpoint (400 invalid_dpop_proof without a proof)', async () => {
    const s = await issuer();
    const created = await s.call('POST', '/v1/openid/clients', {
      clientId: 'dpop-wallet',
      clientName: 'DPoP wallet',
      redirectUris: ['https://wallet.example.com/cb'],
      grantTypes: ['authorization_code', PRE_AUTHORIZED_GRANT],
      dpop: { required: true },
    });
    expect(created.statusCode, created.body).toBe(201);
    expectOAuthError(await s.token(await s.code(), {}, { client_id: 'dpop-wallet' }), 400, 'invalid_dpop_proof');
    const key = await dpopKey();
    const res = await s.token(await s.code(), { dpop: await proofFor(key, s.urls.token) }, { client_id: 'dpop-wallet' });
    expect(res.statusCode, res.body).toBe(200);
    expect(decodeJwt((res.json() as { access_token: string }).access_token)).toMatchObject({ cnf: { jkt: key.jkt }, client_id: 'dpop-wallet' });
  });

  // Hundreds of requests each, with ES256 and certificate work: seconds on a loaded 2-core machine, not the unit tier's 5.
  describe('garbage in the DPoP and client attestation headers', { timeout: 30_000 }, () => {
    let s: Awaited<ReturnType<typeof issuer>>;
    let key: DpopKey;
    let bound = '';
    const ATTESTED = 'attested-wallet';
    const COMBINED = 'combined-wallet';
    const ANONYMOUS = 'token (no client_id: a client only if the attestation names one)';

    let provider: Awaited<ReturnType<typeof walletProvider>>;
    let instance: DpopKey;
    /** Valid attestations of each client, so that the PoP and the Combined Mode DPoP proof are read too. */
    const attestationOf: Record<string, string> = {};

    beforeAll(async () => {
      s = await issuer();
      provider = await walletProvider();
      instance = await dpopKey();
      // Clients whose attestation headers are read: Standard Mode (a PoP) and Combined Mode (DPoP).
      for (const [clientId, dpopRequired] of [
        [ATTESTED, false],
        [COMBINED, true],
      ] as const) {
        const created = await s.call('POST', '/v1/openid/clients', {
          clientId,
          clientName: clientId,
          redirectUris: ['https://wallet.example.com/cb'],
          grantTypes: ['authorization_code', PRE_AUTHORIZED_GRANT],
          clientAttestation: { rootCertificates: [provider.rootPem], dpopRequired },
        });
        expect(created.statusCode, created.body).toBe(201);
        attestationOf[clientId] = await provider.attest(clientId, instance, 'instance-1');
      }
      key = await dpopKey();
      bound = await boundToken(s, key);
    });

    it('accepts the fixtures themselves: Standard Mode (attestation and PoP) and Combined Mode (attestation and DPoP by the attested key) at the token endpoint', async () => {
      const standard = await s.token(
        await s.code(),
        { 'oauth-client-attestation': attestationOf[ATTESTED]!, 'oauth-client-attestation-pop': await attestationPop(instance, ATTESTED, s.urls.issuer) },
        { client_id: ATTESTED },
      );
      expect(standard.statusCode, standard.body).toBe(200);
      expect(decodeJwt((standard.json() as { access_token: string }).access_token)).toMatchObject({ client_id: ATTESTED, client_instance_id: 'instance-1' });
      const combined = await s.token(
        await s.code(),
        { 'oauth-client-attestation': attestationOf[COMBINED]!, dpop: await proofFor(instance, s.urls.token) },
        { client_id: COMBINED },
      );
      expect(combined.statusCode, combined.body).toBe(200);
      expect(combined.json()).toMatchObject({ token_type: 'DPoP' });
      expect(decodeJwt((combined.json() as { access_token: string }).access_token)).toMatchObject({ client_id: COMBINED, cnf: { jkt: instance.jkt } });
      // The same, refused: no attestation (401 invalid_client); a DPoP proof by another key in Combined Mode (400).
      expectOAuthError(await s.token(await s.code(), {}, { client_id: ATTESTED }), 401, 'invalid_client');
      expectOAuthError(
        await s.token(
          await s.code(),
          { 'oauth-client-attestation': attestationOf[COMBINED]!, dpop: await proofFor(key, s.urls.token) },
          { client_id: COMBINED },
        ),
        400,
        'invalid_client_attestation',
      );
    });

    const jwtLike = (header: unknown, payload: unknown) =>
      `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}.${base64url.encode('sig')}`;
    /** Values no header should ever make the server fail on. */
    const fixed = (): Array<string | string[]> => [
      '',
      ' ',
      'a'.repeat(40_000),
      `${'x'.repeat(8 * 1024 - 2)}.y.z`,
      'not-a-jwt',
      'a.b.c',
      '..',
      '{"alg":"ES256","typ":"dpop+jwt"}',
      JSON.stringify({ htm: 'POST', htu: s.urls.token }),
      'null',
      '[]',
      jwtLike({ alg: 'ES256', typ: 'dpop+jwt', jwk: { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' } }, { htm: 'POST' }),
      jwtLike({ alg: 'ES256', typ: 'dpop+jwt', jwk: 'string' }, []),
      jwtLike({ alg: 'ES256', typ: 'oauth-client-attestation+jwt', x5c: ['AAAA', 17, null] }, { sub: ATTESTED, exp: 1e20, cnf: { jwk: { kty: 'RSA' } } }),
      jwtLike({ alg: 'ES256', typ: 'oauth-client-attestation+jwt', x5c: [s.iaca.certificatePem] }, { sub: COMBINED, cnf: null }),
      jwtLike({ alg: 'ES256', x5c: Array.from({ length: 50 }, () => 'AAAA') }, { sub: ATTESTED }),
      jwtLike(null, null),
      `${base64url.encode('{"alg":"ES256","__proto__":{"typ":"dpop+jwt"},"constructor":{"prototype":1}}')}.${base64url.encode('{"__proto__":{"iat":1}}')}.AA`,
      // Real pieces in the wrong places: a tampered attestation, another client's, an attestation as a PoP or a DPoP proof.
      `${attestationOf[ATTESTED]!.slice(0, -4)}AAAA`,
      attestationOf[COMBINED]!,
      attestationOf[ATTESTED]!,
      'ünïcødé ☃ 😀',
      Buffer.from('ünïcødé ☃ 😀.a.b', 'utf8').toString('latin1'),
      'Zm9v.YmFy.YmF6\t',
      ['a.b.c', 'd.e.f'],
      ['', ''],
      [jwtLike({ alg: 'ES256' }, {}), ''],
    ];
    const headerNames = ['dpop', 'oauth-client-attestation', 'oauth-client-attestation-pop'] as const;

    const par = (headers: Record<string, string | string[]>) =>
      s.post('/v1/oauth/par', {
        contentType: FORM,
        headers,
        body: new URLSearchParams({
          response_type: 'code',
          client_id: ATTESTED,
          redirect_uri: 'https://wallet.example.com/cb',
          scope: 'mso_mdoc:org.iso.18013.5.1.mDL',
          code_challenge_method: 'S256',
          code_challenge: 'c'.repeat(43),
        }).toString(),
      });

    /** The endpoints, each reached far enough that the headers are read (a valid code, a bound token, an attested client). */
    const endpoints = () => ({
      token: async (headers: Record<string, string | string[]>) => s.token(await s.code(), headers, { client_id: ATTESTED }),
      'token (valid attestation, Standard Mode)': async (headers: Record<string, string | string[]>) =>
        s.token(await s.code(), { 'oauth-client-attestation': attestationOf[ATTESTED]!, ...headers }, { client_id: ATTESTED }),
      'token (valid attestation, Combined Mode)': async (headers: Record<string, string | string[]>) =>
        s.token(await s.code(), { 'oauth-client-attestation': attestationOf[COMBINED]!, ...headers }, { client_id: COMBINED }),
      'token (Combined Mode client)': async (headers: Record<string, string | string[]>) => s.token(await s.code(), headers, { client_id: COMBINED }),
      [ANONYMOUS]: async (headers: Record<string, string | string[]>) => s.token(await s.code(), headers),
      par: (headers: Record<string, string | string[]>) => par(headers),
      'par (valid attestation)': (headers: Record<string, string | string[]>) => par({ 'oauth-client-attestation': attestationOf[ATTESTED]!, ...headers }),
      credential: async (headers: Record<string, string | string[]>) => s.credential({ authorization: `DPoP ${bound}`, ...headers }),
      nonce: (headers: Record<string, string | string[]>) => s.post('/v1/openid/nonce', { headers }),
      notification: (headers: Record<string, string | string[]>) =>
        s.post('/v1/openid/notification', {
          contentType: 'application/json',
          headers: { authorization: `DPoP ${bound}`, ...headers },
          body: JSON.stringify({ notification_id: 'n', event: 'credential_accepted' }),
        }),
    });

    /**
     * Below 500; a refusal with the JSON error body of docs/errors.md. The nonce endpoint reads none of these
     * headers; an anonymous wallet whose attestation names no registered client gets the bearer
     * token it would get without one, and nothing the attestation claims.
     */
    function expectHandled(endpoint: string, res: LightMyRequestResponse, headers: Record<string, unknown>) {
      const where = `${endpoint} ${JSON.stringify(headers).slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`;
      expect(res.statusCode, where).toBeLessThan(500);
      if (endpoint === 'nonce') {
        expect(res.statusCode, where).toBe(200);
        expect(res.json()).toEqual({ c_nonce: expect.any(String) });
        return;
      }
      if (endpoint === ANONYMOUS && res.statusCode === 200) {
        expect(headers.dpop, where).toBeUndefined();
        const body = res.json() as { token_type: string; access_token: string };
        expect(body.token_type).toBe('Bearer');
        const claims = decodeJwt(body.access_token);
        expect(claims.client_id, where).toBeUndefined();
        expect(claims.client_instance_id, where).toBeUndefined();
        return;
      }
      expect(res.statusCode, where).toBeGreaterThanOrEqual(400);
      expect(res.headers['content-type'], where).toMatch(/^application\/json/);
      expect(res.json(), where).toEqual({
        code: expect.any(String),
        message: expect.any(String),
        error: expect.any(String),
        error_description: expect.any(String),
      });
    }

    it('answers every fixed piece of garbage (empty, huge, not a JWT, JSON, unicode, repeated) in each header below 500, with the OAuth error body', async () => {
      for (const [endpoint, send] of Object.entries(endpoints())) {
        for (const name of headerNames) {
          for (const value of fixed()) {
            expectHandled(endpoint, await send({ [name]: value }), { [name]: value });
          }
        }
      }
    });

    it('answers generated garbage in any mix of the three headers below 500, with the OAuth error body (property)', async () => {
      const printable = fc.string({ maxLength: 300 }).map((v) => v.replace(/[^\x20-\x7e]/g, ''));
      const bytes = fc.uint8Array({ maxLength: 300 }).map((b) =>
        Buffer.from(b)
          .toString('latin1')
          .replace(/[\r\n\0]/g, ''),
      );
      const segment = fc.oneof(
        printable,
        fc.jsonValue({ maxDepth: 3 }).map((v) => base64url.encode(JSON.stringify(v) ?? 'null')),
      );
      const compact = fc.tuple(segment, segment, segment).map((parts) => parts.join('.'));
      const value = fc.oneof(printable, bytes, compact, fc.constantFrom(...fixed().filter((v): v is string => typeof v === 'string')));
      const header = fc.oneof(value, fc.array(value, { minLength: 2, maxLength: 3 }));
      const names = Object.keys(endpoints());
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...names),
          fc.record({ dpop: header, 'oauth-client-attestation': header, 'oauth-client-attestation-pop': header }, { requiredKeys: [] }),
          async (endpoint, headers) => {
            const send = endpoints()[endpoint as keyof ReturnType<typeof endpoints>];
            expectHandled(endpoint, await send(headers as Record<string, string | string[]>), headers);
          },
        ),
        { numRuns: 150 },
      );
    });
  });
});

describe('DPoP with server nonces (RFC 9449 §8; VELLUM_DPOP_NONCE_REQUIRED)', () => {
  const t = useTestApp('standalone', { dpopNonceRequired: true });
  const createTenant = async (subdomain: string) => {
    const { host } = await t.createTenant(subdomain);
    return walletSide(t.app, '', host, await t.token(subdomain));
  };

  it('hands out a DPoP-Nonce with each c_nonce at the nonce endpoint', async () => {
    const s = await createTenant('nonce1');
    const first = (await s.cNonce()).res.headers['dpop-nonce'];
    const second = (await s.cNonce()).res.headers['dpop-nonce'];
    expect(first).toEqual(expect.any(String));
    expect(second).toEqual(expect.any(String));
    expect(second).not.toBe(first);
  });

  it('at the token endpoint: a proof without a nonce gets 400 use_dpop_nonce and a DPoP-Nonce; the retry with it is DPoP-bound', async () => {
    const s = await createTenant('nonce2');
    const key = await dpopKey();
    const code = await s.code();
    const refused = await s.token(code, { dpop: await proofFor(key, s.urls.token) });
    expectOAuthError(refused, 400, 'use_dpop_nonce');
    const nonce = refused.headers['dpop-nonce'];
    expect(nonce).toEqual(expect.any(String));
    expect(refused.headers['www-authenticate']).toBeUndefined();
    const retried = await s.token(code, { dpop: await proofFor(key, s.urls.token, { nonce: nonce as string }) });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toMatchObject({ token_type: 'DPoP' });
    expect(retried.headers['dpop-nonce']).toEqual(expect.any(String));
  });

  it('at the credential endpoint: 401 with DPoP error="use_dpop_nonce" and a DPoP-Nonce; the retry with it issues', async () => {
    const s = await createTenant('nonce3');
    const key = await dpopKey();
    const { res: nonceAnswer } = await s.cNonce();
    const tokenAnswer = await s.token(await s.code(), { dpop: await proofFor(key, s.urls.token, { nonce: nonceAnswer.headers['dpop-nonce'] as string }) });
    expect(tokenAnswer.statusCode, tokenAnswer.body).toBe(200);
    const token = (tokenAnswer.json() as { access_token: string }).access_token;
    const body = await s.credentialBody();
    for (const nonce of [undefined, 'made-up', 'a'.repeat(5000)]) {
      const refused = await s.credential(
        { authorization: `DPoP ${token}`, dpop: await proofFor(key, s.urls.credential, { accessToken: token, ...(nonce === undefined ? {} : { nonce }) }) },
        body,
      );
      expectOAuthError(refused, 401, 'use_dpop_nonce');
      expect(refused.headers['www-authenticate']).toMatch(/^DPoP error="use_dpop_nonce", error_description="[^"]*", algs="ES256 EdDSA"$/);
      expect(refused.headers['dpop-nonce']).toEqual(expect.any(String));
    }
    const fresh = (await s.cNonce()).res.headers['dpop-nonce'] as string;
    const issued = await s.credential(
      { authorization: `DPoP ${token}`, dpop: await proofFor(key, s.urls.credential, { accessToken: token, nonce: fresh }) },
      body,
    );
    expect(issued.statusCode, issued.body).toBe(200);
    expect(issued.headers['dpop-nonce']).toEqual(expect.any(String));
  });

  it('takes no tenant’s nonce at another tenant (use_dpop_nonce)', async () => {
    const a = await createTenant('nonce4');
    const b = await createTenant('nonce5');
    const key = await dpopKey();
    const foreign = (await a.cNonce()).res.headers['dpop-nonce'] as string;
    const refused = await b.token(await b.code(), { dpop: await proofFor(key, b.urls.token, { nonce: foreign }) });
    expectOAuthError(refused, 400, 'use_dpop_nonce');
    expect(refused.headers['dpop-nonce']).not.toBe(foreign);
  });
});
