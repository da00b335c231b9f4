// A URL whose percent-encoding does not decode is refused before any route runs. Fastify's own
// answer is not the error body (docs/errors.md) and, echoing the URL unescaped, not even JSON;
// `handleFrameworkError` makes it one (docs/errors.md: every failure answers with the error body).
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { handleFrameworkError } from './index.ts';

describe('a URL that does not decode (docs/errors.md)', () => {
  it('answers 400 with the error body, not Fastify’s, and does not echo the URL', async () => {
    const app = Fastify({ frameworkErrors: handleFrameworkError });
    app.get('/v1/users/:id', async () => ({ ok: true }));
    for (const url of ['/v1/users/%zz', '/v1/users/%FF%FF', '/v1/users/%C0%AF"x', '/v1/users/%']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json(), url).toEqual({ code: 'BadRequest', message: 'Malformed URL: its percent-encoding does not decode' });
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
    }
    expect((await app.inject({ method: 'GET', url: '/v1/users/%41' })).json()).toEqual({ ok: true });
    await app.close();
  });
});
