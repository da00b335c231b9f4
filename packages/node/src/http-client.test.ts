import { localhostCertificate, startWebhookReceiver, type LocalhostCertificate, type WebhookReceiver } from '@vellum/testing';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, isForbiddenAddress } from './http-client.ts';

describe('the SSRF guard’s address rules (docs/limits.md "Outbound calls")', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '172.32.0.1', '8.8.8.8', '2606:4700:4700::1111', '::ffff:93.184.216.34'])('allows %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  // IPv6 forms that a translator or tunnel on the path turns into a private IPv4 address.
  it.each([
    ['IPv4-mapped, hex', '::ffff:7f00:1'],
    ['IPv4-mapped, hex, private', '::ffff:a00:1'],
    ['IPv4-mapped, spelled out', '0:0:0:0:0:ffff:192.168.0.1'],
    ['IPv4-compatible (RFC 4291, deprecated)', '::127.0.0.1'],
    ['IPv4-compatible, hex', '::a9fe:a9fe'],
    ['SIIT IPv4-translated', '::ffff:0:10.0.0.1'],
    ['NAT64 well-known prefix (RFC 6052)', '64:ff9b::127.0.0.1'],
    ['NAT64 well-known prefix, hex', '64:ff9b::a9fe:a9fe'],
    ['NAT64 local-use prefix (RFC 8215)', '64:ff9b:1::5db8:d822'],
    ['6to4 (RFC 3056) of loopback', '2002:7f00:1::1'],
    ['6to4 of 10/8', '2002:0a00:0001::'],
    ['6to4 of the metadata service', '2002:a9fe:a9fe::1'],
    ['Teredo (RFC 4380), obfuscated client 127.0.0.1', '2001:0:5db8:d822:0:0:80ff:fffe'],
    ['Teredo with a private server', '2001:0:a00:1::1'],
    ['zone id on link-local', 'fe80::1%eth0'],
    ['documentation prefix', '2001:db8::1'],
  ])('refuses %s: %s (the issue 12 SSRF defect)', (_form, address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each(['64:ff9b::5db8:d822', '2002:5db8:d822::1', '::ffff:5db8:d822', '2001:0:5db8:d822:0:0:a247:27dd'])(
    'allows %s, which embeds a public IPv4 address',
    (address) => {
      expect(isForbiddenAddress(address)).toBe(false);
    },
  );
});

describe('outbound HTTPS (docs/limits.md "Outbound calls", docs/decisions.md "Webhooks") against a real receiver on loopback', () => {
  let tls: LocalhostCertificate;
  let receiver: WebhookReceiver;
  const body = new TextEncoder().encode('{"hello":"world"}');
  const post = (url: string, timeoutMs = 3000) => ({
    method: 'POST' as const,
    url,
    headers: { 'content-type': 'application/json', 'webhook-id': 'd1' },
    body,
    timeoutMs,
  });

  beforeAll(async () => {
    tls = localhostCertificate();
    receiver = await startWebhookReceiver(tls);
  });
  afterAll(async () => {
    await receiver.close();
    tls.dispose();
  });

  const REFUSED_RECEIVER = { error: 'The receiver resolves to a loopback, private or other special-purpose address' };

  it('refuses a receiver that resolves to loopback unless private addresses are allowed', async () => {
    const guarded = createHttpClient({ extraCaPem: tls.certPem });
    expect(await guarded.send(post(receiver.url()))).toEqual(REFUSED_RECEIVER);
    // A name that resolves to a public and a private address is refused too.
    const mixed = createHttpClient({
      extraCaPem: tls.certPem,
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.7', family: 4 },
      ],
    });
    expect(await mixed.send(post('https://mixed.example.com/hook'))).toEqual(REFUSED_RECEIVER);
    expect(await guarded.send(post('https://127.0.0.1:1/hook'))).toEqual(REFUSED_RECEIVER);
    expect(await guarded.send(post('http://localhost/hook'))).toEqual({ error: 'The receiver URL must use https' });
    guarded.close();
    mixed.close();
    expect(receiver.requests).toHaveLength(0);
  });

  it('checks TLS: an untrusted certificate is an error, the configured CA makes it trusted', async () => {
    const untrusting = createHttpClient({ allowPrivate: true });
    const refused = await untrusting.send(post(receiver.url()));
    expect(refused).toEqual({ error: expect.stringMatching(/^The receiver’s TLS certificate is not trusted/) });
    untrusting.close();

    const client = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem });
    receiver.answer = (_r, i) => (i === 0 ? 201 : 500);
    const before = receiver.requests.length;
    expect(await client.send(post(receiver.url('/a/b')))).toEqual({ status: 201 });
    expect(await client.send(post(receiver.url('/a/b')))).toEqual({ status: 500 });
    const got = receiver.requests[before];
    expect(got).toMatchObject({
      method: 'POST',
      path: '/a/b',
      headers: { 'content-type': 'application/json', 'webhook-id': 'd1', 'content-length': String(body.length) },
    });
    expect(got?.body.toString()).toBe('{"hello":"world"}');
    client.close();
  });

  it('gives up when the receiver does not answer in time', async () => {
    const client = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem });
    receiver.answer = () => 'hang';
    const started = Date.now();
    expect(await client.send(post(receiver.url(), 300))).toEqual({ error: 'The receiver did not answer within 300 ms' });
    expect(Date.now() - started).toBeLessThan(2000);
    receiver.answer = () => 200;
    client.close();
  });

  it('reports a refused connection and a name that does not resolve', async () => {
    const client = createHttpClient({ allowPrivate: true, resolve: async (host) => (host === 'nowhere.example' ? [] : [{ address: '127.0.0.1', family: 4 }]) });
    expect(await client.send(post('https://closed.example:1/hook'))).toEqual({ error: 'The receiver refused the connection' });
    expect(await client.send(post('https://nowhere.example/hook'))).toEqual({ error: 'The receiver’s host name does not resolve' });
    client.close();
  });
});

describe('outbound requests that read the answer (HttpClient.fetch, docs/limits.md "Outbound calls") against a real server on loopback', () => {
  let tls: LocalhostCertificate;
  let server: Server;
  let base: string;
  const received: Array<{ method: string; path: string; headers: IncomingHttpHeaders; body: string }> = [];
  const hanging = new Set<ServerResponse>();
  const served = new WeakSet<object>();

  beforeAll(async () => {
    tls = localhostCertificate();
    server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '';
        received.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks).toString() });
        if (path === '/json') {
          res.writeHead(200, { 'Content-Type': 'application/json', 'X-Answer-Id': 'a1' }).end('{"ok":true}');
        } else if (path === '/echo') {
          res.writeHead(201, { 'content-type': 'text/plain' }).end(`${req.method} ${Buffer.concat(chunks).toString()}`);
        } else if (path === '/slow-body') {
          // The status line and part of the body come at once; the rest never does.
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"partial":');
          hanging.add(res);
        } else if (path === '/large-declared') {
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(2 * 1024 * 1024) });
          res.write(Buffer.alloc(1024));
          hanging.add(res);
        } else if (path === '/large-chunked') {
          // No content-length: the limit must hold while reading.
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          for (let i = 0; i < 20; i += 1) res.write(Buffer.alloc(64 * 1024, 1));
          res.end();
        } else if (path === '/drop-reused') {
          // Like a server whose idle timeout closed a kept-alive connection as a request went out:
          // a request on a connection that has served before is dropped unanswered.
          if (served.has(req.socket)) {
            req.socket.destroy();
            return;
          }
          served.add(req.socket);
          res.writeHead(200, { 'content-type': 'text/plain' }).end('fresh');
        } else if (path === '/redirect') {
          res.writeHead(302, { location: `${base}/json` }).end();
        } else if (path === '/cut') {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
          res.write('only part');
          setImmediate(() => res.socket?.destroy());
        } else {
          res.writeHead(404).end('no');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `https://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    tls.dispose();
  });

  const text = (body: Uint8Array) => new TextDecoder().decode(body);

  it('GET: the status, the headers (names lower-case) and the whole body', async () => {
    const client = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem });
    const answer = await client.fetch({ method: 'GET', url: `${base}/json`, headers: { accept: 'application/json' }, timeoutMs: 3000 });
    if (!('status' in answer)) throw new Error(answer.error);
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json', 'x-answer-id': 'a1' });
    expect(Object.keys(answer.headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect(JSON.parse(text(answer.body))).toEqual({ ok: true });
    expect(received.at(-1)).toMatchObject({ method: 'GET', path: '/json', headers: { accept: 'application/json' }, body: '' });
    client.close();
  });

  it('POST: the body is sent with its length and the answer read', async () => {
    const client = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem });
    const body = new TextEncoder().encode('grant_type=client_credentials');
    const answer = await client.fetch({
      method: 'POST',
      url: `${base}/echo`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      timeoutMs: 3000,
    });
    if (!('status' in answer)) throw new Error(answer.error);
    expect(answer.status).toBe(201);
    expect(text(answer.body)).toBe('POST grant_type=client_credentials');
    expect(received.at(-1)?.headers).toMatchObject({ 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.byteLength) });
    client.close();
  });

  it('one deadline covers the body: a body that stops half way is no answer', async () => {
    const client = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem });
    expect(await client.fetch({ method: 'GET', url: `${base}/slow-body`, headers: {}, timeoutMs: 300 })).toEqual({
      error: 'The server did not answer within 300 ms',
    });
    client.close();
  });

  it('a body longer than maxBytes is an error, whether declared up front or found while reading', async () => {
    const client = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem });
    // 2 MiB declared against the default 1 MiB limit: refused without waiting for the body.
    expect(await client.fetch({ method: 'GET', url: `${base}/large-declared`, headers: {}, timeoutMs: 5000 })).toEqual({
      error: `The answer is larger than ${1024 * 1024} bytes`,
    });
    // 1.25 MiB sent chunked, without a length.
    expect(await client.fetch({ method: 'GET', url: `${base}/large-chunked`, headers: {}, timeoutMs: 5000 })).toEqual({
      error: `The answer is larger than ${1024 * 1024} bytes`,
    });
    expect(await client.fetch({ method: 'GET', url: `${base}/json`, headers: {}, timeoutMs: 3000, maxBytes: 5 })).toEqual({
      error: 'The answer is larger than 5 bytes',
    });
    // Exactly at the limit is fine.
    const exact = await client.fetch({ method: 'GET', url: `${base}/json`, headers: {}, timeoutMs: 3000, maxBytes: 11 });
    expect('status' in exact && text(exact.body)).toBe('{"ok":true}');
    client.close();
  });

  it('a connection cut before the whole body arrived is an error', async () => {
    const client = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem });
    const answer = await client.fetch({ method: 'GET', url: `${base}/cut`, headers: {}, timeoutMs: 3000 });
    expect(answer).toEqual({ error: expect.stringMatching(/^The server closed the connection/) });
    client.close();
  });

  it('sends a request again, once, on a new connection when the kept-alive one was closed under it', async () => {
    const client = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem });
    const before = received.filter((r) => r.path === '/drop-reused').length;
    const first = await client.fetch({ method: 'GET', url: `${base}/drop-reused`, headers: {}, timeoutMs: 3000 });
    expect(first).toMatchObject({ status: 200 });
    // The second goes out on the kept-alive connection, which the server drops; the retry is answered.
    const second = await client.fetch({ method: 'GET', url: `${base}/drop-reused`, headers: {}, timeoutMs: 3000 });
    if (!('status' in second)) throw new Error(second.error);
    expect(text(second.body)).toBe('fresh');
    expect(received.filter((r) => r.path === '/drop-reused').length - before).toBe(3);
    client.close();
  });

  it('redirects are not followed: the 3xx comes back as the status', async () => {
    const client = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem });
    const before = received.length;
    const answer = await client.fetch({ method: 'GET', url: `${base}/redirect`, headers: {}, timeoutMs: 3000 });
    if (!('status' in answer)) throw new Error(answer.error);
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe(`${base}/json`);
    expect(received.slice(before).map((r) => r.path)).toEqual(['/redirect']);
    client.close();
  });

  it('the SSRF guard holds: private addresses, http and untrusted TLS are refused before anything is read', async () => {
    const guarded = createHttpClient({ extraCaPem: tls.certPem });
    const before = received.length;
    expect(await guarded.fetch({ method: 'GET', url: `${base}/json`, headers: {}, timeoutMs: 3000 })).toEqual({
      error: 'The server resolves to a loopback, private or other special-purpose address',
    });
    expect(await guarded.fetch({ method: 'GET', url: 'https://127.0.0.1:1/json', headers: {}, timeoutMs: 3000 })).toEqual({
      error: 'The server resolves to a loopback, private or other special-purpose address',
    });
    expect(await guarded.fetch({ method: 'GET', url: 'http://localhost/json', headers: {}, timeoutMs: 3000 })).toEqual({
      error: 'The server URL must use https',
    });
    expect(await guarded.fetch({ method: 'GET', url: 'not a url', headers: {}, timeoutMs: 3000 })).toEqual({ error: 'The server URL is not valid' });
    guarded.close();
    const untrusting = createHttpClient({ allowPrivate: true });
    expect(await untrusting.fetch({ method: 'GET', url: `${base}/json`, headers: {}, timeoutMs: 3000 })).toEqual({
      error: expect.stringMatching(/^The server’s TLS certificate is not trusted/),
    });
    untrusting.close();
    expect(received.length).toBe(before);
  });

  it('never throws: a bad header or method is an error', async () => {
    const client = createHttpClient({ allowPrivate: true, extraCaPem: tls.certPem });
    expect(await client.fetch({ method: 'GET', url: `${base}/json`, headers: { 'bad header': 'x' }, timeoutMs: 3000 })).toEqual({
      error: 'The request headers are not valid',
    });
    expect(await client.fetch({ method: 'DELETE' as 'GET', url: `${base}/json`, headers: {}, timeoutMs: 3000 })).toEqual({
      error: 'The request method must be GET or POST',
    });
    client.close();
  });
});
