// A HEAD request refused at the connection (headers over 16 KB, docs/decisions.md "HTTP") gets its 431
// without content: RFC 9110 §9.3.2 says a response to HEAD has none, and an HTTP client reads any
// bytes after the header block as a broken next answer. Other methods still get the error body.
import { connect } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleClientError } from './index.ts';
import { requestMethodOf } from './errors.ts';

function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let got = '';
    socket.on('data', (chunk: Buffer) => (got += chunk.toString('latin1')));
    socket.on('close', () => resolve(got));
    socket.on('error', () => resolve(got));
    socket.on('connect', () => socket.write(request));
  });
}

/** What handleClientError writes for `error` on a socket it can still write to. */
function answerTo(error: Error): string {
  let written = '';
  const socket = { writable: true, end: (text: string) => (written = text), destroy: () => undefined } as unknown as Parameters<typeof handleClientError>[1];
  handleClientError(error, socket);
  return written;
}

describe('connection-level refusals of HEAD requests (RFC 9110 §9.3.2, docs/decisions.md "HTTP")', () => {
  const app = Fastify({ http: { maxHeaderSize: 16 * 1024 }, clientErrorHandler: handleClientError } as Parameters<typeof Fastify>[0]);
  let port = 0;
  beforeAll(async () => {
    app.get('/health', async () => ({ status: 'ok' }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app.close());

  it('answers 431 to a HEAD request with headers over 16 KB, with nothing after the header block', async () => {
    for (const request of [
      `HEAD /health?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `HEAD /health HTTP/1.1\r\nHost: x\r\nX-A: ${'a'.repeat(9000)}\r\nX-B: ${'b'.repeat(9000)}\r\n\r\n`,
    ]) {
      const answer = await exchange(port, request);
      expect(answer).toMatch(/^HTTP\/1\.1 431 /);
      expect(answer.endsWith('\r\n\r\n'), answer).toBe(true);
    }
  });

  it('still sends the error body to a GET request with headers over 16 KB', async () => {
    const answer = await exchange(port, `GET /health?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'RequestHeaderFieldsTooLarge', message: 'Request headers exceed 16 KB' });
  });

  it('answers with the status line alone when the chunk Node hands over does not show the method', () => {
    const written = answerTo(Object.assign(new Error('Header overflow'), { code: 'HPE_HEADER_OVERFLOW', rawPacket: Buffer.from('qqqqqqqq HTTP/1.1\r\n') }));
    expect(written).toMatch(/^HTTP\/1\.1 431 /);
    expect(written).toContain('Content-Length: 0\r\n');
    expect(written.endsWith('\r\n\r\n')).toBe(true);
  });

  it('finds the method of the failing request after the rest of the previous body on a kept-alive connection', () => {
    const packet = Buffer.from('tail of a body the server did not read}HEAD /v1/users/\xe9\xe9 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1');
    expect(requestMethodOf(Object.assign(new Error('Invalid URL'), { rawPacket: packet, bytesParsed: packet.indexOf(0xe9) }))).toBe('HEAD');
    expect(requestMethodOf(Object.assign(new Error('Invalid URL'), { rawPacket: Buffer.from('GET /x HTTP/1.1\r\nHEAD-ish: y\r\n') }))).toBe('GET');
    expect(requestMethodOf(Object.assign(new Error('Invalid URL'), { rawPacket: Buffer.from('PROPFIND /a/\xe9/did.json HTTP/1.1\r\n', 'latin1') }))).toBe(
      'PROPFIND',
    );
    expect(requestMethodOf(Object.assign(new Error('Header overflow'), { rawPacket: Buffer.from('bbbbbbbbbbbbbbbbbbbb') }))).toBeUndefined();
    expect(requestMethodOf(new Error('Request timed out'))).toBeUndefined();
  });

  it('sends no content to a HEAD whose request line follows the rest of the previous body (RFC 9110 §9.3.2)', () => {
    const packet = Buffer.from('{"a":1}HEAD /\xe9 HTTP/1.1\r\n', 'latin1');
    const written = answerTo(Object.assign(new Error('Invalid URL'), { code: 'HPE_INVALID_URL', rawPacket: packet, bytesParsed: packet.indexOf(0xe9) }));
    expect(written).toMatch(/^HTTP\/1\.1 400 /);
    expect(written.endsWith('\r\n\r\n')).toBe(true);
  });

  it('sends the error body to a malformed request of a method HTTP itself does not define (PROPFIND, SEARCH)', async () => {
    for (const method of ['PROPFIND', 'SEARCH']) {
      const answer = await exchange(port, `${method} /a/b/\xe9\xe9/did.json HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'BadRequest', message: 'Malformed HTTP request' });
    }
  });

  it('sends no content when a malformed request line began in the chunk before, so its method is unknown', () => {
    // What Node hands over when `HEAD /v1/` came in the previous chunk of a kept-alive connection.
    const packet = Buffer.from('users/\xe9\xe9 HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1');
    const written = answerTo(Object.assign(new Error('Invalid URL'), { code: 'HPE_INVALID_URL', rawPacket: packet, bytesParsed: packet.indexOf(0xe9) }));
    expect(written).toMatch(/^HTTP\/1\.1 400 /);
    expect(written).toContain('Content-Length: 0\r\n');
    expect(written.endsWith('\r\n\r\n')).toBe(true);
  });

  it('still sends the error body to a malformed GET whose request line the chunk shows', () => {
    const packet = Buffer.from('GET /v1/users/\xe9 HTTP/1.1\r\n', 'latin1');
    const written = answerTo(Object.assign(new Error('Invalid URL'), { code: 'HPE_INVALID_URL', rawPacket: packet, bytesParsed: packet.indexOf(0xe9) }));
    expect(written).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(written.slice(written.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'BadRequest', message: 'Malformed HTTP request' });
  });
});
