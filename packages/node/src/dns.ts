import { Resolver } from 'node:dns/promises';
import { isIPv4, isIPv6 } from 'node:net';

import type { DnsResolver, TxtLookup } from '@vellum/core';

export interface DnsResolverOptions {
  /** `host:port` (IPv4) or `[v6]:port` addresses; the system's resolvers when absent or empty. */
  servers?: string[];
  /** Per-attempt timeout in milliseconds (default 5000). */
  timeoutMs?: number;
  /** Attempts per server before giving up (default 2). */
  tries?: number;
}

// Messages safe to show a tenant: they say what went wrong without naming our DNS servers.
const FAILURE_REASONS: Record<string, string> = {
  ETIMEOUT: 'the DNS server did not answer',
  ECONNREFUSED: 'the DNS server refused the connection',
  ESERVFAIL: 'the DNS server failed to answer (SERVFAIL)',
  EREFUSED: 'the DNS server refused the query',
  EBADNAME: 'the name is not a valid DNS name',
  EBADQUERY: 'the name is not a valid DNS name',
  EBADRESP: 'the DNS server sent a malformed answer',
  EFORMERR: 'the DNS server could not understand the query',
  ENOTIMP: 'the DNS server does not support the query',
  ECANCELLED: 'the DNS lookup was cancelled',
  EDESTRUCTION: 'the DNS lookup was cancelled',
};

/** TXT lookups through node:dns (c-ares), classifying every outcome as found, none or failed. */
export function createDnsResolver(options: DnsResolverOptions = {}): DnsResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 5000, tries: options.tries ?? 2 });
  if (options.servers && options.servers.length > 0) resolver.setServers(options.servers);

  return {
    async resolveTxt(name): Promise<TxtLookup> {
      try {
        const records = await resolver.resolveTxt(name);
        if (records.length === 0) return { status: 'none' };
        return { status: 'found', records: records.map((chunks) => chunks.join('')) };
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        // ENODATA: the name exists without TXT records; ENOTFOUND: NXDOMAIN.
        if (code === 'ENODATA' || code === 'ENOTFOUND') return { status: 'none' };
        return { status: 'failed', reason: (typeof code === 'string' && FAILURE_REASONS[code]) || 'the DNS lookup failed' };
      }
    },
  };
}

function parsePort(text: string, entry: string): number {
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) {
    throw new Error(`VELLUM_DNS_SERVERS: ${JSON.stringify(entry)} has an invalid port (expected 1-65535)`);
  }
  return port;
}

/**
 * Parses VELLUM_DNS_SERVERS, `host:port,host:port` with IP addresses (IPv6 as `[v6]:port`; the
 * port defaults to 53), into the `host:port` strings `createDnsResolver` takes. Blank means none.
 */
export function parseDnsServers(value: string): string[] {
  if (value.trim() === '') return [];
  return value.split(',').map((raw) => {
    const entry = raw.trim();
    const malformed = (why: string) =>
      new Error(
        `VELLUM_DNS_SERVERS: ${JSON.stringify(entry)} ${why}; expected comma-separated host:port entries such as 1.1.1.1:53 or [2606:4700:4700::1111]:53`,
      );
    if (entry === '') throw malformed('is empty');
    const bracketed = /^\[([^\]]+)\](?::([^:]*))?$/.exec(entry);
    if (bracketed) {
      const [, host = '', port] = bracketed;
      if (!isIPv6(host)) throw malformed('is not an IPv6 address');
      return `[${host}]:${port === undefined ? 53 : parsePort(port, entry)}`;
    }
    if (isIPv6(entry)) return `[${entry}]:53`;
    const [host = '', port, ...rest] = entry.split(':');
    if (rest.length > 0) throw malformed('is not valid (write IPv6 addresses in brackets)');
    if (!isIPv4(host)) throw malformed('is not an IP address (host names cannot be used for DNS servers)');
    return `${host}:${port === undefined ? 53 : parsePort(port, entry)}`;
  });
}
