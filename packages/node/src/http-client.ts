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

/** One block of addresses an outbound call never reaches unless private destinations are allowed. */
export interface RefusedBlock {
  /** The block in CIDR notation. */
  readonly block: string;
  /** What it is, as its registry or RFC names it. */
  readonly name: string;
  /** Why it is refused. */
  readonly why: string;
}

const NOT_GLOBAL = 'not globally reachable';
const NEAREST = 'anycast: the nearest instance answers, which may be in the operator’s own network';
const NOT_A_HOST = 'identifiers, not addresses of hosts';

/**
 * Every block the SSRF guard refuses (docs/limits.md "Outbound calls" lists exactly these). It holds
 * every entry of the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its updates,
 * as of 2025-10) but four that carry an IPv4 address (IPv4-mapped `::ffff:0:0/96`, NAT64
 * `64:ff9b::/96`, Teredo `2001::/32`, 6to4 `2002::/16`), which are judged by that address instead.
 * Entries the registry marks globally reachable are refused too: they are anycast services or
 * identifiers, never a webhook receiver, claim source or identity provider. Last come the blocks
 * other registries set apart (multicast, the deprecated site-local and IPv4-compatible forms).
 */
export const REFUSED_BLOCKS: readonly RefusedBlock[] = [
  // The IANA IPv4 Special-Purpose Address Registry.
  { block: '0.0.0.0/8', name: '"This network" (RFC 791)', why: NOT_GLOBAL },
  { block: '0.0.0.0/32', name: '"This host on this network" (RFC 1122)', why: NOT_GLOBAL },
  { block: '10.0.0.0/8', name: 'Private-Use (RFC 1918)', why: NOT_GLOBAL },
  { block: '100.64.0.0/10', name: 'Shared Address Space, carrier-grade NAT (RFC 6598)', why: NOT_GLOBAL },
  { block: '127.0.0.0/8', name: 'Loopback (RFC 1122)', why: NOT_GLOBAL },
  { block: '169.254.0.0/16', name: 'Link Local, where cloud metadata services live (RFC 3927)', why: NOT_GLOBAL },
  { block: '172.16.0.0/12', name: 'Private-Use (RFC 1918)', why: NOT_GLOBAL },
  { block: '192.0.0.0/24', name: 'IETF Protocol Assignments (RFC 6890)', why: NOT_GLOBAL },
  { block: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix (RFC 7335)', why: NOT_GLOBAL },
  { block: '192.0.0.8/32', name: 'IPv4 dummy address (RFC 7600)', why: NOT_GLOBAL },
  { block: '192.0.0.9/32', name: 'Port Control Protocol Anycast (RFC 7723)', why: NEAREST },
  { block: '192.0.0.10/32', name: 'Traversal Using Relays around NAT Anycast (RFC 8155)', why: NEAREST },
  { block: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery (RFC 8880)', why: NOT_GLOBAL },
  { block: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery (RFC 8880)', why: NOT_GLOBAL },
  { block: '192.0.2.0/24', name: 'Documentation, TEST-NET-1 (RFC 5737)', why: NOT_GLOBAL },
  { block: '192.31.196.0/24', name: 'AS112-v4 (RFC 7535)', why: NEAREST },
  { block: '192.52.193.0/24', name: 'AMT (RFC 7450)', why: NEAREST },
  { block: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast) (RFC 7526)', why: 'deprecated' },
  { block: '192.88.99.2/32', name: '6a44-relay anycast address (RFC 6751)', why: NOT_GLOBAL },
  { block: '192.168.0.0/16', name: 'Private-Use (RFC 1918)', why: NOT_GLOBAL },
  { block: '192.175.48.0/24', name: 'Direct Delegation AS112 Service (RFC 7534)', why: NEAREST },
  { block: '198.18.0.0/15', name: 'Benchmarking (RFC 2544)', why: NOT_GLOBAL },
  { block: '198.51.100.0/24', name: 'Documentation, TEST-NET-2 (RFC 5737)', why: NOT_GLOBAL },
  { block: '203.0.113.0/24', name: 'Documentation, TEST-NET-3 (RFC 5737)', why: NOT_GLOBAL },
  { block: '240.0.0.0/4', name: 'Reserved (RFC 1112)', why: NOT_GLOBAL },
  { block: '255.255.255.255/32', name: 'Limited Broadcast (RFC 919)', why: NOT_GLOBAL },
  // The IANA IPv6 Special-Purpose Address Registry.
  { block: '::1/128', name: 'Loopback Address (RFC 4291)', why: NOT_GLOBAL },
  { block: '::/128', name: 'Unspecified Address (RFC 4291)', why: NOT_GLOBAL },
  { block: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translation, local use: into the operator’s own network (RFC 8215)', why: NOT_GLOBAL },
  { block: '100::/64', name: 'Discard-Only Address Block (RFC 6666)', why: NOT_GLOBAL },
  { block: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix (RFC 9780)', why: NOT_GLOBAL },
  { block: '2001::/23', name: 'IETF Protocol Assignments (RFC 2928)', why: NOT_GLOBAL },
  { block: '2001:1::1/128', name: 'Port Control Protocol Anycast (RFC 7723)', why: NEAREST },
  { block: '2001:1::2/128', name: 'Traversal Using Relays around NAT Anycast (RFC 8155)', why: NEAREST },
  { block: '2001:1::3/128', name: 'DNS-SD Service Registration Protocol Anycast (RFC 9665)', why: NEAREST },
  { block: '2001:2::/48', name: 'Benchmarking (RFC 5180)', why: NOT_GLOBAL },
  { block: '2001:3::/32', name: 'AMT (RFC 7450)', why: NEAREST },
  { block: '2001:4:112::/48', name: 'AS112-v6 (RFC 7535)', why: NEAREST },
  { block: '2001:10::/28', name: 'Deprecated (previously ORCHID) (RFC 4843)', why: 'deprecated' },
  { block: '2001:20::/28', name: 'ORCHIDv2 (RFC 7343)', why: NOT_A_HOST },
  { block: '2001:30::/28', name: 'Drone Remote ID Protocol Entity Tags (RFC 9374)', why: NOT_A_HOST },
  { block: '2001:db8::/32', name: 'Documentation (RFC 3849)', why: NOT_GLOBAL },
  { block: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service (RFC 7534)', why: NEAREST },
  { block: '3fff::/20', name: 'Documentation (RFC 9637)', why: NOT_GLOBAL },
  { block: '5f00::/16', name: 'Segment Routing (SRv6) SIDs (RFC 9602)', why: NOT_GLOBAL },
  { block: 'fc00::/7', name: 'Unique-Local (RFC 4193)', why: NOT_GLOBAL },
  { block: 'fe80::/10', name: 'Link-Local Unicast (RFC 4291)', why: NOT_GLOBAL },
  // Outside the special-purpose registries.
  { block: '224.0.0.0/4', name: 'Multicast (RFC 5771)', why: 'multicast' },
  { block: 'ff00::/8', name: 'Multicast (RFC 4291)', why: 'multicast' },
  { block: 'fec0::/10', name: 'Site-Local (RFC 3879)', why: 'deprecated, not globally reachable' },
  { block: '::/96', name: 'IPv4-compatible (RFC 4291)', why: 'deprecated' },
];

const REFUSED = new BlockList();
for (const { block } of REFUSED_BLOCKS) {
  const [net, prefix] = block.split('/') as [string, string];
  REFUSED.addSubnet(net, Number(prefix), net.includes(':') ? 'ipv6' : 'ipv4');
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
 * IPv4-mapped (::ffff:0:0/96), SIIT (::ffff:0:0:0/96), NAT64 (64:ff9b::/96, RFC 6052), 6to4
 * (2002::/16, RFC 3056) and Teredo (2001::/32, RFC 4380: server and obfuscated client). Empty for
 * any other address. (The deprecated IPv4-compatible ::/96 is refused whole, see REFUSED_BLOCKS.)
 */
function embeddedIpv4(b: Uint8Array): string[] {
  const word = (i: number) => ((b[i * 2] as number) << 8) | (b[i * 2 + 1] as number);
  if (zeros(b, 0, 10) && word(5) === 0xffff) return [dotted(b, 12)];
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
 * Whether an outbound call may not go to `address` (IPv4 or IPv6; anything else is refused): it lies
 * in one of REFUSED_BLOCKS. An IPv6 address that carries an IPv4 address (mapped, SIIT, NAT64, 6to4,
 * Teredo) is judged by the IPv4 address alone, since a translator on the path delivers it there:
 * so a DNS64 answer for a public host passes on an IPv6-only network.
 */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return REFUSED.check(address, 'ipv4');
  if (family !== 6) return true;
  const bytes = ipv6Bytes(address);
  if (!bytes) return true;
  const carried = embeddedIpv4(bytes);
  if (carried.length > 0) return carried.some((v4) => REFUSED.check(v4, 'ipv4'));
  const canonical = [0, 2, 4, 6, 8, 10, 12, 14].map((i) => (((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16)).join(':');
  return REFUSED.check(canonical, 'ipv6');
}

/** The guarded lookup's refusal; `describe` words it for the request's kind. */
class RefusedAddress extends Error {}

/** The most an answer's body may hold unless the request says otherwise (OutboundFetch.maxBytes). */
const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

const privateRefused = (who: 'receiver' | 'server') => `The ${who} resolves to a loopback, private or other special-purpose address`;

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
