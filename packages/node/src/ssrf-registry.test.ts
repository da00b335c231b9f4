import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isForbiddenAddress, REFUSED_BLOCKS } from './http-client.ts';

// The SSRF guard against every entry of the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (RFC 6890, RFC 8190 and the RFCs that added entries since; the registries as updated in 2025),
// typed here from the registries rather than from the guard's own list, so that a block the guard
// misses, or gets the length of wrong, fails. `reachable` is the registry's "Globally Reachable"
// column; `verdict` is Vellum's: every entry is refused except the four whose addresses carry an
// IPv4 address, which are judged by it (docs/limits.md "Outbound calls" says why the globally
// reachable entries are refused too).

type Verdict = 'refused' | 'by IPv4';
interface Entry {
  block: string;
  name: string;
  reachable: boolean | 'n/a';
  verdict: Verdict;
}

const IPV4_REGISTRY: Entry[] = [
  { block: '0.0.0.0/8', name: '"This network"', reachable: false, verdict: 'refused' },
  { block: '0.0.0.0/32', name: '"This host on this network"', reachable: false, verdict: 'refused' },
  { block: '10.0.0.0/8', name: 'Private-Use', reachable: false, verdict: 'refused' },
  { block: '100.64.0.0/10', name: 'Shared Address Space', reachable: false, verdict: 'refused' },
  { block: '127.0.0.0/8', name: 'Loopback', reachable: false, verdict: 'refused' },
  { block: '169.254.0.0/16', name: 'Link Local', reachable: false, verdict: 'refused' },
  { block: '172.16.0.0/12', name: 'Private-Use', reachable: false, verdict: 'refused' },
  { block: '192.0.0.0/24', name: 'IETF Protocol Assignments', reachable: false, verdict: 'refused' },
  { block: '192.0.0.0/29', name: 'IPv4 Service Continuity Prefix', reachable: false, verdict: 'refused' },
  { block: '192.0.0.8/32', name: 'IPv4 dummy address', reachable: false, verdict: 'refused' },
  { block: '192.0.0.9/32', name: 'Port Control Protocol Anycast', reachable: true, verdict: 'refused' },
  { block: '192.0.0.10/32', name: 'Traversal Using Relays around NAT Anycast', reachable: true, verdict: 'refused' },
  { block: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', reachable: false, verdict: 'refused' },
  { block: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', reachable: false, verdict: 'refused' },
  { block: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', reachable: false, verdict: 'refused' },
  { block: '192.31.196.0/24', name: 'AS112-v4', reachable: true, verdict: 'refused' },
  { block: '192.52.193.0/24', name: 'AMT', reachable: true, verdict: 'refused' },
  { block: '192.88.99.0/24', name: 'Deprecated (6to4 Relay Anycast)', reachable: 'n/a', verdict: 'refused' },
  { block: '192.88.99.2/32', name: '6a44-relay anycast address', reachable: false, verdict: 'refused' },
  { block: '192.168.0.0/16', name: 'Private-Use', reachable: false, verdict: 'refused' },
  { block: '192.175.48.0/24', name: 'Direct Delegation AS112 Service', reachable: true, verdict: 'refused' },
  { block: '198.18.0.0/15', name: 'Benchmarking', reachable: false, verdict: 'refused' },
  { block: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', reachable: false, verdict: 'refused' },
  { block: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', reachable: false, verdict: 'refused' },
  { block: '240.0.0.0/4', name: 'Reserved', reachable: false, verdict: 'refused' },
  { block: '255.255.255.255/32', name: 'Limited Broadcast', reachable: false, verdict: 'refused' },
];

const IPV6_REGISTRY: Entry[] = [
  { block: '::1/128', name: 'Loopback Address', reachable: false, verdict: 'refused' },
  { block: '::/128', name: 'Unspecified Address', reachable: false, verdict: 'refused' },
  { block: '::ffff:0:0/96', name: 'IPv4-mapped Address', reachable: false, verdict: 'by IPv4' },
  { block: '64:ff9b::/96', name: 'IPv4-IPv6 Translat.', reachable: true, verdict: 'by IPv4' },
  { block: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translat.', reachable: false, verdict: 'refused' },
  { block: '100::/64', name: 'Discard-Only Address Block', reachable: false, verdict: 'refused' },
  { block: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', reachable: false, verdict: 'refused' },
  { block: '2001::/23', name: 'IETF Protocol Assignments', reachable: false, verdict: 'refused' },
  { block: '2001::/32', name: 'TEREDO', reachable: 'n/a', verdict: 'by IPv4' },
  { block: '2001:1::1/128', name: 'Port Control Protocol Anycast', reachable: true, verdict: 'refused' },
  { block: '2001:1::2/128', name: 'Traversal Using Relays around NAT Anycast', reachable: true, verdict: 'refused' },
  { block: '2001:1::3/128', name: 'DNS-SD Service Registration Protocol Anycast', reachable: true, verdict: 'refused' },
  { block: '2001:2::/48', name: 'Benchmarking', reachable: false, verdict: 'refused' },
  { block: '2001:3::/32', name: 'AMT', reachable: true, verdict: 'refused' },
  { block: '2001:4:112::/48', name: 'AS112-v6', reachable: true, verdict: 'refused' },
  { block: '2001:10::/28', name: 'Deprecated (previously ORCHID)', reachable: 'n/a', verdict: 'refused' },
  { block: '2001:20::/28', name: 'ORCHIDv2', reachable: true, verdict: 'refused' },
  { block: '2001:30::/28', name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', reachable: true, verdict: 'refused' },
  { block: '2001:db8::/32', name: 'Documentation', reachable: false, verdict: 'refused' },
  { block: '2002::/16', name: '6to4', reachable: 'n/a', verdict: 'by IPv4' },
  { block: '2620:4f:8000::/48', name: 'Direct Delegation AS112 Service', reachable: true, verdict: 'refused' },
  { block: '3fff::/20', name: 'Documentation', reachable: false, verdict: 'refused' },
  { block: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', reachable: false, verdict: 'refused' },
  { block: 'fc00::/7', name: 'Unique-Local', reachable: false, verdict: 'refused' },
  { block: 'fe80::/10', name: 'Link-Local Unicast', reachable: false, verdict: 'refused' },
];

/** Blocks other registries set apart, which the guard refuses as well. */
const OUTSIDE_THE_REGISTRIES: Entry[] = [
  { block: '224.0.0.0/4', name: 'IPv4 multicast', reachable: 'n/a', verdict: 'refused' },
  { block: 'ff00::/8', name: 'IPv6 multicast', reachable: 'n/a', verdict: 'refused' },
  { block: 'fec0::/10', name: 'Site-local, deprecated (RFC 3879)', reachable: false, verdict: 'refused' },
  { block: '::/96', name: 'IPv4-compatible, deprecated (RFC 4291)', reachable: 'n/a', verdict: 'refused' },
];

const ALL = [...IPV4_REGISTRY, ...IPV6_REGISTRY, ...OUTSIDE_THE_REGISTRIES];

/** A block as numbers: its first and last address and the address width in bits. */
function range(cidr: string): { first: bigint; last: bigint; bits: number } {
  const [address, length] = cidr.split('/') as [string, string];
  const v6 = address.includes(':');
  const bits = v6 ? 128 : 32;
  let value = 0n;
  if (v6) {
    const [head, tail] = address.split('::') as [string, string | undefined];
    const words = (text: string | undefined) => (text ? text.split(':') : []);
    const missing = 8 - words(head).length - words(tail).length;
    const all = tail === undefined ? words(head) : [...words(head), ...Array<string>(missing).fill('0'), ...words(tail)];
    for (const w of all) value = (value << 16n) | BigInt(Number.parseInt(w, 16));
  } else {
    for (const octet of address.split('.')) value = (value << 8n) | BigInt(Number(octet));
  }
  const host = BigInt(bits - Number(length));
  const first = (value >> host) << host;
  return { first, last: first + (1n << host) - 1n, bits };
}

/** An address of `bits` width in text: dotted quad, or all eight IPv6 groups. */
function text(value: bigint, bits: number): string {
  const parts: string[] = [];
  const step = bits === 32 ? 8n : 16n;
  for (let shift = BigInt(bits) - step; shift >= 0n; shift -= step) {
    const part = (value >> shift) & ((1n << step) - 1n);
    parts.push(bits === 32 ? part.toString(10) : part.toString(16));
  }
  return parts.join(bits === 32 ? '.' : ':');
}

const within = (value: bigint, bits: number, cidr: string) => {
  const r = range(cidr);
  return r.bits === bits && value >= r.first && value <= r.last;
};

const refused = ALL.filter((e) => e.verdict === 'refused');

describe('the SSRF guard and the IANA special-purpose address registries (docs/limits.md "Outbound calls")', () => {
  // The first, a middle and the last address of every refused entry.
  const inside = refused.flatMap((entry) => {
    const { first, last, bits } = range(entry.block);
    const addresses = [...new Set([first, first + (last - first + 1n) / 2n, last])].map((v) => text(v, bits));
    return addresses.map((address) => [entry.block, entry.name, entry.reachable, address] as const);
  });
  it.each(inside)('refuses %s (%s, globally reachable: %s): %s', (_block, _name, _reachable, address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  // Just outside each refused entry, where no other entry lies, is an ordinary address: the guard
  // refuses no block wider than the registry's.
  const outside = refused.flatMap((entry) => {
    const { first, last, bits } = range(entry.block);
    return [first - 1n, last + 1n]
      .filter((v) => v >= 0n && v < 1n << BigInt(bits) && !ALL.some((other) => within(v, bits, other.block)))
      .map((v) => [entry.block, text(v, bits)] as const);
  });
  it.each(outside)('allows the neighbour of %s: %s', (_block, address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });

  // The entries whose addresses carry an IPv4 address are judged by it: the ends of the block carry
  // 0.0.0.0 and 255.255.255.255, both refused; inside, a public address passes and a refused one does not.
  it.each([
    ['::ffff:0:0/96', '::ffff:0.0.0.0', true],
    ['::ffff:0:0/96', '::ffff:255.255.255.255', true],
    ['::ffff:0:0/96', '::ffff:93.184.216.34', false],
    ['::ffff:0:0/96', '::ffff:203.0.113.9', true],
    ['64:ff9b::/96', '64:ff9b::', true],
    ['64:ff9b::/96', '64:ff9b::ffff:ffff', true],
    ['64:ff9b::/96', '64:ff9b::93.184.216.34', false],
    ['64:ff9b::/96', '64:ff9b::192.0.2.1', true],
    ['64:ff9b::/96', '64:ff9b::192.88.99.1', true],
    ['2001::/32 (Teredo: server and obfuscated client)', '2001::', true],
    ['2001::/32 (Teredo: server and obfuscated client)', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff', true],
    ['2001::/32 (Teredo: server and obfuscated client)', '2001:0:5db8:d822::a247:27dd', false],
    ['2001::/32 (Teredo: server and obfuscated client)', '2001:0:5db8:d822::39cc:9bfe', true],
    ['2001::/32 (Teredo: server and obfuscated client)', '2001:0:c000:2ff::a247:27dd', true],
    ['2002::/16 (6to4)', '2002::', true],
    ['2002::/16 (6to4)', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true],
    ['2002::/16 (6to4)', '2002:5db8:d822::1', false],
    ['2002::/16 (6to4)', '2002:c633:6401::1', true],
  ] as const)('judges %s by the IPv4 address it carries: %s', (_block, address, forbidden) => {
    expect(isForbiddenAddress(address)).toBe(forbidden);
  });

  it('names every entry of both registries, refused or judged by the IPv4 address it carries', () => {
    expect(IPV4_REGISTRY).toHaveLength(26);
    expect(IPV6_REGISTRY).toHaveLength(25);
    expect(ALL.filter((e) => e.verdict === 'by IPv4').map((e) => e.block)).toEqual(['::ffff:0:0/96', '64:ff9b::/96', '2001::/32', '2002::/16']);
  });

  it('the guard’s list holds exactly the blocks refused here', () => {
    expect(REFUSED_BLOCKS.map((b) => b.block).sort()).toEqual(refused.map((e) => e.block).sort());
  });

  it('docs/limits.md lists exactly the guard’s blocks, with their names and reasons', () => {
    const doc = readFileSync(new URL('../../../docs/limits.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Outbound calls'), doc.indexOf('\n## ', doc.indexOf('## Outbound calls') + 1));
    const rows = [...section.matchAll(/^\| `([^`]+)` \| (.+?) \| (.+?) \|$/gm)].map((m) => ({ block: m[1], name: m[2], why: m[3] }));
    expect(rows).toEqual(REFUSED_BLOCKS.map(({ block, name, why }) => ({ block, name, why })));
  });
});
