// The keeper (hardening issue): a seeded, generated-input suite that throws at least 10,000
// malformed requests at EVERY route of the real server listening on loopback, admin, public and
// wallet-facing alike, and holds it to the promises of docs/errors.md and docs/limits.md: no input causes a 5xx
// (docs/errors.md), every failure answers with the error body
// `{ code, message, details? }` (plus `error`/`error_description` on the OAuth endpoints, docs/errors.md)
// or the plain `Unauthorized` of an admin route (docs/errors.md), headers over 16 KB get 431
// (docs/decisions.md "HTTP", docs/limits.md), malformed HTTP gets a 4xx status line, and afterwards the server is
// healthy and still records analytic events (docs/decisions.md "Analytic events") at logging level 3.
//
// The routes come from Fastify itself (`printRoutes`), so a new route is fuzzed without editing
// this file. VELLUM_FUZZ_SEED replays a run (its seed is printed when it fails) and
// VELLUM_FUZZ_REQUESTS changes how many requests are sent (default 10,000, on SQLite; PostgreSQL,
// when VELLUM_TEST_DATABASE_URL is set, gets VELLUM_FUZZ_PG_REQUESTS, default 2,500). The last line
// printed is `fuzz: <N> requests, <F> failures`.
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { PRE_AUTHORIZED_CODE_GRANT } from '@vellum/core';
import { STATUS_BY_CODE } from '@vellum/fastify';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, pgAdminUrl, postgresBackend, sqliteBackend } from '../test/backends.ts';
import { buildApp, MAX_HEADER_BYTES } from './app.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { openRuntime, type Runtime } from './runtime.ts';

const SEED = Number(process.env.VELLUM_FUZZ_SEED ?? 20_261_122);
const REQUESTS = Number(process.env.VELLUM_FUZZ_REQUESTS ?? 10_000);
/** PostgreSQL (when VELLUM_TEST_DATABASE_URL names a server) gets a shorter run of the same generator. */
const PG_REQUESTS = Number(process.env.VELLUM_FUZZ_PG_REQUESTS ?? 2_500);
const CONCURRENCY = 8;
const BODY_LIMIT = 1024 * 1024;
const PLATFORM = 'vellum.test';
const HOST = `fuzz.eu01.${PLATFORM}`;
const OTHER_HOST = `other.eu01.${PLATFORM}`;

/** The wallet-facing and token endpoints that answer with the OAuth error fields (docs/errors.md). */
const OAUTH_ROUTES = new Set([
  'POST /oauth/token',
  'POST /v1/oauth/token',
  'POST /v1/oauth/par',
  'GET /v1/oauth/authorize',
  'GET /v1/oauth/authentication/callback',
  'GET /v1/oauth/interaction/callback',
  'POST /v1/openid/nonce',
  'POST /v1/openid/credential',
  'POST /v1/openid/notification',
  'POST /v1/openid/deferred_credential',
  // OpenID4VP 1.0: the wallet fetches the request object and posts its response (docs/verification.md).
  'GET /v1/openid/presentations/:id/request',
  'POST /v1/openid/presentations/:id/request',
  'POST /v1/openid/presentations/:id/response',
]);

/**
 * Pages for people, not API endpoints: their refusals are HTML pages (docs/offer-page.md and the
 * presentation page of docs/verification.md), so
 * only their status is judged (never a 5xx), not their body.
 */
const HTML_ROUTES = new Set(['GET /v1/openid/offers/:id/page', 'GET /v1/openid/presentations/:id/page']);

interface Route {
  method: string;
  url: string;
}

/** Every method and URL the app serves, read from Fastify's own route tree. */
function routesOf(app: FastifyInstance): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, -]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] as string).length / 4;
    const path = (stack[depth - 1] ?? '') + (m[2] as string);
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (m[3] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean))
      routes.push({ method, url: path });
  }
  return routes;
}

// ---------------------------------------------------------------------------------------------
// What a generated request is. Values that depend on the running server (ids, tokens, codes)
// are placeholders resolved when the request is sent, so one seed always yields the same requests.

type ParamChoice = { kind: 'real'; n: number } | { kind: 'uuid' | 'long' | 'pct' | 'traversal' | 'proto' | 'empty' | 'did' | 'text'; n: number; text: string };

type BodyChoice =
  | { kind: 'none' }
  | { kind: 'base'; edits: Array<[string, unknown]> }
  | { kind: 'json'; value: unknown }
  | { kind: 'deep'; depth: number; shape: 'array' | 'object' | 'mixed'; inField: boolean }
  | { kind: 'huge'; bytes: number; where: 'value' | 'key' | 'array' }
  | { kind: 'proto'; variant: number }
  | { kind: 'badUtf8'; bytes: number[] }
  | { kind: 'form'; pairs: Array<[string, string]>; repeat: number }
  | { kind: 'xml'; variant: number; text: string }
  | { kind: 'bytes'; data: number[] }
  | { kind: 'text'; text: string };

type RawKind =
  | 'headers431'
  | 'truncated'
  | 'badContentLength'
  | 'twoContentLengths'
  | 'chunkedAndLength'
  | 'badChunk'
  | 'badRequestLine'
  | 'noHost'
  | 'badHeaderName'
  | 'nulInPath'
  | 'garbage'
  | 'bareLf'
  | 'hugeUrl'
  | 'http09';

interface Case {
  route: number;
  wrongMethod: string | null;
  params: ParamChoice[];
  query: Array<[string, string]> | null;
  host: number;
  auth: number;
  contentType: string | null | undefined;
  headers: Array<[string, string]>;
  body: BodyChoice;
  raw: { kind: RawKind; size: number; bytes: number[] } | null;
}

const printable = (max: number) => fc.string({ maxLength: max }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));
const anyText = (max: number) =>
  fc.oneof(fc.string({ maxLength: max }), fc.string({ unit: 'grapheme', maxLength: max }), fc.string({ unit: 'binary', maxLength: max }));

const paramChoice: fc.Arbitrary<ParamChoice> = fc.oneof(
  { weight: 4, arbitrary: fc.nat(3).map((n) => ({ kind: 'real' as const, n })) },
  fc.record({ kind: fc.constant('uuid' as const), n: fc.nat(), text: fc.uuid() }),
  fc.record({ kind: fc.constant('long' as const), n: fc.integer({ min: 201, max: 12_000 }), text: fc.constantFrom('a', '%41', 'é', '-') }),
  fc.record({
    kind: fc.constant('pct' as const),
    n: fc.nat(),
    text: fc.constantFrom('%', '%zz', '%00', '%C0%AF', '%FF%FE', '%E2%80%AE', '%ED%A0%80', '%2e%2e', 'a%', '%%', '%u0041', '%0d%0aX-Injected:%201'),
  }),
  fc.record({
    kind: fc.constant('traversal' as const),
    n: fc.nat(),
    text: fc.constantFrom('..', '.', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2f', 'a/../..', '..;', '~'),
  }),
  fc.record({ kind: fc.constant('proto' as const), n: fc.nat(), text: fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString') }),
  fc.record({ kind: fc.constant('empty' as const), n: fc.nat(), text: fc.constant('') }),
  fc.record({
    kind: fc.constant('did' as const),
    n: fc.nat(),
    text: fc.constantFrom(
      'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      `did:web:${HOST}`,
      'did:web:%00',
      'did:',
      'did:web:a:b:c:d:e:f',
      'did:key:',
    ),
  }),
  fc.record({ kind: fc.constant('text' as const), n: fc.nat(), text: anyText(60) }),
);

const queryKey = fc.oneof(
  fc.constantFrom(
    'limit',
    'cursor',
    'ids',
    'requestIds',
    'categories',
    'types',
    'dateFrom',
    'dateTo',
    'type',
    'iacaId',
    '__proto__',
    'constructor',
    'constructor[prototype][x]',
    '__proto__[polluted]',
    'limit[]',
    'a[b][c][d]',
    '',
  ),
  printable(20),
);
const queryValue = fc.oneof(
  fc.constantFrom(
    '-1',
    '0',
    '1',
    '101',
    '1e309',
    'NaN',
    'abc',
    '%zz',
    '%00',
    '%FF',
    '999999999999999999999999',
    '',
    'null',
    '[]',
    '{}',
    'true',
    ',,,',
    'a,b,c',
    '2026-13-45T99:99:99Z',
    'Infinity',
  ),
  printable(60),
  fc.integer({ min: 1000, max: 20_000 }).map((n) => 'q'.repeat(n)),
);

const wrongType = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    1e308,
    -0,
    '',
    ' ',
    '0',
    'null',
    [],
    {},
    [[]],
    [{}],
    { $ne: null },
    { $gt: '' },
    'x'.repeat(3000),
    'a\u0000b',
    '\ud800',
    '\udfff\ud800',
    '\u202e\r\n\t',
    { 'k\u0000': '\u0000' },
  ),
  fc.jsonValue({ maxDepth: 3 }),
);

const bodyChoice: fc.Arbitrary<BodyChoice> = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('base' as const),
      edits: fc.array(fc.tuple(fc.oneof(fc.constantFrom('$field', '$field', '$field', '$nested'), printable(12)), wrongType), { maxLength: 3 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 4 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('deep' as const),
      depth: fc.oneof(fc.constantFrom(5000, 5000, 4999, 10_000, 65, 129, 1000), fc.integer({ min: 2, max: 6000 })),
      shape: fc.constantFrom('array' as const, 'object' as const, 'mixed' as const),
      inField: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('huge' as const),
      bytes: fc.oneof(
        fc.integer({ min: BODY_LIMIT - 4096, max: BODY_LIMIT - 64 }),
        fc.integer({ min: 64 * 1024, max: 512 * 1024 }),
        fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT + 4096 }),
      ),
      where: fc.constantFrom('value' as const, 'key' as const, 'array' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('proto' as const), variant: fc.nat(5) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('badUtf8' as const),
      bytes: fc.array(fc.constantFrom(0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xf8, 0xc3, 0x28, 0xe2, 0x82, 0x00), { minLength: 1, maxLength: 12 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('form' as const),
      pairs: fc.array(
        fc.tuple(
          fc.oneof(queryKey, fc.constantFrom('grant_type', 'pre-authorized_code', 'tx_code', 'client_id', 'client_secret', 'audience', 'domain', 'claims[x]')),
          queryValue,
        ),
        { maxLength: 8 },
      ),
      repeat: fc.oneof(fc.constant(1), fc.constant(1), fc.integer({ min: 2, max: 3000 })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('xml' as const), variant: fc.nat(7), text: printable(40) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bytes' as const), data: fc.array(fc.nat(255), { maxLength: 300 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      text: fc.oneof(
        anyText(200),
        fc.constantFrom(
          '{',
          '{"a":',
          '[1,2',
          '{"a":1}}',
          'nul',
          '"unterminated',
          '{"a":1,}',
          "{'a':1}",
          '{"a":NaN}',
          '\ufeff{}',
          '{"__proto__":{"x":1}}',
          '{"claims":{"x":"\\u0000"},"name":"\\ud800"}',
        ),
      ),
    }),
  },
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) }, // the one that fits the body
  {
    weight: 3,
    arbitrary: fc.constantFrom<string | null>(
      null,
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/json; charset=utf-16le',
      'application/x-www-form-urlencoded',
      'application/xml',
      'text/xml',
      'text/plain',
      'multipart/form-data; boundary=--x',
      'application/octet-stream',
      'application/jwt',
      'application/jose',
      '*/*',
      'application/json;;;',
      'application/',
      ';',
      'APPLICATION/JSON',
      'application/json, text/plain',
      'application/x-www-form-urlencoded; charset=utf-16',
    ),
  },
  { weight: 1, arbitrary: printable(40) },
);

const headerName = fc.oneof(
  fc.constantFrom(
    'accept',
    'accept-encoding',
    'accept-language',
    'origin',
    'referer',
    'cookie',
    'dpop',
    'x-forwarded-for',
    'x-forwarded-host',
    'x-forwarded-proto',
    'x-request-id',
    'if-none-match',
    'range',
    'expect',
    'user-agent',
    'oauth-client-attestation',
    'x-http-method-override',
  ),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
);
const headerValue = fc.oneof(
  printable(100),
  fc.constantFrom('100-continue', 'gzip, deflate, br', '*/*', 'bytes=0-1,5-', 'null', '1.2.3.4, ::1, garbage', 'https://evil.example'),
  fc.integer({ min: 1000, max: 8000 }).map((n) => 'h'.repeat(n)),
);

const rawChoice = fc.record({
  kind: fc.constantFrom<RawKind>(
    'headers431',
    'headers431',
    'truncated',
    'truncated',
    'badContentLength',
    'twoContentLengths',
    'chunkedAndLength',
    'badChunk',
    'badRequestLine',
    'noHost',
    'badHeaderName',
    'nulInPath',
    'garbage',
    'bareLf',
    'hugeUrl',
    'http09',
  ),
  size: fc.integer({ min: 1, max: 4 }),
  bytes: fc.array(fc.nat(255), { minLength: 1, maxLength: 200 }),
});

function caseFor(route: number): fc.Arbitrary<Case> {
  return fc.record({
    route: fc.constant(route),
    wrongMethod: fc.oneof(
      { weight: 30, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom('OPTIONS', 'PATCH', 'TRACE', 'PROPFIND', 'SEARCH') },
    ),
    params: fc.array(paramChoice, { minLength: 6, maxLength: 6 }),
    query: fc.oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.array(fc.tuple(queryKey, queryValue), { minLength: 1, maxLength: 6 }) },
    ),
    host: fc.oneof({ weight: 12, arbitrary: fc.constant(0) }, { weight: 4, arbitrary: fc.integer({ min: 1, max: 8 }) }),
    auth: fc.oneof({ weight: 6, arbitrary: fc.constant(1) }, { weight: 8, arbitrary: fc.integer({ min: 0, max: 10 }) }),
    contentType,
    headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 3 }),
    body: bodyChoice,
    raw: fc.oneof({ weight: 16, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: rawChoice }),
  });
}

// ---------------------------------------------------------------------------------------------
// The server's real objects the placeholders resolve to.

interface Fixtures {
  adminToken: string;
  otherTenantToken: string;
  walletToken: string;
  clientId: string;
  audience: string;
  /** Real ids by the path segment before the parameter: `users`, `webhooks`, `iacas`, … */
  ids: Map<string, string[]>;
  codes: string[];
  configurationId: string;
  notificationId: string;
}

const BASE_BODIES: Record<string, (f: Fixtures) => unknown> = {
  'POST /oauth/token': (f) => ({ grant_type: 'client_credentials', client_id: f.clientId, client_secret: 'not-the-secret', audience: f.audience }),
  'POST /v1/config/domain': () => ({ domain: 'licensing.example.org', name: 'Fuzz Licensing', logoUrl: 'https://licensing.example.org/logo.png' }),
  'PUT /v1/config/domain': () => ({ domain: 'licensing.example.org', name: 'Fuzz Licensing' }),
  'PUT /v1/config/analytics': () => ({ loggingLevel: 3 }),
  'POST /v1/dids': () => ({ method: 'key', options: { keyType: 'P-256' } }),
  'POST /v1/webhooks': () => ({ events: ['OpenIdCredentialIssued'], url: 'https://hooks.example.com/vellum' }),
  'PUT /v1/webhooks/:id': () => ({ events: ['OpenIdCredentialIssued'], url: 'https://hooks.example.com/vellum', disabled: true }),
  'POST /v1/users': () => ({ claims: { familyName: 'Doe', givenName: 'Ada' } }),
  'PUT /v1/users/:id': () => ({ claims: { familyName: 'Doe' } }),
  'POST /v1/users/search': () => ({ authenticationProvider: { subjectId: 'someone' } }),
  'POST /v1/users/authentication-providers': () => ({ url: 'https://login.example.com/realms/fuzz', clientId: 'vellum', clientSecret: 'fuzz-provider-secret' }),
  'PUT /v1/users/authentication-providers/:id': () => ({
    url: 'https://login.example.com/realms/fuzz',
    clientId: 'vellum',
    scope: 'email',
    claimsToPersist: ['email'],
  }),
  'POST /v1/openid/clients': () => ({
    clientName: 'Fuzz Wallet',
    redirectUris: ['https://wallet.example.com/cb', 'com.example.wallet:/cb'],
    tokenEndpointAuthMethod: 'client_secret_basic',
  }),
  'PUT /v1/openid/clients/:clientId': () => ({ clientName: 'Fuzz Wallet', redirectUris: ['http://127.0.0.1:8080/cb'], dpop: { required: true } }),
  'PUT /v1/openid/configuration': () => ({ interactionHook: { url: 'https://kyc.example.com/step', claims: ['email'], sessionTimeoutInSec: 600 } }),
  'POST /v1/claim-sources': () => ({
    name: 'CRM',
    url: 'https://crm.example.com/claims',
    requestMethod: 'GET',
    requestParameters: { email: { mapFrom: 'claims.email' } },
    authorization: { type: 'api-key', value: 'fuzz-api-key' },
  }),
  'PUT /v1/claim-sources/:id': () => ({ name: 'CRM', url: 'https://crm.example.com/claims', requestMethod: 'POST', authorization: { type: 'api-key' } }),
  'POST /v1/openid/offers': (f) => ({ credentials: [f.configurationId], byReference: true }),
  'POST /v1/openid/offers/pre-authorized': (f) => ({
    credentials: [f.configurationId],
    claims: { familyName: 'Doe' },
    transactionCodeConfiguration: { inputMode: 'numeric', length: 6 },
  }),
  'POST /v1/openid/notification': (f) => ({ notification_id: f.notificationId, event: 'credential_accepted' }),
  'POST /v1/openid/deferred_credential': () => ({ transaction_id: 'fuzz-transaction' }),
  'POST /v2/credentials/deferred/:id/deny': () => ({ reason: 'Fuzz' }),
  'POST /v1/openid/credential': (f) => ({ credential_configuration_id: f.configurationId, proof: { proof_type: 'jwt', jwt: 'eyJhbGciOiJub25lIn0.e30.' } }),
  'POST /v1/oauth/par': (f) => ({
    response_type: 'code',
    client_id: f.ids.get('clients')?.[1] ?? 'x',
    redirect_uri: 'https://wallet1.example.com/cb',
    scope: 'mso_mdoc:org.iso.18013.5.1.mDL',
    state: 'fuzz',
    code_challenge_method: 'S256',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  }),
  'POST /v1/oauth/token': (f) => ({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': f.codes[0] ?? 'x', tx_code: '123456' }),
  'POST /v2/credentials/mobile/iacas': () => ({ country: 'US', commonName: 'Fuzz IACA' }),
  'PUT /v2/credentials/mobile/iacas/:id': () => ({ active: true }),
  'POST /v2/credentials/mobile/document-signers': (f) => ({ iacaId: f.ids.get('iacas')?.[0] ?? 'x' }),
  'PUT /v2/credentials/mobile/document-signers/:id': () => ({ active: true }),
};
const MDL = {
  type: 'org.iso.18013.5.1.mDL',
  expiresIn: { days: 30 },
  claimMappings: { 'org.iso.18013.5.1': { family_name: { mapFrom: 'claims.familyName' } } },
};
const PLAIN = { type: 'FuzzCredential', expiresIn: { days: 1 }, issuer: { name: 'Fuzz' }, claimMappings: { n: { mapFrom: 'claims.n' } } };

function baseBody(route: Route, f: Fixtures): unknown {
  const known = BASE_BODIES[`${route.method} ${route.url}`];
  if (known) return known(f);
  if (/\/configurations(\/:id)?$/.test(route.url)) return route.url.includes('/mobile/') ? MDL : PLAIN;
  return {};
}

const HOSTS = [HOST, 'nobody.eu01.vellum.test', '127.0.0.1', OTHER_HOST, `${HOST}:8443`, 'a..b', '[::1]', `${'a'.repeat(300)}.${PLATFORM}`, HOST.toUpperCase()];

function authorization(n: number, f: Fixtures): string | undefined {
  switch (n) {
    case 0:
      return undefined;
    case 1:
      return `Bearer ${f.adminToken}`;
    case 2:
      return `Bearer ${f.otherTenantToken}`;
    case 3:
      return `Bearer ${f.walletToken}`;
    case 4:
      return `DPoP ${f.walletToken}`;
    case 5:
      return 'Bearer';
    case 6:
      return `Bearer ${'A'.repeat(9000)}`;
    case 7:
      return 'Basic Zm9vOmJhcg==';
    case 8:
      return 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.';
    case 9:
      return `Bearer ${f.adminToken.slice(0, -4)}AAAA`;
    default:
      return 'bearer  \t garbage';
  }
}

function paramValue(choice: ParamChoice, holder: string, method: string, f: Fixtures): string {
  if (choice.kind === 'real') {
    const ids = f.ids.get(holder) ?? [];
    // A DELETE with a real id uses the last, sacrificial fixture: the others stay for the rest of the run.
    const id = method === 'DELETE' ? ids[ids.length - 1] : ids[choice.n % Math.max(1, ids.length - 1)];
    return id === undefined ? crypto.randomUUID() : encodeURIComponent(id);
  }
  if (choice.kind === 'long') return choice.text.repeat(choice.n);
  if (choice.kind === 'text' || choice.kind === 'did') return safeEncode(choice.text) || 'x';
  return choice.text;
}

/** Percent-encodes what an HTTP client may not send raw, leaving deliberate garbage like `%zz`. */
function safeEncode(s: string): string {
  return s.replace(/[^\x21-\x7e]|[#?/]/gu, formEncode);
}

/** Percent-encodes the UTF-8 bytes of any string, lone surrogates included (as U+FFFD). */
function formEncode(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0').toUpperCase()}`))
    .join('');
}

function nest(depth: number, shape: 'array' | 'object' | 'mixed'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    const array = shape === 'array' || (shape === 'mixed' && i % 2 === 0);
    open += array ? '[' : '{"a":';
    close = (array ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}

function withEdits(base: unknown, edits: Array<[string, unknown]>): unknown {
  if (base === null || typeof base !== 'object' || Array.isArray(base)) return base;
  const copy = structuredClone(base) as Record<string, unknown>;
  const keys = Object.keys(copy);
  edits.forEach(([key, shared], i) => {
    const value = structuredClone(shared);
    if (key === '$field' && keys.length) copy[keys[i % keys.length] as string] = value;
    else if (key === '$nested') {
      const inner = Object.values(copy).find((v) => v !== null && typeof v === 'object' && !Array.isArray(v)) as Record<string, unknown> | undefined;
      if (inner) inner[Object.keys(inner)[0] ?? 'x'] = value;
      else copy.extra = value;
    } else if (key !== '$field') Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  });
  return copy;
}

const PROTO_BODIES = [
  (b: string) => `{"__proto__":{"admin":true,"role":"admin","loggingLevel":3},${b.slice(1)}`,
  (b: string) => `{"constructor":{"prototype":{"polluted":true}},${b.slice(1)}`,
  (b: string) => `${b.slice(0, -1)}${b.length > 2 ? ',' : ''}"prototype":{"x":1},"__proto__":null}`,
  () => '{"claims":{"__proto__":{"polluted":true}},"__proto__":{"claims":{"x":1}}}',
  () => '[{"__proto__":{"x":1}},{"constructor":{"prototype":{"x":1}}}]',
  (b: string) => `{"hasOwnProperty":1,"toString":"x","valueOf":null,${b.slice(1)}`,
];

const XML_BODIES = [
  (t: string) => `<?xml version="1.0"?><domain>${escapeXml(t)}</domain>`,
  () =>
    `<?xml version="1.0"?><!DOCTYPE a [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]><r><domain>&d;&d;&d;&d;</domain></r>`,
  () => `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r><domain>&x;</domain></r>`,
  () => `${'<a>'.repeat(5000)}x${'</a>'.repeat(5000)}`,
  () => '<r><domain>licensing.example.org</domain><name>unterminated',
  () => '<?xml version="1.0" encoding="UTF-7"?><r><domain>+ADw-x+AD4-</domain></r>',
  (t: string) => `<r ${Array.from({ length: 2000 }, (_, i) => `a${i}="${escapeXml(t)}"`).join(' ')}/>`,
  () => '<r><__proto__><polluted>1</polluted></__proto__><constructor>x</constructor></r>',
];

function escapeXml(s: string): string {
  return s.replace(/[<>&"]/g, '_');
}

/** What the parameter at `segments[i]` names: the segment before it (`users`, `iacas`, …), configurations by format. */
function holderOf(segments: string[], i: number): string {
  const before = segments[i - 1] ?? '';
  return before === 'configurations' ? `configurations@${segments[i - 2] ?? ''}` : before;
}

interface Materialised {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}

function materialise(c: Case, route: Route, f: Fixtures): Materialised {
  const segments = route.url.split('/');
  let p = 0;
  const path = segments
    .map((segment, i) =>
      segment.startsWith(':') ? paramValue(c.params[p++ % c.params.length] as ParamChoice, holderOf(segments, i), route.method, f) : segment,
    )
    .join('/');
  const query = c.query ? `?${c.query.map(([k, v]) => `${safeEncode(k)}=${safeEncode(v)}`).join('&')}` : '';
  const base = baseBody(route, f);
  const baseJson = JSON.stringify(base) ?? '{}';
  const form = OAUTH_ROUTES.has(`${route.method} ${route.url}`) && (route.url.endsWith('/token') || route.url.endsWith('/par'));
  let body: Buffer | undefined;
  let type: string | undefined = 'application/json';
  const b = c.body;
  switch (b.kind) {
    case 'none':
      type = undefined;
      break;
    case 'base': {
      const edited = withEdits(base, b.edits);
      if (form && edited && typeof edited === 'object') {
        type = 'application/x-www-form-urlencoded';
        body = Buffer.from(
          Object.entries(edited)
            .map(([k, v]) => `${formEncode(k)}=${formEncode(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))}`)
            .join('&'),
        );
      } else body = Buffer.from(JSON.stringify(edited) ?? 'null');
      break;
    }
    case 'json':
      body = Buffer.from(JSON.stringify(b.value) ?? 'null');
      break;
    case 'deep': {
      const deep = nest(b.depth, b.shape);
      const key = Object.keys((base ?? {}) as object)[0] ?? 'claims';
      body = Buffer.from(b.inField ? `${baseJson.slice(0, -1)}${baseJson.length > 2 ? ',' : ''}"${key}x":${deep}}` : deep);
      break;
    }
    case 'huge': {
      const filler = 'x'.repeat(Math.max(0, b.bytes - baseJson.length - 16));
      body = Buffer.from(
        b.where === 'key'
          ? `{"${filler}":1}`
          : b.where === 'array'
            ? `[${'1,'.repeat(Math.floor(filler.length / 2))}1]`
            : `${baseJson.slice(0, -1)}${baseJson.length > 2 ? ',' : ''}"big":"${filler}"}`,
      );
      break;
    }
    case 'proto':
      body = Buffer.from((PROTO_BODIES[b.variant % PROTO_BODIES.length] as (s: string) => string)(baseJson.startsWith('{') ? baseJson : '{}'));
      break;
    case 'badUtf8':
      body = Buffer.concat([Buffer.from('{"name":"'), Buffer.from(b.bytes), Buffer.from(`","domain":"a`), Buffer.from(b.bytes), Buffer.from('.example"}')]);
      break;
    case 'form':
      type = 'application/x-www-form-urlencoded';
      body = Buffer.from(Array.from({ length: b.repeat }, () => b.pairs.map(([k, v]) => `${safeEncode(k)}=${safeEncode(v)}`).join('&')).join('&'));
      break;
    case 'xml':
      type = 'application/xml';
      body = Buffer.from((XML_BODIES[b.variant % XML_BODIES.length] as (t: string) => string)(b.text));
      break;
    case 'bytes':
      type = 'application/octet-stream';
      body = Buffer.from(b.data);
      break;
    case 'text':
      body = Buffer.from(b.text);
      break;
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of c.headers) headers[k] = v;
  headers.host = HOSTS[c.host % HOSTS.length] as string;
  const auth = authorization(c.auth, f);
  if (auth !== undefined) headers.authorization = auth;
  const ct = c.contentType === undefined ? type : c.contentType;
  if (ct !== null && ct !== undefined) headers['content-type'] = ct;
  else delete headers['content-type'];
  // The agent owns the connection and the framing; forged ones go through raw sockets below.
  for (const h of ['connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer']) delete headers[h];
  delete headers.expect;
  // Set here: Node's client would send a GET, HEAD or DELETE body without any framing at all.
  if (body) headers['content-length'] = String(body.length);
  return { method: c.wrongMethod ?? route.method, path: path + query, headers, body };
}

// ---------------------------------------------------------------------------------------------
// Sending and judging.

interface Answer {
  status: number;
  requestId: string;
  type: string;
  text: string;
}

interface Failure {
  method: string;
  url: string;
  status: number | string;
  reason: string;
  excerpt: string;
}

const KNOWN_CODES = new Set(Object.keys(STATUS_BY_CODE));

/** Why an error answer is not the error body of docs/errors.md, or undefined when it is. */
function badErrorBody(answer: Answer, oauthRoute: boolean): string | undefined {
  if (answer.status === 401 && !oauthRoute) {
    if (answer.type.startsWith('text/plain') && answer.text === 'Unauthorized') return undefined;
  }
  if (!answer.type.startsWith('application/json')) return `error answered as ${answer.type || 'no content type'}`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return 'error body is not JSON';
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'error body is not an object';
  const { code, message, details, error, error_description: description, ...rest } = body as Record<string, unknown>;
  if (typeof code !== 'string' || !KNOWN_CODES.has(code)) return `unknown code ${JSON.stringify(code)}`;
  if (STATUS_BY_CODE[code as keyof typeof STATUS_BY_CODE] !== answer.status) return `code ${code} with status ${answer.status}`;
  if (typeof message !== 'string' || message === '') return 'no message';
  if (details !== undefined) {
    if (!Array.isArray(details)) return 'details is not a list';
    for (const d of details as Array<Record<string, unknown>>) {
      if (typeof d?.msg !== 'string' || typeof d.param !== 'string' || typeof d.location !== 'string') return 'a details entry lacks msg, param or location';
    }
  }
  if (Object.keys(rest).length) return `unexpected fields ${Object.keys(rest).join(', ')}`;
  if ((error === undefined) !== (description === undefined)) return 'error without error_description, or the reverse';
  if (error !== undefined && (typeof error !== 'string' || typeof description !== 'string')) return 'error fields are not strings';
  // A route's own failures use its style; 404 may come from the not-found handler or the tenant
  // lookup, 431 from the connection, and a URL that does not decode (or a request line Node cannot
  // parse) is refused before any route is known, so those take the API style everywhere.
  const beforeRouting = message === 'Malformed URL: its percent-encoding does not decode' || message === 'Malformed HTTP request';
  if (oauthRoute && error === undefined && answer.status !== 404 && answer.status !== 431 && !beforeRouting)
    return 'OAuth endpoint answered without error/error_description';
  if (!oauthRoute && error !== undefined && answer.status !== 404) return 'admin endpoint answered with OAuth fields';
  return undefined;
}

function send(port: number, agent: Agent, m: Materialised): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: m.method, path: m.path, headers: m.headers, agent, timeout: 20_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          requestId: String(res.headers['x-request-id'] ?? ''),
          type: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 20 s')));
    req.on('error', reject);
    req.end(m.body);
  });
}

/** Writes bytes on a fresh connection (then half-closes it when asked) and reads until the server closes or 5 s pass. */
function sendRaw(port: number, chunks: Array<Buffer | string>, halfClose: boolean): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const got: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(got).toString('latin1'));
    };
    const timer = setTimeout(done, 5_000);
    socket.on('data', (c: Buffer) => {
      got.push(c);
      // One answer is enough: stop once its headers and declared body have arrived.
      const text = Buffer.concat(got).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: *(\d+)/i.exec(text);
      if (end >= 0 && length && Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(length[1])) done();
    });
    socket.on('error', done);
    socket.on('close', done);
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
      if (halfClose) socket.end();
    });
  });
}

/** The bytes of a malformed request of one kind, aimed at the given path. */
function rawRequest(
  kind: RawKind,
  path: string,
  host: string,
  size: number,
  bytes: number[],
): { chunks: Array<Buffer | string>; halfClose: boolean; expect4xx: boolean } {
  const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;
  switch (kind) {
    case 'headers431':
      return {
        chunks: [
          head([
            `GET ${path} HTTP/1.1`,
            `Host: ${host}`,
            ...Array.from({ length: size + 1 }, (_, i) => `X-Big-${i}: ${'b'.repeat(MAX_HEADER_BYTES / 2 + 100)}`),
          ]),
        ],
        halfClose: false,
        expect4xx: true,
      };
    case 'truncated':
      return {
        chunks: [
          head([`POST ${path} HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json', `Content-Length: ${1000 * size}`]),
          '{"domain":"licensing.ex',
        ],
        halfClose: true,
        expect4xx: true,
      };
    case 'badContentLength':
      return {
        chunks: [head([`POST ${path} HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json', 'Content-Length: 12abc']), '{}'],
        halfClose: false,
        expect4xx: true,
      };
    case 'twoContentLengths':
      return {
        chunks: [head([`POST ${path} HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json', 'Content-Length: 2', 'Content-Length: 7']), '{}'],
        halfClose: false,
        expect4xx: true,
      };
    case 'chunkedAndLength':
      return {
        chunks: [
          head([`POST ${path} HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json', 'Content-Length: 5', 'Transfer-Encoding: chunked']),
          '2\r\n{}\r\n0\r\n\r\n',
        ],
        halfClose: false,
        expect4xx: true,
      };
    case 'badChunk':
      return {
        chunks: [head([`POST ${path} HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked']), 'zz\r\n{}\r\n0\r\n\r\n'],
        halfClose: false,
        expect4xx: true,
      };
    case 'badRequestLine':
      return { chunks: [`GET  ${path}  HTTP/1.1 extra\r\nHost: ${host}\r\n\r\n`], halfClose: false, expect4xx: true };
    case 'noHost':
      return { chunks: [head([`GET ${path} HTTP/1.1`])], halfClose: false, expect4xx: true };
    case 'badHeaderName':
      return { chunks: [head([`GET ${path} HTTP/1.1`, `Host: ${host}`, 'Bad Header: x', 'X-Ok\u0000: y'])], halfClose: false, expect4xx: true };
    case 'nulInPath':
      return {
        chunks: [Buffer.concat([Buffer.from(`GET ${path}`), Buffer.from([0, 0x0b, 0x7f]), Buffer.from(` HTTP/1.1\r\nHost: ${host}\r\n\r\n`)])],
        halfClose: false,
        expect4xx: true,
      };
    case 'garbage':
      return { chunks: [Buffer.concat([Buffer.from(bytes), Buffer.from('\r\n\r\n')])], halfClose: false, expect4xx: true };
    case 'bareLf':
      return { chunks: [`GET ${path} HTTP/1.1\nHost: ${host}\nX-A: 1\r\n\n`], halfClose: false, expect4xx: false };
    case 'hugeUrl':
      return { chunks: [head([`GET ${path}?${'u'.repeat(MAX_HEADER_BYTES + 1000 * size)} HTTP/1.1`, `Host: ${host}`])], halfClose: false, expect4xx: true };
    case 'http09':
      // A request line without a version (HTTP/0.9's form) Node reads leniently; any answer below 500 will do.
      return { chunks: [`GET ${path}\r\n\r\n`], halfClose: false, expect4xx: false };
  }
}

// ---------------------------------------------------------------------------------------------

const totals = { sent: 0, failed: 0 };
// The count the issue asks for, as the very last line of the output.
afterAll(() => console.log(`fuzz: ${totals.sent} requests, ${totals.failed} failures`));

const backends: Array<[string, () => Backend, boolean, number]> = [
  ['sqlite', () => sqliteBackend(), false, REQUESTS],
  // PostgreSQL runs when VELLUM_TEST_DATABASE_URL names a server; CI always sets it.
  ['postgres', () => postgresBackend('vellum_fuzz'), !pgAdminUrl, PG_REQUESTS],
];

describe.each(backends)('the keeper: generated malformed requests at every route of the real server on %s (hardening)', (name, makeBackend, skip, requests) => {
  /** Every route (method and URL) gets at least this many of the generated requests. */
  const minPerRoute = Math.min(40, Math.floor(requests / 150));
  let backend: Backend;
  let runtime: Runtime;
  let app: FastifyInstance;
  let port = 0;
  let flusher: NodeJS.Timeout | undefined;
  let routes: Route[] = [];
  let fixtures: Fixtures;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let sent = 0;
  const failures: Failure[] = [];

  beforeAll(async () => {
    if (skip) return;
    backend = makeBackend();
    const env = {
      ...(await backend.env()),
      VELLUM_MASTER_KEY: randomBytes(32).toString('base64'),
      VELLUM_PLATFORM_DOMAIN: PLATFORM,
      VELLUM_DEFAULT_TENANT: '',
      VELLUM_LOG_LEVEL: 'silent',
    };
    const config = loadConfig(env);
    const logger = createLogger('silent');
    runtime = await openRuntime(config, logger);
    app = await buildApp(runtime, config, logger);
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
    // As `vellum serve` does: analytic events are written on a timer.
    flusher = setInterval(() => void runtime.vellum.recorder.flush(), config.eventFlushIntervalMs);
    routes = routesOf(app);

    const tenant = await runtime.vellum.tenants.createTenant({ subdomain: 'fuzz', region: 'eu01' });
    const other = await runtime.vellum.tenants.createTenant({ subdomain: 'other', region: 'eu01' });
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await send(port, agent, {
        method,
        path,
        headers: { host: HOST, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
      });
      return { ...res, json: () => JSON.parse(res.text) };
    };
    const login = async (host: string, clientId: string, clientSecret: string) =>
      (
        await call(
          'POST',
          '/oauth/token',
          { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: `https://${host}` },
          { host },
        )
      ).json().access_token as string;
    const adminToken = await login(HOST, tenant.client.clientId, tenant.clientSecret);
    const otherTenantToken = await login(OTHER_HOST, other.client.clientId, other.clientSecret);
    const admin = { authorization: `Bearer ${adminToken}` };
    const made = async (method: string, path: string, body?: unknown) => {
      const res = await call(method, path, body, admin);
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
      return res.text ? res.json() : undefined;
    };

    expect((await call('PUT', '/v1/config/analytics', { loggingLevel: 3 }, admin)).status).toBe(200);
    const ids = new Map<string, string[]>();
    const add = (key: string, id: string) => ids.set(key, [...(ids.get(key) ?? []), id]);
    for (const format of ['mobile', 'web-semantic', 'compact', 'compact-semantic', 'sd-jwt']) {
      for (let i = 0; i < 3; i++)
        add(
          `configurations@${format}`,
          (
            await made('POST', `/v2/credentials/${format}/configurations`, {
              ...(format === 'mobile' ? MDL : PLAIN),
              ...(i ? { type: `org.example.fuzz${i}` } : {}),
            })
          ).id,
        );
    }
    const configurationId = (ids.get('configurations@mobile') as string[])[0] as string;
    for (let i = 0; i < 3; i++) add('users', (await made('POST', '/v1/users', { claims: { familyName: `Doe${i}` } })).id);
    for (let i = 0; i < 3; i++)
      add(
        'claim-sources',
        (
          await made('POST', '/v1/claim-sources', {
            name: `CRM ${i}`,
            url: `https://crm${i}.example.com/claims`,
            requestMethod: 'GET',
            authorization: { type: 'api-key', value: `key-${i}` },
          })
        ).id,
      );
    for (let i = 0; i < 3; i++)
      add(
        'clients',
        (
          await made('POST', '/v1/openid/clients', {
            clientName: `Wallet ${i}`,
            redirectUris: [`https://wallet${i}.example.com/cb`],
            ...(i ? {} : { tokenEndpointAuthMethod: 'client_secret_post' }),
          })
        ).clientId,
      );
    add(
      'authentication-providers',
      (
        await made('POST', '/v1/users/authentication-providers', {
          url: 'https://login.example.com/realms/fuzz',
          clientId: 'vellum',
          clientSecret: 'fuzz-provider-secret',
        })
      ).id,
    );
    for (let i = 0; i < 3; i++)
      add('webhooks', (await made('POST', '/v1/webhooks', { events: ['OpenIdCredentialIssued'], url: `https://hooks${i}.example.com/vellum` })).id);
    for (let i = 0; i < 3; i++) add('dids', (await made('POST', '/v1/dids', { method: 'key', options: { keyType: 'P-256' } })).did);
    for (let i = 0; i < 2; i++) add('iacas', (await made('POST', '/v2/credentials/mobile/iacas', { country: 'US' })).id);
    // Vellum makes the document signers of the IACAs it manages.
    for (const signer of (await made('GET', '/v2/credentials/mobile/document-signers')).data as Array<{ id: string }>) add('document-signers', signer.id);
    await made('POST', '/v1/config/domain', { domain: 'licensing.example.org', name: 'Fuzz Licensing' });
    const codes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const offer = await made('POST', '/v1/openid/offers/pre-authorized', { credentials: [configurationId], claims: { familyName: 'Doe' } });
      add('pre-authorized', offer.id);
      codes.push(JSON.parse(new URL(offer.uri).searchParams.get('credential_offer') as string).grants[PRE_AUTHORIZED_CODE_GRANT]['pre-authorized_code']);
    }
    for (let i = 0; i < 3; i++) {
      const byReference = await made('POST', '/v1/openid/offers', { credentials: [configurationId], byReference: true });
      add('offers', new URL(byReference.uri).searchParams.get('credential_offer_uri')?.split('/').pop() ?? 'x');
    }
    // One code is redeemed for a real wallet access token; the rest stay for the fuzzed token requests.
    const redeemed = await send(port, agent, {
      method: 'POST',
      path: '/v1/oauth/token',
      headers: { host: HOST, 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.from(new URLSearchParams({ grant_type: PRE_AUTHORIZED_CODE_GRANT, 'pre-authorized_code': codes.pop() as string }).toString()),
    });
    expect(redeemed.status, redeemed.text).toBe(200);
    const walletToken = JSON.parse(redeemed.text).access_token as string;
    fixtures = {
      adminToken,
      otherTenantToken,
      walletToken,
      clientId: tenant.client.clientId,
      audience: `https://${HOST}`,
      ids,
      codes,
      configurationId,
      notificationId: crypto.randomUUID(),
    };
  });

  afterAll(async () => {
    if (skip) return;
    if (flusher) clearInterval(flusher);
    agent.destroy();
    await app?.close();
    await runtime?.close();
    await backend?.cleanup();
    if (failures.length) {
      console.log(`fuzz: seed ${SEED} (replay with VELLUM_FUZZ_SEED=${SEED}); first failures:`);
      for (const f of failures.slice(0, 10)) console.log(`  ${f.method} ${f.url} -> ${f.status}: ${f.reason} | ${f.excerpt}`);
      // Then one example of each distinct kind of failure, most frequent first.
      const kinds = new Map<string, { n: number; example: Failure }>();
      for (const f of failures) {
        const key = `${f.status} ${f.reason}`;
        kinds.set(key, { n: (kinds.get(key)?.n ?? 0) + 1, example: kinds.get(key)?.example ?? f });
      }
      console.log('fuzz: kinds of failure:');
      for (const [key, { n, example }] of [...kinds].sort((a, b) => b[1].n - a[1].n))
        console.log(`  ${n} × ${key}: e.g. ${example.method} ${example.url} | ${example.excerpt}`);
    }
    console.log(`fuzz (${name}): ${sent} requests, ${failures.length} failures`);
    totals.sent += sent;
    totals.failed += failures.length;
  });

  it.skipIf(skip)(
    'sends every route its share of generated requests and none answers 5xx or a body other than the error body (docs/errors.md, docs/decisions.md "HTTP")',
    { timeout: 600_000 },
    async () => {
      expect(routes.length).toBeGreaterThan(50);
      const perRoute = Math.max(minPerRoute, Math.ceil(requests / routes.length));
      // One arbitrary per route, sampled with one seed: the same seed gives the same requests.
      const perRouteCases = routes.map((_route, i) => fc.sample(caseFor(i), { seed: SEED + i, numRuns: perRoute }));
      // Interleaved, so that concurrent requests hit different routes.
      const cases: Case[] = [];
      for (let j = 0; j < perRoute; j++) for (const list of perRouteCases) cases.push(list[j] as Case);
      const counts = new Array<number>(routes.length).fill(0);

      // Settings the fuzz may change back are pinned so the whole run stays at logging level 3.
      const pin = (m: Materialised) => {
        if (m.path === '/v1/config/analytics' && m.method === 'PUT' && m.body)
          m.body = Buffer.from(m.body.toString('latin1').replace(/"loggingLevel":\s*[12](?!\d)/g, '"loggingLevel":3'), 'latin1');
        return m;
      };

      let next = 0;
      const worker = async () => {
        while (next < cases.length) {
          const c = cases[next++] as Case;
          const route = routes[c.route] as Route;
          const oauthRoute = OAUTH_ROUTES.has(`${route.method} ${route.url}`) && c.wrongMethod === null;
          const m = pin(materialise(c, route, fixtures));
          counts[c.route] = (counts[c.route] ?? 0) + 1;
          sent++;
          const fail = (status: number | string, reason: string, excerpt: string) =>
            failures.push({
              method: m.method,
              url: `${route.method} ${route.url} as ${m.path.slice(0, 120)}`,
              status,
              reason: `${reason} [${c.raw?.kind ?? c.body.kind}]`,
              excerpt: excerpt.slice(0, 200),
            });
          if (c.raw) {
            const raw = rawRequest(c.raw.kind, m.path.length > 2000 ? route.url : m.path, HOST, c.raw.size, c.raw.bytes);
            const text = await sendRaw(port, raw.chunks, raw.halfClose);
            const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
            if (!status) fail('none', 'no status line', text);
            else if (Number(status[1]) >= 500) fail(Number(status[1]), '5xx', text);
            else if (raw.expect4xx && Number(status[1]) < 400) fail(Number(status[1]), 'malformed HTTP accepted', text);
            // A request line that is itself malformed (bytes a request target may not hold) is refused
            // as such before its headers are counted: 400 is then as right as 431.
            else if (
              c.raw.kind === 'headers431' &&
              Number(status[1]) !== 431 &&
              !(
                Number(status[1]) === 400 &&
                /[^\x21-\x7e]/.test(
                  Buffer.from(raw.chunks[0] ?? '')
                    .toString('latin1')
                    .split('\r\n')[0]
                    ?.split(' ')[1] ?? '',
                )
              )
            )
              fail(Number(status[1]), 'headers over 16 KB not answered 431', text);
            continue;
          }
          let answer: Answer;
          try {
            answer = await send(port, agent, m);
          } catch (err) {
            const message = (err as Error).message;
            fail('none', m.method === 'HEAD' && message.includes('Data after') ? 'HEAD answered with content (RFC 9110 §9.3.2)' : `transport: ${message}`, '');
            continue;
          }
          if (answer.status >= 500) fail(answer.status, '5xx', answer.text);
          else if (answer.status >= 400 && m.method !== 'HEAD' && !(HTML_ROUTES.has(`${route.method} ${route.url}`) && answer.type.startsWith('text/html'))) {
            const why = badErrorBody(answer, oauthRoute);
            if (why) fail(answer.status, why, answer.text);
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));

      const starved = routes.filter((_r, i) => (counts[i] ?? 0) < minPerRoute).map((r) => `${r.method} ${r.url}`);
      expect(starved, 'routes that got too few requests').toEqual([]);
      expect(sent).toBeGreaterThanOrEqual(requests);
      expect(failures.length, `seed ${SEED}: ${failures.length} of ${sent} requests failed (listed after the run)`).toBe(0);
    },
  );

  it.skipIf(skip)('stays healthy and still records analytic events at logging level 3 afterwards (docs/decisions.md "Analytic events")', async () => {
    const health = await send(port, agent, { method: 'GET', path: '/health', headers: { host: HOST }, body: undefined });
    expect(health.status).toBe(200);
    const auth = { host: HOST, authorization: `Bearer ${fixtures.adminToken}` };
    const settings = await send(port, agent, { method: 'GET', path: '/v1/config/analytics', headers: auth, body: undefined });
    expect(JSON.parse(settings.text)).toEqual({ loggingLevel: 3, eventRetentionDays: 90, webhookDeliveryRetentionDays: 30 });
    // A fresh operation: its events must show up in the log within a few flushes.
    const fresh = await send(port, agent, {
      method: 'POST',
      path: '/v1/users',
      headers: { ...auth, 'content-type': 'application/json' },
      body: Buffer.from('{"claims":{"familyName":"After"}}'),
    });
    expect(fresh.status, fresh.text).toBe(201);
    let types: string[] = [];
    for (let attempt = 0; attempt < 40 && !types.includes('USER_CREATE_SUCCESS'); attempt++) {
      await new Promise((r) => setTimeout(r, 250));
      const events = await send(port, agent, { method: 'GET', path: `/v1/events?requestIds=${fresh.requestId}`, headers: auth, body: undefined });
      expect(events.status, events.text).toBe(200);
      types = (JSON.parse(events.text).data as Array<{ type: string }>).map((e) => e.type);
    }
    expect(types).toEqual(expect.arrayContaining(['USER_CREATE_START', 'USER_CREATE_SUCCESS']));
  });
});
