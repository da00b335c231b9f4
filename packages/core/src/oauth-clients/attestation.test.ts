import { createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contextFor, harness } from '../../test/harness.ts';
import { dpopProof, fakeJwtProofVerifier, jwkThumbprint, signJwt, walletKey, type WalletKey } from '../../test/kit.ts';
import { type AttestationHeaders, attestedClientId, checkClientAttestation } from './attestation.ts';
import type { WalletClient } from './model.ts';
import { refusal } from '../../test/refusal.ts';

// Certificates for the tests, DER written by hand from RFC 5280 §4.1 and signed with node:crypto,
// so that the x5c chains are real X.509 the verifier parses and checks link by link.
const der = (tag: number, ...parts: Uint8Array[]): Buffer => {
  const body = Buffer.concat(parts);
  const length: number[] = [];
  for (let n = body.length; n > 0; n >>= 8) length.unshift(n & 0xff);
  const header = body.length < 0x80 ? [tag, body.length] : [tag, 0x80 | length.length, ...length];
  return Buffer.concat([Buffer.from(header), body]);
};
const sequence = (...parts: Uint8Array[]) => der(0x30, ...parts);
const objectId = (dotted: string) => {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * first + second];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
};
const ECDSA_WITH_SHA256 = sequence(objectId('1.2.840.10045.4.3.2'));
const commonName = (cn: string) => sequence(der(0x31, sequence(objectId('2.5.4.3'), der(0x0c, Buffer.from(cn, 'utf8')))));
const utcTime = (at: string) => der(0x17, Buffer.from(`${new Date(at).toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`, 'ascii'));
let serial = 0;

interface Certificate {
  pem: string;
  /** The standard base64 of the DER, as x5c carries it (RFC 7515 §4.1.6). */
  x5c: string;
  name: string;
  privateKey: KeyObject;
}

/** An X.509 certificate for `subjectKey`, signed by `issuer` (self-signed when none), valid between the two dates. */
function certificate(options: { name: string; subjectKey: KeyObject; issuer?: Certificate; ca: boolean; notBefore?: string; notAfter?: string }): Certificate {
  serial += 1;
  // node:crypto derives the public key, and its SubjectPublicKeyInfo, from the private one.
  const spki = createPublicKey(options.subjectKey).export({ type: 'spki', format: 'der' });
  const basicConstraints = sequence(objectId('2.5.29.19'), der(0x01, Buffer.from([0xff])), der(0x04, sequence(der(0x01, Buffer.from([0xff])))));
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))),
    // Two bytes, the first below 0x80: a positive INTEGER (X.690 §8.3).
    der(0x02, Buffer.from([1, serial & 0xff])),
    ECDSA_WITH_SHA256,
    commonName(options.issuer?.name ?? options.name),
    sequence(utcTime(options.notBefore ?? '2026-01-01T00:00:00Z'), utcTime(options.notAfter ?? '2027-01-01T00:00:00Z')),
    commonName(options.name),
    spki,
    ...(options.ca ? [der(0xa3, sequence(basicConstraints))] : []),
  );
  const signature = sign('sha256', tbs, options.issuer?.privateKey ?? options.subjectKey);
  const cert = sequence(tbs, ECDSA_WITH_SHA256, der(0x03, Buffer.from([0]), signature));
  const b64 = cert.toString('base64');
  const pem = `-----BEGIN CERTIFICATE-----\n${b64.replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
  return { pem, x5c: b64, name: options.name, privateKey: options.subjectKey };
}

const caKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;

const CLIENT_ID = 'wallet';
const ORIGIN = 'https://acme.eu01.vellum.test';
// Mounted under a path, so that the issuer identifier, the endpoint, the origin and the host all differ.
const ISSUER = `${ORIGIN}/issuance`;
const TOKEN_URL = `${ISSUER}/v1/oauth/token`;
/** What the token endpoint accepts as a proof of possession's aud. */
const AUDIENCES = [ISSUER, TOKEN_URL, ORIGIN, 'acme.eu01.vellum.test'];

async function setup(options: { dpopRequired?: boolean } = {}) {
  const h = harness();
  const { tenant } = await h.tenants.createTenant({ subdomain: 'acme', region: 'eu01' });
  const wallet = contextFor(tenant, null);
  const deps = { store: h.store, clock: h.clock, digests: h.digests, verifier: fakeJwtProofVerifier() };
  // A wallet provider: a root, and the key its attestations are signed with, certified by the root.
  const root = certificate({ name: 'Wallet Provider Root', subjectKey: caKey(), ca: true });
  const signerKey = walletKey('P-256');
  const signer = certificate({ name: 'Wallet Provider Attestations', subjectKey: signerKey.privateKey, issuer: root, ca: false });
  const now = () => Math.floor(h.clock.now().getTime() / 1000);
  const at = h.clock.now().toISOString();
  const client: WalletClient = {
    tenantId: tenant.id,
    clientId: CLIENT_ID,
    clientName: 'An attested wallet',
    redirectUris: ['https://wallet.example/cb'],
    grantTypes: ['authorization_code'],
    tokenEndpointAuthMethod: 'none',
    clientAttestation: { rootCertificates: [root.pem], ...(options.dpopRequired !== undefined ? { dpopRequired: options.dpopRequired } : {}) },
    createdAt: at,
    updatedAt: at,
  };
  /** The wallet instance: its key, attested as cnf.jwk. */
  const instance = walletKey('P-256');

  /** An attestation of `instance` for the client, signed by `by` (the certified signer unless given), with `x5c` naming `chain`. */
  function attestation(over: { header?: Record<string, unknown>; payload?: Record<string, unknown>; by?: WalletKey; chain?: Certificate[] } = {}): string {
    return signJwt(
      over.by ?? signerKey,
      { typ: 'oauth-client-attestation+jwt', x5c: (over.chain ?? [signer]).map((c) => c.x5c), ...over.header },
      {
        iss: 'https://wallet-provider.example',
        sub: CLIENT_ID,
        iat: now(),
        exp: now() + 3600,
        cnf: { jwk: instance.publicJwk },
        client_instance_id: 'instance-1',
        ...over.payload,
      },
    );
  }
  /** A proof of possession of the instance key (Standard Mode), by `by` (the instance key unless given). */
  function pop(over: { header?: Record<string, unknown>; payload?: Record<string, unknown>; by?: WalletKey } = {}): string {
    return signJwt(
      over.by ?? instance,
      { typ: 'oauth-client-attestation-pop+jwt', ...over.header },
      { iss: CLIENT_ID, aud: ISSUER, iat: now(), jti: randomBytes(12).toString('base64url'), ...over.payload },
    );
  }
  const check = (headers: AttestationHeaders | undefined, c: WalletClient = client, context: Partial<Parameters<typeof checkClientAttestation>[3]> = {}) =>
    checkClientAttestation(deps, c, headers, { tenantId: tenant.id, audiences: AUDIENCES, ...context });
  /** A DPoP proof by `key`, verified as the token endpoint does (Combined Mode proves possession with it). */
  const dpopBy = async (key: WalletKey) =>
    h.dpop.check(wallet, dpopProof(key, TOKEN_URL, { iat: now() }), { method: 'POST', url: TOKEN_URL, endpoint: 'token' });
  return { ...h, tenant, wallet, deps, root, signer, signerKey, client, instance, attestation, pop, check, dpopBy, now };
}

/** What an invalid attestation is answered with (attestation draft §6.2: 400 invalid_client_attestation). */
const invalid = (message?: string | RegExp) => ({
  code: 'BadRequest',
  oauthError: 'invalid_client_attestation',
  ...(message === undefined ? {} : { message: typeof message === 'string' ? message : expect.stringMatching(message) }),
});

describe('checkClientAttestation: OAuth client attestation (docs/dpop-and-attestation.md; draft-ietf-oauth-attestation-based-client-auth)', () => {
  it('checks nothing for a client that registered no clientAttestation, whatever the request sends', async () => {
    const { check, client, attestation, pop } = await setup();
    const { clientAttestation: _roots, ...plain } = client;
    const samePop = pop();
    for (const headers of [
      undefined,
      {},
      { attestation: 'garbage', pop: 'garbage' },
      { attestation: ['a', 'b'] },
      { attestation: attestation(), pop: samePop },
    ]) {
      expect(await check(headers, plain)).toBeUndefined();
    }
    // Nothing was spent meanwhile: the same proof of possession still works for an attested client.
    expect(await check({ attestation: attestation(), pop: samePop })).toMatchObject({ jkt: expect.any(String) });
  });

  it('refuses an attested client that sent no attestation: 401 invalid_client', async () => {
    const { check, pop } = await setup();
    for (const headers of [undefined, {}, { pop: pop() }]) {
      expect(await refusal(check(headers))).toMatchObject({
        code: 'Unauthorized',
        oauthError: 'invalid_client',
        message: expect.stringContaining('OAuth-Client-Attestation'),
      });
    }
  });

  it('accepts an attestation chaining to a registered root with a fresh proof of possession, and returns the instance it attests', async () => {
    const { check, attestation, pop, instance } = await setup();
    expect(await check({ attestation: attestation(), pop: pop() })).toEqual({
      clientInstanceId: 'instance-1',
      jwk: instance.publicJwk,
      jkt: jwkThumbprint(instance.publicJwk),
    });
    // Without client_instance_id, none is returned.
    const attested = await check({ attestation: attestation({ payload: { client_instance_id: undefined } }), pop: pop() });
    expect(attested).toEqual({ jwk: instance.publicJwk, jkt: jwkThumbprint(instance.publicJwk) });
    expect(attested && 'clientInstanceId' in attested).toBe(false);
  });

  it('follows an x5c chain through an intermediate CA to a registered root, among several, or to the root itself', async () => {
    const { check, pop, attestation, root, client } = await setup();
    const intermediate = certificate({ name: 'Wallet Provider Issuing CA', subjectKey: caKey(), issuer: root, ca: true });
    const leafKey = walletKey('P-256');
    const leaf = certificate({ name: 'Attestation signer 2', subjectKey: leafKey.privateKey, issuer: intermediate, ca: false });
    const unrelated = certificate({ name: 'Someone else', subjectKey: caKey(), ca: true });
    const withRoots = { ...client, clientAttestation: { rootCertificates: [unrelated.pem, root.pem] } };
    expect(await check({ attestation: attestation({ by: leafKey, chain: [leaf, intermediate] }), pop: pop() }, withRoots)).toMatchObject({
      clientInstanceId: 'instance-1',
    });
    // A chain that ends with the registered root itself.
    expect(await check({ attestation: attestation({ by: leafKey, chain: [leaf, intermediate, root] }), pop: pop() })).toMatchObject({
      clientInstanceId: 'instance-1',
    });
  });

  it('refuses an attestation whose x5c does not verify: another root, no or broken x5c, a signature by another key, an expired certificate (400 invalid_client_attestation)', async () => {
    const { check, attestation, pop, root } = await setup();
    const otherRoot = certificate({ name: 'Another provider', subjectKey: caKey(), ca: true });
    const otherKey = walletKey('P-256');
    const otherSigner = certificate({ name: 'Another signer', subjectKey: otherKey.privateKey, issuer: otherRoot, ca: false });
    const expiredKey = walletKey('P-256');
    const expired = certificate({
      name: 'Expired signer',
      subjectKey: expiredKey.privateKey,
      issuer: root,
      ca: false,
      notBefore: '2025-01-01T00:00:00Z',
      notAfter: '2026-04-30T00:00:00Z',
    });
    const early = certificate({ name: 'Early signer', subjectKey: expiredKey.privateKey, issuer: root, ca: false, notBefore: '2026-06-01T00:00:00Z' });
    // Each with the verifier's reason, so that every case fails for the reason it names.
    const cases: Array<[string, string, RegExp]> = [
      ['another root', attestation({ by: otherKey, chain: [otherSigner] }), /trusted root/],
      ['no x5c', attestation({ header: { x5c: undefined } }), /could not be read/],
      ['x5c not base64 DER', attestation({ header: { x5c: ['bm90IGEgY2VydGlmaWNhdGU='] } }), /could not be read/],
      ['x5c not an array', attestation({ header: { x5c: 'nope' } }), /could not be read/],
      ['signed by a key the certificate does not name', attestation({ by: otherKey }), /signature does not verify/],
      ['an expired certificate', attestation({ by: expiredKey, chain: [expired] }), /not valid now/],
      ['a certificate not valid yet', attestation({ by: expiredKey, chain: [early] }), /not valid now/],
      ['an algorithm not offered', attestation({ header: { alg: 'ES384' } }), /alg not accepted/],
      ['not a JWT', 'not-a-jwt', /could not be read/],
    ];
    for (const [name, jwt, reason] of cases) {
      const error = await refusal(check({ attestation: jwt, pop: pop() }));
      expect(error, name).toMatchObject(invalid(/^The client attestation is not valid: /));
      expect(error.message, name).toMatch(reason);
    }
  });

  it('refuses two attestation headers, two proof of possession headers, or an oversized one', async () => {
    const { check, attestation, pop } = await setup();
    expect(await refusal(check({ attestation: [attestation(), attestation()], pop: pop() }))).toMatchObject(
      invalid('Send one OAuth-Client-Attestation header'),
    );
    expect(await refusal(check({ attestation: attestation(), pop: [pop(), pop()] }))).toMatchObject(invalid('Send one OAuth-Client-Attestation-PoP header'));
    expect(await refusal(check({ attestation: 'a'.repeat(40_000), pop: pop() }))).toMatchObject(invalid());
  });

  it('refuses a wrong typ, another client’s sub, a missing or past exp, an iat in the future', async () => {
    const { check, attestation, pop, now } = await setup();
    const cases: Array<[string, string, string | RegExp]> = [
      ['typ JWT', attestation({ header: { typ: 'JWT' } }), 'The client attestation must have typ oauth-client-attestation+jwt'],
      ['no typ', attestation({ header: { typ: undefined } }), 'The client attestation must have typ oauth-client-attestation+jwt'],
      ['another client', attestation({ payload: { sub: 'other-wallet' } }), 'The client attestation was issued for another client (sub)'],
      ['no sub', attestation({ payload: { sub: undefined } }), 'The client attestation was issued for another client (sub)'],
      ['expired', attestation({ payload: { exp: now() - 1 } }), /has expired/],
      ['expiring now', attestation({ payload: { exp: now() } }), /has expired/],
      ['no exp', attestation({ payload: { exp: undefined } }), /has expired/],
      ['exp as text', attestation({ payload: { exp: String(now() + 600) } }), /has expired/],
      ['issued in the future', attestation({ payload: { iat: now() + 120 } }), 'The client attestation was issued in the future'],
    ];
    for (const [name, jwt, message] of cases) {
      expect(await refusal(check({ attestation: jwt, pop: pop() })), name).toMatchObject(invalid(message));
    }
  });

  it('needs the instance key as a public P-256 or Ed25519 cnf.jwk, and a well-formed client_instance_id when there is one', async () => {
    const { check, attestation, pop, instance } = await setup();
    const cases: Array<[string, Record<string, unknown>]> = [
      ['no cnf', { cnf: undefined }],
      ['cnf without jwk', { cnf: { jkt: jwkThumbprint(instance.publicJwk) } }],
      ['a private jwk', { cnf: { jwk: { ...instance.publicJwk, d: 'AAAA' } } }],
      ['an RSA jwk', { cnf: { jwk: { kty: 'RSA', n: 'AQAB', e: 'AQAB' } } }],
      ['cnf as text', { cnf: 'jwk' }],
    ];
    for (const [name, payload] of cases) {
      expect(await refusal(check({ attestation: attestation({ payload }), pop: pop() })), name).toMatchObject(invalid(/cnf\.jwk/));
    }
    for (const client_instance_id of ['', 'i'.repeat(257), 42]) {
      expect(await refusal(check({ attestation: attestation({ payload: { client_instance_id } }), pop: pop() }))).toMatchObject(invalid(/client_instance_id/));
    }
    expect(await check({ attestation: attestation({ payload: { client_instance_id: 'i'.repeat(256) } }), pop: pop() })).toMatchObject({
      clientInstanceId: 'i'.repeat(256),
    });
  });
});

describe('Standard Mode: the proof of possession (OAuth-Client-Attestation-PoP)', () => {
  it('is required', async () => {
    const { check, attestation } = await setup();
    expect(await refusal(check({ attestation: attestation() }))).toMatchObject(invalid(/Send the OAuth-Client-Attestation-PoP header/));
  });

  it('must be signed by the attested key, with typ oauth-client-attestation-pop+jwt', async () => {
    const { check, attestation, pop, signerKey } = await setup();
    for (const by of [walletKey('P-256'), walletKey('Ed25519'), signerKey]) {
      expect(await refusal(check({ attestation: attestation(), pop: pop({ by }) }))).toMatchObject(
        invalid(/^The client attestation proof of possession is not valid: /),
      );
    }
    for (const typ of ['JWT', 'dpop+jwt', undefined]) {
      expect(await refusal(check({ attestation: attestation(), pop: pop({ header: { typ } }) }))).toMatchObject(
        invalid('The proof of possession must have typ oauth-client-attestation-pop+jwt'),
      );
    }
  });

  it('must name this server as aud (its identifier, the endpoint, its origin or host), and no other client as iss', async () => {
    const { check, attestation, pop } = await setup();
    for (const aud of AUDIENCES) expect(await check({ attestation: attestation(), pop: pop({ payload: { aud } }) })).toBeDefined();
    expect(await check({ attestation: attestation(), pop: pop({ payload: { aud: ['https://elsewhere.example', ISSUER] } }) })).toBeDefined();
    for (const aud of ['https://elsewhere.example', `${ISSUER}/other`, `${ORIGIN}/v1/oauth/token`, undefined, ['https://elsewhere.example'], 7]) {
      expect(await refusal(check({ attestation: attestation(), pop: pop({ payload: { aud } }) })), JSON.stringify(aud)).toMatchObject(
        invalid(`The proof of possession's aud must be ${ISSUER}`),
      );
    }
    expect(await refusal(check({ attestation: attestation(), pop: pop({ payload: { iss: 'other-wallet' } }) }))).toMatchObject(
      invalid('The proof of possession names another client (iss)'),
    );
    expect(await check({ attestation: attestation(), pop: pop({ payload: { iss: undefined } }) })).toBeDefined();
  });

  it('must be fresh: iat within 300 seconds past and 60 ahead, any exp not passed', async () => {
    const { check, attestation, pop, now } = await setup();
    expect(await check({ attestation: attestation(), pop: pop({ payload: { iat: now() - 300 } }) })).toBeDefined();
    for (const iat of [now() - 301, now() + 61, undefined, String(now())]) {
      expect(await refusal(check({ attestation: attestation(), pop: pop({ payload: { iat } }) })), String(iat)).toMatchObject(
        invalid('The proof of possession must be fresh (iat)'),
      );
    }
    expect(await refusal(check({ attestation: attestation(), pop: pop({ payload: { exp: now() } }) }))).toMatchObject(
      invalid('The proof of possession has expired'),
    );
  });

  it('is taken once: it needs a jti, and a replay is refused while a new proof passes', async () => {
    const { check, attestation, pop } = await setup();
    for (const jti of [undefined, '', 'j'.repeat(257)]) {
      expect(await refusal(check({ attestation: attestation(), pop: pop({ payload: { jti } }) }))).toMatchObject(
        invalid('The proof of possession needs a jti'),
      );
    }
    const once = pop();
    expect(await check({ attestation: attestation(), pop: once })).toBeDefined();
    expect(await refusal(check({ attestation: attestation(), pop: once }))).toMatchObject(invalid(/has been used/));
    expect(await check({ attestation: attestation(), pop: pop() })).toBeDefined();
  });
});

describe('Combined Mode (dpopRequired): the DPoP proof proves possession of the attested key', () => {
  it('refuses a request without a DPoP proof, or with one by another key', async () => {
    const { check, attestation, pop, dpopBy } = await setup({ dpopRequired: true });
    // A proof of possession does not stand in for DPoP in this mode.
    expect(await refusal(check({ attestation: attestation(), pop: pop() }))).toMatchObject(invalid(/send a DPoP proof signed with the attested key/));
    const other = await dpopBy(walletKey('P-256'));
    expect(await refusal(check({ attestation: attestation() }, undefined, { dpop: other }))).toMatchObject(
      invalid('The DPoP proof was not signed with the attested key (cnf.jwk)'),
    );
  });

  it('accepts a DPoP proof by the cnf key, with no proof of possession, and returns the client instance', async () => {
    const { check, attestation, dpopBy, instance } = await setup({ dpopRequired: true });
    const dpop = await dpopBy(instance);
    expect(await check({ attestation: attestation() }, undefined, { dpop })).toEqual({
      clientInstanceId: 'instance-1',
      jwk: instance.publicJwk,
      jkt: jwkThumbprint(instance.publicJwk),
    });
  });

  it('still checks the attestation itself', async () => {
    const { check, attestation, dpopBy, instance } = await setup({ dpopRequired: true });
    const dpop = await dpopBy(instance);
    expect(await refusal(check({ attestation: attestation({ payload: { sub: 'other-wallet' } }) }, undefined, { dpop }))).toMatchObject(
      invalid(/another client/),
    );
    expect(await refusal(check({ attestation: attestation({ by: walletKey('P-256') }) }, undefined, { dpop }))).toMatchObject(invalid(/not valid/));
  });
});

describe('attestedClientId', () => {
  it('reads the sub of an attestation without checking it', async () => {
    const { attestation, now } = await setup();
    expect(attestedClientId({ attestation: attestation() })).toBe(CLIENT_ID);
    // Unverifiable and expired: still read, since the check comes after, against the client it names.
    expect(attestedClientId({ attestation: attestation({ by: walletKey('P-256'), payload: { sub: 'someone', exp: now() - 1000 } }) })).toBe('someone');
  });

  it('returns undefined for anything else', () => {
    const b64u = (text: string) => Buffer.from(text).toString('base64url');
    const cases: Array<AttestationHeaders | undefined> = [
      undefined,
      {},
      { attestation: 'garbage' },
      { attestation: '..' },
      { attestation: `x.${b64u('not json')}.y` },
      { attestation: `x.${b64u('null')}.y` },
      { attestation: `x.${b64u('["wallet"]')}.y` },
      { attestation: `x.${b64u('{"sub":42}')}.y` },
      { attestation: `x.${b64u(JSON.stringify({ sub: 's'.repeat(257) }))}.y` },
      { attestation: `x.${b64u('{"sub":"wallet"}')}.y`.padEnd(40_000, 'y') },
      { attestation: [`x.${b64u('{"sub":"wallet"}')}.y`] },
      { attestation: `x.%%%.y` },
    ];
    for (const headers of cases) expect(attestedClientId(headers), JSON.stringify(headers)?.slice(0, 60)).toBeUndefined();
    expect(attestedClientId({ attestation: `x.${b64u('{"sub":"wallet"}')}.y` })).toBe('wallet');
  });
});

describe('an attested client at the token endpoint of the composed core (Pre-authorized Code grant, API mounted at /issuance)', () => {
  async function tokenSetup(options: { dpopRequired?: boolean } = {}) {
    const s = await setup(options);
    const admin = contextFor(s.tenant);
    await s.store.walletClients.insert({ ...s.client, grantTypes: ['urn:ietf:params:oauth:grant-type:pre-authorized_code'] });
    const mdoc = await s.configurations.create(admin, 'mso_mdoc', {
      type: 'org.iso.18013.5.1.mDL',
      expiresIn: { days: 365 },
      claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName', required: true } } },
    });
    const code = async () => {
      const created = await s.offers.createPreAuthorizedOffer(admin, { credentials: [mdoc.id], claims: { familyName: 'Lovelace' } });
      const offer = JSON.parse(new URL(created.uri).searchParams.get('credential_offer') as string) as {
        grants: Record<string, { 'pre-authorized_code': string }>;
      };
      return Object.values(offer.grants)[0]!['pre-authorized_code'];
    };
    const token = async (form: Record<string, unknown>, proofs: Parameters<typeof s.tokenEndpoint.token>[4]) =>
      s.tokenEndpoint.token(
        s.wallet,
        { grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': await code(), ...form },
        '/issuance',
        undefined,
        proofs,
      );
    const claimsOf = (accessToken: string) => s.walletTokens.verify(s.tenant.id, ISSUER, accessToken);
    return { ...s, token, claimsOf };
  }

  it('Standard Mode: finds the client by the attestation’s sub, and the token names the client and its instance', async () => {
    const { token, attestation, pop, claimsOf } = await tokenSetup();
    const response = await token({}, { attestation: { attestation: attestation(), pop: pop() } });
    expect(response.token_type).toBe('Bearer');
    expect(await claimsOf(response.access_token)).toMatchObject({ clientId: CLIENT_ID, clientInstanceId: 'instance-1' });
  });

  it('refuses a request naming the attested client without its attestation: 401 invalid_client', async () => {
    const { token } = await tokenSetup();
    expect(await refusal(token({ client_id: CLIENT_ID }, undefined))).toMatchObject({ code: 'Unauthorized', oauthError: 'invalid_client' });
  });

  it('Combined Mode: takes the DPoP proof by the attested key and binds the token to it; refuses a DPoP proof by another key', async () => {
    const { token, attestation, instance, claimsOf, now } = await tokenSetup({ dpopRequired: true });
    const dpopBy = (key: WalletKey) => dpopProof(key, TOKEN_URL, { iat: now() });
    expect(await refusal(token({}, { attestation: { attestation: attestation() }, dpop: dpopBy(walletKey()) }))).toMatchObject(
      invalid('The DPoP proof was not signed with the attested key (cnf.jwk)'),
    );
    const response = await token({}, { attestation: { attestation: attestation() }, dpop: dpopBy(instance) });
    expect(response.token_type).toBe('DPoP');
    expect(await claimsOf(response.access_token)).toMatchObject({
      clientId: CLIENT_ID,
      clientInstanceId: 'instance-1',
      dpopJkt: jwkThumbprint(instance.publicJwk),
    });
  });
});
