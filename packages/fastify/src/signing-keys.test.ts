import { describe, expect, it } from 'vitest';
import { useTestApp } from '../test/app.ts';

// docs/key-custody.md "Rotation": POST /v1/signing-keys/{role}/rotate over HTTP, with the real
// wallet access tokens (@vellum/crypto) behind the test app.
describe('rotating signing keys over HTTP (issue 32, point 4)', () => {
  const t = useTestApp('standalone');
  const as = (token: string, host: string) => ({ authorization: `Bearer ${token}`, host });

  it('rotates the access-token key without a body: the JWKS lists the new key first and the old one after it', async () => {
    const acme = await t.createTenant('acme');
    const admin = await t.token('acme');
    const jwks = async () =>
      (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json', headers: { host: acme.host } })).json().keys as Array<{ kid: string }>;
    const [before] = await jwks();
    const res = await t.app.inject({ method: 'POST', url: '/v1/signing-keys/access-token/rotate', headers: as(admin, acme.host) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      role: 'access-token',
      rotatedAt: expect.any(String),
      active: [expect.any(String)],
      retired: [{ id: before?.kid, until: expect.any(String) }],
    });
    expect(Date.parse(body.retired[0].until) - Date.parse(body.rotatedAt)).toBe(86_400_000);
    expect((await jwks()).map((k) => k.kid)).toEqual([body.active[0], before?.kid]);
    // The next rotation waits for the overlap to end.
    const again = await t.app.inject({
      method: 'POST',
      url: '/v1/signing-keys/access-token/rotate',
      headers: as(admin, acme.host),
      payload: { overlapSeconds: 3600 },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'Conflict', message: expect.stringContaining('overlaps until') });
  });

  it('refuses a bad body with 400, a body for a role that takes none, and a role without the permission with 403', async () => {
    const beta = await t.createTenant('beta');
    const admin = await t.token('beta');
    for (const payload of [{ overlapSeconds: 'a day' }, { overlapSeconds: 60 }, { overlapSeconds: 3600, extra: 1 }]) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/signing-keys/access-token/rotate', headers: as(admin, beta.host), payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'BadRequest' });
    }
    const withBody = await t.app.inject({
      method: 'POST',
      url: '/v1/signing-keys/webhook/rotate',
      headers: as(admin, beta.host),
      payload: { overlapSeconds: 3600 },
    });
    expect(withBody.statusCode).toBe(400);
    const auditor = await t.token('beta', 'auditor');
    for (const role of ['access-token', 'webhook', 'document-signers', 'issuer-certificates', 'dids', 'verifier-applications']) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/signing-keys/${role}/rotate`,
        headers: as(auditor, beta.host),
        payload: role === 'dids' ? { did: 'did:web:x' } : role === 'verifier-applications' ? { applicationId: crypto.randomUUID() } : {},
      });
      expect(res.statusCode, role).toBe(403);
    }
    expect((await t.app.inject({ method: 'POST', url: '/v1/signing-keys/access-token/rotate', headers: { host: beta.host } })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: '/v1/signing-keys/platform/rotate', headers: as(admin, beta.host) })).statusCode).toBe(404);
  });

  it('rotates the webhook key and, with no managed CA, finds no signers to rotate', async () => {
    const gamma = await t.createTenant('gamma');
    const admin = await t.token('gamma');
    const webhook = await t.app.inject({ method: 'POST', url: '/v1/signing-keys/webhook/rotate', headers: as(admin, gamma.host) });
    expect(webhook.statusCode, webhook.body).toBe(200);
    expect(webhook.json()).toMatchObject({ role: 'webhook', active: [expect.any(String)], retired: [{ id: expect.any(String) }] });
    for (const role of ['document-signers', 'issuer-certificates']) {
      const res = await t.app.inject({ method: 'POST', url: `/v1/signing-keys/${role}/rotate`, headers: as(admin, gamma.host) });
      expect(res.json()).toMatchObject({ role, active: [], retired: [] });
    }
  });

  it('rotates a did:web: its document lists the new keys and the old ones (with an end when an overlap is given); a did:key is refused', async () => {
    const delta = await t.createTenant('delta');
    const admin = await t.token('delta');
    const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: as(admin, delta.host), ...(payload ? { payload } : {}) });
    const web = (await call('POST', '/v1/dids', { method: 'web', options: { url: delta.host } })).json();
    const document = async () => (await t.app.inject({ method: 'GET', url: '/.well-known/did.json', headers: { host: delta.host } })).json();
    const before = (await document()).assertionMethod as string[];
    expect(before).toHaveLength(2);
    const rotated = await call('POST', '/v1/signing-keys/dids/rotate', { did: web.did });
    expect(rotated.statusCode, rotated.body).toBe(200);
    expect(rotated.json()).toMatchObject({ role: 'dids', active: [expect.any(String), expect.any(String)], retired: before.map((id) => ({ id })) });
    const after = await document();
    expect(after.assertionMethod).toEqual([...before, ...rotated.json().active]);
    expect(after.verificationMethod).toHaveLength(4);
    // The DID's own view says which keys are retired.
    const view = (await call('GET', `/v1/dids/${encodeURIComponent(web.did)}`)).json();
    expect(
      view.localMetadata.keys.filter((k: { retiredAt?: string }) => k.retiredAt !== undefined).map((k: { didDocumentKeyId: string }) => k.didDocumentKeyId),
    ).toEqual(before);
    expect(view.localMetadata.initialDidDocument.assertionMethod).toEqual(before);
    // With an overlap the old keys have an end; a did:key cannot rotate; the body is required.
    const timed = await call('POST', '/v1/signing-keys/dids/rotate', { did: web.did, overlapSeconds: 3600 });
    expect(timed.json().retired).toEqual(rotated.json().active.map((id: string) => ({ id, until: expect.any(String) })));
    const key = (await call('POST', '/v1/dids', { method: 'key' })).json();
    const refused = await call('POST', '/v1/signing-keys/dids/rotate', { did: key.did });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ details: [{ param: 'did', msg: expect.stringContaining('A did:key cannot rotate') }] });
    expect((await call('POST', '/v1/signing-keys/dids/rotate')).statusCode).toBe(400);
    expect((await call('POST', '/v1/signing-keys/dids/rotate', { did: 'did:web:nowhere.example' })).statusCode).toBe(404);
  });
});
