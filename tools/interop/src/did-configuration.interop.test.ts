// Issue 3 acceptance: the real server publishes a DID configuration whose every entry verifies with
// JSON-LD signature code we did not write, offline, resolving each DID the way a verifier would.
import { createHash, ECDH, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { Ed25519Signature2018, suiteContext } from '@digitalbazaar/ed25519-signature-2018';
import { Ed25519VerificationKey2018 } from '@digitalbazaar/ed25519-verification-key-2018';
import type { KeyManager, Store } from '@vellum/core';
import { createKeyManager, createSealer, parseMasterKey } from '@vellum/crypto';
import { bundledContext } from '@vellum/formats';
import { loadConfig, openStore } from '@vellum/server';
import { DIF_DOMAIN_LINKAGE_CREDENTIAL as dif } from '@vellum/testing';
import { flattenedVerify, importJWK } from 'jose';
import jsonld from 'jsonld';
import jsigs from 'jsonld-signatures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, freePort, http, type RunningServer, serverEnv, startServer, tempDir } from '../../../apps/server/test/process.ts';

const PLATFORM = 'vellum.test';
const HOST = `acme.eu01.${PLATFORM}`;
const DID_V1 = 'https://www.w3.org/ns/did/v1';
const CREDENTIALS_V1 = 'https://www.w3.org/2018/credentials/v1';
const DID_CONFIGURATION_V1 = 'https://identity.foundation/.well-known/did-configuration/v1';
const ED25519_2018_V1 = 'https://w3id.org/security/suites/ed25519-2018/v1';
const JWS_2020_V1 = 'https://w3id.org/security/suites/jws-2020/v1';

// Contexts for an offline document loader. The Ed25519 2018 suite context comes from the suite's
// own package. The credentials v1, DID configuration v1 and JWS 2020 contexts are not published
// in any installed package, so these come from Vellum's bundle; the DIF-signed example below checks
// that they expand DIF's credential exactly as the published ones did when DIF signed it.
const CONTEXTS = new Map<string, unknown>([
  [ED25519_2018_V1, suiteContext.contexts.get(ED25519_2018_V1)],
  [CREDENTIALS_V1, bundledContext(CREDENTIALS_V1)],
  [DID_CONFIGURATION_V1, bundledContext(DID_CONFIGURATION_V1)],
  [JWS_2020_V1, bundledContext(JWS_2020_V1)],
]);

// A base58btc decoder of the test's own (not the one Vellum ships), for did:key P-256 keys, which
// the installed verifier packages do not decode.
function base58Decode(text: string): Uint8Array {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let n = 0n;
  for (const ch of text) n = n * 58n + BigInt(alphabet.indexOf(ch));
  const hex = n.toString(16);
  const body = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  return Buffer.concat([Buffer.alloc(text.length - text.replace(/^1+/, '').length), body]);
}

interface DidDocument {
  '@context': string[];
  id: string;
  verificationMethod: Array<{ id: string; type: string; controller: string; publicKeyBase58?: string; publicKeyJwk?: Record<string, string> }>;
  assertionMethod: string[];
}

/** Resolves did:key by decoding it (W3C CCG did:key), did:web by fetching its document from the server (W3C CCG did:web). */
async function resolveDid(did: string, port: number): Promise<DidDocument> {
  if (did.startsWith('did:key:')) {
    const fingerprint = did.slice('did:key:'.length);
    const vm = `${did}#${fingerprint}`;
    if (fingerprint.startsWith('z6Mk')) {
      const { publicKeyBase58 } = Ed25519VerificationKey2018.fromFingerprint({ fingerprint });
      return {
        '@context': [DID_V1, ED25519_2018_V1],
        id: did,
        verificationMethod: [{ id: vm, type: 'Ed25519VerificationKey2018', controller: did, publicKeyBase58 }],
        assertionMethod: [vm],
      };
    }
    const bytes = base58Decode(fingerprint.slice(1));
    expect([...bytes.slice(0, 2)]).toEqual([0x80, 0x24]); // multicodec p256-pub
    const point = ECDH.convertKey(Buffer.from(bytes.slice(2)), 'prime256v1', undefined, undefined, 'uncompressed') as Buffer;
    const publicKeyJwk = { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') };
    return {
      '@context': [DID_V1, JWS_2020_V1],
      id: did,
      verificationMethod: [{ id: vm, type: 'JsonWebKey2020', controller: did, publicKeyJwk }],
      assertionMethod: [vm],
    };
  }
  if (did.startsWith('did:web:')) {
    const [host, ...path] = did.slice('did:web:'.length).split(':').map(decodeURIComponent);
    const res = await http(port, 'GET', path.length ? `/${path.join('/')}/did.json` : '/.well-known/did.json', { host: host as string });
    expect(res.status, `${did}: ${res.text}`).toBe(200);
    return res.json();
  }
  throw new Error(`Cannot resolve ${did}`);
}

/** A jsonld document loader that never touches the network: bundled contexts, and DIDs resolved above. */
function documentLoaderFor(port: number) {
  return async (url: string): Promise<{ contextUrl: null; documentUrl: string; document: Record<string, any> }> => {
    const context = CONTEXTS.get(url);
    if (context !== undefined) return { contextUrl: null, documentUrl: url, document: structuredClone(context) as Record<string, unknown> };
    if (url.startsWith('did:')) {
      const [did, fragment] = url.split('#');
      const document = await resolveDid(did as string, port);
      if (fragment === undefined) return { contextUrl: null, documentUrl: url, document: { ...document } };
      const method = document.verificationMethod.find((m) => m.id === url);
      if (!method) throw new Error(`${url} is not in the DID document of ${did}`);
      // As DID resolvers do: a verification method carries its document's contexts.
      return { contextUrl: null, documentUrl: url, document: { '@context': document['@context'], ...method } };
    }
    throw new Error(`Offline: refusing to load ${url}`);
  };
}

type Entry = Record<string, unknown> & {
  issuer: string;
  '@context': string[];
  proof: { type: string; jws: string; verificationMethod: string; proofPurpose: string };
};

/** Ed25519Signature2018 with jsonld-signatures and Digital Bazaar's suite. */
async function verifyEd25519Signature2018(entry: Entry, port: number): Promise<void> {
  const result = await jsigs.verify(structuredClone(entry), {
    suite: new Ed25519Signature2018(),
    purpose: new jsigs.purposes.AssertionProofPurpose(),
    documentLoader: documentLoaderFor(port),
  });
  expect(result.verified, `${entry.issuer}: ${result.error?.errors?.map((e: Error) => e.message).join('; ') ?? result.error}`).toBe(true);
}

/**
 * JsonWebSignature2020. No verifier library for this suite is installed, so the test assembles it
 * from two we did not write: Digital Bazaar's jsonld (its own JSON-LD to RDF; the canonicalisation,
 * rdf-canonize, is the one Vellum signs with too, checked on its own in rdfc10.test.ts) canonicalises the proof options and the document as the suite
 * says, and jose checks the detached ES256 JWS (RFC 7797, b64 false) over the two hashes.
 */
async function verifyJsonWebSignature2020(entry: Entry, port: number): Promise<void> {
  const documentLoader = documentLoaderFor(port);
  const canonize = async (doc: object) =>
    createHash('sha256')
      .update(await jsonld.canonize(doc, { algorithm: 'URDNA2015', format: 'application/n-quads', documentLoader, safe: true }))
      .digest();
  const { proof, ...unsigned } = entry;
  const { jws, ...options } = proof;
  const verifyData = Buffer.concat([await canonize({ '@context': entry['@context'], ...options }), await canonize(unsigned)]);
  const [header, detached, signature] = jws.split('.');
  expect(detached).toBe('');
  expect(JSON.parse(Buffer.from(header as string, 'base64url').toString())).toEqual({ alg: 'ES256', b64: false, crit: ['b64'] });
  const { document: method } = await documentLoader(proof.verificationMethod);
  const { document: controller } = await documentLoader(entry.issuer);
  expect(controller.assertionMethod).toContain(proof.verificationMethod);
  const key = await importJWK(method.publicKeyJwk, 'ES256');
  await flattenedVerify({ protected: header as string, payload: verifyData, signature: signature as string }, key);
  await expect(
    flattenedVerify({ protected: header as string, payload: Buffer.from(verifyData).fill(0, 0, 1), signature: signature as string }, key),
  ).rejects.toThrow();
}

describe('the DID configuration, verified by libraries we did not write (issue 3)', () => {
  let dir: string;
  let env: Record<string, string>;
  let server: RunningServer;
  let auth: Record<string, string>;
  let tenantId: string;
  let store: Store;
  let keys: KeyManager;
  const created: Record<string, { did: string; localMetadata: { keys: Array<{ kmsKeyId: string; didDocumentKeyId: string }> } }> = {};

  const call = (method: string, path: string, body?: unknown, host = HOST) =>
    http(server.port, method, path, { host, headers: auth, ...(body === undefined ? {} : { body }) });
  const configuration = async () => {
    const res = await http(server.port, 'GET', '/.well-known/did-configuration', { host: HOST });
    expect(res.status, res.text).toBe(200);
    return res.json() as { '@context': string; entries: Entry[]; linked_dids: Entry[] };
  };

  beforeAll(async () => {
    dir = tempDir();
    const masterKey = randomBytes(32).toString('base64');
    env = serverEnv({
      VELLUM_DATA_DIR: dir,
      VELLUM_PORT: String(await freePort()),
      VELLUM_PLATFORM_DOMAIN: PLATFORM,
      VELLUM_DEFAULT_TENANT: '',
      VELLUM_MASTER_KEY: masterKey,
    });
    const acme = JSON.parse(cli(['tenants', 'create', '--subdomain', 'acme', '--region', 'eu01'], env).stdout);
    expect(cli(['tenants', 'create', '--subdomain', 'other', '--region', 'eu01'], env).status).toBe(0);
    tenantId = acme.tenantId;
    server = await startServer(env);
    const token = await http(server.port, 'POST', '/oauth/token', {
      host: HOST,
      body: { grant_type: 'client_credentials', client_id: acme.clientId, client_secret: acme.clientSecret, audience: acme.audience },
    });
    auth = { authorization: `Bearer ${token.json().access_token}` };
    // The server's own database and master key, to see what happens to keys from outside.
    store = await openStore(loadConfig(env));
    keys = createKeyManager({
      keys: store.keys,
      sealer: createSealer(parseMasterKey(masterKey)),
      ids: { uuid: () => crypto.randomUUID(), token: () => 'x', bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) },
      clock: { now: () => new Date() },
    });

    for (const [name, body] of [
      ['ed25519', { method: 'key' }],
      ['p256', { method: 'key', options: { keyType: 'P-256' } }],
      ['web', { method: 'web', options: { url: HOST } }],
      ['webPath', { method: 'web', options: { url: `https://${HOST}/issuers/licensing` } }],
    ] as const) {
      const res = await call('POST', '/v1/dids', body);
      expect(res.status, res.text).toBe(201);
      created[name] = res.json();
    }
  });

  afterAll(async () => {
    await store?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('checks the bundled contexts first: DIF’s own signed example verifies with jsonld-signatures', async () => {
    const result = await jsigs.verify(structuredClone(dif.credential), {
      suite: new Ed25519Signature2018(),
      purpose: new jsigs.purposes.AssertionProofPurpose(),
      documentLoader: documentLoaderFor(0),
    });
    expect(result.verified, String(result.error)).toBe(true);
  });

  it('serves did:key documents that match the DIDs decoded independently, and did:web documents on the tenant’s host', async () => {
    for (const { did } of Object.values(created)) {
      const got = await call('GET', `/v1/dids/${encodeURIComponent(did)}`);
      expect(got.status).toBe(200);
      const resolved = await resolveDid(did, server.port);
      expect(got.json().didDocument.verificationMethod).toEqual(expect.arrayContaining(resolved.verificationMethod));
      expect(got.json().didDocument.assertionMethod).toEqual(expect.arrayContaining(resolved.assertionMethod));
    }
  });

  it('publishes one entry per DID, under entries and linked_dids, and every entry verifies', async () => {
    const config = await configuration();
    expect(config['@context']).toBe(DID_CONFIGURATION_V1);
    expect(config.linked_dids).toEqual(config.entries);
    expect(config.entries.map((e) => e.issuer)).toEqual(Object.values(created).map((c) => c.did));
    const suites: string[] = [];
    for (const entry of config.entries) {
      expect(entry).toMatchObject({
        '@context': expect.arrayContaining([CREDENTIALS_V1, DID_CONFIGURATION_V1]),
        type: ['VerifiableCredential', 'DomainLinkageCredential'],
        credentialSubject: { id: entry.issuer, origin: `https://${HOST}` },
        proof: { proofPurpose: 'assertionMethod', verificationMethod: expect.stringMatching(new RegExp(`^${entry.issuer}#`)) },
      });
      const issued = Date.parse(entry.issuanceDate as string);
      expect(issued).toBeLessThanOrEqual(Date.now());
      expect(Date.parse(entry.expirationDate as string)).toBeGreaterThan(issued + 300 * 86_400_000);
      if (entry.proof.type === 'Ed25519Signature2018') await verifyEd25519Signature2018(entry, server.port);
      else if (entry.proof.type === 'JsonWebSignature2020') await verifyJsonWebSignature2020(entry, server.port);
      else throw new Error(`Unexpected proof type ${entry.proof.type}`);
      suites.push(entry.proof.type);
    }
    expect(suites).toEqual(['Ed25519Signature2018', 'JsonWebSignature2020', 'Ed25519Signature2018', 'Ed25519Signature2018']);
    // A tampered entry does not verify: the check can fail.
    const tampered = { ...config.entries[0], credentialSubject: { id: config.entries[0]?.issuer, origin: 'https://evil.example' } } as Entry;
    const result = await jsigs.verify(tampered, {
      suite: new Ed25519Signature2018(),
      purpose: new jsigs.purposes.AssertionProofPurpose(),
      documentLoader: documentLoaderFor(server.port),
    });
    expect(result.verified).toBe(false);
  });

  it('serves the same credentials again (signed once), and the .json spelling of the path too', async () => {
    const first = await configuration();
    const again = await configuration();
    expect(again).toEqual(first);
    const dotJson = await http(server.port, 'GET', '/.well-known/did-configuration.json', { host: HOST });
    expect(dotJson.json()).toEqual(first);
  });

  it('deleting a DID removes its entry and its did:web document, and makes its keys unusable', async () => {
    const doomed = created.web as (typeof created)[string];
    for (const key of doomed.localMetadata.keys) await expect(keys.sign(tenantId, key.kmsKeyId, new Uint8Array([1, 2, 3]))).resolves.toHaveLength(64);
    const deleted = await call('DELETE', `/v1/dids/${encodeURIComponent(doomed.did)}`);
    expect(deleted.status).toBe(204);
    expect((await configuration()).entries.map((e) => e.issuer)).not.toContain(doomed.did);
    expect((await http(server.port, 'GET', '/.well-known/did.json', { host: HOST })).status).toBe(404);
    for (const key of doomed.localMetadata.keys) {
      await expect(keys.sign(tenantId, key.kmsKeyId, new Uint8Array([1, 2, 3]))).rejects.toMatchObject({ code: 'NotFound' });
    }
    // The rest still verify.
    for (const entry of (await configuration()).entries) {
      if (entry.proof.type === 'Ed25519Signature2018') await verifyEd25519Signature2018(entry, server.port);
      else await verifyJsonWebSignature2020(entry, server.port);
    }
  });

  it('answers bad input with 400 or 404 and the error body; another tenant reads nothing', async () => {
    const cases: Array<[string, Promise<Awaited<ReturnType<typeof http>>>, number, object]> = [
      ['unknown method', call('POST', '/v1/dids', { method: 'ion' }), 400, { details: [{ param: 'method', location: 'body' }] }],
      [
        'unknown keyType',
        call('POST', '/v1/dids', { method: 'key', options: { keyType: 'secp256k1' } }),
        400,
        { details: [{ param: 'options.keyType', location: 'body' }] },
      ],
      [
        'foreign did:web host',
        call('POST', '/v1/dids', { method: 'web', options: { url: `other.eu01.${PLATFORM}` } }),
        400,
        { details: [{ param: 'options.url', location: 'body' }] },
      ],
      ['malformed DID', call('GET', '/v1/dids/not%20a%20did'), 400, { details: [{ param: 'did', location: 'params', value: 'not a did' }] }],
      ['malformed DID on delete', call('DELETE', '/v1/dids/did%3A%3Ax'), 400, { details: [{ param: 'did', location: 'params' }] }],
      ['unknown DID', call('GET', `/v1/dids/${encodeURIComponent('did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp')}`), 404, { code: 'NotFound' }],
    ];
    for (const [name, pending, status, body] of cases) {
      const res = await pending;
      expect(res.status, name).toBe(status);
      expect(res.json(), name).toMatchObject({ code: status === 400 ? 'BadRequest' : 'NotFound', message: expect.any(String), ...body });
    }
    const other = JSON.parse(cli(['clients', 'create', '--tenant', 'other', '--role', 'admin'], env).stdout);
    const otherHost = `other.eu01.${PLATFORM}`;
    const token = await http(server.port, 'POST', '/oauth/token', {
      host: otherHost,
      body: { grant_type: 'client_credentials', client_id: other.clientId, client_secret: other.clientSecret, audience: `https://${otherHost}` },
    });
    const theirs = { authorization: `Bearer ${token.json().access_token}` };
    const acmeDid = (created.ed25519 as (typeof created)[string]).did;
    for (const method of ['GET', 'DELETE']) {
      const res = await http(server.port, method, `/v1/dids/${encodeURIComponent(acmeDid)}`, { host: otherHost, headers: theirs });
      expect(res.status, method).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NotFound' });
    }
    expect((await http(server.port, 'GET', '/.well-known/did-configuration', { host: otherHost })).json().entries).toEqual([]);
  });
});
