// Outbound HTTP for webhook deliveries (docs/limits.md "Outbound calls", docs/decisions.md "Webhooks") and for requests whose answer is read
// (claim sources, the identity provider): https only, a deadline for the whole exchange, no
// redirects, and an SSRF guard that vets the resolved address and then connects to exactly that
// address, so a DNS answer that changes between the check and the connection (rebinding) cannot
// reach a private host.
import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent, request } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { IncomingHttpHeaders } from 'node:http';
import type { HttpClient, OutboundResponse, OutboundResult } from '@vellum/core';

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

/** Addresses a delivery must never reach unless private destinations are allowed (docs/limits.md "Outbound calls"). */
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
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates into the operator's own network
  ['100::', 64], // discard-only
  ['2001:db8::', 32], // documentation
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address (zone id dropped, a trailing dotted quad allowed); undefined if it is not one. */
function ipv6Bytes(address: string): Uint8Array | undefined {
  let text = address.split('%')[0] as string;
  const tail: number[] = [];
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    tail.push(...quad.slice(1).map(Number));
    if (tail.some((b) => b > 255)) return undefined;
    text = text.slice(0, quad.index) + '0:0';
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const part = (h: string | undefined) => (h ? h.split(':') : []);
  const head = part(halves[0]);
  const rest = part(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const bytes = new Uint8Array(16);
  for (const [i, g] of groups.entries()) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined;
    const v = Number.parseInt(g, 16);
    bytes[i * 2] = v >> 8;
    bytes[i * 2 + 1] = v & 0xff;
  }
  if (tail.length) bytes.set(tail, 12);
  return bytes;
}

const dotted = (b: Uint8Array, at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
const zeros = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);

/**
 * The IPv4 addresses an IPv6 address carries and would reach through a translator or tunnel:
 * IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96), SIIT (::ffff:0:0:0/96), NAT64 (64:ff9b::/96,
 * RFC 6052), 6to4 (2002::/16, RFC 3056) and Teredo (2001::/32, RFC 4380: server and obfuscated client).
 */
function embeddedIpv4(b: Uint8Array): string[] {
  const word = (i: number) => ((b[i * 2] as number) << 8) | (b[i * 2 + 1] as number);
  if (zeros(b, 0, 10) && word(5) === 0xffff) return [dotted(b, 12)];
  if (zeros(b, 0, 12)) return [dotted(b, 12)];
  if (zeros(b, 0, 8) && word(4) === 0xffff && word(5) === 0) return [dotted(b, 12)];
  if (word(0) === 0x64 && word(1) === 0xff9b && zeros(b, 4, 12)) return [dotted(b, 12)];
  if (word(0) === 0x2002) return [dotted(b, 2)];
  if (word(0) === 0x2001 && word(1) === 0) {
    const client = b.slice(12, 16).map((x) => x ^ 0xff);
    return [dotted(b, 4), dotted(client, 0)];
  }
  return [];
}

/**
 * Whether a delivery may not go to `address` (IPv4 or IPv6). An IPv6 address that embeds an IPv4
 * address (mapped, compatible, NAT64, 6to4, Teredo) is judged by the IPv4 address too, since a
 * translator on the path would deliver it there.
 */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family !== 6) return true;
  const bytes = ipv6Bytes(address);
  if (!bytes) return true;
  const canonical = [0, 2, 4, 6, 8, 10, 12, 14].map((i) => (((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16)).join(':');
  if (FORBIDDEN.check(canonical, 'ipv6')) return true;
  return embeddedIpv4(bytes).some((v4) => FORBIDDEN.check(v4, 'ipv4'));
}

/** The guarded lookup's refusal; `describe` words it for the request's kind. */
class RefusedAddress extends Error {}

/** The most an answer's body may hold unless the request says otherwise (OutboundFetch.maxBytes). */
const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

const privateRefused = (who: 'receiver' | 'server') => `The ${who} resolves to a loopback, private or link-local address`;

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
          return callback(new RefusedAddress(), '', 4);
        }
        if (lookupOptions.all) return callback(null, addresses as never, undefined as never);
        const first = addresses[0] as { address: string; family: number };
        callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, '', 4),
    );
  };

  /** The URL to connect to, or why not: https only, and an IP literal (which skips the lookup) is vetted here. */
  const vet = (url: string, who: 'receiver' | 'server'): URL | string => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return `The ${who} URL is not valid`;
    }
    if (target.protocol !== 'https:') return `The ${who} URL must use https`;
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && !options.allowPrivate && isForbiddenAddress(literal)) return privateRefused(who);
    return target;
  };

  return {
    send({ method, url, headers, body, timeoutMs }): Promise<OutboundResult> {
      return new Promise((settle) => {
        const { finish, deadline } = settleOnce<OutboundResult>(settle);
        const target = vet(url, 'receiver');
        if (typeof target === 'string') return finish({ error: target });
        const req = request(target, { method, headers: { ...headers, 'content-length': String(body.byteLength) }, agent, lookup: guardedLookup });
        deadline(timeoutMs, { error: `The receiver did not answer within ${timeoutMs} ms` }, () => req.destroy());
        req.on('response', (res) => {
          const status = res.statusCode ?? 0;
          // The body is read and dropped, so the connection can be reused.
          res.on('data', () => {});
          res.on('end', () => finish({ status }));
          res.on('error', () => finish({ status }));
        });
        req.on('error', (error: NodeJS.ErrnoException) => finish({ error: describe(error, 'receiver') }));
        req.end(body);
      });
    },

    fetch({ method, url, headers, body, timeoutMs, maxBytes = DEFAULT_MAX_RESPONSE_BYTES }): Promise<OutboundResponse> {
      return new Promise((settle) => {
        const settled = settleOnce<OutboundResponse>(settle);
        const { finish } = settled;
        if (method !== 'GET' && method !== 'POST') return finish({ error: 'The request method must be GET or POST' });
        const target = vet(url, 'server');
        if (typeof target === 'string') return finish({ error: target });
        const sent: Record<string, string> = { ...headers };
        if (body !== undefined) sent['content-length'] = String(body.byteLength);
        let req: ReturnType<typeof request> | undefined;
        // One deadline for everything: connecting, sending, the status line and the whole body (a retry included).
        settled.deadline(timeoutMs, { error: `The server did not answer within ${timeoutMs} ms` }, () => req?.destroy());
        const tooLarge = () => {
          finish({ error: `The answer is larger than ${maxBytes} bytes` });
          req?.destroy();
        };
        const attempt = (mayRetry: boolean) => {
          try {
            req = request(target, { method, headers: sent, agent, lookup: guardedLookup });
          } catch {
            // Headers Node refuses (a bad name or value) throw here rather than failing the request.
            return finish({ error: 'The request headers are not valid' });
          }
          const current = req;
          let answered = false;
          current.on('response', (res) => {
            answered = true;
            const declared = Number(res.headers['content-length']);
            if (Number.isFinite(declared) && declared > maxBytes) return tooLarge();
            const chunks: Buffer[] = [];
            let length = 0;
            res.on('data', (chunk: Buffer) => {
              length += chunk.byteLength;
              if (length > maxBytes) return tooLarge();
              chunks.push(chunk);
            });
            res.on('end', () => {
              const all = Buffer.concat(chunks, length);
              finish({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), body: new Uint8Array(all.buffer, all.byteOffset, all.byteLength) });
            });
            res.on('error', (error: NodeJS.ErrnoException) => finish({ error: describe(error, 'server') }));
            // Closed before the last byte: the answer is incomplete, so it is no answer.
            res.on('close', () => {
              if (!res.complete) finish({ error: 'The server closed the connection before the answer was complete' });
            });
          });
          current.on('error', (error: NodeJS.ErrnoException) => {
            // A kept-alive connection the server closed as the request went out (its idle timeout,
            // which Node's agent does not know) fails before any answer: the request is sent again,
            // once, on a new connection, as Node's documentation advises.
            if (mayRetry && !answered && !settled.done && current.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE'))
              return attempt(false);
            finish({ error: describe(error, 'server') });
          });
          current.end(body);
        };
        attempt(true);
      });
    },

    close() {
      agent.destroy();
    },
  };
}

/**
 * Settles a request's promise once: the first `finish` wins and stops the deadline, later ones are
 * ignored. When the deadline set by `deadline` passes first, it settles with `late`, then `abort` runs.
 */
function settleOnce<T>(settle: (result: T) => void) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const state = {
    done: false,
    finish(result: T) {
      if (state.done) return;
      state.done = true;
      clearTimeout(timer);
      settle(result);
    },
    deadline(ms: number, late: T, abort: () => void) {
      timer = setTimeout(() => {
        state.finish(late);
        abort();
      }, ms);
    },
  };
  return state;
}

/** Header names as Node gives them (lower-case); a header sent more than once is joined with commas. */
function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** A short reason safe to show the tenant: what failed, not our internals. */
function describe(error: NodeJS.ErrnoException, who: 'receiver' | 'server'): string {
  if (error instanceof RefusedAddress) return privateRefused(who);
  switch (error.code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `The ${who}’s host name does not resolve`;
    case 'ECONNREFUSED':
      return `The ${who} refused the connection`;
    case 'ECONNRESET':
      return `The ${who} closed the connection`;
    case 'ETIMEDOUT':
      return `The connection to the ${who} timed out`;
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `The ${who}’s TLS certificate is not trusted (${error.code})`;
    default:
      return error.code ? `The request failed (${error.code})` : 'The request failed';
  }
}
