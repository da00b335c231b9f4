// The public surface of @vellum/node.

export { createNodeIds, systemClock } from './clock.ts';
export { createDnsResolver, parseDnsServers } from './dns.ts';
export type { DnsResolverOptions } from './dns.ts';
