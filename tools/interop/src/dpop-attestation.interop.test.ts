// Issue 16 acceptance: DPoP (RFC 9449) and OAuth client attestation
// (draft-ietf-oauth-attestation-based-client-auth) end to end, played by wallet libraries we did not
// write (@openid4vc/oauth2 and @openid4vc/openid4vci) against the real server over real TLS on
// loopback, on SQLite and on PostgreSQL. In the wallet runs the libraries make every DPoP proof,
// attestation proof of possession and token and credential request (Pre-authorized Code,
// Authorization Code with PAR or dpop_jkt, Standard and Combined Mode, a server that asks for DPoP
// nonces); jose decodes the access tokens and computes thumbprints; @auth0/mdl verifies the mDocs;
// openssl makes the wallet provider's certificate authority (attestation-ca.ts). The refusals send
// what a library would never send — a replayed proof, a proof for another URL or method, without
// ath, by another key — made with jose or replayed from what the library sent, and each is checked
// for the status and the error body the standards name, and never a 5xx. A second server
// process on the same database refuses a proof the first one took: single use holds across
// servers, not only inside one.
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import {
  type AuthorizationServerMetadata,
  type CallbackContext,
  type ClientAuthenticationCallback,
  clientAuthenticationAnonymous,
  clientAuthenticationClientAttestationJwt,
  clientAuthenticationNone,
  createClientAttestationJwt,
  type HashAlgorithm,
  type Jwk,
  type JwtSignerJwk,
  Oauth2Client,
  Oauth2ClientErrorResponseError,
  Oauth2ResourceUnauthorizedError,
  resourceRequest,
  type SignJwtCallback,
} from '@openid4vc/oauth2';
import { type IssuerMetadataResult, Openid4vciClient } from '@openid4vc/openid4vci';
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../../apps/server/test/backends.ts';
import type { RunningServer } from '../../../apps/server/test/process.ts';
import { makeWalletProviderCa, type WalletProviderCa } from './attestation-ca.ts';
import { type IdentityProvider, registerIdentityProvider, startIdentityProvider } from './identity-provider.ts';
import { activeIaca, type IssuerServer, issuerDatabases, prepareIssuerServer } from './issuer-server.ts';
import { keyProof, preAuthorizedToken as libraryPreAuthorizedToken, requestCredential, withoutPar } from './library-wallet.ts';
import { presentAndVerify } from './mdoc-verify.ts';

/** An mDoc (pre-authorized offers issue mDocs only) whose namespace is its docType. */
const DOC_TYPE = 'com.example.membership.1';
const REDIRECT = 'https://wallet.example/callback';
/** The user at the identity provider (Authorization Code flow): the ID token carries family_name. */
const ADA = 'ada-1991';
/** Wallet clients the tenant registers (docs/wallet-clients.md). */
const DPOP_CLIENT = 'dpop-wallet';
const ATTESTED_CLIENT = 'attested-wallet';
const COMBINED_CLIENT = 'combined-wallet';
const GRANT_TYPES = ['authorization_code', 'urn:ietf:params:oauth:grant-type:pre-authorized_code'];

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** A P-256 key a wallet holds: the public JWK as the libraries take it, and the private key. */
interface WalletKey {
  publicJwk: Jwk;
  privateKey: KeyObject;
  /** The signer the libraries take for DPoP proofs and proofs of possession. */
  signer: JwtSignerJwk;
}

/** What a wallet sent, in order: enough to send it again. */
interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** A refusal as the server answered it. */
interface Refusal {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

const backends = issuerDatabases('vellum_dpop');

describe.each(backends)('DPoP and client attestation with wallet libraries we did not write, on %s (issue 16)', (_name, makeBackend, skip) => {
  let backend: Backend;
  let issuer: IssuerServer;
  let origin: string;
  let tlsFetch: typeof fetch;
  let call: IssuerServer['call'];
  let provider: IdentityProvider;
  let iacaPem: string;
  let configurationId: string;
  /** The wallet provider whose root the attested clients registered, and one nobody registered. */
  let trustedCa: WalletProviderCa;
  let untrustedCa: WalletProviderCa;
  const secondServers: RunningServer[] = [];

  /** Every private key a wallet or wallet provider here signs with, by JWK `x` or by the leaf certificate of an x5c. */
  const keyring = new Map<string, KeyObject>();

  /** A raw request, as a wallet that does not follow the rules would send it. */
  async function send(
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string | undefined },
  ): Promise<Refusal & { text: string }> {
    const res = await tlsFetch(url, { method: init.method ?? 'POST', headers: init.headers ?? {}, ...(init.body === undefined ? {} : { body: init.body }) });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Left empty: the assertions on the body then say what was expected.
    }
    return { status: res.status, body, headers: res.headers, text };
  }

  function newKey(): WalletKey {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const publicJwk = publicKey.export({ format: 'jwk' }) as Jwk;
    keyring.set(publicJwk.x as string, privateKey);
    return { publicJwk, privateKey, signer: { method: 'jwk', alg: 'ES256', publicJwk } };
  }

  /** The libraries' signJwt callback: finds the private key by the signer's JWK or x5c leaf, signs with jose. */
  const signJwt: SignJwtCallback = async (signer, { header, payload }) => {
    const key =
      signer.method === 'jwk' ? keyring.get(signer.publicJwk.x as string) : signer.method === 'x5c' ? keyring.get(signer.x5c[0] as string) : undefined;
    if (!key) throw new Error(`No key here for a ${signer.method} signer`);
    const jwt = await new SignJWT(payload).setProtectedHeader({ ...header, alg: 'ES256' } as Parameters<SignJWT['setProtectedHeader']>[0]).sign(key);
    return { jwt, signerJwk: createPublicKey(key).export({ format: 'jwk' }) as Jwk };
  };
  const hash = (data: Uint8Array, alg: HashAlgorithm) => new Uint8Array(createHash(alg.replace('-', '')).update(data).digest());
  const generateRandom = (n: number) => new Uint8Array(randomBytes(n));

  /**
   * A wallet: the library's client with its callbacks over node:crypto and jose, its own key (for
   * DPoP and for the credential), and a record of every request it sent. With `via`, its requests
   * to the issuer reach that server instead (as through a load balancer), addressed as before.
   */
  function wallet(clientAuthentication: CallbackContext['clientAuthentication'] = clientAuthenticationAnonymous(), key: WalletKey = newKey(), via?: string) {
    const sent: Sent[] = [];
    const recording = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
      const headers = Object.fromEntries(new Headers(init?.headers).entries());
      sent.push({ url, method: init?.method ?? 'GET', headers, body: typeof init?.body === 'string' ? init.body : undefined });
      return tlsFetch(via && url.startsWith(origin) ? `${via}${url.slice(origin.length)}` : url, init);
    }) as typeof fetch;
    const callbacks = { fetch: recording, hash, generateRandom, clientAuthentication, signJwt };
    const client = new Openid4vciClient({ callbacks });
    /** The last request the wallet sent to `path`. */
    const last = (path: string) => {
      const found = sent.filter((s) => new URL(s.url).pathname === path).at(-1);
      if (!found) throw new Error(`The wallet sent nothing to ${path}`);
      return found;
    };
    return { client, oauth2: new Oauth2Client({ callbacks }), key, sent, last };
  }
  type Wallet = ReturnType<typeof wallet>;

  /** A wallet provider's attestation of a wallet instance (the library's createClientAttestationJwt, x5c to `ca`). */
  function attestation(
    ca: WalletProviderCa,
    clientId: string,
    instanceKey: WalletKey,
    options: { expiresAt?: Date; issuedAt?: Date; clientInstanceId?: string } = {},
  ) {
    keyring.set(ca.x5c[0] as string, ca.signingKey);
    return createClientAttestationJwt({
      issuer: 'https://wallet-provider.example',
      clientId,
      ...(options.issuedAt ? { issuedAt: options.issuedAt } : {}),
      expiresAt: options.expiresAt ?? new Date(Date.now() + 3600_000),
      confirmation: { jwk: instanceKey.publicJwk },
      ...(options.clientInstanceId ? { additionalPayload: { client_instance_id: options.clientInstanceId } } : {}),
      callbacks: { signJwt },
      signer: { method: 'x5c', x5c: ca.x5c, alg: 'ES256' },
    });
  }

  /** Standard Mode: the library adds the attestation and a fresh proof of possession to each request. */
  const standardMode = (clientAttestationJwt: string) =>
    clientAuthenticationClientAttestationJwt({ clientAttestationJwt, callbacks: { signJwt, generateRandom } });
  /**
   * Combined Mode: the library has no such client authentication (it always adds a proof of
   * possession), so this one, through the library's own extension point, sends the attestation
   * header alone; the DPoP proof the library adds proves possession of the attested key.
   */
  const combinedMode =
    (clientAttestationJwt: string): ClientAuthenticationCallback =>
    ({ headers }) => {
      headers.set('OAuth-Client-Attestation', clientAttestationJwt);
    };

  /** A request sent in Standard Mode: the attestation and a proof of possession for the issuer. Returns the proof's claims. */
  function standardModeProof(sent: Sent, clientAttestationJwt: string) {
    expect(sent.headers['oauth-client-attestation']).toBe(clientAttestationJwt);
    const pop = decodeJwt(sent.headers['oauth-client-attestation-pop'] as string);
    expect(pop).toMatchObject({ iss: ATTESTED_CLIENT, aud: origin, jti: expect.any(String) });
    return pop;
  }

  /** A request sent in Combined Mode: the attestation alone, no proof of possession of its own. */
  function combinedModeHeaders(sent: Sent, clientAttestationJwt: string) {
    expect(sent.headers['oauth-client-attestation']).toBe(clientAttestationJwt);
    expect(sent.headers['oauth-client-attestation-pop']).toBeUndefined();
  }

  /** A Standard Mode token: a bearer token naming the attested client and its instance, bound to no key. */
  function expectStandardModeToken(accessTokenResponse: { token_type: string; access_token: string }, clientInstanceId: string) {
    expect(accessTokenResponse.token_type).toBe('Bearer');
    const claims = decodeJwt(accessTokenResponse.access_token);
    expect(claims).toMatchObject({ client_id: ATTESTED_CLIENT, client_instance_id: clientInstanceId });
    expect(claims.cnf).toBeUndefined();
  }

  /** A Combined Mode token: a DPoP token naming the attested client and its instance, bound to the attested key. */
  async function expectCombinedModeToken(accessTokenResponse: { token_type: string; access_token: string }, instance: WalletKey, clientInstanceId: string) {
    expect(accessTokenResponse.token_type).toBe('DPoP');
    expect(decodeJwt(accessTokenResponse.access_token)).toMatchObject({
      cnf: { jkt: await calculateJwkThumbprint(instance.publicJwk as JWK, 'sha256') },
      client_id: COMBINED_CLIENT,
      client_instance_id: clientInstanceId,
    });
  }

  async function preAuthorizedOffer() {
    const res = await call('POST', '/v1/openid/offers/pre-authorized', { credentials: [configurationId], claims: { family_name: 'Okafor' } });
    expect(res.status, res.text).toBe(200);
    return res.json() as { uri: string; id: string };
  }

  /** A fresh offer's pre-authorized code, as the wallet library reads it from the offer. */
  async function freshCode(): Promise<string> {
    const offer = await wallet().client.resolveCredentialOffer((await preAuthorizedOffer()).uri);
    const code = offer.grants?.['urn:ietf:params:oauth:grant-type:pre-authorized_code']?.['pre-authorized_code'];
    expect(code).toEqual(expect.any(String));
    return code as string;
  }

  /** A token request the wallet sent, its form with a fresh offer's code in place of the spent one: to send it again. */
  async function withFreshCode(sent: Sent) {
    const code = await freshCode();
    const form = new URLSearchParams(sent.body);
    form.set('pre-authorized_code', code);
    return { code, form };
  }

  /** The wallet library's Pre-authorized Code run up to the token, with DPoP when `dpop` is given. */
  async function preAuthorizedToken(device: Wallet, dpop?: JwtSignerJwk) {
    const created = await preAuthorizedOffer();
    return libraryPreAuthorizedToken(device.client, created.uri, dpop ? { dpop: { signer: dpop } } : {});
  }

  /** The credential request, by the library: a nonce, a proof of the wallet's key, DPoP when `dpop` is given. */
  async function credential(device: Wallet, issuerMetadata: IssuerMetadataResult, accessToken: string, dpop?: JwtSignerJwk) {
    const body = await requestCredential(device.client, {
      issuerMetadata,
      credentialConfigurationId: configurationId,
      signer: device.key.signer,
      accessToken,
      ...(dpop ? { dpop: { signer: dpop } } : {}),
    });
    expect(body.credentials).toHaveLength(1);
    return body.credentials?.[0]?.credential as string;
  }

  /** A credential request body as the library makes it (a fresh nonce and proof), for requests sent by hand. */
  async function credentialBody(device: Wallet, issuerMetadata: IssuerMetadataResult) {
    const jwt = await keyProof(device.client, issuerMetadata, configurationId, device.key.signer);
    return JSON.stringify({ credential_configuration_id: configurationId, proofs: { jwt: [jwt] } });
  }

  /**
   * The mDoc verifies with @auth0/mdl against the IACA, presented with the wallet's key as device key
   * (so it was issued to that key), and holds the family name.
   */
  async function verifyCredential(issued: string, device: Wallet) {
    const { document } = await presentAndVerify(issued, DOC_TYPE, device.key.privateKey, iacaPem);
    expect(document?.docType).toBe(DOC_TYPE);
    expect(document?.getIssuerNameSpace(DOC_TYPE)).toMatchObject({ family_name: 'Okafor' });
  }

  /** A DPoP proof made by hand with jose (RFC 9449 §4.2), for the proofs the library will not make. */
  function handProof(key: WalletKey, claims: { htm: string; htu: string; ath?: string }) {
    return new SignJWT({ ...claims, jti: randomUUID() })
      .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk as JWK })
      .setIssuedAt()
      .sign(key.privateKey);
  }

  /** The refusal a library call ended with (Oauth2ClientErrorResponseError carries the response). */
  async function refusalOf(promise: Promise<unknown>): Promise<Refusal> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof Oauth2ClientErrorResponseError))
      throw new Error(`Expected an error response, got ${error === undefined ? 'success' : String(error)}`);
    return { status: error.response.status, body: error.errorResponse as Record<string, unknown>, headers: error.response.headers };
  }

  /** A resource refusal's DPoP challenge, parsed by the library (RFC 9449 §7.1). */
  function challengeOf(refusal: { headers: Headers }) {
    const header = refusal.headers.get('www-authenticate');
    expect(header).toEqual(expect.any(String));
    const [challenge] = Oauth2ResourceUnauthorizedError.fromHeaderValue(header as string).wwwAuthenticateHeaders;
    return challenge as { scheme: string; error?: string; error_description?: string; [k: string]: unknown };
  }

  /** An Authorization Code offer, resolved by the wallet library with the issuer's metadata. */
  async function authorizationCodeOffer(device: Wallet) {
    const offer = await call('POST', '/v1/openid/offers', { credentials: [configurationId] });
    expect(offer.status, offer.text).toBe(200);
    const credentialOffer = await device.client.resolveCredentialOffer(offer.json().uri);
    const issuerMetadata = await device.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    return { credentialOffer, issuerMetadata };
  }

  /**
   * The browser of an Authorization Code run: from the authorization request through Vellum and the
   * identity provider (Ada signs in) back to the wallet, whose library reads the code off the redirect.
   */
  async function signIn(device: Wallet, authorizationRequestUrl: string, issuerMetadata: IssuerMetadataResult): Promise<string> {
    let url = authorizationRequestUrl;
    for (let hop = 0; hop < 8 && !url.startsWith(REDIRECT); hop++) {
      if (new URL(url).origin === new URL(provider.issuer).origin) {
        url = await provider.signIn(url, ADA);
        continue;
      }
      const res = await tlsFetch(url);
      const location = res.headers.get('location');
      if ((res.status !== 302 && res.status !== 303) || !location) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
      url = new URL(location, url).toString();
    }
    const authorizationServerMetadata = issuerMetadata.authorizationServers[0] as AuthorizationServerMetadata;
    const response = device.client.parseAndVerifyAuthorizationResponseRedirectUrl({ url, authorizationServerMetadata });
    if (response.error !== undefined) throw new Error(`The wallet was sent back with ${response.error}: ${response.error_description}`);
    return response.code;
  }

  /** The library redeems the code it was sent back with, with the PKCE verifier of its request (and DPoP when `dpop` is given). */
  function codeToken(
    device: Wallet,
    offer: Awaited<ReturnType<typeof authorizationCodeOffer>>,
    code: string,
    pkceCodeVerifier: string | undefined,
    dpop?: JwtSignerJwk,
  ) {
    return device.client.retrieveAuthorizationCodeAccessTokenFromOffer({
      ...offer,
      authorizationCode: code,
      pkceCodeVerifier,
      redirectUri: REDIRECT,
      ...(dpop ? { dpop: { signer: dpop } } : {}),
    });
  }

  /** The Authorization Code token request sent by hand (with `headers` such as a DPoP proof), for requests the library would not send. */
  function redeemByHand(got: { clientId: string; code: string; codeVerifier: string | undefined }, headers: Record<string, string> = {}) {
    const form = { grant_type: 'authorization_code', client_id: got.clientId, code: got.code, redirect_uri: REDIRECT, code_verifier: got.codeVerifier ?? '' };
    return send(`${origin}/v1/oauth/token`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  }

  /** A second server process on the same database, with the same public URL, on its own port (and `extra` settings). */
  async function secondServer(extra: Record<string, string> = {}): Promise<string> {
    const { server, base } = await issuer.secondServer(extra);
    secondServers.push(server);
    return base;
  }

  beforeAll(async () => {
    if (skip) return;
    backend = makeBackend();
    issuer = await prepareIssuerServer({ database: await backend.env(), outboundToLoopback: true });
    ({ origin, tlsFetch, call } = issuer);
    trustedCa = makeWalletProviderCa('Acme Wallets');
    untrustedCa = makeWalletProviderCa('Mallory Wallets');

    // The identity provider of the Authorization Code flow knows Vellum as a confidential client.
    provider = await startIdentityProvider(issuer, { [ADA]: { family_name: 'Okafor' } });

    await issuer.start();
    iacaPem = await activeIaca(issuer);
    // family_name: from the offer's claims (Pre-authorized Code) or the ID token (Authorization Code).
    const configuration = await call('POST', '/v2/credentials/mobile/configurations', {
      type: DOC_TYPE,
      name: 'Membership card',
      expiresIn: { days: 30 },
      claimMappings: { [DOC_TYPE]: { family_name: { mapFrom: 'claims.family_name', required: true } } },
    });
    expect(configuration.status, configuration.text).toBe(201);
    configurationId = configuration.json().id;

    await registerIdentityProvider(issuer, provider);

    const clients = [
      { clientId: DPOP_CLIENT, clientName: 'A wallet that always uses DPoP', dpop: { required: true } },
      { clientId: ATTESTED_CLIENT, clientName: 'An attested wallet (Standard Mode)', clientAttestation: { rootCertificates: [trustedCa.rootPem] } },
      {
        clientId: COMBINED_CLIENT,
        clientName: 'An attested wallet (Combined Mode)',
        clientAttestation: { rootCertificates: [trustedCa.rootPem], dpopRequired: true },
      },
    ];
    for (const body of clients) {
      const created = await call('POST', '/v1/openid/clients', {
        ...body,
        redirectUris: [REDIRECT],
        grantTypes: GRANT_TYPES,
        tokenEndpointAuthMethod: 'none',
      });
      expect(created.status, created.text).toBe(201);
      expect(created.json()).toMatchObject(body);
    }
  });

  afterAll(async () => {
    if (skip) return;
    for (const s of secondServers) await s.stop();
    await issuer?.stop();
    await provider?.close();
    await backend?.cleanup();
  });

  // ----- the wallet libraries' runs -----

  it.skipIf(skip)(
    'advertises DPoP and attest_jwt_client_auth, and the wallet library reads both as supported (RFC 9449 §5.1, attestation draft §10)',
    async () => {
      const device = wallet();
      const metadata = await device.oauth2.fetchAuthorizationServerMetadata(origin);
      expect(metadata).toMatchObject({ issuer: origin, dpop_signing_alg_values_supported: ['ES256', 'EdDSA'] });
      expect(metadata?.token_endpoint_auth_methods_supported).toContain('attest_jwt_client_auth');
      const authorizationServerMetadata = metadata as AuthorizationServerMetadata;
      expect(device.oauth2.isDpopSupported({ authorizationServerMetadata })).toEqual({ supported: true, dpopSigningAlgValuesSupported: ['ES256', 'EdDSA'] });
      expect(device.oauth2.isClientAttestationSupported({ authorizationServerMetadata })).toEqual({ supported: true });
    },
  );

  it.skipIf(skip)(
    'Pre-authorized Code with DPoP: a token bound to the key (cnf.jkt), the credential issued with DPoP, and the same token as Bearer refused (RFC 9449 §5, §6.1, §7)',
    async () => {
      const device = wallet();
      const { accessTokenResponse, issuerMetadata } = await preAuthorizedToken(device, device.key.signer);
      expect(accessTokenResponse.token_type).toBe('DPoP');
      const token = accessTokenResponse.access_token;
      expect(decodeJwt(token).cnf).toEqual({ jkt: await calculateJwkThumbprint(device.key.publicJwk as JWK, 'sha256') });
      // The library put a proof on the token request, for the token endpoint.
      const tokenRequest = device.last('/v1/oauth/token');
      expect(decodeJwt(tokenRequest.headers.dpop as string)).toMatchObject({ htm: 'POST', htu: `${origin}/v1/oauth/token` });

      const issued = await credential(device, issuerMetadata, token, device.key.signer);
      const sent = device.last('/v1/openid/credential');
      expect(sent.headers.authorization).toBe(`DPoP ${token}`);
      expect(decodeJwt(sent.headers.dpop as string)).toMatchObject({ htm: 'POST', htu: `${origin}/v1/openid/credential`, ath: sha256(token) });
      await verifyCredential(issued, device);

      // RFC 9449 §7.2: a DPoP-bound token is no bearer token. The library sends it as Bearer without dpop.
      const body = await credentialBody(device, issuerMetadata);
      const asBearer = await resourceRequest({
        url: `${origin}/v1/openid/credential`,
        accessToken: token,
        callbacks: { fetch: tlsFetch, hash, generateRandom, signJwt },
        requestOptions: { method: 'POST', headers: { 'content-type': 'application/json' }, body },
      });
      if (asBearer.ok) throw new Error('The credential endpoint took a DPoP-bound token as a bearer token');
      expect(asBearer.response.status).toBe(401);
      expect(asBearer.wwwAuthenticate?.[0]).toMatchObject({ scheme: 'DPoP', error: 'invalid_token' });
      expect(await asBearer.response.json()).toMatchObject({ error: 'invalid_token', error_description: expect.stringContaining('DPoP') });
    },
  );

  it.skipIf(skip).each([true, false])(
    'Authorization Code with DPoP (pushed request: %s): the code is bound to the key, the token carries cnf.jkt, and the credential is issued (RFC 9449 §10)',
    async (par) => {
      const device = wallet(clientAuthenticationNone({ clientId: DPOP_CLIENT }));
      const { credentialOffer, issuerMetadata: resolved } = await authorizationCodeOffer(device);
      // Without PAR, the library names the key by dpop_jkt in the authorization request (RFC 9449 §10).
      const issuerMetadata = par ? resolved : withoutPar(resolved);
      const started = await device.client.initiateAuthorization({
        credentialOffer,
        issuerMetadata,
        clientId: DPOP_CLIENT,
        redirectUri: REDIRECT,
        scope: `mso_mdoc:${DOC_TYPE}`,
        dpop: { signer: device.key.signer },
      });
      if (!('authorizationRequestUrl' in started)) throw new Error(`Expected a redirect-based authorization, got ${started.authorizationFlow}`);
      const requestUrl = new URL(started.authorizationRequestUrl);
      const jkt = await calculateJwkThumbprint(device.key.publicJwk as JWK, 'sha256');
      if (par) {
        expect([...requestUrl.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
        expect(decodeJwt(device.last('/v1/oauth/par').headers.dpop as string)).toMatchObject({ htm: 'POST', htu: `${origin}/v1/oauth/par` });
      } else {
        expect(requestUrl.searchParams.get('dpop_jkt')).toBe(jkt);
      }

      const code = await signIn(device, started.authorizationRequestUrl, issuerMetadata);

      // The code is bound to the key: a proof by another key is refused, and does not spend the code.
      const byHand = { clientId: DPOP_CLIENT, code, codeVerifier: started.pkce?.codeVerifier };
      const otherKey = newKey();
      const byOtherKey = await redeemByHand(byHand, { dpop: await handProof(otherKey, { htm: 'POST', htu: `${origin}/v1/oauth/token` }) });
      expect(byOtherKey.status, byOtherKey.text).toBe(400);
      expect(byOtherKey.body).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining('dpop_jkt') });
      const withoutProof = await redeemByHand(byHand);
      expect(withoutProof.status, withoutProof.text).toBe(400);
      expect(withoutProof.body.error).toBe('invalid_dpop_proof');

      const { accessTokenResponse } = await codeToken(device, { credentialOffer, issuerMetadata }, code, started.pkce?.codeVerifier, device.key.signer);
      expect(accessTokenResponse.token_type).toBe('DPoP');
      expect(decodeJwt(accessTokenResponse.access_token)).toMatchObject({ cnf: { jkt }, client_id: DPOP_CLIENT });
      const issued = await credential(device, issuerMetadata, accessTokenResponse.access_token, device.key.signer);
      await verifyCredential(issued, device);
    },
  );

  it.skipIf(skip)(
    'client attestation, Standard Mode: the library adds attestation and proof of possession, and the token names the client and its instance',
    async () => {
      const device = wallet();
      const jwt = await attestation(trustedCa, ATTESTED_CLIENT, device.key, { clientInstanceId: 'instance-standard-1' });
      const attested = wallet(standardMode(jwt), device.key);
      const { accessTokenResponse, issuerMetadata } = await preAuthorizedToken(attested);
      // The library sent the attestation and a proof of possession for the issuer, and no client_id.
      const sent = attested.last('/v1/oauth/token');
      standardModeProof(sent, jwt);
      expect(new URLSearchParams(sent.body).get('client_id')).toBeNull();

      expectStandardModeToken(accessTokenResponse, 'instance-standard-1');
      await verifyCredential(await credential(attested, issuerMetadata, accessTokenResponse.access_token), attested);
      // The issued-credential record names the client and the instance the wallet provider attested.
      const records = await call('GET', '/v2/credentials?format=mso_mdoc&limit=100');
      expect(records.status, records.text).toBe(200);
      expect(records.json().data).toContainEqual(
        expect.objectContaining({ clientId: ATTESTED_CLIENT, clientInstanceId: 'instance-standard-1', format: 'mso_mdoc' }),
      );
    },
  );

  it.skipIf(skip)(
    'client attestation, Combined Mode: the attestation alone, and the DPoP proof signed with the attested key (cnf.jwk) binds the token to it',
    async () => {
      const instance = newKey();
      const jwt = await attestation(trustedCa, COMBINED_CLIENT, instance, { clientInstanceId: 'instance-combined-1' });
      const device = wallet(combinedMode(jwt), instance);
      const { accessTokenResponse, issuerMetadata } = await preAuthorizedToken(device, instance.signer);
      combinedModeHeaders(device.last('/v1/oauth/token'), jwt);
      await expectCombinedModeToken(accessTokenResponse, instance, 'instance-combined-1');
      await verifyCredential(await credential(device, issuerMetadata, accessTokenResponse.access_token, instance.signer), device);
    },
  );

  it.skipIf(skip)(
    'Authorization Code with client attestation, Standard Mode: the library attests the client at PAR and at the token endpoint, each time with a new proof of possession, and the token names the client and its instance (RFC 9126 §2, attestation draft §6)',
    async () => {
      const instance = newKey();
      const jwt = await attestation(trustedCa, ATTESTED_CLIENT, instance, { clientInstanceId: 'instance-standard-code-1' });
      const device = wallet(standardMode(jwt), instance);
      const { credentialOffer, issuerMetadata } = await authorizationCodeOffer(device);
      const request = { credentialOffer, issuerMetadata, clientId: ATTESTED_CLIENT, redirectUri: REDIRECT, scope: `mso_mdoc:${DOC_TYPE}` };

      // The same pushed request from a wallet that names the client but sends no attestation is not taken.
      const unattested = await refusalOf(wallet(clientAuthenticationNone({ clientId: ATTESTED_CLIENT }), instance).client.initiateAuthorization(request));
      expect(unattested.status).toBe(401);
      expect(unattested.body).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('attestation') });

      const started = await device.client.initiateAuthorization(request);
      if (!('authorizationRequestUrl' in started)) throw new Error(`Expected a redirect-based authorization, got ${started.authorizationFlow}`);
      expect([...new URL(started.authorizationRequestUrl).searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
      const pushed = device.last('/v1/oauth/par');
      const parPop = standardModeProof(pushed, jwt);
      expect(new URLSearchParams(pushed.body).get('client_id')).toBe(ATTESTED_CLIENT);

      const code = await signIn(device, started.authorizationRequestUrl, issuerMetadata);
      // The code redeemed without the attestation: 401 invalid_client, and the code is not spent.
      const withoutAttestation = await redeemByHand({ clientId: ATTESTED_CLIENT, code, codeVerifier: started.pkce?.codeVerifier });
      expect(withoutAttestation.status, withoutAttestation.text).toBe(401);
      expect(withoutAttestation.body).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('attestation') });

      const { accessTokenResponse } = await codeToken(device, { credentialOffer, issuerMetadata }, code, started.pkce?.codeVerifier);
      // The library sent the attestation again with a proof of its own, and no client_id: the attestation names the client.
      const tokenRequest = device.last('/v1/oauth/token');
      const tokenPop = standardModeProof(tokenRequest, jwt);
      expect(tokenPop.jti).not.toBe(parPop.jti);
      expect(new URLSearchParams(tokenRequest.body).get('client_id')).toBeNull();

      expectStandardModeToken(accessTokenResponse, 'instance-standard-code-1');
      await verifyCredential(await credential(device, issuerMetadata, accessTokenResponse.access_token), device);
    },
  );

  it.skipIf(skip)(
    'Authorization Code with client attestation, Combined Mode: the attestation alone at PAR and at the token endpoint, proven by DPoP proofs of the attested key, to which the code and the token are bound (attestation draft §6, RFC 9449 §10.1)',
    async () => {
      const instance = newKey();
      const jkt = await calculateJwkThumbprint(instance.publicJwk as JWK, 'sha256');
      const jwt = await attestation(trustedCa, COMBINED_CLIENT, instance, { clientInstanceId: 'instance-combined-code-1' });
      const device = wallet(combinedMode(jwt), instance);
      const { credentialOffer, issuerMetadata } = await authorizationCodeOffer(device);
      const request = { credentialOffer, issuerMetadata, clientId: COMBINED_CLIENT, redirectUri: REDIRECT, scope: `mso_mdoc:${DOC_TYPE}` };

      // Pushed without the attestation: 401 invalid_client. With it, but without a DPoP proof or with
      // one by another key (nothing then proves the attested key): 400 invalid_client_attestation.
      const unattested = await refusalOf(
        wallet(clientAuthenticationNone({ clientId: COMBINED_CLIENT }), instance).client.initiateAuthorization({
          ...request,
          dpop: { signer: instance.signer },
        }),
      );
      expect(unattested.status).toBe(401);
      expect(unattested.body).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('attestation') });
      const withoutDpop = await refusalOf(device.client.initiateAuthorization(request));
      expect(withoutDpop.status).toBe(400);
      expect(withoutDpop.body).toMatchObject({ error: 'invalid_client_attestation', error_description: expect.stringContaining('DPoP') });
      const byOtherKey = await refusalOf(device.client.initiateAuthorization({ ...request, dpop: { signer: newKey().signer } }));
      expect(byOtherKey.status).toBe(400);
      expect(byOtherKey.body).toMatchObject({ error: 'invalid_client_attestation', error_description: expect.stringContaining('attested key') });

      const started = await device.client.initiateAuthorization({ ...request, dpop: { signer: instance.signer } });
      if (!('authorizationRequestUrl' in started)) throw new Error(`Expected a redirect-based authorization, got ${started.authorizationFlow}`);
      const pushed = device.last('/v1/oauth/par');
      combinedModeHeaders(pushed, jwt);
      expect(decodeJwt(pushed.headers.dpop as string)).toMatchObject({ htm: 'POST', htu: `${origin}/v1/oauth/par` });
      expect(await calculateJwkThumbprint(decodeProtectedHeader(pushed.headers.dpop as string).jwk as JWK, 'sha256')).toBe(jkt);

      const code = await signIn(device, started.authorizationRequestUrl, issuerMetadata);
      const { accessTokenResponse } = await codeToken(device, { credentialOffer, issuerMetadata }, code, started.pkce?.codeVerifier, instance.signer);
      combinedModeHeaders(device.last('/v1/oauth/token'), jwt);
      await expectCombinedModeToken(accessTokenResponse, instance, 'instance-combined-code-1');
      await verifyCredential(await credential(device, issuerMetadata, accessTokenResponse.access_token, instance.signer), device);
    },
  );

  it.skipIf(skip)(
    'a server that requires DPoP nonces: the library retries with the DPoP-Nonce it is given, at the token and at the credential endpoint (RFC 9449 §8, §9)',
    async () => {
      const nonceServer = await secondServer({ VELLUM_DPOP_NONCE_REQUIRED: 'true' });
      const device = wallet(clientAuthenticationAnonymous(), newKey(), nonceServer);
      const { accessTokenResponse, issuerMetadata, dpopNonce } = await preAuthorizedToken(device, device.key.signer);
      expect(accessTokenResponse.token_type).toBe('DPoP');
      // The first proof had no nonce and was refused with use_dpop_nonce; the library sent a second with the nonce.
      const tokenProofs = device.sent.filter((s) => s.url === `${origin}/v1/oauth/token`).map((s) => decodeJwt(s.headers.dpop as string));
      expect(tokenProofs).toHaveLength(2);
      expect(tokenProofs[0]?.nonce).toBeUndefined();
      expect(tokenProofs[1]?.nonce).toEqual(expect.any(String));
      // The token answer carried the next nonce (RFC 9449 §8.2).
      expect(dpopNonce).toEqual(expect.any(String));

      // The credential request without a nonce: refused with a DPoP challenge (use_dpop_nonce), then retried.
      const issued = await credential(device, issuerMetadata, accessTokenResponse.access_token, device.key.signer);
      const credentialProofs = device.sent.filter((s) => s.url === `${origin}/v1/openid/credential`).map((s) => decodeJwt(s.headers.dpop as string));
      expect(credentialProofs).toHaveLength(2);
      expect(credentialProofs[0]?.nonce).toBeUndefined();
      expect(credentialProofs[1]?.nonce).toEqual(expect.any(String));
      await verifyCredential(issued, device);

      // What the library was told the first time: the status, the body and the challenge.
      const refused = await send(`${nonceServer}/v1/oauth/token`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: await handProof(device.key, { htm: 'POST', htu: `${origin}/v1/oauth/token` }) },
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
          'pre-authorized_code': await freshCode(),
        }).toString(),
      });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body).toMatchObject({ error: 'use_dpop_nonce', error_description: expect.any(String) });
      expect(refused.headers.get('dpop-nonce')).toEqual(expect.any(String));
    },
  );

  // ----- refusals: each the error its standard names, never a 5xx -----

  /** A whole run with DPoP by the library, token and credential, and the two requests it sent: to replay them. */
  async function dpopRun() {
    const device = wallet();
    const { accessTokenResponse, issuerMetadata } = await preAuthorizedToken(device, device.key.signer);
    await credential(device, issuerMetadata, accessTokenResponse.access_token, device.key.signer);
    return { device, tokenRequest: device.last('/v1/oauth/token'), credentialRequest: device.last('/v1/openid/credential') };
  }

  it.skipIf(skip)('a DPoP proof works once: replayed on the same server it is refused at the token and the credential endpoints (RFC 9449 §11.1)', async () => {
    const { device, tokenRequest, credentialRequest } = await dpopRun();

    // The token request's proof, with a fresh code: refused, and the code is not spent.
    const { form } = await withFreshCode(tokenRequest);
    const replayed = await send(tokenRequest.url, { headers: tokenRequest.headers, body: form.toString() });
    expect(replayed.status, replayed.text).toBe(400);
    expect(replayed.body).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining('has been used') });
    const withFreshProof = await send(tokenRequest.url, {
      headers: { ...tokenRequest.headers, dpop: await handProof(device.key, { htm: 'POST', htu: tokenRequest.url }) },
      body: form.toString(),
    });
    expect(withFreshProof.status, withFreshProof.text).toBe(200);
    expect(withFreshProof.body.token_type).toBe('DPoP');

    // The credential request, sent again as it was: 401 with the DPoP challenge (RFC 9449 §7.1).
    const again = await send(credentialRequest.url, { headers: credentialRequest.headers, body: credentialRequest.body });
    expect(again.status, again.text).toBe(401);
    expect(again.body).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining('has been used') });
    expect(challengeOf(again)).toMatchObject({ scheme: 'DPoP', error: 'invalid_dpop_proof', algs: 'ES256 EdDSA' });
  });

  it.skipIf(skip)('a DPoP proof one server took is refused by a second server process on the same database (RFC 9449 §11.1)', async () => {
    const { device, tokenRequest, credentialRequest } = await dpopRun();

    const other = await secondServer();
    const { form } = await withFreshCode(tokenRequest);
    const replayed = await send(`${other}/v1/oauth/token`, { headers: tokenRequest.headers, body: form.toString() });
    expect(replayed.status, replayed.text).toBe(400);
    expect(replayed.body).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining('has been used') });
    const again = await send(`${other}/v1/openid/credential`, { headers: credentialRequest.headers, body: credentialRequest.body });
    expect(again.status, again.text).toBe(401);
    expect(again.body).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining('has been used') });
    expect(challengeOf(again)).toMatchObject({ scheme: 'DPoP', error: 'invalid_dpop_proof' });

    // The second server is the same issuer: a fresh proof for the same code and URL is taken there.
    const taken = await send(`${other}/v1/oauth/token`, {
      headers: { ...tokenRequest.headers, dpop: await handProof(device.key, { htm: 'POST', htu: `${origin}/v1/oauth/token` }) },
      body: form.toString(),
    });
    expect(taken.status, taken.text).toBe(200);
    expect(decodeJwt(taken.body.access_token as string).cnf).toEqual({ jkt: await calculateJwkThumbprint(device.key.publicJwk as JWK, 'sha256') });
  });

  it.skipIf(skip)(
    'proofs for another URL (htu), another method (htm), without ath, or by another key than cnf.jkt are refused with 401 invalid_dpop_proof, and a right one then works (RFC 9449 §4.3, §7.1)',
    async () => {
      const device = wallet();
      const { accessTokenResponse, issuerMetadata } = await preAuthorizedToken(device, device.key.signer);
      const token = accessTokenResponse.access_token;
      const credentialUrl = `${origin}/v1/openid/credential`;
      const body = await credentialBody(device, issuerMetadata);
      const ath = sha256(token);
      const otherKey = newKey();
      const cases: Array<[string, Promise<string>, string]> = [
        ['wrong htu', handProof(device.key, { htm: 'POST', htu: `${origin}/v1/openid/notification`, ath }), 'htu'],
        ['wrong htm', handProof(device.key, { htm: 'GET', htu: credentialUrl, ath }), 'htm'],
        ['no ath', handProof(device.key, { htm: 'POST', htu: credentialUrl }), 'ath'],
        ['another key', handProof(otherKey, { htm: 'POST', htu: credentialUrl, ath }), 'bound to'],
      ];
      for (const [what, proof, about] of cases) {
        const refused = await send(credentialUrl, {
          headers: { authorization: `DPoP ${token}`, dpop: await proof, 'content-type': 'application/json' },
          body,
        });
        expect(refused.status, `${what}: ${refused.text}`).toBe(401);
        expect(refused.body, what).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining(about) });
        expect(challengeOf(refused), what).toMatchObject({ scheme: 'DPoP', error: 'invalid_dpop_proof' });
      }
      // The token and the request were good: with a right proof the same request is answered.
      const right = await send(credentialUrl, {
        headers: {
          authorization: `DPoP ${token}`,
          dpop: await handProof(device.key, { htm: 'POST', htu: credentialUrl, ath }),
          'content-type': 'application/json',
        },
        body,
      });
      expect(right.status, right.text).toBe(200);
      await verifyCredential((right.body.credentials as Array<{ credential: string }>)[0]?.credential as string, device);
    },
  );

  it.skipIf(skip)(
    'at the token endpoint, proofs for another URL or method are 400 invalid_dpop_proof, and a dpop.required client without a proof too (RFC 9449 §5, §4.3)',
    async () => {
      const device = wallet();
      const tokenUrl = `${origin}/v1/oauth/token`;
      const code = await freshCode();
      const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': code }).toString();
      const headers = { 'content-type': 'application/x-www-form-urlencoded' };
      for (const [what, claims, about] of [
        ['wrong htu', { htm: 'POST', htu: `${origin}/v1/oauth/par` }, 'htu'],
        ['wrong htm', { htm: 'PUT', htu: tokenUrl }, 'htm'],
      ] as const) {
        const refused = await send(tokenUrl, { headers: { ...headers, dpop: await handProof(device.key, claims) }, body: form });
        expect(refused.status, `${what}: ${refused.text}`).toBe(400);
        expect(refused.body, what).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining(about) });
      }
      // A client registered with dpop.required, asking without a proof (the library, no dpop).
      const dpopClient = wallet(clientAuthenticationNone({ clientId: DPOP_CLIENT }));
      const refused = await refusalOf(preAuthorizedToken(dpopClient));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: 'invalid_dpop_proof', error_description: expect.stringContaining('dpop.required') });
      // None of these spent the code.
      const taken = await send(tokenUrl, { headers: { ...headers, dpop: await handProof(device.key, { htm: 'POST', htu: tokenUrl }) }, body: form });
      expect(taken.status, taken.text).toBe(200);
    },
  );

  it.skipIf(skip)(
    'an expired attestation and one whose chain leads to an untrusted root are 400 invalid_client_attestation; none at all is 401 invalid_client',
    async () => {
      const device = wallet();
      const created = await preAuthorizedOffer();
      const credentialOffer = await device.client.resolveCredentialOffer(created.uri);
      const issuerMetadata = await device.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
      const redeem = (w: Wallet) => w.client.retrievePreAuthorizedCodeAccessTokenFromOffer({ credentialOffer, issuerMetadata });

      const expired = await attestation(trustedCa, ATTESTED_CLIENT, device.key, {
        issuedAt: new Date(Date.now() - 7200_000),
        expiresAt: new Date(Date.now() - 3600_000),
      });
      const expiredRefusal = await refusalOf(redeem(wallet(standardMode(expired), device.key)));
      expect(expiredRefusal.status).toBe(400);
      expect(expiredRefusal.body).toMatchObject({ error: 'invalid_client_attestation', error_description: expect.stringContaining('expired') });

      const untrusted = await attestation(untrustedCa, ATTESTED_CLIENT, device.key);
      const untrustedRefusal = await refusalOf(redeem(wallet(standardMode(untrusted), device.key)));
      expect(untrustedRefusal.status).toBe(400);
      expect(untrustedRefusal.body).toMatchObject({ error: 'invalid_client_attestation', error_description: expect.stringContaining('trusted root') });

      const none = await refusalOf(redeem(wallet(clientAuthenticationNone({ clientId: ATTESTED_CLIENT }), device.key)));
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('attestation') });

      // The code was not spent by any of them: a good attestation redeems it.
      const good = await attestation(trustedCa, ATTESTED_CLIENT, device.key);
      const { accessTokenResponse } = await redeem(wallet(standardMode(good), device.key));
      expect(decodeJwt(accessTokenResponse.access_token).client_id).toBe(ATTESTED_CLIENT);
    },
  );

  it.skipIf(skip)('a proof of possession works once: the same attestation and PoP sent again are 400 invalid_client_attestation', async () => {
    const device = wallet();
    const jwt = await attestation(trustedCa, ATTESTED_CLIENT, device.key);
    const attested = wallet(standardMode(jwt), device.key);
    await preAuthorizedToken(attested);
    const first = attested.last('/v1/oauth/token');

    const { code: fresh, form } = await withFreshCode(first);
    const replayed = await send(first.url, { headers: first.headers, body: form.toString() });
    expect(replayed.status, replayed.text).toBe(400);
    expect(replayed.body).toMatchObject({ error: 'invalid_client_attestation', error_description: expect.stringContaining('has been used') });
    // With a new proof of possession (the library makes one per request) the same code is redeemed.
    const { accessTokenResponse } = await attested.oauth2.retrievePreAuthorizedCodeAccessToken({
      authorizationServerMetadata: (await attested.oauth2.fetchAuthorizationServerMetadata(origin)) as AuthorizationServerMetadata,
      preAuthorizedCode: fresh,
    });
    expect(decodeJwt(accessTokenResponse.access_token).client_id).toBe(ATTESTED_CLIENT);
  });

  it.skipIf(skip)('Combined Mode without DPoP, or with a DPoP proof by another key than cnf.jwk, is 400 invalid_client_attestation', async () => {
    const instance = newKey();
    const jwt = await attestation(trustedCa, COMBINED_CLIENT, instance);
    const device = wallet(combinedMode(jwt), instance);
    const created = await preAuthorizedOffer();
    const credentialOffer = await device.client.resolveCredentialOffer(created.uri);
    const issuerMetadata = await device.client.resolveIssuerMetadata(credentialOffer.credential_issuer);
    const redeem = (dpop?: JwtSignerJwk) =>
      device.client.retrievePreAuthorizedCodeAccessTokenFromOffer({ credentialOffer, issuerMetadata, ...(dpop ? { dpop: { signer: dpop } } : {}) });

    const withoutDpop = await refusalOf(redeem());
    expect(withoutDpop.status).toBe(400);
    expect(withoutDpop.body).toMatchObject({ error: 'invalid_client_attestation', error_description: expect.stringContaining('DPoP') });
    const byOtherKey = await refusalOf(redeem(newKey().signer));
    expect(byOtherKey.status).toBe(400);
    expect(byOtherKey.body).toMatchObject({ error: 'invalid_client_attestation', error_description: expect.stringContaining('attested key') });
    const { accessTokenResponse } = await redeem(instance.signer);
    expect(accessTokenResponse.token_type).toBe('DPoP');
  });

  it.skipIf(skip)('answered no request of these runs with a 5xx, on either server process', () => {
    expect(secondServers.length).toBeGreaterThan(0);
    for (const s of [issuer.server, ...secondServers]) {
      // The log does carry each answer's status (the refusals above were 400 and 401), and none is a 5xx.
      expect(s.output()).toMatch(/"statusCode":4\d\d/);
      expect(s.output()).not.toMatch(/"statusCode":5\d\d/);
    }
  });
});
