// The HTTP edge of the plugin (hardening issue items 1, 4 and 9): bodies nested too deep are a 400
// with the error body, an oversized body gets a 413 the client can read, every answer carries the
// security headers, and the wallet-facing endpoints (only they) follow the CORS policy of docs/limits.md.
import { request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import Fastify from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, useTestApp } from '../test/app.ts';
import { vellumPlugin } from './index.ts';

const DEEP = 5000;
const deepArray = `${'['.repeat(DEEP)}${']'.repeat(DEEP)}`;
const deepObject = `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`;

describe.each(['standalone', 'prefixed'] as const)('HTTP edge (%s)', (mount) => {
  const t = useTestApp(mount);
  let host = '';
  let admin = '';
  const url = (path: string) => `${t.prefix}${path}`;
  /** A raw admin request body of `contentType`. */
  const adminSends = (method: 'POST' | 'PUT', path: string, contentType: string, payload: string) =>
    t.app.inject({ method, url: url(path), headers: { host, authorization: `Bearer ${admin}`, 'content-type': contentType }, payload });

  beforeAll(async () => {
    ({ host } = await t.createTenant('edge'));
    admin = await t.token('edge');
  });

  describe('issue item 1: a body nested 5,000 deep is a 400 with the error body, never a 500', () => {
    const adminPosts = [
      '/v1/config/domain',
      '/v1/dids',
      '/v2/credentials/mobile/iacas',
      '/v2/credentials/mobile/configurations',
      '/v1/openid/offers/pre-authorized',
      '/v1/webhooks',
      '/v1/users',
    ];

    it.each(adminPosts)('POST %s (admin error body)', async (path) => {
      for (const payload of [deepArray, deepObject, `{"name":${deepArray}}`]) {
        const res = await adminSends('POST', path, 'application/json', payload);
        expect(res.statusCode, res.body.slice(0, 300)).toBe(400);
        expect(res.json()).toEqual({
          code: 'BadRequest',
          message: 'JSON body nests deeper than 64 levels',
          details: [{ msg: 'JSON body nests deeper than 64 levels', param: 'body', location: 'body' }],
        });
      }
    });

    it('PUT of a configuration and of a webhook too', async () => {
      for (const path of ['/v2/credentials/mobile/configurations/x', '/v1/webhooks/x', '/v1/config/domain']) {
        const res = await adminSends('PUT', path, 'application/json', deepObject);
        expect(res.statusCode, path).toBe(400);
        expect(res.json(), path).toMatchObject({ code: 'BadRequest', message: 'JSON body nests deeper than 64 levels' });
      }
    });

    it.each(['/oauth/token', '/v1/oauth/token'])('POST %s keeps the OAuth error body', async (path) => {
      const res = await t.app.inject({ method: 'POST', url: url(path), headers: { host, 'content-type': 'application/json' }, payload: deepArray });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'BadRequest', error: 'invalid_request', error_description: 'JSON body nests deeper than 64 levels' });
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it('the credential and notification endpoints, with a valid access token, answer a 4xx OAuth error', async () => {
      const call = (path: string, payload: object) =>
        t.app.inject({ method: 'POST', url: url(path), headers: { host, authorization: `Bearer ${admin}` }, payload });
      const iaca = (await call('/v2/credentials/mobile/iacas', { country: 'US' })).json() as { id: string };
      await t.app.inject({
        method: 'PUT',
        url: url(`/v2/credentials/mobile/iacas/${iaca.id}`),
        headers: { host, authorization: `Bearer ${admin}` },
        payload: { active: true },
      });
      const configuration = (
        await call('/v2/credentials/mobile/configurations', {
          type: 'org.iso.18013.5.1.mDL',
          claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName' } } },
        })
      ).json() as { id: string };
      const offer = (await call('/v1/openid/offers/pre-authorized', { credentials: [configuration.id], claims: { familyName: 'Turner' } })).json() as {
        uri: string;
      };
      const code = JSON.parse(new URL(offer.uri).searchParams.get('credential_offer') as string).grants['urn:ietf:params:oauth:grant-type:pre-authorized_code'][
        'pre-authorized_code'
      ];
      const token = await t.app.inject({
        method: 'POST',
        url: url('/v1/oauth/token'),
        headers: { host, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code', 'pre-authorized_code': code }).toString(),
      });
      expect(token.statusCode, token.body).toBe(200);
      for (const path of ['/v1/openid/credential', '/v1/openid/notification']) {
        for (const payload of [deepArray, deepObject, `{"credential_configuration_id":${deepArray},"proof":${deepObject}}`]) {
          const res = await t.app.inject({
            method: 'POST',
            url: url(path),
            headers: { host, authorization: `Bearer ${token.json().access_token}`, 'content-type': 'application/json' },
            payload,
          });
          expect(res.statusCode, `${path} ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
          expect(res.statusCode, path).toBeLessThan(500);
          expect(res.json(), path).toMatchObject({ error: expect.any(String) });
        }
      }
    });

    it('XML nested 5,000 deep at POST /v1/config/domain is a 400 too', async () => {
      const payload = `<domain>${'<a>'.repeat(DEEP)}${'</a>'.repeat(DEEP)}</domain>`;
      const res = await adminSends('POST', '/v1/config/domain', 'application/xml', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'BadRequest', message: 'XML body nests deeper than 64 levels' });
    });

    it('a value within the limit is echoed in details bounded (strings cut, deep arrays summarised)', async () => {
      const payload = JSON.stringify({ domain: [[[['x']]]], name: 'n'.repeat(100_000) });
      const res = await adminSends('POST', '/v1/config/domain', 'application/json', payload);
      expect(res.statusCode).toBe(400);
      const details = res.json().details as Array<{ param: string; value?: unknown }>;
      expect(details.find((d) => d.param === 'domain')?.value).toEqual([['[array of 1]']]);
      expect(res.body.length).toBeLessThan(2000);
    });
  });

  describe('issue item 9: security headers and CORS', () => {
    const SECURITY = {
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    };

    it('every answer carries the security headers: success, error, 401, 404, preflight; no HSTS over plain http', async () => {
      const answers = await Promise.all([
        t.app.inject({ method: 'GET', url: url('/v1/dids'), headers: { host, authorization: `Bearer ${admin}` } }),
        t.app.inject({ method: 'GET', url: url('/v1/dids'), headers: { host } }),
        t.app.inject({ method: 'POST', url: url('/v1/dids'), headers: { host, authorization: `Bearer ${admin}` }, payload: {} }),
        t.app.inject({ method: 'GET', url: url('/no/such/route'), headers: { host } }),
        t.app.inject({ method: 'GET', url: url('/.well-known/openid-credential-issuer'), headers: { host } }),
        t.app.inject({ method: 'OPTIONS', url: url('/v1/oauth/token'), headers: { host, origin: 'https://wallet.example' } }),
      ]);
      for (const res of answers) {
        expect(res.headers, `${res.statusCode} ${res.body.slice(0, 100)}`).toMatchObject(SECURITY);
        expect(res.headers['strict-transport-security']).toBeUndefined();
      }
      expect(answers.map((r) => r.statusCode)).toEqual([200, 401, 400, 404, 200, 204]);
    });

    const walletPosts = ['/v1/oauth/token', '/v1/openid/nonce', '/v1/openid/credential', '/v1/openid/notification'];
    const publicGets = [
      '/.well-known/openid-credential-issuer',
      '/.well-known/oauth-authorization-server',
      '/.well-known/jwt-vc-issuer',
      '/.well-known/jwks.json',
      '/.well-known/did.json',
      '/v1/openid/offers/some-offer',
      '/v2/credentials/mobile/iacas',
    ];

    it.each([...walletPosts.map((p) => ['POST', p]), ...publicGets.map((p) => ['GET', p])])(
      'preflight of %s %s: 204, any origin, no credentials',
      async (method, path) => {
        const res = await t.app.inject({
          method: 'OPTIONS',
          url: url(path),
          headers: {
            host,
            origin: 'https://wallet.example',
            'access-control-request-method': method as string,
            'access-control-request-headers': 'authorization, dpop, content-type',
          },
        });
        expect(res.statusCode).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(String(res.headers['access-control-allow-methods']).split(', ')).toContain(method);
        expect(res.headers['access-control-allow-headers']).toBe('authorization, content-type, dpop, oauth-client-attestation, oauth-client-attestation-pop');
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      },
    );

    it('wallet-facing answers, errors included, allow any origin and expose WWW-Authenticate and DPoP-Nonce', async () => {
      const answers = await Promise.all([
        ...walletPosts.map((p) => t.app.inject({ method: 'POST', url: url(p), headers: { host, origin: 'https://wallet.example' }, payload: {} })),
        ...publicGets.map((p) => t.app.inject({ method: 'GET', url: url(p), headers: { host, origin: 'https://wallet.example' } })),
      ]);
      for (const res of answers) {
        expect(res.statusCode, res.body.slice(0, 200)).toBeLessThan(500);
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(String(res.headers['access-control-expose-headers'])).toMatch(/WWW-Authenticate, DPoP-Nonce/);
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      }
      // The credential endpoint's 401 carries its challenge where a browser page can read it.
      expect(answers[2]?.statusCode).toBe(401);
    });

    it('admin endpoints get no CORS headers, and their preflight is a 404', async () => {
      for (const [method, path] of [
        ['GET', '/v1/dids'],
        ['POST', '/oauth/token'],
        ['POST', '/v1/openid/offers/pre-authorized'],
        ['GET', '/v1/webhooks'],
      ] as const) {
        const res = await t.app.inject({
          method,
          url: url(path),
          headers: { host, origin: 'https://evil.example', authorization: `Bearer ${admin}` },
          ...(method === 'POST' ? { payload: {} } : {}),
        });
        expect(res.headers['access-control-allow-origin'], path).toBeUndefined();
        const preflight = await t.app.inject({
          method: 'OPTIONS',
          url: url(path),
          headers: { host, origin: 'https://evil.example', 'access-control-request-method': method },
        });
        // `/v1/openid/offers/pre-authorized` matches the public `/v1/openid/offers/{id}`, which allows GET only.
        if (path === '/v1/openid/offers/pre-authorized') expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD');
        else {
          expect(preflight.statusCode, path).toBe(404);
          expect(preflight.headers['access-control-allow-origin'], path).toBeUndefined();
        }
      }
    });

    it('OPTIONS is never a 5xx: unknown routes, odd headers, a body', async () => {
      for (const path of ['/', '/nope', '/v1/openid/credential/extra', '/.well-known/', '/%', '/v1/dids/did:web:x']) {
        const res = await t.app.inject({
          method: 'OPTIONS',
          url: url(path),
          headers: { host, origin: 'null', 'access-control-request-method': 'DELETE', 'content-type': 'application/json' },
          payload: deepArray,
        });
        expect(res.statusCode, path).toBeLessThan(500);
        expect(res.headers['content-type'] ?? '', path).not.toMatch(/html/);
      }
    });
  });

  describe('issue item 4: an oversized body gets a 413 the client can read', () => {
    let port = 0;
    beforeAll(async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      port = (t.app.server.address() as AddressInfo).port;
    });

    /**
     * A client that sends its whole request before it reads the answer (as Python's http.client
     * and many others do), 64 KB at a time with a pause between writes as over a real network:
     * on a connection the server closes early, its next write fails with EPIPE or a reset.
     */
    function streamBody(path: string, total: number, declareLength: boolean): Promise<{ status: number; body: string; sendError?: string }> {
      return new Promise((resolve, reject) => {
        // Half-open allowed: like such clients, it keeps sending after the server's FIN.
        const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
        let received = '';
        let sendError: string | undefined;
        socket.setEncoding('utf8');
        socket.on('data', (c: string) => (received += c));
        socket.on('error', (err: NodeJS.ErrnoException) => {
          sendError ??= err.code ?? err.message;
        });
        socket.on('close', () => {
          const [head = '', body = ''] = received.split('\r\n\r\n', 2);
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
          if (!sendError && status === 0) reject(new Error('no answer'));
          // A chunked answer is not expected here: error bodies carry a Content-Length.
          resolve({ status, body, ...(sendError ? { sendError } : {}) });
        });
        const head = [`POST ${url(path)} HTTP/1.1`, `Host: ${host}`, `Authorization: Bearer ${admin}`, 'Content-Type: application/json', 'Connection: close'];
        head.push(declareLength ? `Content-Length: ${total}` : 'Transfer-Encoding: chunked');
        socket.write(`${head.join('\r\n')}\r\n\r\n`);
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          if (socket.destroyed) return;
          if (sent >= total) return void socket.end(declareLength ? '' : '0\r\n\r\n');
          const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
          sent += piece.length;
          socket.write(declareLength ? piece : Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]));
          setTimeout(pump, 2);
        };
        pump();
      });
    }

    it.each([
      ['/v1/openid/offers/pre-authorized', true],
      ['/v1/openid/offers/pre-authorized', false],
      ['/v1/webhooks', true],
      ['/v1/webhooks', false],
    ] as const)(
      'POST %s with 2 MB streamed (Content-Length declared: %s): 413 PayloadTooLarge, read after sending, no EPIPE or reset',
      async (path, declared) => {
        const res = await streamBody(path, 2 * 1024 * 1024, declared);
        expect(res.sendError).toBeUndefined();
        expect(res.status).toBe(413);
        expect(JSON.parse(res.body)).toMatchObject({ code: 'PayloadTooLarge', message: expect.any(String) });
      },
    );

    it('a body declared over the 4 MB discard bound is answered at once, as before (not read to its end)', async () => {
      const started = Date.now();
      const outcome = await streamBody('/v1/webhooks', 64 * 1024 * 1024, true).then((r) => r.sendError ?? `status ${r.status}`);
      // This client reads only after sending, so it may see the connection go instead: never a 64 MB upload.
      expect(outcome).toMatch(/^(status 413|EPIPE|ECONNRESET)$/);
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('a client that reads the answer while sending (node:http) gets the 413 for a 5 MB body too', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: url('/v1/webhooks'),
            headers: { host, authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(Buffer.alloc(5 * 1024 * 1024, 0x20));
      });
      expect(status).toBe(413);
    });
  });
});

describe('security headers are the host’s to turn off or override (issue item 9)', () => {
  it('HSTS over https behind a trusted proxy; a header the host set is kept; securityHeaders: false adds none', async () => {
    const t = await buildTestApp('standalone');
    const { services } = t;
    const proxied = Fastify({ trustProxy: true });
    proxied.addHook('onRequest', async (_request, reply) => {
      reply.header('referrer-policy', 'strict-origin');
    });
    await proxied.register(vellumPlugin, { services });
    const https = await proxied.inject({ method: 'GET', url: '/no-route', headers: { 'x-forwarded-proto': 'https' } });
    expect(https.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(https.headers['referrer-policy']).toBe('strict-origin');
    const plain = await proxied.inject({ method: 'GET', url: '/no-route' });
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    await proxied.close();

    const bare = Fastify();
    await bare.register(vellumPlugin, { services, securityHeaders: false });
    const res = await bare.inject({ method: 'GET', url: '/no-route' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-content-type-options']).toBeUndefined();
    await bare.close();
    await t.close();
  });
});

describe('a request no route takes is a 404, whatever its body', () => {
  const t = useTestApp('standalone');

  it('a body that does not parse, or is too deep, at an unknown path or a wallet path with a parameter past the router’s bound: 404 No route, not a refusal of the body', async () => {
    const acme = await t.createTenant('acme');
    const tooLong = 'a'.repeat(600);
    const bodies: Array<[string, string]> = [
      ['application/json', '<a/>'],
      ['application/json', '{"unclosed": '],
      ['application/json', '['.repeat(5000)],
      ['application/xml', '<a/>'],
    ];
    for (const path of ['/v1/no-such-thing', `/v1/openid/presentations/${tooLong}/request`]) {
      for (const [type, payload] of bodies) {
        const res = await t.app.inject({ method: 'POST', url: path, headers: { host: acme.host, 'content-type': type }, payload });
        expect(res.statusCode, `${path.slice(0, 40)} ${type} ${payload.slice(0, 10)}`).toBe(404);
        expect(res.json()).toEqual({ code: 'NotFound', message: `No route for POST ${path}` });
      }
    }
    // The route itself, with a parameter the router takes, still refuses the body in its own (OAuth) style.
    const routed = await t.app.inject({
      method: 'POST',
      url: '/v1/openid/presentations/aaaa/request',
      headers: { host: acme.host, 'content-type': 'application/json' },
      payload: '<a/>',
    });
    expect(routed.statusCode).toBe(400);
    expect(routed.json()).toMatchObject({ code: 'BadRequest', error: 'invalid_request' });
  });
});
