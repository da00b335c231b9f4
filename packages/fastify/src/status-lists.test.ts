import type { CredentialFormat } from '@vellum/core';
import { readFakeStatusListToken } from '@vellum/testing';
import { describe, expect, it } from 'vitest';
import { freshTenants, useTestApp } from '../test/app.ts';

const CONFIGURATIONS = '/v2/credentials/mobile/status-lists/configurations';
const DOCTYPE = 'org.iso.18013.5.1.mDL';

// STYLE 14: runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('mDoc status lists over HTTP (%s; docs/status-lists.md)', (mount) => {
  const t = useTestApp(mount);
  const fresh = freshTenants(t, 's');

  /** An issued credential of `format` holding the status list entry `entry`, as issuance leaves it; its id. */
  async function issue(tenantId: string, format: CredentialFormat, entry: { listId: string; idx: number }) {
    const credentialId = crypto.randomUUID();
    const at = new Date().toISOString();
    await t.store.issuedCredentials.insert({
      id: credentialId,
      tenantId,
      format,
      credentialConfigurationId: crypto.randomUUID(),
      userId: crypto.randomUUID(),
      issuedAt: at,
      validFrom: at,
      validUntil: at,
      status: 'valid',
      notificationId: crypto.randomUUID(),
    });
    await t.store.statusLists.insertEntry({ tenantId, listId: entry.listId, idx: entry.idx, credentialId, status: 'valid', updatedAt: at });
    return credentialId;
  }

  /** A tenant with an active IACA and `count` issued mDocs with a status entry, as issuance leaves them. */
  async function tenant(count = 2) {
    const created = await fresh();
    const { call } = created;
    const iaca = (await call('POST', '/v2/credentials/mobile/iacas', { country: 'US' })).json();
    await call('PUT', `/v2/credentials/mobile/iacas/${iaca.id}`, { active: true });
    const record = await t.store.tenants.findById(created.tenantId);
    const origin = `https://${created.host}${t.prefix}`;
    const issued = [];
    for (let i = 0; i < count; i += 1) {
      const entry = await t.services.statusLists.allocate(record!, DOCTYPE, origin);
      issued.push({ credentialId: await issue(created.tenantId, 'mso_mdoc', entry), ...entry });
    }
    return { call, issued, origin, host: created.host };
  }

  const bit = (body: Buffer, idx: number) => {
    const token = readFakeStatusListToken(new Uint8Array(body));
    const at = idx * token.bits;
    return ((token.statuses[at >> 3] as number) >> (at & 7)) & (2 ** token.bits - 1);
  };

  it('revokes an mDoc by id, and the public token then shows it while another stays valid', async () => {
    const { call, issued, host, origin } = await tenant();
    const [a, b] = issued as [(typeof issued)[0], (typeof issued)[0]];
    expect((await call('GET', `/v2/credentials/mobile/${a.credentialId}/status`)).json()).toEqual({ status: 'valid' });
    const revoked = await call('POST', `/v2/credentials/mobile/${a.credentialId}/status`, { status: 'invalid' });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json()).toEqual({ status: 'invalid' });
    expect((await call('GET', `/v2/credentials?format=mso_mdoc`)).json().data.find((r: { id: string }) => r.id === a.credentialId).status).toBe('invalid');

    const distribution = await t.app.inject({ method: 'GET', url: `${t.prefix}/v2/credentials/mobile/status-lists/distribution`, headers: { host } });
    expect(distribution.statusCode).toBe(200);
    expect(distribution.headers['access-control-allow-origin']).toBe('*');
    expect(distribution.json()).toEqual([`${origin}/v2/credentials/mobile/status-lists/${a.listId}/token`]);

    const token = await t.app.inject({ method: 'GET', url: `${t.prefix}/v2/credentials/mobile/status-lists/${a.listId}/token`, headers: { host } });
    expect(token.statusCode).toBe(200);
    expect(token.headers['content-type']).toBe('application/statuslist+cwt');
    expect(token.headers['cache-control']).toBe('public, max-age=3600');
    expect([bit(token.rawPayload, a.idx), bit(token.rawPayload, b.idx)]).toEqual([1, 0]);
    // The token names itself by the URI the mDoc's status entry carries (its `sub`), mount path included.
    expect(readFakeStatusListToken(new Uint8Array(token.rawPayload)).uri).toBe(a.uri);
  });

  it('answers bad input with the error body: unknown status, suspension in a draft 14 list, revocation undone, unknown ids, no token', async () => {
    const { call, issued, host } = await tenant(1);
    const id = issued[0]!.credentialId;
    const cases: Array<[string, string, unknown, number, string?]> = [
      ['POST', `/v2/credentials/mobile/${id}/status`, { status: 'revoked' }, 400, 'status'],
      ['POST', `/v2/credentials/mobile/${id}/status`, { status: 'suspended' }, 400, 'status'],
      ['POST', `/v2/credentials/mobile/${id}/status`, { status: 'invalid', note: 'x' }, 400, 'note'],
      ['POST', `/v2/credentials/mobile/${crypto.randomUUID()}/status`, { status: 'invalid' }, 404],
      ['GET', '/v2/credentials/mobile/not-a-uuid/status', undefined, 400, 'credentialId'],
    ];
    for (const [method, path, body, status, param] of cases) {
      const res = await call(method as 'GET', path, body);
      expect(res.statusCode, `${method} ${path} ${JSON.stringify(body)}: ${res.body}`).toBe(status);
      expect(res.json()).toMatchObject({ code: expect.any(String), message: expect.any(String) });
      if (param) expect(res.json().details.map((d: { param: string }) => d.param)).toContain(param);
    }
    await call('POST', `/v2/credentials/mobile/${id}/status`, { status: 'invalid' });
    expect((await call('POST', `/v2/credentials/mobile/${id}/status`, { status: 'valid' })).statusCode).toBe(409);
    expect((await call('GET', `/v2/credentials/mobile/${id}/status`, undefined, null)).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'GET', url: `${t.prefix}/v2/credentials/mobile/status-lists/${crypto.randomUUID()}/token`, headers: { host } })).statusCode,
    ).toBe(404);
    expect(
      (await t.app.inject({ method: 'GET', url: `${t.prefix}/v2/credentials/mobile/status-lists/distribution?format=v9`, headers: { host } })).statusCode,
    ).toBe(400);
  });

  it('revokes a credential of another format by { isRevoked }, and its list (JWT, CWT or RevocationList2020) is public', async () => {
    const { call, host, origin } = await tenant(0);
    const did = (await call('POST', '/v1/dids', { method: 'key', options: { keyType: 'P-256' } })).json().did as string;
    const tenantRecord = (await t.store.tenants.findBySubdomain(host.split('.')[0] as string))!;
    const entry = await t.services.statusLists.allocateReferenced(tenantRecord, 'token-jwt', did, origin);
    expect(entry.uri).toBe(`${origin}/v2/credentials/sd-jwt/status-lists/${entry.listId}`);
    const credentialId = await issue(tenantRecord.id, 'dc+sd-jwt', entry);

    const revoked = await call('POST', `/v2/credentials/sd-jwt/${credentialId}/revocation-status`, { isRevoked: true });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json()).toEqual({ isRevoked: true });
    expect((await call('GET', `/v2/credentials/sd-jwt/${credentialId}/revocation-status`)).json()).toEqual({ isRevoked: true });
    // Another format's path does not know it; bad bodies are 400.
    expect((await call('GET', `/v2/credentials/web-semantic/${credentialId}/revocation-status`)).statusCode).toBe(404);
    expect((await call('POST', `/v2/credentials/sd-jwt/${credentialId}/revocation-status`, { isRevoked: 'yes' })).statusCode).toBe(400);
    expect((await call('POST', `/v2/credentials/sd-jwt/${credentialId}/revocation-status`, { isRevoked: true }, null)).statusCode).toBe(401);

    const list = await t.app.inject({ method: 'GET', url: `${t.prefix}/v2/credentials/sd-jwt/status-lists/${entry.listId}`, headers: { host } });
    expect(list.statusCode, list.body).toBe(200);
    expect(list.headers['content-type']).toBe('application/statuslist+jwt');
    const read = JSON.parse(list.body) as { uri: string; issuer: string; statuses: string };
    expect(read).toMatchObject({ uri: entry.uri, issuer: did });
    const statuses = Buffer.from(read.statuses, 'base64url');
    expect(((statuses[entry.idx >> 3] as number) >> (entry.idx & 7)) & 1).toBe(1);
    // The list of one form is not served at another's path.
    expect((await t.app.inject({ method: 'GET', url: `${t.prefix}/v2/credentials/compact/status-lists/${entry.listId}`, headers: { host } })).statusCode).toBe(
      404,
    );
  });

  it('keeps status list configurations per docType: create, list, get, replace, delete, and one per docType', async () => {
    const { call } = await tenant(0);
    const created = await call('POST', CONFIGURATIONS, {
      docType: DOCTYPE,
      format: 'legacy',
      timeToLiveDuration: { minutes: 30 },
      expiryDuration: { hours: 6 },
    });
    expect(created.statusCode, created.body).toBe(201);
    const configuration = created.json();
    expect(configuration).toEqual({
      id: expect.any(String),
      docType: DOCTYPE,
      format: 'legacy',
      timeToLiveDuration: { minutes: 30 },
      expiryDuration: { hours: 6 },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await call('POST', CONFIGURATIONS, { docType: DOCTYPE })).statusCode).toBe(409);
    expect((await call('GET', CONFIGURATIONS)).json()).toEqual({ data: [configuration] });
    expect((await call('GET', `${CONFIGURATIONS}/${configuration.id}`)).json()).toEqual(configuration);
    const replaced = await call('PUT', `${CONFIGURATIONS}/${configuration.id}`, { docType: DOCTYPE });
    expect(replaced.json()).toMatchObject({ format: 'draft-14', timeToLiveDuration: { hours: 1 } });
    expect((await call('POST', CONFIGURATIONS, { docType: DOCTYPE, colour: 'red' })).statusCode).toBe(400);
    expect((await call('POST', CONFIGURATIONS, { docType: DOCTYPE }, 'verifier')).statusCode).toBe(403);
    expect((await call('DELETE', `${CONFIGURATIONS}/${configuration.id}`)).statusCode).toBe(204);
    expect((await call('GET', `${CONFIGURATIONS}/${configuration.id}`)).statusCode).toBe(404);
  });
});
