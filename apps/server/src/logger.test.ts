import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { chooseLogFormat, createLogger } from './logger.ts';

/** A logger writing into an array of parsed lines. */
function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger('info', sink), lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, any>) };
}

describe('the server log keeps secrets out', () => {
  it('censors secret fields at the top level and in objects logged there, and changes nothing the caller holds', () => {
    const { logger, lines, parsed } = capture();
    const body = { client_id: 'c1', client_secret: 'S3CRET-1', nested: { password: 'kept-deeper' } };
    logger.info({ body, password: 'S3CRET-2', masterKey: 'S3CRET-3', token: { access_token: 'S3CRET-4', expires_in: 60 } }, 'x');
    const [line] = parsed();
    expect(line?.body).toEqual({ client_id: 'c1', client_secret: '[redacted]', nested: { password: 'kept-deeper' } });
    expect(line?.password).toBe('[redacted]');
    expect(line?.masterKey).toBe('[redacted]');
    expect(line?.token).toEqual({ access_token: '[redacted]', expires_in: 60 });
    expect(lines.join('')).not.toMatch(/S3CRET/);
    // pino's `*.field` reaches one level down, and so does this: deeper fields are the caller's to keep out.
    expect(body.client_secret).toBe('S3CRET-1');
  });

  it('censors the secret names of analytic events too: codes, tokens, proofs, issued credentials (docs/limits.md)', () => {
    const { logger, lines, parsed } = capture();
    const body = {
      grant_type: 'g',
      'pre-authorized_code': 'S3CRET-1',
      tx_code: 'S3CRET-2',
      refresh_token: 'S3CRET-3',
      proofs: { jwt: ['S3CRET-4'] },
      credential: 'S3CRET-5',
      credentials: ['S3CRET-6'],
      c_nonce: 'S3CRET-7',
    };
    logger.info({ body, ...body }, 'x');
    const [line] = parsed();
    expect(line?.body.grant_type).toBe('g');
    expect(line?.grant_type).toBe('g');
    expect(lines.join('')).not.toMatch(/S3CRET/);
  });

  it('censors credential headers of a logged object, keeping the others', () => {
    const { logger, lines, parsed } = capture();
    logger.info({ incoming: { headers: { authorization: 'Bearer S3CRET', dpop: 'S3CRET.dpop', cookie: 'sid=S3CRET', accept: 'application/json' } } }, 'x');
    expect(parsed()[0]?.incoming.headers).toEqual({ authorization: '[redacted]', dpop: '[redacted]', cookie: '[redacted]', accept: 'application/json' });
    expect(lines.join('')).not.toMatch(/S3CRET/);
  });

  it('keeps an error’s message and stack when it censors a field of it', () => {
    const { logger, lines, parsed } = capture();
    logger.error({ err: Object.assign(new Error('boom'), { password: 'S3CRET' }) }, 'failed');
    const err = parsed()[0]?.err;
    expect(err.message).toBe('boom');
    expect(err.stack).toContain('Error: boom');
    expect(err.password).toBe('[redacted]');
    expect(lines.join('')).not.toMatch(/S3CRET/);
  });

  it('logs a request as method, path, host and address: no headers, no query, no offer reference', () => {
    const { logger, lines, parsed } = capture();
    const req = { id: 'r1', method: 'GET', host: 'acme.example', ip: '127.0.0.1', headers: { authorization: 'Bearer S3CRET' } };
    logger.info({ req: { ...req, url: '/v1/oauth/authorize?code=S3CRET&state=1' } }, 'request completed');
    logger.info({ req: { ...req, url: '/v1/openid/offers/S3CRET-reference' } }, 'request completed');
    logger.info({ req: { ...req, url: '/v1/openid/offers/pre-authorized' } }, 'request completed');
    const [query, reference, create] = parsed();
    expect(query?.req).toEqual({ id: 'r1', method: 'GET', url: '/v1/oauth/authorize', host: 'acme.example', remoteAddress: '127.0.0.1' });
    expect(reference?.req.url).toBe('/v1/openid/offers/[redacted]');
    expect(create?.req.url).toBe('/v1/openid/offers/pre-authorized');
    expect(lines.join('')).not.toMatch(/S3CRET/);
  });
});

describe('the log format: readable on a terminal, JSON otherwise (issue 28)', () => {
  it('auto is pretty when the log goes to a TTY, JSON when it does not; json and pretty are kept as asked', () => {
    expect(chooseLogFormat('auto', true)).toBe('pretty');
    expect(chooseLogFormat('auto', false)).toBe('json');
    expect(chooseLogFormat('auto', undefined)).toBe('json');
    expect(chooseLogFormat('json', true)).toBe('json');
    expect(chooseLogFormat('pretty', false)).toBe('pretty');
  });

  it('pretty lines are readable text, not JSON, and still carry no secret', () => {
    const text: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        text.push(String(chunk));
        done();
      },
    });
    const logger = createLogger('info', sink, { format: 'pretty' });
    logger.info({ client_secret: 'S3CRET-9', req: { url: '/v1/oauth/token?code=S3CRET-10', method: 'POST' } }, 'request completed');
    const out = text.join('');
    expect(out).toContain('request completed');
    expect(out).toContain('INFO');
    expect(out).toContain('[redacted]');
    expect(out).not.toMatch(/S3CRET/);
    expect(() => JSON.parse(out.trim().split('\n')[0] ?? '')).toThrow();
    // No colour codes unless asked for (a file or a pipe gets plain text).
    expect(out).not.toContain('\u001b[');
  });
});
