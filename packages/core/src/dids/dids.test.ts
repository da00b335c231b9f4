import { describe, expect, it } from 'vitest';
import vectors from '../../test/fixtures/did-key-vectors.json' with { type: 'json' };
import { contextFor, harness, PLATFORM, withTenant } from '../../test/harness.ts';
import type { PublicJwk } from '../keys/model.ts';
import { bytesToBase64Url } from '../shared/encoding.ts';
import { didKeyOf, parseDidKey } from './did-key.ts';
import { didWebOf, parseDidWebUrl } from './did-web.ts';
import { base58btcDecode, base58btcEncode } from './multibase.ts';

const ed25519Jwk = (publicKeyBase58: string): PublicJwk => ({
  kty: 'OKP',
  crv: 'Ed25519',
  x: bytesToBase64Url(base58btcDecode(publicKeyBase58) as Uint8Array),
});

describe('did:key encoding (W3C CCG did:key method, its test vectors)', () => {
  it.each(vectors.ed25519)('encodes the Ed25519 key $publicKeyBase58 as $did', ({ did, publicKeyBase58 }) => {
    expect(didKeyOf(ed25519Jwk(publicKeyBase58))).toBe(did);
    const decoded = parseDidKey(did);
    expect(decoded?.algorithm).toBe('Ed25519');
    expect(base58btcEncode(decoded?.publicKey as Uint8Array)).toBe(publicKeyBase58);
  });

  it.each(vectors.p256)('encodes the P-256 key of $did with its compressed point', ({ did, publicKeyJwk }) => {
    expect(didKeyOf(publicKeyJwk as PublicJwk)).toBe(did);
    const decoded = parseDidKey(did);
    expect(decoded?.algorithm).toBe('P-256');
    expect(decoded?.publicKey).toHaveLength(33);
    expect(bytesToBase64Url((decoded?.publicKey as Uint8Array).slice(1))).toBe(publicKeyJwk.x);
  });

  it('keeps leading zero bytes through base58btc, and refuses characters outside the alphabet', () => {
    const bytes = new Uint8Array([0, 0, 1, 2, 255]);
    expect(base58btcEncode(bytes)).toMatch(/^11/);
    expect(base58btcDecode(base58btcEncode(bytes))).toEqual(bytes);
    expect(base58btcEncode(new Uint8Array())).toBe('');
    expect(base58btcDecode('0OIl')).toBeUndefined();
  });

  it.each([
    'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooW', // one character short
    'did:key:zQ3shokFTS3brHcDQrn82RUDfCZESWL1ZdCEJwekUDPQiYBme', // secp256k1: not a key type Vellum holds
    'did:key:u6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
    'did:web:example.com',
  ])('does not decode %s', (did) => {
    expect(parseDidKey(did)).toBeUndefined();
  });
});

describe('did:web URLs (W3C CCG did:web method)', () => {
  it.each([
    ['acme.example.com', 'did:web:acme.example.com'],
    ['https://acme.example.com', 'did:web:acme.example.com'],
    ['Acme.Example.com/issuers/one', 'did:web:acme.example.com:issuers:one'],
    ['https://acme.example.com/issuers/', 'did:web:acme.example.com:issuers'],
    ['http://localhost:3000', 'did:web:localhost%3A3000'],
  ])('reads %s as %s', (input, did) => {
    const parsed = parseDidWebUrl(input);
    expect('location' in parsed && didWebOf(parsed.location)).toBe(did);
  });

  it.each([
    ['', 'A host name is required'],
    ['acme.example.com/.well-known', 'must not start with a dot'],
    ['acme.example.com/a%20b', 'letters, digits'],
    ['acme.example.com/a//b', 'empty path segments'],
    ['acme.example.com/a/b/c/d/e/f', 'At most 5'],
    ['acme.example.com/?x=1', 'no user, query or fragment'],
    ['ftp://acme.example.com', 'http(s)'],
    ['https://user@acme.example.com', 'no user'],
  ])('refuses %j', (input, problem) => {
    const parsed = parseDidWebUrl(input);
    expect('problem' in parsed && parsed.problem).toContain(problem);
  });
});

const setup = withTenant;
const host = `acme.eu01.${PLATFORM}`;

describe('creating DIDs (docs/decisions.md "DIDs")', () => {
  it('creates a did:key with an Ed25519 key by default, and answers as docs/decisions.md "DIDs" shows', async () => {
    const { dids, ctx, keys, tenant } = await setup();
    const created = await dids.create(ctx, { method: 'key' });
    expect(created.did).toMatch(/^did:key:z6Mk/);
    const vm = `${created.did}#${created.did.slice('did:key:'.length)}`;
    expect(created).toEqual({
      did: created.did,
      registrationStatus: 'COMPLETED',
      localMetadata: {
        keys: [{ didDocumentKeyId: vm, kmsKeyId: expect.any(String) }],
        registered: '2026-05-01T12:00:00.000Z',
        initialDidDocument: {
          '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/ed25519-2018/v1'],
          id: created.did,
          verificationMethod: [{ id: vm, type: 'Ed25519VerificationKey2018', controller: created.did, publicKeyBase58: expect.any(String) }],
          authentication: [vm],
          assertionMethod: [vm],
        },
      },
    });
    // The document's key is the KeyManager's key, and the DID encodes it.
    const key = await keys.get(tenant.id, created.localMetadata.keys[0]!.kmsKeyId);
    expect(didKeyOf(key!.publicJwk)).toBe(created.did);
    expect(created.localMetadata.initialDidDocument.verificationMethod[0]?.publicKeyBase58).toBe(base58btcEncode(parseDidKey(created.did)!.publicKey));
  });

  it('creates a P-256 did:key whose document carries the key as a JsonWebKey2020', async () => {
    const { dids, ctx, keys, tenant } = await setup();
    const created = await dids.create(ctx, { method: 'key', options: { keyType: 'P-256' } });
    expect(created.did).toMatch(/^did:key:zDn/);
    const key = await keys.get(tenant.id, created.localMetadata.keys[0]!.kmsKeyId);
    expect(created.localMetadata.initialDidDocument).toMatchObject({
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
      verificationMethod: [{ type: 'JsonWebKey2020', controller: created.did, publicKeyJwk: key!.publicJwk }],
    });
  });

  it('creates a did:web on the tenant’s host, with an Ed25519 and a P-256 key', async () => {
    const { dids, ctx } = await setup();
    const root = await dids.create(ctx, { method: 'web', options: { url: host } });
    expect(root.did).toBe(`did:web:${host}`);
    const document = root.localMetadata.initialDidDocument;
    expect(document['@context']).toEqual([
      'https://www.w3.org/ns/did/v1',
      'https://w3id.org/security/suites/ed25519-2018/v1',
      'https://w3id.org/security/suites/jws-2020/v1',
    ]);
    expect(document.verificationMethod.map((m) => m.type)).toEqual(['Ed25519VerificationKey2018', 'JsonWebKey2020']);
    expect(document.verificationMethod.map((m) => m.id)).toEqual([
      expect.stringMatching(new RegExp(`^did:web:${host}#z6Mk`)),
      expect.stringMatching(new RegExp(`^did:web:${host}#zDn`)),
    ]);
    expect(document.assertionMethod).toEqual(document.verificationMethod.map((m) => m.id));
    const nested = await dids.create(ctx, { method: 'web', options: { url: `https://${host}/issuers/licensing` } });
    expect(nested.did).toBe(`did:web:${host}:issuers:licensing`);
  });

  it('takes the verified custom domain, but not an unverified one nor anyone else’s host (400)', async () => {
    const { dids, domains, dns, ctx } = await setup();
    const domain = await domains.create(ctx, { domain: 'issuer.example.com' });
    await expect(dids.create(ctx, { method: 'web', options: { url: 'issuer.example.com' } })).rejects.toMatchObject({
      code: 'BadRequest',
      details: [{ param: 'options.url', location: 'body', value: 'issuer.example.com', msg: expect.stringContaining(host) }],
    });
    dns.records['issuer.example.com'] = [domain.verificationToken];
    await domains.verify(ctx);
    await expect(dids.create(ctx, { method: 'web', options: { url: 'issuer.example.com/vc' } })).resolves.toMatchObject({
      did: 'did:web:issuer.example.com:vc',
    });
    for (const url of ['other.eu01.vellum.test', 'example.com', `evil.${host}`, `${host}.evil.example`, 'localhost:3000']) {
      await expect(dids.create(ctx, { method: 'web', options: { url } }), url).rejects.toMatchObject({
        code: 'BadRequest',
        details: [{ param: 'options.url' }],
      });
    }
  });

  it('takes the public URL’s host in single-tenant mode', async () => {
    const h = harness();
    const { tenant } = await h.tenants.createTenant({ subdomain: 'demo', region: 'eu01' });
    await expect(h.dids.create(contextFor(tenant), { method: 'web', options: { url: 'localhost:3000' } })).resolves.toMatchObject({
      did: 'did:web:localhost%3A3000',
    });
  });

  it('refuses the same did:web twice with 409, and creates no keys for it', async () => {
    const { dids, ctx, keys, tenant } = await setup();
    await dids.create(ctx, { method: 'web', options: { url: host } });
    expect(keys.count(tenant.id)).toBe(2);
    await expect(dids.create(ctx, { method: 'web', options: { url: `https://${host}/` } })).rejects.toMatchObject({ code: 'Conflict' });
    expect(keys.count(tenant.id)).toBe(2);
  });

  it('destroys the keys it made when the DID cannot be stored', async () => {
    const { dids, ctx, keys, tenant, store } = await setup();
    const insert = store.dids.insert;
    store.dids.insert = async () => {
      throw new Error('database down');
    };
    await expect(dids.create(ctx, { method: 'web', options: { url: host } })).rejects.toThrow('database down');
    store.dids.insert = insert;
    expect(keys.count(tenant.id)).toBe(0);
  });

  it.each([
    [{ method: 'ion' }, [{ param: 'method', msg: 'One of key, web', value: 'ion' }]],
    [{}, [{ param: 'method' }]],
    [{ method: 'key', options: { keyType: 'secp256k1' } }, [{ param: 'options.keyType', msg: 'One of Ed25519, P-256', value: 'secp256k1' }]],
    [{ method: 'key', options: { keyType: 'RSA', url: host } }, [{ param: 'options.keyType' }, { param: 'options.url' }]],
    [{ method: 'web' }, [{ param: 'options.url', msg: expect.stringContaining('Required') }]],
    [{ method: 'web', options: { url: host, keyType: 'Ed25519' } }, [{ param: 'options.keyType' }]],
    [{ method: 'web', options: { url: `${host}/.well-known` } }, [{ param: 'options.url' }]],
  ])('refuses %j with 400 and details', async (input, details) => {
    const { dids, ctx, keys, tenant } = await setup();
    await expect(dids.create(ctx, input as never)).rejects.toMatchObject({
      code: 'BadRequest',
      message: 'Validation Error',
      details: details.map((d) => ({ location: 'body', ...d })),
    });
    expect(keys.count(tenant.id)).toBe(0);
  });
});

describe('reading and deleting DIDs (docs/decisions.md "DIDs")', () => {
  it('lists in creation order with cursor pages, past the last to an empty page (docs/decisions.md "Pagination")', async () => {
    const { dids, ctx } = await setup();
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await dids.create(ctx, { method: 'key', options: { keyType: i % 2 ? 'P-256' : 'Ed25519' } })).did);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await dids.list(ctx, { limit: 2, ...(cursor ? { cursor } : {}) });
      for (const item of page.data) expect(Object.keys(item).sort()).toEqual(['did', 'didDocument', 'localMetadata']);
      seen.push(...page.data.map((d) => d.did));
      // Full pages carry a cursor; the short last page (one of five) carries none.
      expect(page.nextCursor === undefined).toBe(page.data.length < 2);
      if (page.nextCursor === undefined) break;
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(made);
    // Past a full last page: an empty page without a cursor.
    const firstFour = await dids.list(ctx, { limit: 4 });
    const rest = await dids.list(ctx, { limit: 1, cursor: firstFour.nextCursor });
    expect(rest.data.map((d) => d.did)).toEqual([made[4]]);
    expect(await dids.list(ctx, { cursor: rest.nextCursor })).toEqual({ data: [] });
    await expect(dids.list(ctx, { cursor: 'nonsense' })).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'cursor', location: 'query' }] });
  });

  it('gets one DID, 400 for a malformed DID and 404 for an unknown or foreign one', async () => {
    const { dids, ctx, tenants } = await setup();
    const created = await dids.create(ctx, { method: 'key' });
    const got = await dids.get(ctx, created.did);
    expect(got).toEqual({ did: created.did, didDocument: created.localMetadata.initialDidDocument, localMetadata: created.localMetadata });
    for (const bad of ['not-a-did', 'did:key:', 'did:KEY:z6Mk', 'did:web:host:', 'did:web:a b']) {
      await expect(dids.get(ctx, bad), bad).rejects.toMatchObject({ code: 'BadRequest', details: [{ param: 'did', location: 'params', value: bad }] });
    }
    await expect(dids.get(ctx, 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp')).rejects.toMatchObject({ code: 'NotFound' });
    const { tenant: other } = await tenants.createTenant({ subdomain: 'other', region: 'us01' });
    await expect(dids.get(contextFor(other), created.did)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(dids.delete(contextFor(other), created.did)).rejects.toMatchObject({ code: 'NotFound' });
    expect((await dids.list(contextFor(other), {})).data).toEqual([]);
  });

  it('deletes a DID and destroys its keys: they can never sign again', async () => {
    const { dids, ctx, keys, tenant } = await setup();
    const created = await dids.create(ctx, { method: 'web', options: { url: host } });
    const kmsIds = created.localMetadata.keys.map((k) => k.kmsKeyId);
    for (const id of kmsIds) await expect(keys.sign(tenant.id, id, new Uint8Array([1]))).resolves.toHaveLength(64);
    await dids.delete(ctx, created.did);
    for (const id of kmsIds) await expect(keys.sign(tenant.id, id, new Uint8Array([1]))).rejects.toMatchObject({ code: 'NotFound' });
    await expect(dids.get(ctx, created.did)).rejects.toMatchObject({ code: 'NotFound' });
    await expect(dids.delete(ctx, created.did)).rejects.toMatchObject({ code: 'NotFound' });
  });

  it('requires a token (401) and a role that may manage DIDs (403); docs/decisions.md "Tenancy and admin authentication" lists admin, issuer, verifier, dts-provider', async () => {
    const anonymous = await setup(null);
    await expect(anonymous.dids.list(anonymous.ctx, {})).rejects.toMatchObject({ code: 'Unauthorized' });
    for (const role of ['auditor', 'managed-issuer', 'dts-consumer'] as const) {
      const s = await setup(role);
      await expect(s.dids.create(s.ctx, { method: 'key' }), role).rejects.toMatchObject({ code: 'Forbidden' });
      await expect(s.dids.list(s.ctx, {}), role).rejects.toMatchObject({ code: 'Forbidden' });
    }
    for (const role of ['admin', 'issuer', 'verifier', 'dts-provider'] as const) {
      const s = await setup(role);
      await expect(s.dids.create(s.ctx, { method: 'key' }), role).resolves.toMatchObject({ registrationStatus: 'COMPLETED' });
    }
  });

  it('records START then SUCCESS or FAIL for every operation, in category did', async () => {
    const { dids, ctx, analytics, tenant } = await setup();
    const created = await dids.create(ctx, { method: 'key' });
    await dids.list(ctx, {});
    await dids.get(ctx, created.did);
    await dids.delete(ctx, created.did);
    await expect(dids.get(ctx, created.did)).rejects.toBeDefined();
    const page = await analytics.listEvents(contextFor(tenant, 'auditor'), { categories: 'did' });
    expect(page.data.map((e) => e.type).reverse()).toEqual([
      'DID_CREATE_START',
      'DID_CREATE_SUCCESS',
      'DID_LIST_START',
      'DID_LIST_SUCCESS',
      'DID_RETRIEVE_START',
      'DID_RETRIEVE_SUCCESS',
      'DID_DELETE_START',
      'DID_DELETE_SUCCESS',
      'DID_RETRIEVE_START',
      'DID_RETRIEVE_FAIL',
    ]);
    expect(page.data[0]).toMatchObject({ category: 'did', clientId: 'client-admin', data: { errorCode: 'NotFound' } });
  });
});

describe('did:web documents (served publicly)', () => {
  it('serves the document of a did:web on the host the request arrived on, and nothing else', async () => {
    const { dids, ctx, tenant, tenants } = await setup();
    const root = await dids.create(ctx, { method: 'web', options: { url: host } });
    const nested = await dids.create(ctx, { method: 'web', options: { url: `${host}/issuers/one` } });
    const key = await dids.create(ctx, { method: 'key' });
    const anonymous = contextFor(tenant, null);
    expect(await dids.webDocument(anonymous, [])).toEqual(root.localMetadata.initialDidDocument);
    expect(await dids.webDocument(anonymous, ['issuers', 'one'])).toEqual(nested.localMetadata.initialDidDocument);
    for (const path of [['issuers'], ['issuers', 'two'], ['..'], ['a', 'b', 'c', 'd', 'e', 'f'], [key.did]]) {
      await expect(dids.webDocument(anonymous, path), path.join('/')).rejects.toMatchObject({ code: 'NotFound' });
    }
    // Another tenant's host serves its own did:web documents only.
    const { tenant: other } = await tenants.createTenant({ subdomain: 'other', region: 'eu01' });
    await expect(dids.webDocument(contextFor(other, null), [])).rejects.toMatchObject({ code: 'NotFound' });
    await dids.delete(ctx, root.did);
    await expect(dids.webDocument(anonymous, [])).rejects.toMatchObject({ code: 'NotFound' });
  });
});
