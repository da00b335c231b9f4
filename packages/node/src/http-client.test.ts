import { localhostCertificate, startWebhookReceiver, type LocalhostCertificate, type WebhookReceiver } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, isForbiddenAddress } from './http-client.ts';

describe('the SSRF guard’s address rules (API.md §8)', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'not-an-ip'])('refuses %s', (address) => {
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

  it.each(['64:ff9b::5db8:d822', '2002:5db8:d822::1', '::ffff:5db8:d822', '2001:0:5db8:d822:0:0:a247:27dd'])('allows %s, which embeds a public IPv4 address', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('outbound HTTPS (API.md §8, §10) against a real receiver on loopback', () => {
  let tls: LocalhostCertificate;
  let receiver: WebhookReceiver;
  const body = new TextEncoder().encode('{"hello":"world"}');
  const post = (url: string, timeoutMs = 3000) => ({ method: 'POST' as const, url, headers: { 'content-type': 'application/json', 'webhook-id': 'd1' }, body, timeoutMs });

  beforeAll(async () => {
    tls = localhostCertificate();
    receiver = await startWebhookReceiver(tls);
  });
  afterAll(async () => {
    await receiver.close();
    tls.dispose();
  });

  it('refuses a receiver that resolves to loopback unless private addresses are allowed', async () => {
    const guarded = createHttpClient({ extraCaPem: tls.certPem });
    expect(await guarded.send(post(receiver.url()))).toEqual({ error: 'The receiver resolves to a loopback, private or link-local address' });
    // A name that resolves to a public and a private address is refused too.
    const mixed = createHttpClient({ extraCaPem: tls.certPem, resolve: async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }] });
    expect(await mixed.send(post('https://mixed.example.com/hook'))).toEqual({ error: 'The receiver resolves to a loopback, private or link-local address' });
    expect(await guarded.send(post('https://127.0.0.1:1/hook'))).toEqual({ error: 'The receiver resolves to a loopback, private or link-local address' });
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
    expect(got).toMatchObject({ method: 'POST', path: '/a/b', headers: { 'content-type': 'application/json', 'webhook-id': 'd1', 'content-length': String(body.length) } });
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
