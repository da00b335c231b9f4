import { describe, expect, it } from 'vitest';
import { fakeClock, fakeSecretBox } from '../../test/kit.ts';
import type { ClaimSubject } from '../configurations/claims.ts';
import type { HttpClient, OutboundFetch, OutboundResponse } from '../shared/ports.ts';
import { MAX_CLAIM_DEPTH } from '../users/rules.ts';
import { CLAIM_SOURCE_MAX_BYTES, createClaimSourceClient } from './fetch.ts';
import type { ClaimSource } from './model.ts';

const TENANT = 'tenant-1';
const secrets = fakeSecretBox();
const seal = (id: string, secret: string) => secrets.seal(secret, `claim-source:${TENANT}:${id}`);

/** A receiver that answers from `answer` and keeps every request it was sent. */
function fakeHttp(answer: (request: OutboundFetch) => OutboundResponse | Promise<OutboundResponse>): HttpClient & { requests: OutboundFetch[] } {
  const requests: OutboundFetch[] = [];
  return {
    requests,
    async send() {
      throw new Error('claim sources read the answer: fetch only');
    },
    async fetch(request) {
      requests.push(request);
      return answer(request);
    },
  };
}

const json = (value: unknown, status = 200): OutboundResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: new TextEncoder().encode(JSON.stringify(value)),
});
const text = (body: string, status = 200): OutboundResponse => ({ status, headers: { 'content-type': 'text/plain' }, body: new TextEncoder().encode(body) });
const bodyText = (r: OutboundFetch) => new TextDecoder().decode(r.body);

function apiKeySource(over: Partial<ClaimSource> = {}): ClaimSource {
  return {
    id: 'source-1',
    tenantId: TENANT,
    name: 'CRM',
    url: 'https://crm.example.com/claims',
    requestMethod: 'GET',
    requestParameters: {
      email: { mapFrom: 'claims.email' },
      city: { mapFrom: 'claims.address.city' },
      subject: { mapFrom: 'authenticationProvider.subjectId', defaultValue: 'anonymous' },
      tier: { defaultValue: 3 },
      active: { defaultValue: true },
      nickname: { mapFrom: 'claims.nickname' },
      proto: { mapFrom: 'claims.constructor' },
    },
    authorization: { type: 'api-key', sealedValue: seal('source-1', 'the-api-key') },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

function oauthSource(method: 'client_secret_basic' | 'client_secret_post', audience?: string): ClaimSource {
  return apiKeySource({
    id: 'source-2',
    requestMethod: 'POST',
    requestParameters: { email: { mapFrom: 'claims.email' }, age: { mapFrom: 'claims.age' }, tags: { mapFrom: 'claims.tags' } },
    authorization: {
      type: 'oauth-client-credentials',
      tokenEndpoint: 'https://auth.example.com/oauth/token',
      clientId: 'vellum app',
      sealedClientSecret: seal('source-2', 'p@ss:wörd'),
      ...(audience ? { audience } : {}),
      tokenEndpointAuthMethod: method,
    },
  });
}

const subject: ClaimSubject = {
  claims: { email: 'ada@example.com', address: { city: 'London' }, nickname: null, age: 36, tags: ['a', 'b'] },
  authenticationProvider: { url: 'https://login.example.com', subjectId: 'sub-42' },
};

const TOKEN_ENDPOINT = 'https://auth.example.com/oauth/token';

describe('calling a claim source at issuance (docs/authentication.md)', () => {
  it('GET with an API key: parameters from the subject or their defaults in the query, the key as x-api-key, one 3 s deadline', async () => {
    const http = fakeHttp(() => json({ memberSince: '2020-01-01', level: { name: 'gold' } }));
    const client = createClaimSourceClient({ http, secrets, clock: fakeClock() });
    expect(await client.fetchClaims(apiKeySource(), subject)).toEqual({ ok: true, claims: { memberSince: '2020-01-01', level: { name: 'gold' } } });
    expect(http.requests).toHaveLength(1);
    const [request] = http.requests;
    expect(request).toMatchObject({
      method: 'GET',
      headers: { accept: 'application/json', 'x-api-key': 'the-api-key' },
      timeoutMs: 3000,
      maxBytes: CLAIM_SOURCE_MAX_BYTES,
    });
    expect(request!.body).toBeUndefined();
    const url = new URL(request!.url);
    expect(url.origin + url.pathname).toBe('https://crm.example.com/claims');
    // A null claim takes no value (nickname has no default); `constructor` is not a claim of the subject.
    expect(Object.fromEntries(url.searchParams)).toEqual({ email: 'ada@example.com', city: 'London', subject: 'sub-42', tier: '3', active: 'true' });
  });

  it('uses a parameter’s default when the subject has no value for it', async () => {
    const http = fakeHttp(() => json({}));
    await createClaimSourceClient({ http, secrets }).fetchClaims(apiKeySource(), { claims: {} });
    expect(Object.fromEntries(new URL(http.requests[0]!.url).searchParams)).toEqual({ subject: 'anonymous', tier: '3', active: 'true' });
  });

  it('OAuth client credentials with client_secret_basic: a token first, then POST with the parameters as JSON and the Bearer token, within the same deadline', async () => {
    const clock = fakeClock();
    const http = fakeHttp((r) => {
      if (r.url === TOKEN_ENDPOINT) {
        clock.advance(1200);
        return json({ access_token: 'at-1', token_type: 'Bearer', expires_in: 300 });
      }
      return json({ department: 'R&D' });
    });
    const client = createClaimSourceClient({ http, secrets, clock });
    expect(await client.fetchClaims(oauthSource('client_secret_basic', 'hr-api'), subject)).toEqual({ ok: true, claims: { department: 'R&D' } });
    const [token, call] = http.requests;
    expect(token).toMatchObject({ method: 'POST', url: TOKEN_ENDPOINT, timeoutMs: 3000, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    // RFC 6749 §2.3.1: id and secret form-encoded, then joined and base64-encoded.
    expect(token!.headers.authorization).toBe(`Basic ${Buffer.from('vellum+app:p%40ss%3Aw%C3%B6rd').toString('base64')}`);
    expect(Object.fromEntries(new URLSearchParams(bodyText(token!)))).toEqual({ grant_type: 'client_credentials', audience: 'hr-api' });
    expect(call).toMatchObject({
      method: 'POST',
      url: 'https://crm.example.com/claims',
      headers: { authorization: 'Bearer at-1', 'content-type': 'application/json' },
    });
    // What the token request took is gone from the claim source's time.
    expect(call!.timeoutMs).toBe(1800);
    expect(JSON.parse(bodyText(call!))).toEqual({ email: 'ada@example.com', age: 36, tags: ['a', 'b'] });
    expect(call!.headers['x-api-key']).toBeUndefined();
  });

  it('OAuth client credentials with client_secret_post: the client in the form, no Basic header, no audience unless set', async () => {
    const http = fakeHttp((r) => (r.url === TOKEN_ENDPOINT ? json({ access_token: 'at-2' }) : json({ ok: 1 })));
    expect(await createClaimSourceClient({ http, secrets }).fetchClaims(oauthSource('client_secret_post'), subject)).toEqual({ ok: true, claims: { ok: 1 } });
    const [token, call] = http.requests;
    expect(token!.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(bodyText(token!)))).toEqual({
      grant_type: 'client_credentials',
      client_id: 'vellum app',
      client_secret: 'p@ss:wörd',
    });
    expect(call!.headers.authorization).toBe('Bearer at-2');
  });

  describe('failures count as no claims, with a reason, and never throw', () => {
    const cases: Array<[string, (r: OutboundFetch) => OutboundResponse, RegExp]> = [
      ['no answer in time', () => ({ error: 'timed out' }), /timed out/],
      ['a non-2xx answer', () => json({ error: 'nope' }, 503), /HTTP 503/],
      ['a redirect', () => ({ status: 302, headers: { location: 'https://elsewhere.example.com' }, body: new Uint8Array() }), /HTTP 302/],
      ['an answer that is not JSON', () => text('<html>hello</html>'), /not JSON/],
      ['an answer that is not UTF-8', () => ({ status: 200, headers: {}, body: Uint8Array.from([0x7b, 0xff, 0x7d]) }), /not JSON/],
      ['a JSON array', () => json([{ a: 1 }]), /not a JSON object/],
      ['a JSON string', () => json('claims'), /not a JSON object/],
      ['JSON null', () => json(null), /not a JSON object/],
      ['an answer over 1 MiB', () => json({ big: 'x'.repeat(CLAIM_SOURCE_MAX_BYTES) }), /larger than 1 MiB/],
      ['an answer nested too deep', () => text(`${'{"a":'.repeat(MAX_CLAIM_DEPTH + 1)}1${'}'.repeat(MAX_CLAIM_DEPTH + 1)}`), /nested too deep/],
    ];
    it.each(cases)('%s', async (_name, answer, reason) => {
      const http = fakeHttp(answer);
      const result = await createClaimSourceClient({ http, secrets }).fetchClaims(apiKeySource(), subject);
      expect(result).toEqual({ ok: false, reason: expect.stringMatching(reason) });
      expect(result.ok === false && result.reason).not.toContain('the-api-key');
    });

    const tokenCases: Array<[string, OutboundResponse, RegExp]> = [
      ['a token endpoint that does not answer', { error: 'connection refused' }, /Token endpoint: connection refused/],
      ['a token endpoint error', json({ error: 'invalid_client' }, 401), /Token endpoint answered HTTP 401/],
      ['a token answer without an access token', json({ token_type: 'Bearer' }), /no access token/],
      ['a token answer that is not JSON', text('ok'), /no access token/],
      ['a token that is not a Bearer token', json({ access_token: 'x', token_type: 'DPoP' }), /not a Bearer token/],
    ];
    it.each(tokenCases)('%s: the claim source is not called', async (_name, answer, reason) => {
      const http = fakeHttp((r) => (r.url === TOKEN_ENDPOINT ? answer : json({ never: true })));
      const result = await createClaimSourceClient({ http, secrets }).fetchClaims(oauthSource('client_secret_basic'), subject);
      expect(result).toEqual({ ok: false, reason: expect.stringMatching(reason) });
      expect(http.requests.map((r) => r.url)).toEqual([TOKEN_ENDPOINT]);
      expect(JSON.stringify(result)).not.toContain('p@ss');
    });

    it('a token request that spends the whole deadline leaves no time for the claim source', async () => {
      const clock = fakeClock();
      const http = fakeHttp((r) => {
        clock.advance(3000);
        return r.url === TOKEN_ENDPOINT ? json({ access_token: 'late' }) : json({});
      });
      expect(await createClaimSourceClient({ http, secrets, clock }).fetchClaims(oauthSource('client_secret_basic'), subject)).toEqual({
        ok: false,
        reason: 'Claim source: timed out',
      });
      expect(http.requests).toHaveLength(1);
    });

    it('a secret the master key cannot open: nothing is sent', async () => {
      const http = fakeHttp(() => json({}));
      const client = createClaimSourceClient({ http, secrets });
      expect(await client.fetchClaims(apiKeySource({ authorization: { type: 'api-key', sealedValue: 'corrupt' } }), subject)).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/cannot be read/),
      });
      const oauth = oauthSource('client_secret_post');
      // Sealed for another source: the context does not match.
      const moved = { ...oauth, id: 'source-3' };
      expect(await client.fetchClaims(moved, subject)).toMatchObject({ ok: false, reason: expect.stringMatching(/cannot be read/) });
      expect(http.requests).toEqual([]);
    });

    it('an HttpClient that throws (against its port) still yields a reason', async () => {
      const http = fakeHttp(() => {
        throw new Error('socket exploded with secret details');
      });
      const result = await createClaimSourceClient({ http, secrets }).fetchClaims(apiKeySource(), subject);
      expect(result).toEqual({ ok: false, reason: 'Claim source: request failed' });
    });
  });
});
