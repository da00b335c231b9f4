import { createSocket, type RemoteInfo, type Socket as DgramSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';

import { AUTHORITATIVE_ANSWER, decode, encode, RECURSION_DESIRED, TRUNCATED_RESPONSE, type Answer, type Packet, type Question } from 'dns-packet';

/** Names mapped to their TXT records (one string per record), or to 'servfail' to make lookups fail. */
export type DnsTestZone = Record<string, string[] | 'servfail'>;

export interface DnsTestServerOptions {
  /** TTL of every answer in seconds (default 0, so nothing caches between test steps). */
  ttl?: number;
}

export interface DnsTestServer {
  /** `127.0.0.1:PORT`, the form `Resolver.setServers` and VELLUM_DNS_SERVERS take. */
  address: string;
  port: number;
  /** The live zone: tests may add, change or remove names between lookups. */
  zone: DnsTestZone;
  /** Every question received, in order, with the name as sent. */
  queries: Array<{ name: string; type: string }>;
  close(): Promise<void>;
}

const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4 } as const;
const CLASSIC_UDP_LIMIT = 512;
const HOST = '127.0.0.1';

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

function lookup(zone: DnsTestZone, name: string): string[] | 'servfail' | undefined {
  const wanted = normalize(name);
  for (const [key, value] of Object.entries(zone)) if (normalize(key) === wanted) return value;
  return undefined;
}

// A TXT character-string holds at most 255 bytes; longer values go out as several strings in one
// record, which resolvers join. Splitting on code points keeps each string valid UTF-8.
function chunks(value: string): Buffer[] {
  const out: Buffer[] = [];
  let current: Buffer[] = [];
  let size = 0;
  for (const ch of value) {
    const b = Buffer.from(ch, 'utf8');
    if (size + b.length > 255) {
      out.push(Buffer.concat(current));
      current = [];
      size = 0;
    }
    current.push(b);
    size += b.length;
  }
  out.push(Buffer.concat(current));
  return out;
}

function answer(zone: DnsTestZone, query: Packet, ttl: number): { rcode: number; answers: Answer[] } {
  if (query.type !== 'query' || !query.questions || query.questions.length !== 1) return { rcode: RCODE.NOTIMP, answers: [] };
  const question = query.questions[0] as Question;
  const records = lookup(zone, question.name);
  if (records === undefined) return { rcode: RCODE.NXDOMAIN, answers: [] };
  if (records === 'servfail') return { rcode: RCODE.SERVFAIL, answers: [] };
  if (question.type !== 'TXT') return { rcode: RCODE.NOERROR, answers: [] };
  return {
    rcode: RCODE.NOERROR,
    answers: records.map((r) => ({ type: 'TXT', class: 'IN', name: question.name, ttl, data: chunks(r) })),
  };
}

// The wire answer to one query message, or undefined for bytes that are not DNS (dropped, as a
// real server would).
function respond(server: DnsTestServer, ttl: number, message: Buffer, overUdp: boolean): Buffer | undefined {
  let query: Packet;
  try {
    query = decode(message);
  } catch {
    return undefined;
  }
  for (const q of query.questions ?? []) server.queries.push({ name: q.name, type: q.type });
  const { rcode, answers } = answer(server.zone, query, ttl);
  const response: Packet = {
    type: 'response',
    id: query.id ?? 0,
    flags: AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & RECURSION_DESIRED) | rcode,
    questions: query.questions ?? [],
    answers,
  };
  const bytes = encode(response);
  if (!overUdp) return bytes;
  // Without an EDNS OPT record a client accepts 512 bytes over UDP; past that, set TC so it asks
  // again over TCP (RFC 1035 4.2.1), which this server also answers.
  const opt = query.additionals?.find((a) => a.type === 'OPT');
  const size = opt && 'udpPayloadSize' in opt ? Number(opt.udpPayloadSize) : 0;
  const limit = Math.max(size || 0, CLASSIC_UDP_LIMIT);
  return bytes.length <= limit ? bytes : encode({ ...response, answers: [], flags: (response.flags ?? 0) | TRUNCATED_RESPONSE });
}

function handleTcp(connection: Socket, reply: (message: Buffer) => Buffer | undefined): void {
  let pending = Buffer.alloc(0);
  connection.on('error', () => connection.destroy());
  connection.on('data', (data: Buffer) => {
    pending = Buffer.concat([pending, data]);
    // Each message is preceded by its length in two bytes (RFC 1035 4.2.2).
    while (pending.length >= 2) {
      const length = pending.readUInt16BE(0);
      if (pending.length < 2 + length) break;
      const message = pending.subarray(2, 2 + length);
      pending = pending.subarray(2 + length);
      const bytes = reply(message);
      if (!bytes) {
        connection.destroy();
        return;
      }
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16BE(bytes.length);
      connection.write(Buffer.concat([prefix, bytes]));
    }
  });
}

async function listenOnSamePort(): Promise<{ udp: DgramSocket; tcp: Server; port: number }> {
  // UDP picks a free port; TCP then takes the same number, which another process may hold: retry.
  for (let attempt = 0; ; attempt += 1) {
    const udp = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, HOST, () => {
        udp.off('error', reject);
        resolve();
      });
    });
    const { port } = udp.address();
    const tcp = createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, HOST, () => {
          tcp.off('error', reject);
          resolve();
        });
      });
      return { udp, tcp, port };
    } catch (error) {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      if (attempt >= 20) throw error;
    }
  }
}

/**
 * A real DNS server on 127.0.0.1 (UDP, and TCP on the same ephemeral port) answering TXT queries
 * from `zone`: NXDOMAIN for unknown names, no answers for other types, SERVFAIL for 'servfail' entries.
 */
export async function startDnsServer(zone: DnsTestZone = {}, options: DnsTestServerOptions = {}): Promise<DnsTestServer> {
  const ttl = options.ttl ?? 0;
  const { udp, tcp, port } = await listenOnSamePort();
  const connections = new Set<Socket>();
  let closed: Promise<void> | undefined;
  const server: DnsTestServer = {
    address: `${HOST}:${port}`,
    port,
    zone,
    queries: [],
    close: () =>
      (closed ??= (async () => {
        for (const c of connections) c.destroy();
        await Promise.all([new Promise<void>((resolve) => udp.close(() => resolve())), new Promise<void>((resolve) => tcp.close(() => resolve()))]);
      })()),
  };

  udp.on('message', (message: Buffer, remote: RemoteInfo) => {
    const bytes = respond(server, ttl, message, true);
    if (bytes) udp.send(bytes, remote.port, remote.address);
  });
  tcp.on('connection', (connection) => {
    connections.add(connection);
    connection.on('close', () => connections.delete(connection));
    handleTcp(connection, (message) => respond(server, ttl, message, false));
  });
  return server;
}
