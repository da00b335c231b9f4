import { createSocket, type Socket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';

import { startDnsServer, type DnsTestServer } from '@vellum/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDnsResolver, parseDnsServers } from './dns.ts';

// A loopback DNS server with real wire traffic: these tests check how c-ares outcomes are classified.
const LONG = `vellum-verification=${'a1b2c3d4'.repeat(50)}`; // 420 bytes: two TXT strings in one record

let dns: DnsTestServer;
beforeAll(async () => {
  dns = await startDnsServer({
    '_vellum.acme.example.com': ['vellum-verification=abc123', 'v=spf1 -all'],
    '_vellum.long.example.com': [LONG],
    'exists.example.com': [],
    '_vellum.broken.example.com': 'servfail',
  });
});
afterAll(() => dns.close());

const resolver = () => createDnsResolver({ servers: [dns.address], timeoutMs: 1000, tries: 1 });

describe('createDnsResolver (custom domain verification TXT lookups)', () => {
  it('finds every TXT record of a name', async () => {
    expect(await resolver().resolveTxt('_vellum.acme.example.com')).toEqual({
      status: 'found',
      records: expect.arrayContaining(['vellum-verification=abc123', 'v=spf1 -all']),
    });
    expect(dns.queries).toContainEqual({ name: '_vellum.acme.example.com', type: 'TXT' });
  });

  it('joins the strings of a record longer than 255 bytes', async () => {
    expect(await resolver().resolveTxt('_vellum.long.example.com')).toEqual({ status: 'found', records: [LONG] });
  });

  it('matches names case-insensitively, ignoring a trailing dot', async () => {
    expect(await resolver().resolveTxt('_VELLUM.Acme.Example.COM.')).toMatchObject({ status: 'found' });
  });

  it('reports none for a name that does not exist (NXDOMAIN)', async () => {
    expect(await resolver().resolveTxt('_vellum.nowhere.example.com')).toEqual({ status: 'none' });
  });

  it('reports none for a name without TXT records', async () => {
    expect(await resolver().resolveTxt('exists.example.com')).toEqual({ status: 'none' });
  });

  it('reports a failure, not none, when the server fails (SERVFAIL)', async () => {
    expect(await resolver().resolveTxt('_vellum.broken.example.com')).toEqual({
      status: 'failed',
      reason: 'the DNS server failed to answer (SERVFAIL)',
    });
  });

  it('sees records added after a failed lookup (no caching between attempts)', async () => {
    const name = '_vellum.later.example.com';
    expect(await resolver().resolveTxt(name)).toEqual({ status: 'none' });
    dns.zone[name] = ['vellum-verification=later'];
    expect(await resolver().resolveTxt(name)).toEqual({ status: 'found', records: ['vellum-verification=later'] });
  });

  describe('when the server never answers', () => {
    let silent: Socket;
    beforeAll(async () => {
      silent = createSocket('udp4');
      await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => silent.close(() => resolve())));

    it('reports a timeout as a failure, without throwing', async () => {
      const r = createDnsResolver({ servers: [`127.0.0.1:${silent.address().port}`], timeoutMs: 100, tries: 1 });
      expect(await r.resolveTxt('_vellum.acme.example.com')).toEqual({ status: 'failed', reason: 'the DNS server did not answer' });
    });
  });

  it('reports a refused connection as a failure, without throwing', async () => {
    // A port that was free a moment ago: the ICMP port-unreachable reply surfaces as ECONNREFUSED.
    const probe = createSocket('udp4');
    await new Promise<void>((resolve) => probe.bind(0, '127.0.0.1', resolve));
    const { port } = probe.address();
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const r = createDnsResolver({ servers: [`127.0.0.1:${port}`], timeoutMs: 1000, tries: 1 });
    expect(await r.resolveTxt('_vellum.acme.example.com')).toEqual({ status: 'failed', reason: 'the DNS server refused the connection' });
  });

  it('reports an invalid name (a label over 63 bytes) as a failure, without throwing', async () => {
    expect(await resolver().resolveTxt(`${'a'.repeat(64)}.example.com`)).toEqual({ status: 'failed', reason: 'the name is not a valid DNS name' });
  });
});

describe('startDnsServer', () => {
  it('answers other record types of a known name with no records', async () => {
    const r = new Resolver({ timeout: 1000, tries: 1 });
    r.setServers([dns.address]);
    await expect(r.resolve4('_vellum.acme.example.com')).rejects.toMatchObject({ code: 'ENODATA' });
    expect(dns.queries).toContainEqual({ name: '_vellum.acme.example.com', type: 'A' });
  });
});

describe('parseDnsServers (VELLUM_DNS_SERVERS)', () => {
  it('reads comma-separated host:port entries, defaulting the port to 53', () => {
    expect(parseDnsServers('127.0.0.1:5353, 1.1.1.1 ,[::1]:53,[2606:4700::1111],2001:db8::1')).toEqual([
      '127.0.0.1:5353',
      '1.1.1.1:53',
      '[::1]:53',
      '[2606:4700::1111]:53',
      '[2001:db8::1]:53',
    ]);
  });

  it('treats a blank value as no servers (use the system resolvers)', () => {
    expect(parseDnsServers('')).toEqual([]);
    expect(parseDnsServers('  ')).toEqual([]);
  });

  it('names VELLUM_DNS_SERVERS and the entry for malformed values', () => {
    for (const bad of ['dns.google:53', '1.1.1.1:0', '1.1.1.1:65536', '1.1.1.1:', '1.1.1.1:53:1', '[::1', '[example]:53', '1.1.1.1,,8.8.8.8', '300.1.1.1']) {
      expect(() => parseDnsServers(bad), bad).toThrow(/^VELLUM_DNS_SERVERS: /);
    }
  });

  it('produces servers the resolver accepts', () => {
    expect(() => createDnsResolver({ servers: parseDnsServers('127.0.0.1:5353,[::1]:53') })).not.toThrow();
  });
});
