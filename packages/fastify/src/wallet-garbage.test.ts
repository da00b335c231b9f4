// No input to the offer, token and nonce endpoints causes a 5xx (issue 5 acceptance): fast-check
// throws generated garbage at them (random form fields, JSON, bodies, content types, headers and
// tokens, mixed with valid values so that deeper paths are reached) and every answer must be < 500.
import { PRE_AUTHORIZED_CODE_GRANT } from '@vellum/core';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../test/app.ts';

const mdlBody = {
  type: 'org.iso.18013.5.1.mDL',
  expiresIn: { days: 365 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName' } } },
};

// Headers the HTTP layer itself manages; forging them tests light-my-request, not Vellum.
const RESERVED = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'expect', 'content-type', 'authorization']);

describe.each(['standalone', 'prefixed'] as const)('garbage at the offer, token and nonce endpoints never causes a 5xx (%s)', (mount) => {
  const t = useTestApp(mount);
  let host = '';
  let admin = '';
  let configurationId = '';
  let ldpId = '';
  const codes: string[] = [];
  const txCodes: string[] = [];

  beforeAll(async () => {
    ({ host } = await t.createTenant('garbage'));
    admin = await t.token('garbage');
    const call = (path: string, payload: object) =>
      t.app.inject({ method: 'POST', url: `${t.prefix}${path}`, headers: { host, authorization: `Bearer ${admin}` }, payload });
    configurationId = (await call('/v2/credentials/mobile/configurations', mdlBody)).json().id;
    ldpId = (
      await call('/v2/credentials/web-semantic/configurations', {
        type: 'D',
        expiresIn: { days: 1 },
        issuer: { name: 'U' },
        claimMappings: { n: { mapFrom: 'claims.n' } },
      })
    ).json().id;
    for (let i = 0; i < 5; i++) {
      const offer = (
        await call('/v1/openid/offers/pre-authorized', {
          credentials: [configurationId],
          ...(i % 2 ? { transactionCodeConfiguration: { inputMode: 'numeric' } } : {}),
          byReference: i === 4,
        })
      ).json();
      if (offer.transactionCode) txCodes.push(offer.transactionCode);
      const uri = new URL(offer.uri);
      const byValue = uri.searchParams.get('credential_offer');
      codes.push(
        byValue
          ? JSON.parse(byValue).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code']
          : (uri.searchParams.get('credential_offer_uri') as string).split('/').pop(),
      );
    }
  });

  const json = fc.jsonValue({ maxDepth: 4 });
  const text = fc.string({ maxLength: 200 });
  const known = () =>
    fc.constantFrom(PRE_AUTHORIZED_CODE_GRANT, 'authorization_code', configurationId, ldpId, ...codes, ...txCodes, crypto.randomUUID(), '', '__proto__');
  const field = fc.oneof(
    fc.constantFrom(
      'grant_type',
      'pre-authorized_code',
      'tx_code',
      'client_id',
      'credentials',
      'userId',
      'claims',
      'claimsToPersist',
      'expiresIn',
      'transactionCodeConfiguration',
      'byReference',
      'request_parameters',
      '__proto__',
      'constructor',
      'credentials[]',
    ),
    text,
  );
  const scalar = () => fc.oneof(text, known());

  /** Bodies: form fields, JSON objects shaped like the real ones, any JSON, raw bytes. */
  const body = () =>
    fc.oneof(
      fc
        .array(fc.tuple(field, scalar()), { maxLength: 8 })
        .map((pairs) => ({ type: 'application/x-www-form-urlencoded', payload: new URLSearchParams(pairs).toString() })),
      fc.dictionary(field, fc.oneof(json, known(), fc.array(known(), { maxLength: 3 }))).map((o) => ({ type: 'application/json', payload: JSON.stringify(o) })),
      // Nearly valid token requests, so that redemption, transaction codes and locking are reached.
      fc
        .tuple(fc.constantFrom(...codes), fc.option(fc.oneof(fc.constantFrom(...txCodes), text)), fc.array(fc.tuple(field, scalar()), { maxLength: 3 }))
        .map(([code, tx, extra]) => ({
          type: 'application/x-www-form-urlencoded',
          payload: new URLSearchParams([
            ['grant_type', PRE_AUTHORIZED_CODE_GRANT],
            ['pre-authorized_code', code],
            ...(tx === null ? [] : [['tx_code', tx] as [string, string]]),
            ...extra,
          ]).toString(),
        })),
      fc
        .record(
          {
            grant_type: fc.oneof(known(), json),
            'pre-authorized_code': fc.oneof(known(), json),
            tx_code: fc.oneof(known(), json),
            credentials: fc.oneof(fc.array(known(), { maxLength: 3 }), json),
            userId: fc.oneof(known(), json),
            claims: json,
            claimsToPersist: fc.oneof(fc.array(text, { maxLength: 3 }), json),
            expiresIn: fc.oneof(fc.record({ minutes: fc.integer(), seconds: fc.double() }, { requiredKeys: [] }), json),
            transactionCodeConfiguration: fc.oneof(
              fc.record(
                { inputMode: fc.oneof(fc.constantFrom('numeric', 'text'), text), length: fc.oneof(fc.integer({ min: -5, max: 20 }), json), description: text },
                { requiredKeys: [] },
              ),
              json,
            ),
            byReference: fc.oneof(fc.boolean(), json),
            request_parameters: json,
          },
          { requiredKeys: [] },
        )
        .map((o) => ({ type: 'application/json', payload: JSON.stringify(o) })),
      json.map((v) => ({ type: 'application/json', payload: JSON.stringify(v) ?? 'null' })),
      fc
        .tuple(
          fc.oneof(
            fc.constantFrom(
              'application/json',
              'application/x-www-form-urlencoded',
              'text/plain',
              'application/xml',
              'multipart/form-data; boundary=x',
              'application/json; charset=utf-16',
              'application/x-www-form-urlencoded; charset=latin1',
              'image/png',
              '',
            ),
            fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
          ),
          fc.oneof(
            text,
            fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('latin1')),
          ),
        )
        .map(([type, payload]) => ({ type, payload })),
      fc.constant(undefined),
    );

  const printable = (max: number) => fc.string({ maxLength: max }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));
  const headers = fc.dictionary(
    fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).filter((h) => !RESERVED.has(h)),
    printable(100),
    { maxKeys: 5 },
  );
  const authorization = () =>
    fc.oneof(
      fc.constant(undefined),
      fc.constant(`Bearer ${admin}`),
      printable(100),
      printable(100).map((v) => `Bearer ${v}`),
    );
  const segment = () => fc.oneof(known(), text).map((s) => encodeURIComponent(s) || 'x');

  const request = () =>
    fc.record({
      route: fc.oneof(
        fc.constant({ method: 'POST' as const, path: '/v1/oauth/token' }),
        fc.constant({ method: 'POST' as const, path: '/v1/openid/nonce' }),
        fc.constant({ method: 'POST' as const, path: '/v1/openid/offers' }),
        fc.constant({ method: 'POST' as const, path: '/v1/openid/offers/pre-authorized' }),
        fc.constant({ method: 'POST' as const, path: '/v1/users/search' }),
        segment().map((id) => ({ method: 'DELETE' as const, path: `/v1/openid/offers/pre-authorized/${id}` })),
        segment().map((id) => ({ method: 'GET' as const, path: `/v1/openid/offers/${id}` })),
      ),
      body: body(),
      headers,
      authorization: authorization(),
      host: fc.oneof(fc.constant(host), fc.constant(host), fc.constant(host), fc.constantFrom('unknown.eu01.vellum.test', 'localhost:3000')),
    });

  it('answers every generated request below 500, wallet endpoints with the OAuth error fields', async () => {
    await fc.assert(
      fc.asyncProperty(request(), async ({ route, body: b, headers: extra, authorization: auth, host: h }) => {
        const res = await t.app.inject({
          method: route.method,
          url: `${t.prefix}${route.path}`,
          headers: { ...extra, host: h, ...(auth === undefined ? {} : { authorization: auth }), ...(b && b.type ? { 'content-type': b.type } : {}) },
          ...(b && route.method !== 'GET' ? { payload: b.payload } : {}),
        });
        expect(res.statusCode, `${route.method} ${route.path} → ${res.statusCode} ${res.body.slice(0, 300)}`).toBeLessThan(500);
        if (res.statusCode >= 400 && (route.path === '/v1/oauth/token' || route.path === '/v1/openid/nonce')) {
          expect(res.json(), res.body).toMatchObject({ error: expect.any(String), error_description: expect.any(String), code: expect.any(String) });
        }
      }),
      { numRuns: 400 },
    );
  });
});
