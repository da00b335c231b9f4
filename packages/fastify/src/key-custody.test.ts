import { describe, expect, it } from 'vitest';
import { useTestApp } from '../test/app.ts';

// docs/key-custody.md: GET and PUT /v1/config/key-custody, where a tenant's new signing keys are made.
describe('the key custody over HTTP, on a server with software keys only', () => {
  const t = useTestApp('standalone');
  const as = (token: string, host: string) => ({ authorization: `Bearer ${token}`, host });

  it('is software, the platform’s; pkcs11 is refused with 400 naming what the server has, and nothing changes', async () => {
    const acme = await t.createTenant('acme');
    const admin = await t.token('acme');
    const get = () => t.app.inject({ method: 'GET', url: '/v1/config/key-custody', headers: as(admin, acme.host) });
    expect((await get()).json()).toEqual({ custody: 'software', chosenBy: 'platform', available: ['software'] });
    const refused = await t.app.inject({ method: 'PUT', url: '/v1/config/key-custody', headers: as(admin, acme.host), payload: { custody: 'pkcs11' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 'BadRequest',
      details: [expect.objectContaining({ param: 'custody', location: 'body', msg: expect.stringMatching(/no pkcs11 key custody; it has software/) })],
    });
    expect((await get()).json()).toEqual({ custody: 'software', chosenBy: 'platform', available: ['software'] });
    const chosen = await t.app.inject({ method: 'PUT', url: '/v1/config/key-custody', headers: as(admin, acme.host), payload: { custody: 'software' } });
    expect(chosen.json()).toEqual({ custody: 'software', chosenBy: 'tenant', available: ['software'] });
  });
});

describe('the key custody over HTTP, on a server with a PKCS#11 token', () => {
  const t = useTestApp('standalone', { keyCustody: { available: ['software', 'pkcs11'], platformDefault: 'software' } });
  const as = (token: string, host: string) => ({ authorization: `Bearer ${token}`, host });

  it('lets a tenant choose pkcs11 for its new keys, kept on that tenant only', async () => {
    const acme = await t.createTenant('acme');
    const other = await t.createTenant('other');
    const admin = await t.token('acme');
    const set = await t.app.inject({ method: 'PUT', url: '/v1/config/key-custody', headers: as(admin, acme.host), payload: { custody: 'pkcs11' } });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({ custody: 'pkcs11', chosenBy: 'tenant', available: ['software', 'pkcs11'] });
    expect((await t.store.tenants.findById(acme.tenantId))?.keyCustody).toBe('pkcs11');
    const otherAdmin = await t.token('other');
    const otherGet = await t.app.inject({ method: 'GET', url: '/v1/config/key-custody', headers: as(otherAdmin, other.host) });
    expect(otherGet.json()).toEqual({ custody: 'software', chosenBy: 'platform', available: ['software', 'pkcs11'] });
  });

  it('answers another custody, a wrong type or other fields with 400, and lets a managed issuer read but not choose', async () => {
    await t.createTenant('beta');
    const admin = await t.token('beta');
    const host = t.hostOf('beta');
    for (const payload of [{ custody: 'vault' }, { custody: 1 }, {}, { custody: 'pkcs11', extra: true }]) {
      const res = await t.app.inject({ method: 'PUT', url: '/v1/config/key-custody', headers: as(admin, host), payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'BadRequest', message: 'Validation Error' });
    }
    const managed = await t.token('beta', 'managed-issuer');
    expect((await t.app.inject({ method: 'GET', url: '/v1/config/key-custody', headers: as(managed, host) })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'PUT', url: '/v1/config/key-custody', headers: as(managed, host), payload: { custody: 'pkcs11' } })).statusCode).toBe(
      403,
    );
    expect((await t.app.inject({ method: 'GET', url: '/v1/config/key-custody', headers: { host } })).statusCode).toBe(401);
  });
});
