// Hardening issue item 3: a client that sends its request too slowly is answered 408 and
// disconnected (VELLUM_HEADERS_TIMEOUT_MS, VELLUM_REQUEST_TIMEOUT_MS), and SIGTERM ends the server
// within VELLUM_SHUTDOWN_TIMEOUT_MS even with such a connection open. Real server, real sockets.
//
// Each upper bound separates the setting under test from the one that would apply without it (a
// far longer timeout, or never), with room for a machine under load: the server's timers fire late
// when its event loop waits for the CPU, so a bound close to the setting fails only under load.
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Backend, sqliteBackend } from '../test/backends.ts';
import { freePort, http, type RunningServer, serverEnv, startServer } from '../test/process.ts';

interface Outcome {
  /** Everything the server sent before it closed the connection. */
  text: string;
  /** Milliseconds from the last byte the client sent to the connection's end. */
  afterMs: number;
}

/** Sends `sent` and then nothing, and reports what came back once the server ended the connection. */
function sendAndStall(port: number, sent: string, openSockets: Socket[], { neverClose = false } = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    // `neverClose`: the client keeps its side open after the server's FIN, as a hostile one would.
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: neverClose });
    openSockets.push(socket);
    let text = '';
    let since = 0;
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('error', reject);
    // Such a client learns of the end by the server's FIN only; it never closes.
    socket.on(neverClose ? 'end' : 'close', () => resolve({ text, afterMs: Date.now() - since }));
    socket.write(sent, () => {
      since = Date.now();
    });
  });
}

// The wallet token endpoint reads the body before anything else (admin routes check the token first).
const HALF_BODY = 'POST /v1/oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"grant_type":"ur';

describe('slow clients and shutdown (hardening issue item 3, docs/limits.md)', () => {
  let backend: Backend | undefined;
  let server: RunningServer | undefined;
  const sockets: Socket[] = [];

  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await server?.stop('SIGKILL');
    server = undefined;
    await backend?.cleanup();
    backend = undefined;
  });

  async function start(timeouts: Record<string, string>): Promise<RunningServer> {
    backend = sqliteBackend();
    const port = await freePort();
    server = await startServer(serverEnv({ ...(await backend.env()), VELLUM_PORT: String(port), ...timeouts }));
    return server;
  }

  it('headers and half a body, then silence: 408 with the error body, and the connection closed, within the request timeout', async () => {
    const { port } = await start({ VELLUM_REQUEST_TIMEOUT_MS: '1000', VELLUM_HEADERS_TIMEOUT_MS: '1000' });
    const outcome = await sendAndStall(port, HALF_BODY, sockets);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(outcome.text.split('\r\n\r\n')[1] ?? '')).toEqual({ code: 'BadRequest', message: 'Request timed out' });
    expect(outcome.afterMs).toBeGreaterThanOrEqual(800);
    // Without the setting the default request timeout (30 s) would apply.
    expect(outcome.afterMs).toBeLessThan(15_000);
  });

  it('half the headers, then silence: 408 within the headers timeout', async () => {
    const { port } = await start({ VELLUM_REQUEST_TIMEOUT_MS: '50000', VELLUM_HEADERS_TIMEOUT_MS: '500' });
    const outcome = await sendAndStall(port, 'GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ', sockets);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 408 /);
    // The headers timeout ended it, not the request timeout (50 s).
    expect(outcome.afterMs).toBeGreaterThanOrEqual(400);
    expect(outcome.afterMs).toBeLessThan(20_000);
    // A request that is sent in time is unaffected.
    expect((await http(port, 'GET', '/health')).status).toBe(200);
  });

  it('SIGTERM with a half-sent request open: the server stops taking requests and exits 0 within the shutdown deadline', async () => {
    // A request timeout far beyond the test: only the shutdown deadline can end that connection.
    const running = await start({ VELLUM_REQUEST_TIMEOUT_MS: '600000', VELLUM_HEADERS_TIMEOUT_MS: '60000', VELLUM_SHUTDOWN_TIMEOUT_MS: '1000' });
    const stalled = sendAndStall(running.port, HALF_BODY, sockets);
    // The request has reached the server once its headers are in: wait for the next request to be answered.
    expect((await http(running.port, 'GET', '/health')).status).toBe(200);
    const started = Date.now();
    const code = await running.stop('SIGTERM');
    const tookMs = Date.now() - started;
    server = undefined;
    expect(code).toBe(0);
    expect(tookMs).toBeGreaterThanOrEqual(900);
    // Only the deadline can have ended it: the stalled request would otherwise hold it for 600 s.
    expect(tookMs).toBeLessThan(30_000);
    await stalled; // and the stalled client was disconnected
    expect(running.output()).toMatch(/shutdown deadline passed/);
  });

  it('a client that keeps its side open after its 408 does not keep the connection: SIGTERM then exits well before the deadline', async () => {
    const running = await start({ VELLUM_REQUEST_TIMEOUT_MS: '500', VELLUM_HEADERS_TIMEOUT_MS: '500', VELLUM_SHUTDOWN_TIMEOUT_MS: '50000' });
    // The server's FIN comes with its 408: from then on the connection is the client's alone to keep.
    const timedOut = await sendAndStall(running.port, HALF_BODY, sockets, { neverClose: true });
    expect(timedOut.text).toMatch(/^HTTP\/1\.1 408 /);
    const started = Date.now();
    expect(await running.stop('SIGTERM')).toBe(0);
    server = undefined;
    // Well before the 50 s deadline, which a kept connection would make it wait for.
    expect(Date.now() - started).toBeLessThan(25_000);
  });
});
