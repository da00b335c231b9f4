import { beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, useTestApp } from '../test/app.ts';

// docs/decisions.md "Batch issuance and the attestation proof type (issue 30)": GET and PUT
// /v1/config/batch-issuance, and batch_credential_issuance in the issuer metadata (OpenID4VCI 1.0 §12.2.4).
describe.each(['standalone', 'prefixed'] as const)('the batch size over HTTP (%s)', (mount) => {
  const t = useTestApp(mount);
  let acme: Awaited<ReturnType<TestApp['createTenant']>>;
  let other: Awaited<ReturnType<TestApp['createTenant']>>;
  let admin: string;
  const url = (path: string) => `${t.prefix}${path}`;
  const as = (token: string, host = acme.host) => ({ authorization: `Bearer ${token}`, host });
  const metadata = async (host: string) => (await t.app.inject({ method: 'GET', url: url('/.well-known/openid-credential-issuer'), headers: { host } })).json();
  const put = (payload: unknown, token = admin) =>
    t.app.inject({ method: 'PUT', url: url('/v1/config/batch-issuance'), headers: as(token), payload: payload as object });

  beforeAll(async () => {
    acme = await t.createTenant('acme');
    other = await t.createTenant('other');
    admin = await t.token('acme');
  });

  it('is 1 by default with no batch_credential_issuance; set to 10 it is published for that tenant only; back to 1 it is gone', async () => {
    expect((await t.app.inject({ method: 'GET', url: url('/v1/config/batch-issuance'), headers: as(admin) })).json()).toEqual({ batchSize: 1 });
    expect(await metadata(acme.host)).not.toHaveProperty('batch_credential_issuance');
    const set = await put({ batchSize: 10 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({ batchSize: 10 });
    expect((await t.app.inject({ method: 'GET', url: url('/v1/config/batch-issuance'), headers: as(admin) })).json()).toEqual({ batchSize: 10 });
    expect((await metadata(acme.host)).batch_credential_issuance).toEqual({ batch_size: 10 });
    expect(await metadata(other.host)).not.toHaveProperty('batch_credential_issuance');
    expect((await put({ batchSize: 1 })).json()).toEqual({ batchSize: 1 });
    expect(await metadata(acme.host)).not.toHaveProperty('batch_credential_issuance');
  });

  it('answers a batch size outside 1..100, not an integer, or with other fields with 400, and leaves it as it was', async () => {
    await put({ batchSize: 5 });
    for (const body of [{ batchSize: 0 }, { batchSize: 101 }, { batchSize: 2.5 }, { batchSize: '10' }, {}, { batchSize: 5, extra: true }]) {
      const res = await put(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'BadRequest', message: 'Validation Error', details: expect.any(Array) });
    }
    expect((await put({ batchSize: 0 })).json().details).toEqual([
      expect.objectContaining({ param: 'batchSize', location: 'body', msg: 'An integer from 1 to 100' }),
    ]);
    expect((await metadata(acme.host)).batch_credential_issuance).toEqual({ batch_size: 5 });
  });

  it('lets a managed issuer read but not set it, refuses a verifier, and asks for a token', async () => {
    const managed = await t.token('acme', 'managed-issuer');
    const verifier = await t.token('acme', 'verifier');
    expect((await t.app.inject({ method: 'GET', url: url('/v1/config/batch-issuance'), headers: as(managed) })).statusCode).toBe(200);
    expect((await put({ batchSize: 3 }, managed)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: url('/v1/config/batch-issuance'), headers: as(verifier) })).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: url('/v1/config/batch-issuance'), headers: { host: acme.host } })).statusCode).toBe(401);
  });
});
