// Outbound HTTP for webhook deliveries (API.md §8, §10): https only, a deadline for the whole
// exchange, no redirects, and an SSRF guard that vets the resolved address and then connects to
// exactly that address, so a DNS answer that changes between the check and the connection
// (rebinding) cannot reach a private host.
import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent, request } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { HttpClient, OutboundResult } from '@vellum/core';

export interface HttpClientOptions {
  /** VELLUM_OUTBOUND_ALLOW_PRIVATE: allow loopback, private and link-local addresses (tests, closed networks). */
  allowPrivate?: boolean;
  /** Extra CA certificates (PEM) to trust besides the system's (VELLUM_OUTBOUND_CA_FILE). TLS is always checked. */
  extraCaPem?: string;
  /** Most connections kept per receiver origin (default 64). */
  maxSockets?: number;
  /** Resolves a host name to addresses (default: the system resolver, all addresses). */
  resolve?: (hostname: string) => Promise<Array<{ address: string; family: number }>>;
}

/** Addresses a delivery must never reach unless private destinations are allowed (API.md §8). */
const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // this network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT, shared address space
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');
}

/** Whether a delivery may not go to `address` (IPv4, IPv6, or IPv4-mapped IPv6). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return FORBIDDEN.check(mapped[1] as string, 'ipv4');
  return FORBIDDEN.check(address, 'ipv6');
}

class RefusedAddress extends Error {}

const defaultResolve = (hostname: string) => dnsLookup(hostname, { all: true, verbatim: true });

/** The HttpClient port over node:https (ARCHITECTURE.md: HttpClient in @vellum/node). */
export function createHttpClient(options: HttpClientOptions = {}): HttpClient & { close(): void } {
  const resolve = options.resolve ?? defaultResolve;
  // One secure context with the extra CA, made once: passing `ca` itself would make the agent
  // spell every certificate into each request's pool name, which cost a fifth of a delivery's CPU.
  const secureContext = options.extraCaPem ? createSecureContext({ ca: [...rootCertificates, options.extraCaPem] }) : undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64, ...(secureContext ? { secureContext } : {}) });

  // Every address the name resolves to must be allowed: a name that mixes a public and a private
  // address is refused rather than left to chance.
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
        if (!options.allowPrivate && addresses.some((a) => isForbiddenAddress(a.address))) {
          return callback(new RefusedAddress('The receiver resolves to a loopback, private or link-local address'), '', 4);
        }
        if (lookupOptions.all) return callback(null, addresses as never, undefined as never);
        const first = addresses[0] as { address: string; family: number };
        callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };

  return {
    send({ method, url, headers, body, timeoutMs }): Promise<OutboundResult> {
      return new Promise((settle) => {
        let done = false;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const finish = (result: OutboundResult) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          settle(result);
        };
        let target: URL;
        try {
          target = new URL(url);
        } catch {
          return finish({ error: 'The receiver URL is not valid' });
        }
        if (target.protocol !== 'https:') return finish({ error: 'The receiver URL must use https' });
        // An IP literal skips the lookup, so it is checked here (the URL rules refuse them anyway).
        const literal = target.hostname.replace(/^\[|\]$/g, '');
        if (isIP(literal) && !options.allowPrivate && isForbiddenAddress(literal)) {
          return finish({ error: 'The receiver resolves to a loopback, private or link-local address' });
        }
        const req = request(target, { method, headers: { ...headers, 'content-length': String(body.byteLength) }, agent, lookup: guardedLookup });
        timer = setTimeout(() => {
          finish({ error: `The receiver did not answer within ${timeoutMs} ms` });
          req.destroy();
        }, timeoutMs);
        req.on('response', (res) => {
          const status = res.statusCode ?? 0;
          // The body is read and dropped, so the connection can be reused.
          res.on('data', () => {});
          res.on('end', () => finish({ status }));
          res.on('error', () => finish({ status }));
        });
        req.on('error', (error: NodeJS.ErrnoException) => finish({ error: describe(error) }));
        req.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}

/** A short reason safe to show the tenant: what failed, not our internals. */
function describe(error: NodeJS.ErrnoException): string {
  if (error instanceof RefusedAddress) return error.message;
  switch (error.code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'The receiver’s host name does not resolve';
    case 'ECONNREFUSED':
      return 'The receiver refused the connection';
    case 'ECONNRESET':
      return 'The receiver closed the connection';
    case 'ETIMEDOUT':
      return 'The connection to the receiver timed out';
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `The receiver’s TLS certificate is not trusted (${error.code})`;
    default:
      return error.code ? `The request failed (${error.code})` : 'The request failed';
  }
}
