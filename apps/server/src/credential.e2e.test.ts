// Issue 5, end to end over real HTTP: the server runs as a child process (SQLite, and PostgreSQL
// when VELLUM_TEST_DATABASE_URL names one) and this test plays the wallet by hand: offer → token
// (with a transaction code) → nonce → credential. Its key proofs and the opening of the encrypted
// response use @vellum/testing's wallet, written on node:crypto from the RFCs (not the issuer's
// jose); the mDoc is read with a CBOR decoder written here (not the issuer's cbor-x); the
// issued-credential record and the notification are checked over the admin API. The run with
// wallet libraries others wrote (@openid4vc/*, @auth0/mdl) is tools/interop's.
import { decryptJwe, encryptionKey, encryptJwe, proofJwt, walletKey } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../test/backends.ts';
import { freePort, http, type RunningServer, serverEnv } from '../test/process.ts';
import { activeIaca, adminAuthorization, startWithTenant } from '../test/tenant.ts';

const PLATFORM = 'vellum.test';
const HOST = `acme.eu01.${PLATFORM}`;
const DOC_TYPE = 'org.iso.18013.5.1.mDL';
const NS = 'org.iso.18013.5.1';
const PRE_AUTHORIZED_GRANT = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

// ----- a small CBOR reader (RFC 8949), enough for IssuerSigned and the MSO -----

type Cbor = null | undefined | boolean | number | bigint | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { tag: number; value: Cbor };

function cborDecode(bytes: Uint8Array): Cbor {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const argument = (info: number): number => {
    if (info < 24) return info;
    const size = 1 << (info - 24);
    const start = at;
    at += size;
    if (size === 1) return view.getUint8(start);
    if (size === 2) return view.getUint16(start);
    if (size === 4) return view.getUint32(start);
    return Number(view.getBigUint64(start));
  };
  const item = (): Cbor => {
    const first = view.getUint8(at++);
    const major = first >> 5;
    const info = first & 0x1f;
    if (major === 7) {
      if (info === 20) return false;
      if (info === 21) return true;
      if (info === 22) return null;
      if (info === 23) return undefined;
      const start = at;
      at += info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
      if (info === 25) return halfFloat(view.getUint16(start));
      if (info === 26) return view.getFloat32(start);
      if (info === 27) return view.getFloat64(start);
      throw new Error(`unsupported simple value ${info}`);
    }
    if (info === 31) throw new Error('indefinite lengths are not expected in an mDoc');
    const n = argument(info);
    switch (major) {
      case 0:
        return n;
      case 1:
        return -1 - n;
      case 2:
        return bytes.slice(at, (at += n));
      case 3:
        return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(at, (at += n)));
      case 4:
        return Array.from({ length: n }, item);
      case 5: {
        const map = new Map<Cbor, Cbor>();
        for (let i = 0; i < n; i++) map.set(item(), item());
        return map;
      }
      default:
        return { tag: n, value: item() };
    }
  };
  const halfFloat = (h: number) => {
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    const sign = h & 0x8000 ? -1 : 1;
    return sign * (exp === 0 ? frac * 2 ** -24 : exp === 31 ? (frac ? Number.NaN : Number.POSITIVE_INFINITY) : (1 + frac / 1024) * 2 ** (exp - 15));
  };
  const value = item();
  if (at !== bytes.length) throw new Error('trailing bytes after the CBOR item');
  return value;
}

const asMap = (v: Cbor) => {
  if (!(v instanceof Map)) throw new Error('expected a CBOR map');
  return v;
};
/** A tag 24 item: CBOR embedded in a byte string. */
const embedded = (v: Cbor) => {
  if (typeof v !== 'object' || v === null || !('tag' in v) || v.tag !== 24 || !(v.value instanceof Uint8Array)) throw new Error('expected tag 24');
  return cborDecode(v.value);
};
const b64u = (bytes: Cbor) => Buffer.from(bytes as Uint8Array).toString('base64url');

/** What a wallet reads from an mso_mdoc `credential` (base64url IssuerSigned, ISO/IEC 18013-5 §8.3.2.1.2.2). */
function readMdoc(credential: string) {
  const issuerSigned = asMap(cborDecode(Buffer.from(credential, 'base64url')));
  const nameSpaces = asMap(issuerSigned.get('nameSpaces') as Cbor);
  const issuerAuth = issuerSigned.get('issuerAuth') as Cbor[];
  const mso = asMap(embedded(cborDecode(issuerAuth[2] as Uint8Array)));
  const deviceKey = asMap(asMap(mso.get('deviceKeyInfo') as Cbor).get('deviceKey') as Cbor);
  const elements: Record<string, Record<string, Cbor>> = {};
  for (const [ns, items] of nameSpaces) {
    elements[ns as string] = Object.fromEntries(
      (items as Cbor[]).map((i) => asMap(embedded(i))).map((i) => [i.get('elementIdentifier') as string, i.get('elementValue') as Cbor]),
    );
  }
  return {
    docType: mso.get('docType'),
    digestAlgorithm: mso.get('digestAlgorithm'),
    // COSE_Key (RFC 9053): kty 2 (EC2), crv 1 (P-256), x and y.
    deviceKey: { kty: deviceKey.get(1), crv: deviceKey.get(-1), x: b64u(deviceKey.get(-2) as Cbor), y: b64u(deviceKey.get(-3) as Cbor) },
    elements,
    signatureLength: (issuerAuth[3] as Uint8Array).length,
  };
}

// ----- the backends -----

const backends: Array<[string, () => Backend, boolean]> = [
  ['SQLite', () => sqliteBackend({ masterKey: true }), false],
  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  ['PostgreSQL', () => postgresBackend('vellum_e2e'), !pgAdminUrl],
];

describe.each(backends)('a wallet by hand over real HTTP on %s: offer → token → nonce → credential (issue 5)', (_name, makeBackend, skip) => {
  let backend: Backend;
  let server: RunningServer;
  let admin: Record<string, string>;
  let metadata: Record<string, any>;
  let configurationId: string;

  const call = (method: string, path: string, body?: unknown) =>
    http(server.port, method, path, { host: HOST, headers: admin, ...(body === undefined ? {} : { body }) });
  const wallet = (method: string, path: string, options: { headers?: Record<string, string>; raw?: string; body?: unknown } = {}) =>
    http(server.port, method, path, { host: HOST, ...options });

  beforeAll(async () => {
    if (skip) return;
    backend = makeBackend();
    const env = serverEnv({ ...(await backend.env()), VELLUM_PORT: String(await freePort()), VELLUM_PLATFORM_DOMAIN: PLATFORM, VELLUM_DEFAULT_TENANT: '' });
    const started = await startWithTenant(env, 'Acme');
    server = started.server;
    admin = await adminAuthorization(server, HOST, started.creds);
    await activeIaca(call);
    const configuration = await call('POST', '/v2/credentials/mobile/configurations', {
      type: DOC_TYPE,
      expiresIn: { days: 365 },
      claimMappings: {
        [NS]: {
          family_name: { mapFrom: 'claims.familyName', required: true },
          birth_date: { mapFrom: 'claims.birthDate', type: 'date', required: true },
          age_over_18: { mapFrom: 'claims.adult', type: 'boolean' },
          issuing_country: { defaultValue: 'US' },
        },
      },
    });
    expect(configuration.status, configuration.text).toBe(201);
    configurationId = configuration.json().id;
    metadata = (await wallet('GET', '/.well-known/openid-credential-issuer')).json();
  });

  afterAll(async () => {
    if (skip) return;
    await server?.stop();
    await backend?.cleanup();
  });

  /** The wallet's first steps: resolve the offer, redeem the code with the transaction code, fetch a nonce. */
  async function redeem() {
    const offer = await call('POST', '/v1/openid/offers/pre-authorized', {
      credentials: [configurationId],
      claims: { familyName: 'Turner', birthDate: '1990-05-15', adult: true },
      transactionCodeConfiguration: { inputMode: 'numeric', length: 6 },
    });
    expect(offer.status, offer.text).toBe(200);
    const { uri, transactionCode, userId, id: offerId } = offer.json();
    const credentialOffer = JSON.parse(new URL(uri).searchParams.get('credential_offer') as string);
    expect(credentialOffer.credential_issuer).toBe(metadata.credential_issuer);
    const grant = credentialOffer.grants[PRE_AUTHORIZED_GRANT];
    const token = await wallet('POST', '/v1/oauth/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      raw: new URLSearchParams({ grant_type: PRE_AUTHORIZED_GRANT, 'pre-authorized_code': grant['pre-authorized_code'], tx_code: transactionCode }).toString(),
    });
    expect(token.status, token.text).toBe(200);
    return { authorization: `Bearer ${token.json().access_token}`, userId, offerId };
  }

  async function proof(keyBy: 'jwk' | 'did' = 'jwk'): Promise<{ jwt: string; jwk: Record<string, unknown> }> {
    const nonce = await wallet('POST', new URL(metadata.nonce_endpoint).pathname);
    expect(nonce.status, nonce.text).toBe(200);
    const key = walletKey();
    return { jwt: proofJwt(key, { audience: metadata.credential_issuer, nonce: nonce.json().c_nonce, keyBy }), jwk: { ...key.publicJwk } };
  }

  it.skipIf(skip)('advertises the endpoints and encryption the wallet uses', () => {
    expect(metadata.credential_endpoint).toBe(`${metadata.credential_issuer}/v1/openid/credential`);
    expect(metadata.nonce_endpoint).toBe(`${metadata.credential_issuer}/v1/openid/nonce`);
    expect(metadata.notification_endpoint).toBe(`${metadata.credential_issuer}/v1/openid/notification`);
    expect(metadata.credential_response_encryption).toEqual({
      alg_values_supported: ['ECDH-ES'],
      enc_values_supported: ['A128GCM', 'A256GCM'],
      encryption_required: false,
    });
    expect(metadata.credential_request_encryption.jwks.keys).toHaveLength(1);
  });

  it.skipIf(skip)('issues an encrypted mDoc bound to the proof’s key, with the offer’s claims; the record and the notification follow', async () => {
    const { authorization, userId, offerId } = await redeem();
    const { jwt, jwk } = await proof();
    const encryption = encryptionKey();
    const request = {
      credential_configuration_id: configurationId,
      proofs: { jwt: [jwt] },
      credential_response_encryption: { jwk: encryption.publicJwk, enc: 'A128GCM' },
    };
    // OpenID4VCI 1.0 §8.2: asking for an encrypted response, the request is encrypted too; plain, it is refused.
    const plain = await wallet('POST', new URL(metadata.credential_endpoint).pathname, { headers: { authorization }, body: request });
    expect(plain.status, plain.text).toBe(400);
    expect(plain.json()).toMatchObject({ error: 'invalid_encryption_parameters' });
    const res = await wallet('POST', new URL(metadata.credential_endpoint).pathname, {
      headers: { authorization, 'content-type': 'application/jwt' },
      raw: encryptJwe(JSON.stringify(request), metadata.credential_request_encryption.jwks.keys[0], 'A128GCM'),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/jwt/);
    const { plaintext, header } = decryptJwe(res.text, encryption.privateKey);
    expect(header).toMatchObject({ alg: 'ECDH-ES', enc: 'A128GCM' });
    const body = JSON.parse(plaintext);
    expect(Object.keys(body).sort()).toEqual(['credentials', 'notification_id']);

    const mdoc = readMdoc(body.credentials[0].credential);
    expect(mdoc.docType).toBe(DOC_TYPE);
    expect(mdoc.digestAlgorithm).toBe('SHA-256');
    expect(mdoc.deviceKey).toEqual({ kty: 2, crv: 1, x: jwk.x, y: jwk.y });
    expect(mdoc.signatureLength).toBe(64);
    expect(mdoc.elements[NS]).toEqual({
      family_name: 'Turner',
      birth_date: { tag: 1004, value: '1990-05-15' },
      age_over_18: true,
      issuing_country: 'US',
    });

    const records = await call('GET', `/v2/credentials?userId=${userId}`);
    expect(records.status, records.text).toBe(200);
    expect(records.json().data).toEqual([
      expect.objectContaining({ format: 'mso_mdoc', credentialConfigurationId: configurationId, userId, offerId, status: 'valid' }),
    ]);
    expect(records.text).not.toContain(body.credentials[0].credential.slice(0, 40));

    const notified = await wallet('POST', new URL(metadata.notification_endpoint).pathname, {
      headers: { authorization },
      body: { notification_id: body.notification_id, event: 'credential_accepted' },
    });
    expect(notified.status, notified.text).toBe(204);
    expect((await call('GET', `/v1/users/${userId}/credentials`)).json().data[0].notification).toMatchObject({ event: 'credential_accepted' });

    // The same proof again: its nonce is used up.
    const again = await wallet('POST', '/v1/openid/credential', {
      headers: { authorization },
      body: { credential_configuration_id: configurationId, proofs: { jwt: [jwt] } },
    });
    expect(again.status).toBe(400);
    expect(again.json()).toMatchObject({ error: 'invalid_nonce' });
    // A fresh proof with the same token: one credential per configuration per token.
    const another = await wallet('POST', '/v1/openid/credential', {
      headers: { authorization },
      body: { credential_configuration_id: configurationId, proofs: { jwt: [(await proof()).jwt] } },
    });
    expect(another.status, another.text).toBe(400);
    expect(another.json()).toMatchObject({ error: 'credential_request_denied' });
    expect((await call('GET', `/v2/credentials?userId=${userId}`)).json().data).toHaveLength(1);
  });

  it.skipIf(skip)('answers the legacy request with the legacy response and its Deprecation and Sunset headers', async () => {
    const { authorization } = await redeem();
    const { jwt, jwk } = await proof();
    const res = await wallet('POST', '/v1/openid/credential', {
      headers: { authorization },
      body: { format: 'mso_mdoc', doctype: DOC_TYPE, proof: { proof_type: 'jwt', jwt } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.deprecation).toBe('@1777680000');
    expect(res.headers.sunset).toBe('Sat, 02 May 2026 00:00:00 GMT');
    const body = res.json();
    expect(body.format).toBe('mso_mdoc');
    expect(readMdoc(body.credential).deviceKey).toEqual({ kty: 2, crv: 1, x: jwk.x, y: jwk.y });
  });

  it.skipIf(skip)('takes a request encrypted to the published key, with a did:key proof, and answers encrypted', async () => {
    const { authorization } = await redeem();
    const { jwt, jwk } = await proof('did');
    const encryption = encryptionKey();
    const request = {
      credential_configuration_id: configurationId,
      proofs: { jwt: [jwt] },
      credential_response_encryption: { jwk: encryption.publicJwk, enc: 'A256GCM' },
    };
    const res = await wallet('POST', '/v1/openid/credential', {
      headers: { authorization, 'content-type': 'application/jwt' },
      raw: encryptJwe(JSON.stringify(request), metadata.credential_request_encryption.jwks.keys[0], 'A256GCM'),
    });
    expect(res.status, res.text).toBe(200);
    const body = JSON.parse(decryptJwe(res.text, encryption.privateKey).plaintext);
    expect(readMdoc(body.credentials[0].credential).deviceKey).toEqual({ kty: 2, crv: 1, x: jwk.x, y: jwk.y });
  });

  it.skipIf(skip)('refuses a missing token with 401 and the Bearer challenge', async () => {
    const res = await wallet('POST', '/v1/openid/credential', { body: { credential_configuration_id: configurationId } });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    expect(res.json()).toMatchObject({ error: 'invalid_token', code: 'Unauthorized' });
  });
});
