import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openWireConnections, WireConnection } from './wire-client.ts';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const port = (server: Server | TcpServer) => (server.address() as { port: number }).port;

describe('WireConnection against node:http on loopback', () => {
  let server: Server;
  let handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** The client port of every request's socket, in order: which requests shared a connection. */
  let sockets: number[];
  const connections: WireConnection[] = [];
  const open = (host?: string) => {
    const c = new WireConnection(port(server), host);
    connections.push(c);
    return c;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      sockets.push(req.socket.remotePort as number);
      handle(req, res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  afterEach(() => {
    for (const c of connections.splice(0)) c.close();
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const reset = (h: typeof handle) => {
    sockets = [];
    handle = h;
  };

  it('reads a content-length answer and sends the host and the given header lines', async () => {
    let seen: IncomingMessage | undefined;
    reset((req, res) => {
      seen = req;
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': '11' }).end('{"ok":true}');
    });
    const answer = await open('acme.example').request('GET', '/a/b?c=d', 'x-one: 1\r\nauthorization: Bearer t\r\n');
    expect(answer).toEqual({ status: 201, text: '{"ok":true}' });
    expect(seen?.method).toBe('GET');
    expect(seen?.url).toBe('/a/b?c=d');
    expect(seen?.headers).toMatchObject({ host: 'acme.example', 'x-one': '1', authorization: 'Bearer t' });
    expect(seen?.headers['content-length']).toBeUndefined();
  });

  it('gives a redirect’s location, and none for an answer without one on the same connection', async () => {
    const target = 'https://idp.example/auth?client_id=vellum&redirect_uri=https%3A%2F%2Facme.example%2Fcb&state=a%20b';
    reset((req, res) => {
      if (req.url === '/go') res.writeHead(303, { Location: target, 'cache-control': 'no-store', 'content-length': '0' }).end();
      else res.writeHead(200, { 'content-length': '2' }).end('ok');
    });
    const c = open();
    const redirect = await c.request('GET', '/go', '');
    expect(redirect).toEqual({ status: 303, text: '', location: target });
    const plain = await c.request('GET', '/stay', '');
    expect(plain).toEqual({ status: 200, text: 'ok' });
    expect(plain.location).toBeUndefined();
    expect(new Set(sockets).size).toBe(1);
  });

  it('reads a chunked answer written in several chunks with pauses between them', async () => {
    reset(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (const part of ['alpha ', 'beta ', 'γάμμα ', 'x'.repeat(5000)]) {
        res.write(part);
        await pause(15);
      }
      res.end();
    });
    const c = open();
    expect(await c.request('GET', '/chunked', '')).toEqual({ status: 200, text: `alpha beta γάμμα ${'x'.repeat(5000)}` });
    // No content-length was set, so Node used the chunked coding; the connection is kept.
    expect(await c.request('GET', '/again', '')).toEqual({ status: 200, text: `alpha beta γάμμα ${'x'.repeat(5000)}` });
    expect(c.opened).toBe(1);
  });

  it('reads a content-length body split over several TCP writes, a UTF-8 character cut in two', async () => {
    const body = Buffer.from('début–milieu–fin ✓', 'utf8');
    const cut = body.indexOf(Buffer.from('–', 'utf8')) + 1; // inside the three-byte dash
    reset(async (_req, res) => {
      res.socket?.setNoDelay(true);
      res.writeHead(200, { 'content-length': String(body.length) });
      res.flushHeaders();
      await pause(15);
      res.write(body.subarray(0, cut));
      await pause(15);
      res.write(body.subarray(cut, cut + 5));
      await pause(15);
      res.end(body.subarray(cut + 5));
    });
    expect(await open().request('GET', '/split', '')).toEqual({ status: 200, text: 'début–milieu–fin ✓' });
  });

  it('sends several requests one after the other on one socket', async () => {
    reset((req, res) => void res.end(`answer to ${req.url}`));
    const c = open();
    for (let i = 0; i < 5; i++) expect(await c.request('GET', `/n/${i}`, '')).toEqual({ status: 200, text: `answer to /n/${i}` });
    expect(c.opened).toBe(1);
    expect(new Set(sockets).size).toBe(1);
    expect(sockets).toHaveLength(5);
  });

  it('sends a POST body (string or Buffer) with its byte length; multi-byte UTF-8 survives the round trip', async () => {
    reset(async (req, res) => {
      const parts: Buffer[] = [];
      for await (const part of req) parts.push(part as Buffer);
      const body = Buffer.concat(parts).toString('utf8');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ length: req.headers['content-length'], type: req.headers['content-type'], body }));
    });
    const text = '{"name":"Zoë Ωmega 😀 日本"}';
    const c = open();
    const a = await c.request('POST', '/echo', 'content-type: application/json\r\n', text);
    expect(a.status).toBe(200);
    expect(JSON.parse(a.text)).toEqual({ length: String(Buffer.byteLength(text)), type: 'application/json', body: text });
    expect(Buffer.byteLength(text)).toBeGreaterThan(text.length);
    const b = await c.request('PUT', '/echo', '', Buffer.from(text, 'utf8'));
    expect(JSON.parse(b.text)).toEqual({ length: String(Buffer.byteLength(text)), body: text });
    // A POST without a body says so: content-length 0.
    const empty = await c.request('POST', '/echo', '');
    expect(JSON.parse(empty.text)).toEqual({ length: '0', body: '' });
    expect(c.opened).toBe(1);
  });

  it('opens a new socket for the next request when the server answered connection: close', async () => {
    reset((req, res) => {
      if (req.url === '/bye') res.setHeader('connection', 'close');
      res.end(`at ${req.url}`);
    });
    const c = open();
    expect(await c.request('GET', '/bye', '')).toEqual({ status: 200, text: 'at /bye' });
    expect(await c.request('GET', '/next', '')).toEqual({ status: 200, text: 'at /next' });
    expect(await c.request('GET', '/third', '')).toEqual({ status: 200, text: 'at /third' });
    expect(c.opened).toBe(2);
    expect(sockets[0]).not.toBe(sockets[1]);
    expect(sockets[1]).toBe(sockets[2]);
  });

  it('opens a new socket when the server closed an idle one', async () => {
    reset((req, res) => void res.end(`at ${req.url}`));
    const c = open();
    expect(await c.request('GET', '/first', '')).toEqual({ status: 200, text: 'at /first' });
    server.closeIdleConnections();
    await pause(20);
    expect(await c.request('GET', '/second', '')).toEqual({ status: 200, text: 'at /second' });
    expect(c.opened).toBe(2);
    expect(sockets[0]).not.toBe(sockets[1]);
  });

  it('rejects when the server destroys the socket in the middle of an answer, and reconnects afterwards', async () => {
    reset((req, res) => {
      if (req.url === '/ok') return void res.end('fine');
      res.writeHead(200, { 'content-length': '100' });
      res.write('only part of it');
      setTimeout(() => req.socket.destroy(), 15);
    });
    const c = open();
    await expect(c.request('GET', '/broken', '')).rejects.toThrow(/closed before the answer was complete/);
    expect(await c.request('GET', '/ok', '')).toEqual({ status: 200, text: 'fine' });
    expect(c.opened).toBe(2);
  });

  it('refuses a second request while one is in flight', async () => {
    reset((_req, res) => void setTimeout(() => res.end('late'), 20));
    const c = open();
    const first = c.request('GET', '/1', '');
    await expect(c.request('GET', '/2', '')).rejects.toThrow(/already in flight/);
    expect(await first).toEqual({ status: 200, text: 'late' });
  });

  it('opens N connected connections with openWireConnections', async () => {
    reset((_req, res) => void res.end('hi'));
    const many = await openWireConnections(3, port(server));
    connections.push(...many);
    const answers = await Promise.all(many.map((c) => c.request('GET', '/', '')));
    expect(answers).toEqual([1, 2, 3].map(() => ({ status: 200, text: 'hi' })));
    expect(new Set(sockets).size).toBe(3);
  });
});

describe('WireConnection against hand-written answers', () => {
  let server: TcpServer;
  let answer: (socket: Socket) => void | Promise<void>;
  const connections: WireConnection[] = [];

  beforeAll(async () => {
    server = createTcpServer((socket) => {
      socket.setNoDelay(true);
      // Answer each request (all are small GETs: one read each) with the bytes the test chooses.
      socket.on('data', () => void answer(socket));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  afterEach(() => {
    for (const c of connections.splice(0)) c.close();
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });
  const open = () => {
    const c = new WireConnection(port(server));
    connections.push(c);
    return c;
  };
  const writeInPieces = async (socket: Socket, pieces: string[]) => {
    for (const piece of pieces) {
      socket.write(piece);
      await pause(10);
    }
  };

  it('reads a head cut anywhere, in upper case, across several writes', async () => {
    answer = (s) => writeInPieces(s, ['HTT', 'P/1.1 404 Not F', 'ound\r\nCONTENT-LENGTH:', ' 9\r\nX-Other: a\r', '\n\r', '\nnot found']);
    const c = open();
    expect(await c.request('GET', '/', '')).toEqual({ status: 404, text: 'not found' });
    expect(await c.request('GET', '/', '')).toEqual({ status: 404, text: 'not found' });
    expect(c.opened).toBe(1);
  });

  it('reads chunk sizes in hex with extensions, and trailers, cut across writes', async () => {
    const body = 'x'.repeat(26);
    answer = (s) =>
      writeInPieces(s, [
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\nContent-Length: 3\r\n\r\n',
        `1A;name=value\r\n${body.slice(0, 10)}`,
        `${body.slice(10)}\r`,
        '\n0\r\nX-Trailer: t\r\n',
        '\r\n',
      ]);
    const c = open();
    expect(await c.request('GET', '/', '')).toEqual({ status: 200, text: body });
    expect(await c.request('GET', '/', '')).toEqual({ status: 200, text: body });
    expect(c.opened).toBe(1);
  });

  it('skips an interim 100 answer and reads a 204 without a body', async () => {
    answer = (s) => void s.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n');
    const c = open();
    expect(await c.request('GET', '/', '')).toEqual({ status: 204, text: '' });
    expect(await c.request('GET', '/', '')).toEqual({ status: 204, text: '' });
    expect(c.opened).toBe(1);
  });

  it('reads a body without length to the end of the connection', async () => {
    answer = (s) => {
      s.write('HTTP/1.0 200 OK\r\n\r\nuntil ');
      setTimeout(() => s.end('the end'), 10);
    };
    const c = open();
    expect(await c.request('GET', '/', '')).toEqual({ status: 200, text: 'until the end' });
    expect(await c.request('GET', '/', '')).toEqual({ status: 200, text: 'until the end' });
    expect(c.opened).toBe(2);
  });

  it('rejects a malformed answer and drops the connection', async () => {
    answer = (s) => void s.write('HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\nabc');
    const c = open();
    await expect(c.request('GET', '/', '')).rejects.toThrow(/bad content-length/);
    answer = (s) => void s.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    expect(await c.request('GET', '/', '')).toEqual({ status: 200, text: 'ok' });
    expect(c.opened).toBe(2);
  });

  it('rejects when the connection closes after a partial chunked body', async () => {
    answer = (s) => void s.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab');
    await expect(open().request('GET', '/', '')).rejects.toThrow(/closed before the answer was complete/);
  });
});
