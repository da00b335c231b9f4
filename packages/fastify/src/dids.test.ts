import type { Role } from '@vellum/core';
import { describe, expect, it } from 'vitest';
import { type TestApp, useTestApp } from '../test/app.ts';

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('DIDs over HTTP (%s; docs/decisions.md "DIDs")', (mount) => {
  const t = useTestApp(mount);
  let tenants = 0;
  const url = (path: string) => `${t.prefix}${path}`;
  const didPath = (did: string) => url(`/v1/dids/${encodeURIComponent(did)}`);

  /** A fresh tenant with an admin token, so each test sees only its own DIDs. */
  async function tenant(role: Parameters<TestApp['token']>[1] = 'admin') {
    const name = `t${(tenants += 1)}`;
    const created = await t.createTenant(name);
    const token = await t.token(name, role);
    const headers = { authorization: `Bearer ${token}`, host: created.host };
    const call = (method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object) =>
      t.app.inject({ method, url: path, headers, ...(payload ? { payload } : {}) });
    return { ...created, name, headers, call };
  }

  it('creates did:key (Ed25519 by default, P-256 on request) and did:web, answering 201 as docs/decisions.md "DIDs" shows', async () => {
    const { call, host } = await tenant();
    const ed = await call('POST', url('/v1/dids'), { method: 'key' });
    expect(ed.statusCode).toBe(201);
    expect(ed.json()).toEqual({
      did: expect.stringMatching(/^did:key:z6Mk/),
      registrationStatus: 'COMPLETED',
      localMetadata: {
        keys: [{ didDocumentKeyId: expect.stringMatching(/^did:key:z6Mk\w+#z6Mk/), kmsKeyId: expect.any(String) }],
        registered: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        initialDidDocument: expect.objectContaining({ id: ed.json().did, assertionMethod: [ed.json().localMetadata.keys[0].didDocumentKeyId] }),
      },
    });
    const p256 = await call('POST', url('/v1/dids'), { method: 'key', options: { keyType: 'P-256' } });
    expect(p256.json().did).toMatch(/^did:key:zDn/);
    const web = await call('POST', url('/v1/dids'), { method: 'web', options: { url: `${host}/issuers/one` } });
    expect(web.statusCode).toBe(201);
    expect(web.json().did).toBe(`did:web:${host}:issuers:one`);
    expect(web.json().localMetadata.keys).toHaveLength(2);
  });

  it.each([
    [{ method: 'ion' }, { param: 'method', msg: 'One of key, web' }],
    [{}, { param: 'method', msg: 'One of key, web' }],
    [
      { method: 'key', options: { keyType: 'RSA' } },
      { param: 'options.keyType', msg: 'One of Ed25519, P-256' },
    ],
    [
      { method: 'key', extra: 1 },
      { param: 'extra', msg: 'Unknown field' },
    ],
    [
      { method: 'web', options: { url: 'issuer.example.org' } },
      { param: 'options.url', msg: expect.stringContaining('tenant’s own host') },
    ],
    [{ method: 'web', options: { url: 'https://other-tenant.eu01.vellum.test' } }, { param: 'options.url' }],
  ])('refuses %j with 400 and the error body', async (payload, detail) => {
    const { call } = await tenant();
    const res = await call('POST', url('/v1/dids'), payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'BadRequest', message: 'Validation Error', details: [{ location: 'body', ...detail }] });
  });

  it('refuses a second identical did:web with 409', async () => {
    const { call, host } = await tenant();
    expect((await call('POST', url('/v1/dids'), { method: 'web', options: { url: host } })).statusCode).toBe(201);
    const again = await call('POST', url('/v1/dids'), { method: 'web', options: { url: `https://${host}` } });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'Conflict' });
  });

  it('lists in pages, gets one by its URL-encoded DID, and deletes it with its keys', async () => {
    const { call, tenantId } = await tenant();
    const made: Array<{ did: string; localMetadata: { keys: Array<{ kmsKeyId: string }> } }> = [];
    for (let i = 0; i < 3; i++) made.push((await call('POST', url('/v1/dids'), { method: 'key' })).json());
    const first = await call('GET', url('/v1/dids?limit=2'));
    expect(first.statusCode).toBe(200);
    expect(first.json().data.map((d: { did: string }) => d.did)).toEqual(made.slice(0, 2).map((d) => d.did));
    const second = (await call('GET', url(`/v1/dids?limit=2&cursor=${first.json().nextCursor}`))).json();
    expect(second.data.map((d: { did: string }) => d.did)).toEqual([made[2]?.did]);
    expect(second.nextCursor).toBeUndefined(); // not full: the last page
    const lastFull = (await call('GET', url(`/v1/dids?limit=1&cursor=${first.json().nextCursor}`))).json();
    expect((await call('GET', url(`/v1/dids?cursor=${lastFull.nextCursor}`))).json()).toEqual({ data: [] });

    const target = made[1]!;
    const got = await call('GET', didPath(target.did));
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual({ did: target.did, didDocument: expect.objectContaining({ id: target.did }), localMetadata: target.localMetadata });
    // Colons need no encoding in a path segment; both spellings reach the DID.
    expect((await call('GET', url(`/v1/dids/${target.did}`))).statusCode).toBe(200);

    const deleted = await call('DELETE', didPath(target.did));
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    await expect(t.keys.sign(tenantId, target.localMetadata.keys[0]!.kmsKeyId, new Uint8Array([1]))).rejects.toMatchObject({ code: 'NotFound' });
    for (const method of ['GET', 'DELETE'] as const) {
      const gone = await call(method, didPath(target.did));
      expect(gone.statusCode).toBe(404);
      expect(gone.json()).toMatchObject({ code: 'NotFound' });
    }
  });

  it.each(['not-a-did', 'did:key:', 'did%3AKEY%3Az6Mk', 'did:web:host:'])('answers the malformed DID %s in the path with 400 about params', async (raw) => {
    const { call } = await tenant();
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await call(method, url(`/v1/dids/${raw}`));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'BadRequest', details: [{ param: 'did', location: 'params', value: decodeURIComponent(raw) }] });
    }
  });

  it('answers 404 for a DID the tenant does not hold, including another tenant’s', async () => {
    const mine = await tenant();
    const theirs = await tenant();
    const did = (await theirs.call('POST', url('/v1/dids'), { method: 'key' })).json().did;
    for (const probe of [did, 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp', 'did:ion:EiAnKD8']) {
      const res = await mine.call('GET', didPath(probe));
      expect(res.statusCode, probe).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NotFound' });
    }
    expect((await mine.call('DELETE', didPath(did))).statusCode).toBe(404);
    expect((await theirs.call('GET', didPath(did))).statusCode).toBe(200);
  });

  it('requires a token (plain 401) and a role with DIDs (403): admin, issuer, verifier, dts-provider', async () => {
    const { host, name } = await tenant();
    const anonymous = await t.app.inject({ method: 'GET', url: url('/v1/dids'), headers: { host } });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.body).toBe('Unauthorized');
    const createAs = async (role: Role) =>
      t.app.inject({
        method: 'POST',
        url: url('/v1/dids'),
        headers: { host, authorization: `Bearer ${await t.token(name, role)}` },
        payload: { method: 'key' },
      });
    for (const role of ['auditor', 'managed-issuer'] as const) {
      const res = await createAs(role);
      expect(res.statusCode, role).toBe(403);
      expect(res.json()).toMatchObject({ code: 'Forbidden' });
    }
    for (const role of ['issuer', 'verifier', 'dts-provider'] as const) expect((await createAs(role)).statusCode, role).toBe(201);
  });

  describe('public endpoints (no token; the tenant comes from the Host header)', () => {
    it('serves did:web documents at /.well-known/did.json and /{path}/did.json on the tenant’s host', async () => {
      const { call, host } = await tenant();
      const root = (await call('POST', url('/v1/dids'), { method: 'web', options: { url: host } })).json();
      const nested = (await call('POST', url('/v1/dids'), { method: 'web', options: { url: `${host}/a/b/c/d/e` } })).json();
      const fetch = (path: string, h = host) => t.app.inject({ method: 'GET', url: url(path), headers: { host: h } });
      const wellKnown = await fetch('/.well-known/did.json');
      expect(wellKnown.statusCode).toBe(200);
      expect(wellKnown.headers['content-type']).toMatch(/^application\/json/);
      expect(wellKnown.headers['access-control-allow-origin']).toBe('*');
      expect(wellKnown.json()).toEqual(root.localMetadata.initialDidDocument);
      expect((await fetch('/a/b/c/d/e/did.json')).json()).toEqual(nested.localMetadata.initialDidDocument);
      for (const path of ['/a/did.json', '/a/b/c/d/e/f/did.json', '/.well-known/did.json/x']) {
        const res = await fetch(path);
        expect(res.statusCode, path).toBe(404);
        expect(res.json()).toMatchObject({ code: 'NotFound' });
      }
      // Another tenant's host does not serve this tenant's documents.
      const other = await tenant();
      expect((await fetch('/.well-known/did.json', other.host)).statusCode).toBe(404);
    });

    it('publishes one domain linkage credential per DID at /.well-known/did-configuration, at once after each change', async () => {
      const { call, host } = await tenant();
      const fetch = async () => {
        const res = await t.app.inject({ method: 'GET', url: url('/.well-known/did-configuration'), headers: { host } });
        expect(res.statusCode).toBe(200);
        return res.json();
      };
      expect(await fetch()).toEqual({ '@context': 'https://identity.foundation/.well-known/did-configuration/v1', entries: [], linked_dids: [] });
      const key = (await call('POST', url('/v1/dids'), { method: 'key', options: { keyType: 'P-256' } })).json().did;
      const web = (await call('POST', url('/v1/dids'), { method: 'web', options: { url: host } })).json().did;
      const configuration = await fetch();
      expect(configuration.entries.map((e: { issuer: string }) => e.issuer)).toEqual([key, web]);
      expect(configuration.linked_dids).toEqual(configuration.entries);
      expect(configuration.entries[0]).toMatchObject({
        credentialSubject: { id: key, origin: `https://${host}` },
        proof: { type: 'JsonWebSignature2020', proofPurpose: 'assertionMethod' },
      });
      expect(configuration.entries[1]).toMatchObject({ credentialSubject: { id: web, origin: `https://${host}` }, proof: { type: 'Ed25519Signature2018' } });
      const dotJson = await t.app.inject({ method: 'GET', url: url('/.well-known/did-configuration.json'), headers: { host } });
      expect(dotJson.json()).toEqual(configuration);
      await call('DELETE', didPath(key));
      expect((await fetch()).entries.map((e: { issuer: string }) => e.issuer)).toEqual([web]);
    });

    it('names the verified custom domain as the origin, and serves did:web documents there', async () => {
      const { call, name } = await tenant();
      const domain = `${name}.credentials.example.org`;
      const created = (await call('POST', url('/v1/config/domain'), { domain })).json();
      t.zone[domain] = [created.verificationToken];
      expect((await call('POST', url('/v1/config/domain/verify'))).statusCode).toBe(204);
      const did = (await call('POST', url('/v1/dids'), { method: 'web', options: { url: domain } })).json().did;
      expect(did).toBe(`did:web:${domain}`);
      const doc = await t.app.inject({ method: 'GET', url: url('/.well-known/did.json'), headers: { host: domain } });
      expect(doc.json()).toMatchObject({ id: did });
      const configuration = (await t.app.inject({ method: 'GET', url: url('/.well-known/did-configuration'), headers: { host: domain } })).json();
      expect(configuration.entries[0].credentialSubject).toEqual({ id: did, origin: `https://${domain}` });
    });

    it('answers a host that names no tenant with 404', async () => {
      const res = await t.app.inject({ method: 'GET', url: url('/.well-known/did-configuration'), headers: { host: 'nobody.eu01.vellum.test' } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NotFound' });
    });
  });
});
