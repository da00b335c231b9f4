// An answer that is ready before its request's body has all arrived (docs/decisions.md "HTTP"):
// it waits for the rest of the body, so that the client's next request on the connection starts a
// read of its own. Issue 26: under load, the rest of such a body and a malformed next request
// shared a read and were split across two, and the connection-level refusal of that request could
// not see its method, so it went out without the error body. Real sockets on loopback.
import { connect, type Socket } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DISCARDED_BODY_BYTES } from './errors.ts';
import { handleClientError, readBodyBeforeEarlyAnswer } from './index.ts';

/** A client connection that collects what the server sends and can wait for it. */
async function open(port: number, accepted: Socket[]) {
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise((resolve) => socket.once('connect', resolve));
  // The server's end of the same connection, to know what it has read.
  while (accepted.length === 0 || (accepted[accepted.length - 1] as Socket).remotePort !== socket.localPort)
    await new Promise((resolve) => setImmediate(resolve));
  const server = accepted[accepted.length - 1] as Socket;
  const state = { text: '', closed: false };
  socket.on('data', (chunk: Buffer) => (state.text += chunk.toString('latin1')));
  socket.on('close', () => (state.closed = true));
  socket.on('error', () => undefined);
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 2));
  };
  return { socket, server, state, until };
}

describe('early answers and the rest of their request body', () => {
  const app = Fastify({ clientErrorHandler: handleClientError } as Parameters<typeof Fastify>[0]);
  const accepted: Socket[] = [];
  /** How many bytes the server had read from the connection when each answer went out. */
  const readWhenAnswered: number[] = [];
  let port = 0;
  beforeAll(async () => {
    app.addHook('onSend', readBodyBeforeEarlyAnswer);
    app.addHook('onSend', (request, _reply, payload, done) => {
      readWhenAnswered.push(request.raw.socket.bytesRead);
      done(null, payload);
    });
    // Fastify does not read a GET's body: its answer is ready before the body has arrived.
    app.get('/health', async () => ({ status: 'ok' }));
    app.server.on('connection', (socket: Socket) => accepted.push(socket));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  it('waits for the rest of the body, keeps the connection, and the next malformed request gets the error body', async () => {
    const c = await open(port, accepted);
    const body = 'x'.repeat(100_000);
    const head = `GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`;
    c.socket.write(head + body.slice(0, 10));
    await c.until(() => c.server.bytesRead >= head.length + 10);
    // The rest follows once the answer has come (as an early answer would have it) or 300 ms on.
    const since = Date.now();
    await c.until(() => c.state.text.length > 0 || Date.now() - since > 300);
    c.socket.write(body.slice(10));
    await c.until(() => c.state.text.includes('{"status":"ok"}'));
    expect(readWhenAnswered.at(-1)).toBe(head.length + body.length);
    expect(c.state.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(c.state.text.toLowerCase()).not.toContain('connection: close');

    c.state.text = '';
    c.socket.write(Buffer.from('OPTIONS /health\xe9\xe9 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'));
    await c.until(() => c.state.closed);
    expect(c.state.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(c.state.text.slice(c.state.text.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'BadRequest', message: 'Malformed HTTP request' });
  });

  it('answers at once and closes the connection when the declared body is over the bound', async () => {
    const c = await open(port, accepted);
    c.socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: ${MAX_DISCARDED_BODY_BYTES + 1}\r\n\r\nxx`);
    await c.until(() => c.state.text.includes('{"status":"ok"}'));
    expect(c.state.text.toLowerCase()).toContain('connection: close');
    c.socket.destroy();
  });

  it('leaves a refused connection open for its linger while the rest of the refused request still comes', async () => {
    const c = await open(port, accepted);
    c.socket.pause(); // the answer is read only at the end, after the rest was sent
    const first = Buffer.from('POST /health\xe9 HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\nxxxxxxxxxx', 'latin1');
    c.socket.write(first);
    await c.until(() => c.server.bytesRead >= first.length);
    c.socket.write('y'.repeat(1000));
    await c.until(() => c.server.bytesRead >= first.length + 1000);
    // The parser failed again on those bytes; the connection is still there to be read.
    expect(c.server.destroyed).toBe(false);
    c.socket.resume();
    await c.until(() => c.state.text.endsWith('}'));
    expect(JSON.parse(c.state.text.slice(c.state.text.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'BadRequest', message: 'Malformed HTTP request' });
    c.socket.destroy();
  });
});
