import { beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM, type TestApp, useTestApp } from '../test/app.ts';

// STYLE 14: the whole HTTP suite runs standalone and mounted under a prefix inside another app.
describe.each(['standalone', 'prefixed'] as const)('HTTP API (%s)', (mount) => {
  const t = useTestApp(mount);
  let acme: Awaited<ReturnType<TestApp['createTenant']>>;
  let admin: string;
  const url = (path: string) => `${t.prefix}${path}`;
  const as = (token: string, host = acme.host) => ({ authorization: `Bearer ${token}`, host });

  beforeAll(async () => {
    acme = await t.createTenant('acme');
    await t.createTenant('other');
    admin = await t.token('acme');
  });

  describe('admin token endpoint (docs/decisions.md "Tenancy and admin authentication")', () => {
    it('issues a bearer token for JSON and for form bodies, never cached', async () => {
      const body = { grant_type: 'client_credentials', client_id: acme.clientId, client_secret: acme.clientSecret, audience: `https://${acme.host}` };
      const json = await t.app.inject({ method: 'POST', url: url('/oauth/token'), payload: body });
      expect(json.statusCode).toBe(200);
      expect(json.headers['cache-control']).toBe('no-store');
      expect(json.json()).toEqual({ access_token: expect.any(String), expires_in: 600, token_type: 'Bearer' });
      const form = await t.app.inject({
        method: 'POST',
        url: url('/oauth/token'),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(body).toString(),
      });
      expect(form.statusCode).toBe(200);
    });

    it('answers a wrong secret with 401 access_denied', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: url('/oauth/token'),
        payload: { grant_type: 'client_credentials', client_id: acme.clientId, client_secret: 'wrong', audience: `https://${acme.host}` },
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ error: 'access_denied', error_description: 'Unauthorized', code: 'Unauthorized' });
    });

    it('names every answer’s request in x-request-id, errors included, with the body unchanged', async () => {
      const ok = await t.app.inject({
        method: 'POST',
        url: url('/oauth/token'),
        payload: { grant_type: 'client_credentials', client_id: acme.clientId, client_secret: acme.clientSecret, audience: `https://${acme.host}` },
      });
      const refused = await t.app.inject({ method: 'POST', url: url('/oauth/token'), payload: { client_id: 'x' } });
      for (const res of [ok, refused]) expect(res.headers['x-request-id']).toMatch(/\S+/);
      expect(ok.headers['x-request-id']).not.toBe(refused.headers['x-request-id']);
      expect(ok.json()).toMatchObject({ token_type: 'Bearer' });
      expect(refused.json()).toMatchObject({ error: 'invalid_request' });
    });

    it('answers a missing grant_type with 400 invalid_request and details', async () => {
      const res = await t.app.inject({ method: 'POST', url: url('/oauth/token'), payload: { client_id: 'x' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: 'invalid_request', code: 'BadRequest', details: [{ param: 'grant_type', msg: 'Required', location: 'body' }] });
    });
  });

  describe('custom domain (docs/decisions.md "Custom domains")', () => {
    /** A raw body of `contentType` to the custom domain endpoint. */
    const sendDomain = (method: 'POST' | 'PUT', contentType: string, payload: string, headers = as(admin)) =>
      t.app.inject({ method, url: url('/v1/config/domain'), headers: { ...headers, 'content-type': contentType }, payload });

    it('runs the whole life cycle with the statuses of 4.1', async () => {
      const created = await t.app.inject({
        method: 'POST',
        url: url('/v1/config/domain'),
        headers: as(admin),
        payload: { domain: 'issuer.example.com', name: 'Acme', logoUrl: 'https://issuer.example.com/logo.png' },
      });
      expect(created.statusCode).toBe(201);
      const body = created.json();
      expect(body).toMatchObject({ domain: 'issuer.example.com', name: 'Acme', isVerified: false });
      expect(body.verificationToken).toMatch(/^vellum-domain-verification=/);
      expect(body).not.toHaveProperty('verifiedAt');

      const again = await t.app.inject({ method: 'POST', url: url('/v1/config/domain'), headers: as(admin), payload: { domain: 'second.example.com' } });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ code: 'Conflict' });

      const unverified = await t.app.inject({ method: 'POST', url: url('/v1/config/domain/verify'), headers: as(admin) });
      expect(unverified.statusCode).toBe(400);
      expect(unverified.json()).toMatchObject({ code: 'BadRequest', message: expect.stringContaining('TXT') });

      t.zone['issuer.example.com'] = [body.verificationToken];
      const verified = await t.app.inject({ method: 'POST', url: url('/v1/config/domain/verify'), headers: as(admin) });
      expect(verified.statusCode).toBe(204);
      expect(verified.body).toBe('');

      const got = await t.app.inject({ method: 'GET', url: url('/v1/config/domain'), headers: as(admin) });
      expect(got.statusCode).toBe(200);
      expect(got.json()).toMatchObject({ isVerified: true, verifiedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) });

      // Once verified, the custom domain reaches the tenant (docs/decisions.md "Custom domains").
      const viaCustom = await t.app.inject({ method: 'GET', url: url('/v1/config/domain'), headers: as(admin, 'issuer.example.com') });
      expect(viaCustom.statusCode).toBe(200);

      const updated = await t.app.inject({
        method: 'PUT',
        url: url('/v1/config/domain'),
        headers: as(admin),
        payload: { domain: 'issuer.example.com', name: 'Acme Licensing' },
      });
      expect(updated.statusCode).toBe(200);
      expect(updated.json()).toMatchObject({ name: 'Acme Licensing', isVerified: true });

      const deleted = await t.app.inject({ method: 'DELETE', url: url('/v1/config/domain'), headers: as(admin) });
      expect(deleted.statusCode).toBe(204);
      for (const [method, path] of [
        ['GET', '/v1/config/domain'],
        ['DELETE', '/v1/config/domain'],
        ['POST', '/v1/config/domain/verify'],
      ] as const) {
        const res = await t.app.inject({ method, url: url(path), headers: as(admin) });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ code: 'NotFound' });
      }
      const put404 = await t.app.inject({ method: 'PUT', url: url('/v1/config/domain'), headers: as(admin), payload: { domain: 'x.example.com' } });
      expect(put404.statusCode).toBe(404);
      const gone = await t.app.inject({ method: 'GET', url: url('/v1/config/domain'), headers: as(admin, 'issuer.example.com') });
      expect(gone.statusCode).toBe(404);
      expect(gone.json()).toMatchObject({ code: 'NotFound', message: 'No tenant is served at this host' });
    });

    it('accepts XML bodies on create and update, and refuses malformed XML and DTDs on both', async () => {
      const other = await t.token('other');
      const host = t.hostOf('other');
      const xml = await sendDomain(
        'POST',
        'application/xml',
        '<?xml version="1.0"?><customDomain><name>Other &amp; Co</name><domain>other.example.org</domain></customDomain>',
        as(other, host),
      );
      expect(xml.statusCode).toBe(201);
      expect(xml.json()).toMatchObject({ name: 'Other & Co', domain: 'other.example.org' });
      for (const payload of [
        '<customDomain><domain>x.example.org</domain>',
        '<!DOCTYPE a [<!ENTITY x "y">]><a><domain>&x;</domain></a>',
        '<a><domain>a.example.org</domain><domain>b.example.org</domain></a>',
        'not xml',
      ]) {
        for (const method of ['POST', 'PUT'] as const) {
          const res = await sendDomain(method, 'application/xml', payload, as(other, host));
          expect(res.statusCode, `${method} ${payload}`).toBe(400);
          expect(res.json().message).toMatch(/^Malformed XML/);
        }
      }
      // Update takes the same XML as create (text/xml too), checked by the same schema.
      const put = await sendDomain('PUT', 'text/xml', '<a><domain>other.example.org</domain><name>Renamed</name></a>', as(other, host));
      expect(put.statusCode, put.body).toBe(200);
      expect(put.json()).toMatchObject({ domain: 'other.example.org', name: 'Renamed' });
      const unknown = await sendDomain('PUT', 'application/xml', '<a><domain>other.example.org</domain><colour>red</colour></a>', as(other, host));
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toMatchObject({ details: [{ param: 'colour', msg: 'Unknown field', location: 'body' }] });
      const media = await sendDomain('PUT', 'text/csv', 'a,b', as(other, host));
      expect(media.statusCode).toBe(415);
      expect(media.json()).toMatchObject({ code: 'UnsupportedMediaType' });
    });

    it.each([
      [{}, [{ param: 'domain', msg: 'A domain name is required' }]],
      [{ domain: 42 }, [{ param: 'domain', value: 42 }]],
      [{ domain: 'x.example.com', extra: true }, [{ param: 'extra', msg: 'Unknown field' }]],
      [{ domain: '203.0.113.9' }, [{ param: 'domain', msg: 'Must not be an IP address' }]],
      [{ domain: 'https://issuer.example.com/path' }, [{ param: 'domain', msg: 'Must be a bare host name, not a URL' }]],
      [{ domain: `x.${PLATFORM}` }, [{ param: 'domain', msg: 'Must not be under the platform domain' }]],
      [{ domain: 'x.example.com', logoUrl: 'ftp://x.example.com/l.png' }, [{ param: 'logoUrl', msg: 'Must use https' }]],
    ])('refuses %j with 400 and details', async (payload, details) => {
      const res = await t.app.inject({ method: 'POST', url: url('/v1/config/domain'), headers: as(admin), payload });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'BadRequest', message: 'Validation Error', details: details.map((d) => ({ ...d, location: 'body' })) });
    });

    it('refuses malformed JSON and unsupported media types without a 5xx', async () => {
      const bad = await sendDomain('POST', 'application/json', '{"domain":');
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'BadRequest' });
      const media = await sendDomain('POST', 'text/csv', 'a,b');
      expect(media.statusCode).toBe(415);
      expect(media.json()).toMatchObject({ code: 'UnsupportedMediaType' });
    });
  });

  describe('authentication and tenancy', () => {
    it('answers no token or a bad one with plain-text Unauthorized and a Bearer challenge, before validating input', async () => {
      for (const headers of [{ host: acme.host }, { host: acme.host, authorization: 'Bearer nope' }, { host: acme.host, authorization: `Basic ${admin}` }]) {
        const res = await t.app.inject({ method: 'POST', url: url('/v1/config/domain'), headers, payload: { bad: true } });
        expect(res.statusCode).toBe(401);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.headers['content-type']).toMatch(/^text\/plain/);
        expect(res.body).toBe('Unauthorized');
      }
    });

    it('refuses a token of another tenant, always', async () => {
      const res = await t.app.inject({ method: 'GET', url: url('/v1/config/domain'), headers: as(admin, t.hostOf('other')) });
      expect(res.statusCode).toBe(401);
    });

    it('answers a role without the permission with 403 and the error body', async () => {
      const auditor = await t.token('acme', 'auditor');
      const res = await t.app.inject({ method: 'GET', url: url('/v1/config/domain'), headers: as(auditor) });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'Forbidden', message: expect.stringContaining('auditor') });
    });

    it('answers a host that names no tenant with 404 and the error body', async () => {
      const res = await t.app.inject({ method: 'GET', url: url('/v1/config/domain'), headers: as(admin, `nobody.eu01.${PLATFORM}`) });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ code: 'NotFound', message: 'No tenant is served at this host' });
    });

    it('answers unknown routes with 404 and the error body', async () => {
      const res = await t.app.inject({ method: 'GET', url: url('/v1/nothing-here'), headers: as(admin) });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'NotFound' });
    });
  });

  describe('analytic events (docs/decisions.md "Analytic events")', () => {
    it('lists each step’s START and SUCCESS/FAIL with filters and cursor pages', async () => {
      const token = await t.token('acme');
      await t.app.inject({ method: 'GET', url: url('/v1/config/domain'), headers: as(token) });
      const first = await t.app.inject({ method: 'GET', url: url('/v1/events?categories=custom-domain&limit=2'), headers: as(token) });
      expect(first.statusCode).toBe(200);
      const page = first.json();
      expect(page.data).toHaveLength(2);
      expect(page.data[0]).toMatchObject({
        type: 'CONFIG_CUSTOM_DOMAIN_RETRIEVE_FAIL',
        category: 'custom-domain',
        requestIp: '127.0.0.1',
        clientId: expect.any(String),
        data: { errorCode: 'NotFound' },
      });
      expect(page.data[1]).toMatchObject({ type: 'CONFIG_CUSTOM_DOMAIN_RETRIEVE_START', requestId: page.data[0].requestId });
      const next = await t.app.inject({ method: 'GET', url: url(`/v1/events?categories=custom-domain&limit=2&cursor=${page.nextCursor}`), headers: as(token) });
      expect(next.json().data[0].id).not.toBe(page.data[1].id);
    });

    it.each(['limit=0', 'limit=1001', 'limit=ten', 'cursor=%21%21', 'dateFrom=nope', 'unknown=1'])('refuses the query %s with 400', async (query) => {
      const res = await t.app.inject({ method: 'GET', url: url(`/v1/events?${query}`), headers: as(admin) });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'BadRequest', details: [expect.objectContaining({ location: 'query' })] });
    });

    it('lets admins set the logging level, and auditors only read it', async () => {
      const auditor = await t.token('acme', 'auditor');
      const defaults = { eventRetentionDays: 90, webhookDeliveryRetentionDays: 30 };
      expect((await t.app.inject({ method: 'GET', url: url('/v1/config/analytics'), headers: as(auditor) })).json()).toEqual({ loggingLevel: 1, ...defaults });
      expect((await t.app.inject({ method: 'PUT', url: url('/v1/config/analytics'), headers: as(auditor), payload: { loggingLevel: 2 } })).statusCode).toBe(
        403,
      );
      expect((await t.app.inject({ method: 'PUT', url: url('/v1/config/analytics'), headers: as(admin), payload: { loggingLevel: 4 } })).statusCode).toBe(400);
      const set = await t.app.inject({ method: 'PUT', url: url('/v1/config/analytics'), headers: as(admin), payload: { loggingLevel: 2 } });
      expect(set.json()).toEqual({ loggingLevel: 2, ...defaults });
    });

    it('lets admins set how long events and finished webhook deliveries are kept (docs/retention.md); one left out keeps its value', async () => {
      const put = (payload: Record<string, unknown>) => t.app.inject({ method: 'PUT', url: url('/v1/config/analytics'), headers: as(admin), payload });
      const get = async () => (await t.app.inject({ method: 'GET', url: url('/v1/config/analytics'), headers: as(admin) })).json();
      expect((await put({ loggingLevel: 1, eventRetentionDays: 7, webhookDeliveryRetentionDays: 365 })).json()).toEqual({
        loggingLevel: 1,
        eventRetentionDays: 7,
        webhookDeliveryRetentionDays: 365,
      });
      expect(await get()).toEqual({ loggingLevel: 1, eventRetentionDays: 7, webhookDeliveryRetentionDays: 365 });
      expect((await put({ loggingLevel: 2, eventRetentionDays: 30 })).json()).toEqual({
        loggingLevel: 2,
        eventRetentionDays: 30,
        webhookDeliveryRetentionDays: 365,
      });
      for (const bad of [
        { eventRetentionDays: 0 },
        { eventRetentionDays: 3651 },
        { webhookDeliveryRetentionDays: 1.5 },
        { webhookDeliveryRetentionDays: '30' },
      ]) {
        const res = await put({ loggingLevel: 1, ...bad });
        expect(res.statusCode, JSON.stringify(bad)).toBe(400);
        expect(res.json()).toMatchObject({ code: 'BadRequest', details: [expect.objectContaining({ param: Object.keys(bad)[0], location: 'body' })] });
      }
      expect(await get()).toEqual({ loggingLevel: 2, eventRetentionDays: 30, webhookDeliveryRetentionDays: 365 });
      await put({ loggingLevel: 1, eventRetentionDays: 90, webhookDeliveryRetentionDays: 30 });
    });
  });

  if (mount === 'prefixed') {
    it('leaves the host app’s own routes alone', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/host-route' });
      expect(res.json()).toEqual({ host: true });
    });
  }
});
